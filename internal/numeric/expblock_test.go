package numeric

import (
	"math"
	"testing"

	"github.com/dpaudit/dpaudit/rng"
)

// TestExpBlockMatchesMathExp: the four-lane exp gives math.Exp's bits on
// the ideal audit's LLR arguments (z ≤ 30, down to very negative) and the
// PLD's untilting exponents (≤ 700), at the edges of
// its range and beyond it (where math.Exp takes over), and on NaN and ±Inf.
func TestExpBlockMatchesMathExp(t *testing.T) {
	r := rng.New(11, "exp")
	var xs []float64
	for range 400000 {
		xs = append(xs, 40*r.Float64()-35, r.NormFloat64(), (r.Float64()-0.5)*1500, r.NormFloat64()*1e-8)
	}
	xs = append(xs, 0, math.Copysign(0, -1), 30, -700, 700, math.Nextafter(700, 800), -700.5, -745.2, -746, 709.7,
		709.9, 1e300, -1e300, math.Inf(1), math.Inf(-1), math.NaN(), 0.5*math.Ln2, -0.5*math.Ln2, 1e-300)
	for len(xs)%4 != 0 {
		xs = append(xs, 1)
	}
	got := make([]float64, len(xs))
	ExpBlock(got, xs)
	for i, x := range xs {
		want := math.Exp(x)
		if math.Float64bits(got[i]) != math.Float64bits(want) && !(math.IsNaN(got[i]) && math.IsNaN(want)) {
			t.Fatalf("exp(%v) = %v (%#x), math.Exp %v (%#x)", x, got[i], math.Float64bits(got[i]), want, math.Float64bits(want))
		}
	}
	t.Logf("vector kernel in use: %v", haveExpFMA)
}
