package bounds

import (
	"math"
	"testing"
)

// Bad input must be an error wrapping ErrInvalid (exit code 2).
func TestBadInputIsInvalid(t *testing.T) {
	ok := DPSGD{1, 0.1, 10}
	errOf := func(_ float64, err error) error { return err }
	cases := []struct {
		what string
		err  error
	}{
		{"κ = 0", errOf(ReRoFullBatch(1, 1, 0))},
		{"κ = 1", errOf(ReRoFullBatch(1, 1, 1))},
		{"κ NaN", errOf(ReRoPureDP(1, math.NaN()))},
		{"κ = 1.5 (Monte Carlo)", func() error { _, err := ReRoBound(ok, 1.5, ReRoOptions{}); return err }()},
		{"κ = −0.1 (exact)", func() error { _, err := ReRoBound(ok, -0.1, ReRoOptions{Method: ReRoExact}); return err }()},
		{"prior size 1", errOf(KappaUniform(1))},
		{"prior size 1 (Fano)", errOf(FanoSuccessBound(1, 0.1))},
		{"N too small", func() error { _, err := ReRoBound(ok, 0.001, ReRoOptions{Samples: 1000}); return err }()},
		{"unknown method", func() error { _, err := ReRoBound(ok, 0.1, ReRoOptions{Method: "magic"}); return err }()},
		{"σ = 0", func() error { _, err := ReRoBound(DPSGD{0, 0.1, 10}, 0.1, ReRoOptions{}); return err }()},
		{"q = 0", func() error { _, err := ReRoBound(DPSGD{1, 0, 10}, 0.1, ReRoOptions{}); return err }()},
		{"T = 0", func() error { _, err := ReRoBound(DPSGD{1, 0.1, 0}, 0.1, ReRoOptions{}); return err }()},
		{"confidence 1", func() error { _, err := ReRoBound(ok, 0.1, ReRoOptions{Confidence: 1}); return err }()},
		{"dimension 0 (Guo)", errOf(GuoMSEBound(1, nil))},
		{"dimension 0 (vacuity)", errOf(GuoVacuityThreshold(0))},
		{"dimension 0 (effective)", func() error { _, _, err := EffectiveDimension(0); return err }()},
		{"diameter 0", errOf(GuoMSEBound(1, []float64{1, 0}))},
		{"diameter −1 (minimax)", errOf(MinimaxDP(1, 0, 1, -1))},
		{"Σdiam² = 0", errOf(GuoTotalBound(1, 0))},
		{"ρ_β = 0.5", errOf(EpsilonFromRhoBeta(0.5))},
		{"ρ_β = 1", errOf(EpsilonFromRhoBeta(1))},
		{"ρ_α = 0", errOf(EpsilonFromRhoAlpha(0, 0.01))},
		{"ρ_α = 1", errOf(EpsilonFromRhoAlpha(1, 0.01))},
		{"δ = 0 in ρ_α", errOf(RhoAlpha(1, 0))},
		{"ε < 0", errOf(RhoBeta(-1))},
		{"negative γ_i", errOf(GuoMSEBoundBiased(1, []float64{1}, []float64{-1}, 0))},
		{"unknown output-perturbation formula", errOf(OutputPerturbationEpsilon(10, 1, 1, "v3"))},
		{"unknown mDP constant", errOf(MinimaxMDP(1, 0, 1, "x"))},
		{"t > n (PN-SGD)", errOf(PNSGDSigmaSqMDP(2, 1, 1, 1, 10, 11))},
		{"α outside [0,1] (trade-off)", errOf(GDPTradeOff(1, 1.5))},
		{"RDP order ≤ 1", func() error { _, _, err := ReRoRDP([]float64{1}, []float64{1}, 0.1); return err }()},
		{"σ = 0 in the RDP accountant", errOf(DPSGDRenyi2(0.1, 0, 10, false))},
		{"q = 2 in the RDP accountant", errOf(DPSGDRenyi2(2, 1, 10, false))},
	}
	for _, c := range cases {
		wantInvalid(t, c.what, c.err)
	}
}
