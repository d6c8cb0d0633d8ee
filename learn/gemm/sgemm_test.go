package gemm

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
)

type shape struct{ m, n, k int }

// testShapes: degenerate and tiny sizes, primes, sizes one below/at/above the
// tile multiples of every path (MR 4/6/12/14, NR 8/16/32), k across the KC
// chunk boundary, and the trainer's skinny shapes.
var testShapes = []shape{
	{1, 1, 1}, {1, 1, 7}, {2, 3, 1}, {1, 17, 5}, {17, 1, 5}, {3, 5, 7},
	{13, 17, 19}, {14, 32, 16}, {15, 33, 17}, {12, 16, 64}, {6, 16, 9},
	{28, 64, 33}, {29, 65, 31}, {7, 9, 255}, {11, 47, 256}, {23, 31, 257},
	{5, 40, 600}, {37, 23, 41}, {64, 10, 100}, {10, 100, 64}, {97, 130, 3},
	{130, 97, 2}, {1, 200, 300}, {200, 1, 300}, {48, 48, 48}, {8, 129, 11},
	{400, 70, 20}, // m over one mc block of every path
}

type scalars struct{ alpha, beta float32 }

var testScalars = []scalars{{1, 0}, {1, 1}, {-1.25, 0.75}, {0.5, -2}, {0, 0.5}, {0, 0}, {2, 0}}

// runCase multiplies one case and returns the worst error relative to its
// scale, after checking the stride padding of C is untouched.
func runCase(t *testing.T, alloc func(int) []float32, r *rand.Rand, gen func() float32, tA, tB bool,
	sh shape, pad int, sc scalars, nanC bool) (worst float64, got []float32, cm matrix) {
	t.Helper()
	m, n, k := sh.m, sh.n, sh.k
	ar, ac := m, k
	if tA {
		ar, ac = k, m
	}
	br, bc := k, n
	if tB {
		br, bc = n, k
	}
	a := newMatrix(ar, ac, ac+pad, alloc, gen)
	b := newMatrix(br, bc, bc+pad, alloc, gen)
	c := newMatrix(m, n, n+pad, alloc, gen)
	if nanC {
		for i := range c.data {
			c.data[i] = float32(math.NaN())
		}
	}
	c0 := matrix{rows: m, cols: n, ld: c.ld, data: append([]float32(nil), c.data...)}
	want, scale := reference(tA, tB, m, n, k, float64(sc.alpha), a, b, float64(sc.beta), c0)
	Sgemm(tA, tB, m, n, k, sc.alpha, a.data, a.ld, b.data, b.ld, sc.beta, c.data, c.ld)
	for i := range c.data {
		row, col := i/c.ld, i%c.ld
		if col >= n {
			if !sameBits(c.data[i], c0.data[i]) {
				t.Fatalf("C padding at (%d,%d) changed: %v → %v", row, col, c0.data[i], c.data[i])
			}
			continue
		}
		g, w := float64(c.data[i]), want[row*n+col]
		e := math.Abs(g - w)
		if math.IsNaN(g) || math.IsInf(g, 0) {
			t.Fatalf("C[%d,%d] = %v, want %v", row, col, g, w)
		}
		if scale[row*n+col] > 0 {
			e /= scale[row*n+col]
		}
		worst = max(worst, e)
	}
	return worst, c.data, c
}

func sameBits(x, y float32) bool { return math.Float32bits(x) == math.Float32bits(y) }

// TestSgemmMatchesReference: every shape × transpose × (alpha, beta) ×
// stride, against a float64 triple loop. Tolerance: error ≤ 1e-5·√k times
// the element's scale |alpha|Σ|a||b| + |beta·c|; float32 rounding gives about
// √k·2⁻²⁴ ≈ 6e-8·√k for random data (Higham §3.1, probabilistic form), so the
// bound has ~150× headroom yet any indexing error (O(1)) fails it. Matrices
// end at a guard page (Linux) and stride padding is NaN, so reading past a
// matrix or into its padding fails the test.
func TestSgemmMatchesReference(t *testing.T) {
	forEachPath(t, func(t *testing.T) {
		alloc := guardedAlloc(t)
		r := newRand("reference", current.name)
		for _, sh := range testShapes {
			for ti := 0; ti < 4; ti++ {
				tA, tB := ti&1 == 1, ti&2 == 2
				for si, sc := range testScalars {
					pad := (si + ti) % 3 * 5 // strides > width in some cases
					name := fmt.Sprintf("%dx%dx%d/tA=%v/tB=%v/alpha=%v/beta=%v/pad=%d", sh.m, sh.n, sh.k, tA, tB, sc.alpha, sc.beta, pad)
					worst, _, _ := runCase(t, alloc, r, uniform(r), tA, tB, sh, pad, sc, false)
					if tol := 1e-5 * math.Sqrt(float64(sh.k)); worst > tol {
						t.Errorf("%s: relative error %.3g > %.3g", name, worst, tol)
					}
				}
			}
		}
	})
}

