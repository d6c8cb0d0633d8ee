package audit

import (
	"math"
	"testing"
)

// Reference note bernau2021-identifiability.md §7: fact 16 (620 wins of
// 1000 → Adv 0.24 → ε′ = 2·c(0.01)·Φ⁻¹(0.62) = 1.8986, with the factor 2
// the paper's Eq. 15 drops), fact 15 (β_max = 0.9 → ε′ = ln 9, not 9),
// fact 4 (ρ_α(ln 9, 0.01) = 0.276312).
func TestEstimateIdentifiability(t *testing.T) {
	logOdds := make([]float64, 1000)
	for i := range logOdds {
		switch {
		case i < 620:
			logOdds[i] = 0.5
		default:
			logOdds[i] = -0.5
		}
	}
	logOdds[0] = math.Log(9) // β_max = 0.9, not above ρ_β = 0.9
	r, err := EstimateIdentifiability(IdentifiabilityInput{LogOdds: logOdds, Epsilon: math.Log(9), Delta: 0.01, Confidence: 0.95})
	if err != nil {
		t.Fatal(err)
	}
	near := func(name string, got, want, tol float64) {
		if math.Abs(got-want) > tol {
			t.Errorf("%s = %.7f, want %.7f", name, got, want)
		}
	}
	near("advantage", r.Advantage, 0.24, 1e-12)
	near("ε′ from advantage", r.EpsilonAdvantage, 1.8986, 5e-5)
	near("ε′ from belief", r.EpsilonBelief, math.Log(9), 1e-12)
	near("β_max", r.BeliefMax, 0.9, 1e-12)
	near("ρ_α", r.RhoAlpha, 0.276312, 5e-7)
	near("ρ_β", r.RhoBeta, 0.9, 1e-12)
	if r.Exceed != 0 || r.DeltaViolation || r.DeltaPrimeHi <= 0 {
		t.Errorf("δ′: %d exceed, violation %v, upper %v", r.Exceed, r.DeltaViolation, r.DeltaPrimeHi)
	}
	if !(r.AdvantageLo < 0.24 && r.AdvantageHi > 0.24) || r.AdvantageAboveRhoAlpha {
		t.Errorf("advantage interval [%v, %v]", r.AdvantageLo, r.AdvantageHi)
	}
	if !(r.EpsilonAdvantageLo < r.EpsilonAdvantage && r.EpsilonAdvantage < r.EpsilonAdvantageHi) {
		t.Errorf("ε′ interval [%v, %v] around %v", r.EpsilonAdvantageLo, r.EpsilonAdvantageHi, r.EpsilonAdvantage)
	}
	// 30 of 1000 beliefs above ρ_β with δ = 0.01: the Clopper–Pearson
	// lower end (0.0203) is above δ — a violation.
	for i := 0; i < 30; i++ {
		logOdds[i] = 3
	}
	r, _ = EstimateIdentifiability(IdentifiabilityInput{LogOdds: logOdds, Epsilon: math.Log(9), Delta: 0.01, Confidence: 0.95})
	if r.Exceed != 30 || !r.DeltaViolation || math.Abs(r.DeltaPrimeLo-0.0203) > 5e-4 {
		t.Errorf("30 exceedances: %d, lower %v, violation %v", r.Exceed, r.DeltaPrimeLo, r.DeltaViolation)
	}
	if _, err := EstimateIdentifiability(IdentifiabilityInput{LogOdds: logOdds, Epsilon: 1, Delta: 1, Confidence: 0.95}); err == nil {
		t.Error("δ = 1 accepted")
	}
}
