package audit

import (
	"math"
	"slices"
	"testing"
)

// The p-value is the dual of the bound: at confidence 1 − α the Eq. 5
// bound exceeds the claim exactly when p < α.
func TestCountsPValueDualToBound(t *testing.T) {
	for _, c := range []Counts{
		{N0: 1000, FP: 2, N1: 1000, FN: 983}, // note §8 item 3: ε_lb 0.3200 at 95%
		{N0: 1000, N1: 1000},
		{N0: 500, FP: 40, N1: 500, FN: 120},
	} {
		for _, claim := range []float64{0, 0.1, 0.3, 0.32, 1, 2, 5, 5.6, 6} {
			p, err := CountsPValue(c, 1e-5, claim)
			if err != nil {
				t.Fatal(err)
			}
			for _, conf := range []float64{0.5, 0.9, 0.95, 0.99, 0.999} {
				lb, _ := EpsilonLowerBound(c, 1e-5, conf, TwoSided)
				alpha := 1 - conf
				if math.Abs(p-alpha) < 1e-9*alpha {
					continue // on the boundary: bisection precision
				}
				if (lb > claim) != (p < alpha) {
					t.Errorf("%+v claim %v conf %v: ε_lb %v but p = %v", c, claim, conf, lb, p)
				}
			}
		}
	}
	// Item 3's bound 0.3200 at 95%: the claim 0.32 sits right at p ≈ 0.05.
	p, _ := CountsPValue(Counts{N0: 1000, FP: 2, N1: 1000, FN: 983}, 1e-5, 0.32)
	if math.Abs(p-0.05) > 0.001 {
		t.Errorf("p-value at the 95%% bound = %v, want ≈ 0.05", p)
	}
}

// A Bonferroni result's p-value is K times the best threshold's; a split
// result's is its threshold's; invalid results have none.
func TestResultPValue(t *testing.T) {
	scores, worlds := gaussianShift(21, 0, 2000, 2)
	for _, m := range []Method{Split, Bonferroni} {
		o := DefaultOptions()
		o.Method = m
		r, err := Estimate(scores, worlds, o)
		if err != nil {
			t.Fatal(err)
		}
		for _, claim := range []float64{0.5, r.EpsilonLB * 0.9, r.EpsilonLB * 1.1} {
			p := r.PValue(claim)
			if r.ViolatesClaim(claim) != (p < 0.05) {
				t.Errorf("%s: ε_lb %v, claim %v: p = %v", m, r.EpsilonLB, claim, p)
			}
		}
	}
	o := DefaultOptions()
	o.Method = PostHoc
	r, _ := Estimate(scores, worlds, o)
	if !math.IsNaN(r.PValue(0)) || r.ViolatesClaim(0) {
		t.Errorf("posthoc: p = %v, violates %v; want NaN, false", r.PValue(0), r.ViolatesClaim(0))
	}
}

// Holm (1979): worked examples checked by hand.
func TestHolm(t *testing.T) {
	cases := []struct {
		p    []float64
		want []bool
	}{
		// 0.005 ≤ .05/4, 0.01 ≤ .05/3, 0.03 > .05/2: stop.
		{[]float64{0.01, 0.04, 0.03, 0.005}, []bool{true, false, false, true}},
		// All pass step-down, where Bonferroni (α/3 each) would keep only 0.01.
		{[]float64{0.03, 0.01, 0.02}, []bool{true, true, true}},
		// NaN (an invalid estimate) is never rejected and does not count as
		// a smaller p.
		{[]float64{math.NaN(), 0.001}, []bool{false, true}},
		{[]float64{0.06}, []bool{false}},
		{[]float64{0.05}, []bool{true}},
	}
	for _, c := range cases {
		if got := Holm(c.p, 0.05); !slices.Equal(got, c.want) {
			t.Errorf("Holm(%v) = %v, want %v", c.p, got, c.want)
		}
	}
}
