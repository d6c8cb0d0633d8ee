package audit

import (
	"math"
	"testing"
)

func TestExceedsNeverOnEquality(t *testing.T) {
	inf, nan := math.Inf(1), math.NaN()
	for i, c := range []struct {
		x, limit, tol float64
		want          bool
	}{
		{1, 1, 0, false},
		{1, 1, ClaimTolerance, false},
		{1 + 1e-12, 1, ClaimTolerance, false}, // rounding
		{1 + 1e-6, 1, ClaimTolerance, true},
		{2, 1, ClaimTolerance, true},
		{1e-300, 0, ClaimTolerance, true},
		{5, inf, ClaimTolerance, false},
		{inf, inf, ClaimTolerance, false},
		{nan, 1, ClaimTolerance, false},
		{1, nan, ClaimTolerance, false},
		{-0.5, -1, ClaimTolerance, true},
	} {
		if got := Exceeds(c.x, c.limit, c.tol); got != c.want {
			t.Errorf("Case %d: Exceeds(%v, %v, %v) = %v, want %v", i, c.x, c.limit, c.tol, got, c.want)
		}
	}
	for i, c := range []struct {
		p, alpha float64
		want     bool
	}{
		{0.05, 0.05, false},
		{0.05 * (1 - 1e-12), 0.05, false},
		{0.049, 0.05, true},
		{nan, 0.05, false},
	} {
		if got := Below(c.p, c.alpha, ClaimTolerance); got != c.want {
			t.Errorf("Case %d: Below(%v, %v) = %v, want %v", i, c.p, c.alpha, got, c.want)
		}
	}
}

// The worst-case identifiability output puts every log-odds at ε up to
// float32 rounding of the release (BeliefTolerance): none of them may
// count as an exceedance, δ′ is 0 and nothing is flagged. Log-odds a
// per mille above ε do count.
func TestIdentifiabilityRoundingIsNoExceedance(t *testing.T) {
	eps := math.Log(9) // ρ_β = 0.9
	in := IdentifiabilityInput{Epsilon: eps, Delta: 0.01, Confidence: 0.95}
	for i := range 200 {
		in.LogOdds = append(in.LogOdds, eps*(1+float64(i%5-2)*1e-8))
	}
	r, err := EstimateIdentifiability(in)
	if err != nil {
		t.Fatal(err)
	}
	if r.Exceed != 0 || r.DeltaPrime != 0 || r.DeltaViolation {
		t.Errorf("rounding counted: %d exceedances, δ′ = %v, violation %v", r.Exceed, r.DeltaPrime, r.DeltaViolation)
	}
	for i := range in.LogOdds {
		in.LogOdds[i] = eps * 1.001
	}
	if r, _ := EstimateIdentifiability(in); r.Exceed != 200 || !r.DeltaViolation {
		t.Errorf("beliefs above ρ_β not counted: %d exceedances, violation %v", r.Exceed, r.DeltaViolation)
	}
}
