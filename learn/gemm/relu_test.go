package gemm

import (
	"math"
	"testing"

	"github.com/dpaudit/dpaudit/rng"
)

// TestReLUGradMatchesLoop checks ReLUGrad bit for bit against the plain
// loop it documents, on every path, over lengths around the vector widths
// and y values that include +0, −0, negatives, NaN and Inf.
func TestReLUGradMatchesLoop(t *testing.T) {
	forEachPath(t, func(t *testing.T) {
		r := rng.New(5, "relugrad")
		special := []float32{0, float32(math.Copysign(0, -1)), -1, 1, float32(math.NaN()),
			float32(math.Inf(1)), float32(math.Inf(-1)), math.SmallestNonzeroFloat32}
		for _, n := range []int{0, 1, 7, 15, 16, 17, 31, 32, 33, 100, 257, 1000} {
			g := make([]float32, n)
			y := make([]float32, n)
			for i := range n {
				g[i] = float32(r.NormFloat64())
				if r.IntN(4) == 0 {
					y[i] = special[r.IntN(len(special))]
				} else {
					y[i] = float32(r.NormFloat64())
				}
			}
			want := make([]float32, n)
			for i, v := range y {
				mask := uint32(-int32(math.Float32bits(v)) >> 31)
				want[i] = math.Float32frombits(math.Float32bits(g[i]) & mask)
			}
			got := make([]float32, n+1)
			got[n] = 42 // must stay untouched
			ReLUGrad(got[:n], g, y)
			for i := range n {
				if math.Float32bits(got[i]) != math.Float32bits(want[i]) {
					t.Fatalf("n=%d: d[%d] = %v (y = %v, g = %v), want %v", n, i, got[i], y[i], g[i], want[i])
				}
			}
			if got[n] != 42 {
				t.Fatalf("n=%d: wrote past len(d)", n)
			}
			// in place: d aliases g
			ReLUGrad(g, g, y)
			for i := range n {
				if math.Float32bits(g[i]) != math.Float32bits(want[i]) {
					t.Fatalf("n=%d in place: d[%d] = %v, want %v", n, i, g[i], want[i])
				}
			}
		}
	})
}

// TestReLUMatchesMax checks ReLU bit for bit against Go's max(x, 0) on
// every path, over lengths around the vector widths and x values that
// include ±0, NaN (with payloads and either sign) and ±Inf.
func TestReLUMatchesMax(t *testing.T) {
	forEachPath(t, func(t *testing.T) {
		r := rng.New(6, "relu")
		special := []float32{0, float32(math.Copysign(0, -1)), -1, 1, float32(math.NaN()),
			math.Float32frombits(0xFFC01234), math.Float32frombits(0x7FC00042),
			float32(math.Inf(1)), float32(math.Inf(-1)), -math.SmallestNonzeroFloat32}
		for _, n := range []int{0, 1, 7, 15, 16, 17, 31, 32, 33, 100, 257, 1000} {
			x := make([]float32, n)
			for i := range n {
				if r.IntN(3) == 0 {
					x[i] = special[r.IntN(len(special))]
				} else {
					x[i] = float32(r.NormFloat64())
				}
			}
			want := make([]float32, n)
			for i, v := range x {
				want[i] = max(v, 0)
			}
			got := make([]float32, n+1)
			got[n] = 42
			ReLU(got[:n], x)
			for i := range n {
				if math.Float32bits(got[i]) != math.Float32bits(want[i]) {
					t.Fatalf("n=%d: y[%d] = %#x (x = %#x), want %#x", n, i,
						math.Float32bits(got[i]), math.Float32bits(x[i]), math.Float32bits(want[i]))
				}
			}
			if got[n] != 42 {
				t.Fatalf("n=%d: wrote past len(y)", n)
			}
			ReLU(x, x) // in place
			for i := range n {
				if math.Float32bits(x[i]) != math.Float32bits(want[i]) {
					t.Fatalf("n=%d in place: y[%d] = %v, want %v", n, i, x[i], want[i])
				}
			}
		}
	})
}
