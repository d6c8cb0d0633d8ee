package glm

import (
	"math"
	"math/rand/v2"
	"testing"
)

// randomSym is a random symmetric n×n matrix.
func randomSym(n int, seed uint64) []float64 {
	r := rand.New(rand.NewPCG(seed, 1))
	a := make([]float64, n*n)
	for i := range n {
		for j := i; j < n; j++ {
			v := r.NormFloat64()
			a[i*n+j], a[j*n+i] = v, v
		}
	}
	return a
}

// TestGram: AᵀA against the plain triple loop (to rounding, n that
// leave partial panels and k blocks; symmetric and lower triangular A),
// and the kernel's bits against kernel4x8Go's.
func TestGram(t *testing.T) {
	for _, c := range []struct {
		n     int
		lower bool
	}{{1, false}, {5, false}, {8, false}, {13, false}, {100, false}, {301, false}, {5, true}, {13, true}, {301, true}, {600, true}} {
		n := c.n
		a := randomSym(n, uint64(n))
		if c.lower {
			for i := range n {
				clear(a[i*n+i+1 : (i+1)*n])
			}
		}
		got := make([]float64, ((n+7)&^7)*((n+7)&^7))
		gram(a, n, c.lower, got)
		n8 := (n + 7) &^ 7
		for i := range n8 {
			for j := range n8 {
				var want, scale float64
				if i < n && j < n {
					for k := range n {
						want += a[k*n+i] * a[k*n+j]
						scale += math.Abs(a[k*n+i] * a[k*n+j])
					}
				}
				if d := math.Abs(got[i*n8+j] - want); d > 1e-13*scale || (scale == 0 && got[i*n8+j] != 0) {
					t.Fatalf("n=%d: (A·A)[%d][%d] = %v, want %v", n, i, j, got[i*n8+j], want)
				}
			}
		}
	}
	const kc = 37
	a, b := randomSym(4*kc, 1)[:4*kc], randomSym(8*kc, 2)[:8*kc]
	c1, c2 := randomSym(16, 3)[:4*16], make([]float64, 4*16)
	copy(c2, c1)
	kernel4x8(a, b, kc, c1, 16)
	kernel4x8Go(a, b, kc, c2, 16)
	for i := range c1 {
		if math.Float64bits(c1[i]) != math.Float64bits(c2[i]) {
			t.Fatalf("kernel entry %d: %v, the Go kernel %v", i, c1[i], c2[i])
		}
	}
}

func BenchmarkGram(b *testing.B) {
	const n = 618 // MNIST 0-vs-1's active columns with the bias
	a, out := randomSym(n, 1), make([]float64, 624*624)
	for b.Loop() {
		gram(a, n, false, out)
	}
	b.ReportMetric(2*n*n*n*float64(b.N)/b.Elapsed().Seconds()/1e9, "GFLOP/s")
}
