package privacy

import (
	"errors"
	"math"
	"testing"
)

func TestGaussianClassicSigma(t *testing.T) {
	// nasr2021 §8 item 7: σ = √(2 ln(1.25/δ))/ε at δ = 1e-5: ε = 1, 2, 4, 10 →
	// 4.84481, 2.42240, 1.21120, 0.484481 (±1e-5, the note's tolerance).
	for _, c := range []struct{ eps, want float64 }{{1, 4.84481}, {2, 2.42240}, {4, 1.21120}, {10, 0.484481}} {
		near(t, "classic σ", mustF(t)(ClassicGaussianSigma(c.eps, 1e-5, 1)), c.want, 1e-5)
	}
	// bernau2021 §6 item 6: gaussSigma(6, 1e-6, 1) = 0.8831337544750789,
	// (3, 1e-6, 1) = 1.7662675089501578 (1e-9 relative).
	nearRel(t, "classic σ", mustF(t)(ClassicGaussianSigma(6, 1e-6, 1)), 0.8831337544750789, 1e-9)
	nearRel(t, "classic σ", mustF(t)(ClassicGaussianSigma(3, 1e-6, 1)), 1.7662675089501578, 1e-9)
	nearRel(t, "sensitivity scales σ", mustF(t)(ClassicGaussianSigma(1, 1e-5, 3)), 3*4.844805262605389, 1e-12)
}

func TestGaussianExactEpsilon(t *testing.T) {
	// nasr2021 §8 item 8: exact ε at δ = 1e-5: σ = 1 → 4.37718, σ = 2 →
	// 1.99309, σ = 0.5 → 9.99726 (±1e-5).
	for _, c := range []struct{ sigma, want float64 }{{1, 4.37718}, {2, 1.99309}, {0.5, 9.99726}} {
		near(t, "exact Gaussian ε", mustF(t)(GaussianEpsilon(c.sigma, 1e-5, 1)), c.want, 1e-5)
	}
	if e := mustF(t)(GaussianEpsilon(0, 1e-5, 1)); !math.IsInf(e, 1) {
		t.Errorf("σ = 0: ε = %v, want +Inf", e)
	}
}

func TestAnalyticGaussianSigma(t *testing.T) {
	// nasr2021 §8 item 8: μ for exact ε ∈ {1, 2, 4, 8, 10} at δ = 1e-5 =
	// {0.268051, 0.501552, 0.924931, 1.666031, 2.000446} (±1e-6).
	for _, c := range []struct{ eps, mu float64 }{{1, 0.268051}, {2, 0.501552}, {4, 0.924931}, {8, 1.666031}, {10, 2.000446}} {
		s := mustF(t)(AnalyticGaussianSigma(c.eps, 1e-5, 1))
		near(t, "analytic μ", 1/s, c.mu, 1e-6)
		// Round trip: the exact ε of that σ is the target (Brent to 1e-12).
		near(t, "ε(σ(ε))", mustF(t)(GaussianEpsilon(s, 1e-5, 1)), c.eps, 1e-9)
	}
	// hayes2023 §7 "Exact σ calibration, q = 1, T = 100, δ = 1e−5": T Gaussian
	// steps of noise σ are one Gaussian with noise σ/√T, so σ = √T·σ_1:
	// ε = 1 → 37.3063, 4 → 10.8116, 10 → 4.9989, 100 → 0.9467 (tol 1e-3 abs).
	for _, c := range []struct{ eps, want float64 }{{1, 37.3063}, {4, 10.8116}, {10, 4.9989}, {100, 0.9467}} {
		near(t, "T=100 exact σ", 10*mustF(t)(AnalyticGaussianSigma(c.eps, 1e-5, 1)), c.want, 1e-3)
	}
}

func TestGDPFig10(t *testing.T) {
	// nasr2021 §7 table, GDP Poisson (CLT) column and μ, with T = 14062.5
	// (the note's convention for GDP, §8 item 11), δ = 1e-5, tol ±1e-4
	// (values printed to 4 decimals).
	cases := []struct{ sigma, eps, mu float64 }{
		{0.5, 21.9960, 3.7042},
		{0.6, 9.7825, 1.9650},
		{0.7, 5.9991, 1.3094},
		{0.8, 4.2887, 0.9825},
		{0.9, 3.3379, 0.7898},
		{1.0, 2.7374, 0.6632},
		{1.1, 2.3243, 0.5736},
		{1.3, 1.7922, 0.4545},
	}
	for _, c := range cases {
		mu := mustF(t)(GDPMu(mnistQ, c.sigma, 14062.5))
		near(t, "μ", mu, c.mu, 1e-4)
		near(t, "GDP ε", mustF(t)(GDPEpsilon(mu, 1e-5)), c.eps, 1e-4)
	}
}

func TestGDPDeltaEpsilonInverse(t *testing.T) {
	for _, mu := range []float64{0.1, 0.5, 1, 3, 10} {
		for _, d := range []float64{1e-3, 1e-5, 1e-10, 1e-50} {
			e := mustF(t)(GDPEpsilon(mu, d))
			if e == 0 {
				continue
			}
			nearRel(t, "δ(ε(δ))", mustF(t)(GDPDelta(mu, e)), d, 1e-9)
		}
	}
}

func TestGDPEdgeCases(t *testing.T) {
	// Huge ε: δ underflows to 0 cleanly; tiny δ: ε finite.
	d := mustF(t)(GDPDelta(1, 500))
	if d != 0 && !(d > 0 && d < 1e-300) {
		t.Errorf("δ(μ=1, ε=500) = %v", d)
	}
	e := mustF(t)(GDPEpsilon(1, 1e-300))
	if math.IsNaN(e) || math.IsInf(e, 0) || e < 30 || e > 50 {
		t.Errorf("ε(μ=1, δ=1e-300) = %v, want ≈ 37", e)
	}
	nearRel(t, "δ at ε(1e-300)", mustF(t)(GDPDelta(1, e)), 1e-300, 1e-6)
	// σ → 0: μ = +Inf, ε = +Inf, no NaN.
	mu := mustF(t)(GDPMu(0.01, 1e-3, 100))
	if !math.IsInf(mu, 1) {
		t.Errorf("μ(σ=1e-3) = %v, want +Inf", mu)
	}
	if e := mustF(t)(GDPEpsilon(mu, 1e-5)); !math.IsInf(e, 1) {
		t.Errorf("ε(μ=+Inf) = %v", e)
	}
	if e := mustF(t)(GDPEpsilon(0, 1e-5)); e != 0 {
		t.Errorf("ε(μ=0) = %v, want 0", e)
	}
	if _, err := GDPMu(0.01, 1, 0); !errors.Is(err, ErrInvalid) {
		t.Errorf("steps = 0: err = %v", err)
	}
	if _, err := GDPDelta(-1, 1); !errors.Is(err, ErrInvalid) {
		t.Errorf("μ = −1: err = %v", err)
	}
	if _, err := ClassicGaussianSigma(0, 1e-5, 1); !errors.Is(err, ErrInvalid) {
		t.Errorf("ε = 0: err = %v", err)
	}
	if _, err := AnalyticGaussianSigma(1, 1e-5, 0); !errors.Is(err, ErrInvalid) {
		t.Errorf("Δ = 0: err = %v", err)
	}
}
