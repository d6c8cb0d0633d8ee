package gemm

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/dpaudit/dpaudit/rng"
)

// useArch makes ar the current path for the rest of the test.
func useArch(tb testing.TB, ar *arch) {
	old := current
	current = ar
	tb.Cleanup(func() { current = old })
}

// forEachPath runs f as a subtest once per path this CPU supports.
func forEachPath(t *testing.T, f func(t *testing.T)) {
	for _, ar := range available {
		t.Run(ar.name, func(t *testing.T) {
			useArch(t, ar)
			f(t)
		})
	}
}

// matrix is a stored rows×cols matrix with row stride ld inside data. Stride
// padding holds NaN so that a kernel reading it poisons the result.
type matrix struct {
	rows, cols, ld int
	data           []float32
}

// need is the number of elements a rows×cols matrix with stride ld occupies.
func need(rows, cols, ld int) int {
	if rows == 0 || cols == 0 {
		return 0
	}
	return (rows-1)*ld + cols
}

// newMatrix fills a matrix with values from gen; alloc provides the backing
// slice of exactly need(rows, cols, ld) elements.
func newMatrix(rows, cols, ld int, alloc func(n int) []float32, gen func() float32) matrix {
	m := matrix{rows: rows, cols: cols, ld: ld, data: alloc(need(rows, cols, ld))}
	for i := range m.data {
		if i%ld < cols {
			m.data[i] = gen()
		} else {
			m.data[i] = float32(math.NaN())
		}
	}
	return m
}

func (m matrix) at(i, j int) float32 { return m.data[i*m.ld+j] }

// opAt returns op(X)[i][j].
func (m matrix) opAt(trans bool, i, j int) float32 {
	if trans {
		return m.at(j, i)
	}
	return m.at(i, j)
}

// reference computes alpha·op(A)·op(B) + beta·C0 in float64, and the error
// scale |alpha|·Σ|a||b| + |beta·c0| per element (the quantity the float32
// rounding error is proportional to; Higham, Accuracy and Stability of
// Numerical Algorithms, 2nd ed., §3.1).
func reference(transA, transB bool, m, n, k int, alpha float64, a, b matrix, beta float64, c0 matrix) (want, scale []float64) {
	want = make([]float64, m*n)
	scale = make([]float64, m*n)
	for i := 0; i < m; i++ {
		for j := 0; j < n; j++ {
			var s, sa float64
			for p := 0; p < k; p++ {
				x := float64(a.opAt(transA, i, p)) * float64(b.opAt(transB, p, j))
				s += x
				sa += math.Abs(x)
			}
			v := alpha * s
			sc := math.Abs(alpha) * sa
			if beta != 0 {
				v += beta * float64(c0.at(i, j))
				sc += math.Abs(beta * float64(c0.at(i, j)))
			}
			if alpha == 0 {
				v, sc = 0, 0
				if beta != 0 {
					v = beta * float64(c0.at(i, j))
					sc = math.Abs(v)
				}
			}
			want[i*n+j] = v
			scale[i*n+j] = sc
		}
	}
	return want, scale
}

func uniform(r *rand.Rand) func() float32 {
	return func() float32 { return float32(2*r.Float64() - 1) }
}

// smallInts draws integers in [-4, 4]: every product and partial sum of up to
// 2^19 terms is exact in float32, so any correct summation order gives the
// exact answer.
func smallInts(r *rand.Rand) func() float32 {
	return func() float32 { return float32(r.IntN(9) - 4) }
}

func goAlloc(n int) []float32 { return make([]float32, n) }

func newRand(path ...any) *rand.Rand { return rng.New(1, append([]any{"gemm-test"}, path...)...) }