// TestSgemmExactOnIntegers: with small integers every partial sum is exact,
// so the result must equal the float64 reference exactly, whatever the
// blocking or summation order.
func TestSgemmExactOnIntegers(t *testing.T) {
	shapes := append([]shape{{256, 10, 784}, {10, 784, 256}, {64, 128, 784}, {33, 70, 530}}, testShapes...)
	forEachPath(t, func(t *testing.T) {
		alloc := guardedAlloc(t)
		r := newRand("integers", current.name)
		for _, sh := range shapes {
			for ti := 0; ti < 4; ti++ {
				tA, tB := ti&1 == 1, ti&2 == 2
				for _, sc := range []scalars{{1, 0}, {2, 1}, {-1, 3}} {
					worst, _, _ := runCase(t, alloc, r, smallInts(r), tA, tB, sh, ti, sc, false)
					if worst != 0 {
						t.Errorf("%v tA=%v tB=%v %v: inexact result on integer data (relative error %g)", sh, tA, tB, sc, worst)
					}
				}
			}
		}
	})
}

// TestSgemmBetaZeroIgnoresNaN: BLAS semantics, C = alpha·AB when beta = 0
// even if C held NaN; likewise C = 0 when alpha = beta = 0.
func TestSgemmBetaZeroIgnoresNaN(t *testing.T) {
	forEachPath(t, func(t *testing.T) {
		r := newRand("nan", current.name)
		for _, sh := range []shape{{3, 5, 7}, {29, 65, 31}, {256, 10, 300}} {
			for _, sc := range []scalars{{1, 0}, {0, 0}, {-3, 0}} {
				worst, _, _ := runCase(t, goAlloc, r, uniform(r), false, true, sh, 2, sc, true)
				if worst > 1e-5*math.Sqrt(float64(sh.k)) {
					t.Errorf("%v %v: relative error %g", sh, sc, worst)
				}
			}
		}
	})
}

// TestPathsBitIdentical: the AVX2 and AVX-512 kernels perform the same FMA
// sequence per element (package comment), so they must agree bit for bit.
func TestPathsBitIdentical(t *testing.T) {
	var asm []*arch
	for _, ar := range available {
		if ar.name != "purego" {
			asm = append(asm, ar)
		}
	}
	if len(asm) < 2 {
		t.Skip("needs two assembly paths; this CPU/build has", len(asm))
	}
	shapes := []shape{{256, 10, 784}, {10, 784, 256}, {37, 70, 530}, {13, 17, 19}, {200, 300, 100}}
	for _, sh := range shapes {
		for ti := 0; ti < 4; ti++ {
			tA, tB := ti&1 == 1, ti&2 == 2
			var results [][]float32
			for _, ar := range asm {
				useArch(t, ar)
				r := newRand("bitident", sh.m, sh.n, sh.k, ti) // same data for every path
				_, got, _ := runCase(t, goAlloc, r, uniform(r), tA, tB, sh, 1, scalars{0.7, 0.3}, false)
				results = append(results, got)
			}
			for i := range results[0] {
				if !sameBits(results[0][i], results[1][i]) {
					t.Fatalf("%v tA=%v tB=%v: %s and %s differ at %d: %v vs %v", sh, tA, tB,
						asm[0].name, asm[1].name, i, results[0][i], results[1][i])
				}
			}
		}
	}
}

func TestCheckRejectsBadArguments(t *testing.T) {
	cases := []struct {
		name                 string
		tA, tB               bool
		m, n, k              int
		la, lda, lb, ldb, lc int
		ldc                  int
	}{
		{"negative m", false, false, -1, 2, 2, 4, 2, 4, 2, 4, 2},
		{"lda below k", false, false, 2, 2, 3, 6, 2, 6, 2, 4, 2},
		{"lda below m when transposed", true, false, 3, 2, 2, 6, 2, 4, 2, 6, 2},
		{"A too short", false, false, 2, 2, 3, 5, 3, 6, 2, 4, 2},
		{"B too short", false, true, 2, 2, 3, 6, 3, 5, 3, 4, 2},
		{"C too short", false, false, 2, 2, 3, 6, 3, 6, 2, 3, 2},
		{"ldc below n", false, false, 2, 3, 1, 2, 1, 3, 3, 6, 2},
	}
	for _, tc := range cases {
		if err := Check(tc.tA, tc.tB, tc.m, tc.n, tc.k, tc.la, tc.lda, tc.lb, tc.ldb, tc.lc, tc.ldc); err == nil {
			t.Errorf("%s: Check accepted it", tc.name)
		}
	}
	if err := Check(false, false, 2, 2, 3, 6, 3, 6, 2, 4, 2); err != nil {
		t.Errorf("valid arguments rejected: %v", err)
	}
	defer func() {
		if recover() == nil {
			t.Error("Sgemm with a short C did not panic")
		}
	}()
	Sgemm(false, false, 2, 2, 3, 1, make([]float32, 6), 3, make([]float32, 6), 2, 0, make([]float32, 3), 2)
}

func TestPathReportsCurrent(t *testing.T) {
	if Path() != available[0].name {
		t.Errorf("Path() = %q, want the best available %q", Path(), available[0].name)
	}
	t.Logf("paths on this CPU/build: %v", func() (s []string) {
		for _, ar := range available {
			s = append(s, ar.name)
		}
		return
	}())
}
