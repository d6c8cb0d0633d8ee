package numeric

import (
	"math"
	"testing"
)

func TestLogAddExp(t *testing.T) {
	inf := math.Inf(1)
	cases := []struct{ a, b, want float64 }{
		{0, 0, math.Ln2},
		{1000, 1000, 1000 + math.Ln2},    // e^1000 overflows; the sum's log does not
		{-1000, -1000, -1000 + math.Ln2}, // e^-1000 underflows to 0
		{0, -40, 4.248354255291589e-18},  // log1p(e^-40) = e^-40 to double precision
		{-40, 0, 4.248354255291589e-18},  // symmetric
		{3, -inf, 3},                     // an empty term
		{-inf, -inf, -inf},               // both empty
		{inf, 5, inf},
	}
	for i, c := range cases {
		got := LogAddExp(c.a, c.b)
		if !(got == c.want || math.Abs(got-c.want) <= 1e-15*math.Abs(c.want)) {
			t.Errorf("Case %d: LogAddExp(%v, %v) = %v, want %v", i, c.a, c.b, got, c.want)
		}
	}
}

func TestLog1mExp(t *testing.T) {
	// References: log(−expm1(x)) and log1p(−eˣ) are each exact to rounding on
	// their own side of −log 2 (Mächler 2012); the naive log(1 − eˣ) loses
	// everything at x = −1e-20 (−Inf) and at x = −50 (0).
	cases := []struct{ x, want float64 }{
		{-1e-20, -46.051701859880914},  // log(1e-20)
		{-math.Ln2, -math.Ln2},         // log(1 − ½)
		{-1, -0.45867514538708193},     // log(1 − 1/e)
		{-50, -1.9287498479639178e-22}, // −e^-50
		{math.Inf(-1), 0},
	}
	for i, c := range cases {
		got := Log1mExp(c.x)
		if !(got == c.want || math.Abs(got-c.want) <= 2e-16*math.Abs(c.want)) {
			t.Errorf("Case %d: Log1mExp(%v) = %v, want %v", i, c.x, got, c.want)
		}
	}
}

func TestLogSumExp(t *testing.T) {
	inf := math.Inf(1)
	cases := []struct {
		xs   []float64
		want float64
	}{
		{[]float64{1000, 1000, 1000}, 1000 + math.Log(3)}, // overflows without the shift
		{[]float64{-1000, -1000}, -1000 + math.Ln2},       // underflows without the shift
		{[]float64{0, -40}, 4.248354255291589e-18},
		{[]float64{2, -inf, 2}, 2 + math.Ln2},
		{[]float64{5}, 5},
		{nil, -inf},
		{[]float64{-inf, -inf}, -inf},
		{[]float64{1, inf}, inf},
	}
	for i, c := range cases {
		got := LogSumExp(c.xs)
		if !(got == c.want || math.Abs(got-c.want) <= 1e-15*math.Abs(c.want)) {
			t.Errorf("Case %d: LogSumExp(%v) = %v, want %v", i, c.xs, got, c.want)
		}
	}
	if got := LogSumExp([]float64{1, math.NaN()}); !math.IsNaN(got) {
		t.Errorf("LogSumExp with a NaN term = %v, want NaN", got)
	}
	// Agrees with folding LogAddExp over terms spanning 600 orders of magnitude.
	xs := []float64{-700, 3, -1.5, 650, 649.25, -0.125}
	fold := math.Inf(-1)
	for _, x := range xs {
		fold = LogAddExp(fold, x)
	}
	nearRel(t, "LogSumExp vs folded LogAddExp", LogSumExp(xs), fold, 1e-15)
}
