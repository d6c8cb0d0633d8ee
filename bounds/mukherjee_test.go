package bounds

import (
	"math"
	"testing"
)

// Checkable facts 2–16 of shared/reference/mukherjee2023-reconstruction-
// lower-bounds.md §6 (derived from the paper's formulas, rel 1e-9 unless
// stated; "5.28" and the constants are the paper's).

func TestMinimaxDP(t *testing.T) {
	// Fact 2: Thm 4.1, diam = 1, n = 1, δ = 0.
	for _, c := range []struct{ eps, want float64 }{
		{0, 0.0625}, {0.1, 0.06218853881}, {0.25, 0.06058687626}, {0.5, 0.05529636785},
		{1, 0.03937178329}, {2, 0.01362597973}, {3, 0.004135969636}, {4, 0.00132188168}, {5, 0.0004502713248},
	} {
		nearRel(t, "Thm 4.1", f64(t)(MinimaxDP(c.eps, 0, 1, 1)), c.want, 1e-9)
	}
	// Fact 3: variants.
	nearRel(t, "Thm 4.1 δ = 1e-5", f64(t)(MinimaxDP(1, 1e-5, 1, 1)), 0.03937138957, 1e-9)
	nearRel(t, "Thm 4.1 n = 10", f64(t)(MinimaxDP(1, 0, 10, 1)), 6.150787222e-4, 1e-9)
	nearRel(t, "Thm 4.1 n = 100", f64(t)(MinimaxDP(1, 0, 100, 1)), 5.325824832e-22, 1e-9)
	nearRel(t, "Thm 4.1 diam = 2", f64(t)(MinimaxDP(1, 0, 1, 2)), 0.1574871331, 1e-9)
	nearRel(t, "Thm 4.1 diam = 28", f64(t)(MinimaxDP(1, 0, 1, 28)), 30.86747810, 1e-9)
	nearRel(t, "Thm 4.1 ε = 1.5, δ = 1e-5", f64(t)(MinimaxDP(1.5, 1e-5, 1, 1)), 0.02410533362, 1e-9)
	// Fact 4: 16× below the trivial diam² at ε = δ = 0.
	nearRel(t, "Thm 4.1 tightness", 1/f64(t)(MinimaxDP(0, 0, 1, 1)), 16, 1e-15)
	// Fact 6: randomised response's exact minimax MSE p(1−p) lies above it.
	for _, c := range []struct{ eps, rr float64 }{{0, 0.25}, {0.5, 0.2350037122}, {1, 0.1966119332}, {2, 0.1049935854}, {5, 0.006648056671}} {
		nearRel(t, "randomised response p(1−p)", 1/(4*math.Pow(math.Cosh(c.eps/2), 2)), c.rr, 1e-9)
		if lb := f64(t)(MinimaxDP(c.eps, 0, 1, 1)); lb > c.rr {
			t.Errorf("Thm 4.1 at ε = %v is %v, above the attainable %v", c.eps, lb, c.rr)
		}
	}
}

func TestMinimaxRDP(t *testing.T) {
	// Fact 7: Cor. E.2, α = 2, diam = 1, n = 1 (switch at ε = 1/3).
	for _, c := range []struct{ eps, want float64 }{
		{0.1, 0.06065284585}, {1.0 / 3, 0.04478320691}, {0.5, 0.03790816623}, {1, 0.02299246507}, {2, 0.008458455202},
	} {
		nearRel(t, "Cor. E.2", f64(t)(MinimaxRDP(c.eps, 2, 1, 1)), c.want, 1e-9)
	}
}

func TestMinimaxMDP(t *testing.T) {
	// Fact 8: Thm E.4 with the OCR'd "ε" read as Euler's e, n = 1, δ = 0.
	for _, c := range []struct{ epsL, want float64 }{
		{0.1, 18.39397206}, {0.5, 0.7357588823}, {1, 0.1839397206}, {2, 0.04598493015}, {5, 0.007357588823},
	} {
		nearRel(t, "Thm E.4", f64(t)(MinimaxMDP(c.epsL, 0, 1, MDPConstantPaper)), c.want, 1e-9)
	}
	nearRel(t, "Thm E.4 n = 10", f64(t)(MinimaxMDP(1, 0, 10, MDPConstantPaper)), 0.01839397206, 1e-9)
	nearRel(t, "Thm E.4 δ = 1e-5", f64(t)(MinimaxMDP(1, 1e-5, 1, MDPConstantPaper)), 0.1839378812, 1e-9)
	nearRel(t, "Thm E.4 ε_L = 1.99", f64(t)(MinimaxMDP(1.99, 1e-5, 1, MDPConstantPaper)), 0.04644778697, 1e-9)
	// Fact 10: separation-corrected 1/(8ne ε_L²).
	nearRel(t, "Thm E.4 corrected", f64(t)(MinimaxMDP(1, 0, 1, MDPConstantSeparationCorrected)), 0.04598493015, 1e-9)
	// Fact 9: Eq. (40) beats Eq. (37) 1/(n²e²ε_L²) by ne/2 at n = 1.
	nearRel(t, "Eq. 40 / Eq. 37", f64(t)(MinimaxMDP(1, 0, 1, MDPConstantPaper))/(1/(math.E*math.E)), 1.359140914, 1e-9)
}

func TestMinimaxHighDim(t *testing.T) {
	// Fact 11: (D − ln 2)²/(4nε_L²D), ε_L = 1, n = 1, δ = 0.
	for _, c := range []struct {
		d      int
		lo, hi float64
	}{
		{1, 0, 0.1304164483}, {2, 0.08664339757, 0.4954606462}, {10, 1.403623041, 3.684484247},
		{100, 16.98383879, 39.89012053}, {784, 135.5104948, 315.1033524},
	} {
		dLo, dHi, err := EffectiveDimension(c.d)
		if err != nil {
			t.Fatal(err)
		}
		lo, _, err := MinimaxHighDim(dLo, 1, 0, 1)
		if err != nil {
			t.Fatal(err)
		}
		hi, _, err := MinimaxHighDim(dHi, 1, 0, 1)
		if err != nil {
			t.Fatal(err)
		}
		if c.lo == 0 {
			if lo != 0 {
				t.Errorf("d = 1, D = ln 2: Fano is vacuous, want 0, got %v", lo)
			}
		} else {
			nearRel(t, "Thm 4.4 D = d ln 2", lo, c.lo, 1e-9)
		}
		nearRel(t, "Thm 4.4 D = d ln 5", hi, c.hi, 1e-9)
	}
	// The maximiser t*² = (D − ln 2)/(2nε_L²): 271.3671212 at d = 784, D = d ln 2.
	_, tStar, err := MinimaxHighDim(784*math.Ln2, 1, 0, 1)
	if err != nil {
		t.Fatal(err)
	}
	nearRel(t, "t*²", tStar, 271.3671212, 1e-9)
	// Fact 7 of §5.1 (A7): d̃ ∈ [543.427, 1261.80] at d = 784.
	lo, hi, _ := EffectiveDimension(784)
	near(t, "d ln 2", lo, 543.427, 1e-3)
	near(t, "d ln 5", hi, 1261.80, 1e-2)
}

func TestGuoComparatorAndVacuity(t *testing.T) {
	// Fact 13: ln(1 + d/4); paper "5.28" at d = 784.
	nearRel(t, "threshold d = 784", f64(t)(GuoVacuityThreshold(784)), 5.283203729, 1e-9)
	nearRel(t, "threshold d = 3072", f64(t)(GuoVacuityThreshold(3072)), 6.645090970, 1e-9)
	nearRel(t, "threshold d = 1", f64(t)(GuoVacuityThreshold(1)), 0.2231435513, 1e-9)
	// Fact 12: total Σdiam² = 784 at ε = 1 → 114.0674345; at the threshold
	// the bound equals the trivial diam² = 1; per coordinate 0.1454941767.
	nearRel(t, "Guo total", f64(t)(GuoTotalBound(1, 784)), 114.0674345, 1e-9)
	nearRel(t, "Guo at ln 197", f64(t)(GuoTotalBound(math.Log(197), 784)), 1, 1e-9)
	nearRel(t, "Guo per coordinate", f64(t)(GuoTotalBound(1, 784))/784, 0.1454941767, 1e-9)
}

func TestMDPNoise(t *testing.T) {
	// Fact 14: L_input = 1, ε_L = 0.5, δ = 1e-5 → σ ≥ 6.85158931 (paper's
	// c² = ln(1.25/δ)) or 9.68961053 (conservative 2 ln(1.25/δ)).
	nearRel(t, "mDP σ (paper)", f64(t)(MDPGaussianSigma(1, 0.5, 1e-5, MDPNoisePaper)), 6.85158931, 1e-8)
	nearRel(t, "mDP σ (conservative)", f64(t)(MDPGaussianSigma(1, 0.5, 1e-5, MDPNoiseConservative)), 9.68961053, 1e-8)
	// Fact 15: PN-SGD, α = 2, L = 1, diam = 1, ε_L = 1, n = 100: t = 1 → 0.04,
	// t = 100 → 4; mean estimation diam = 10: DP 4.0 vs mDP 0.4.
	nearRel(t, "PN-SGD t = 1", f64(t)(PNSGDSigmaSqMDP(2, 1, 1, 1, 100, 1)), 0.04, 1e-12)
	nearRel(t, "PN-SGD t = n", f64(t)(PNSGDSigmaSqMDP(2, 1, 1, 1, 100, 100)), 4, 1e-12)
	nearRel(t, "PN-SGD DP", f64(t)(PNSGDSigmaSqDP(2, 10, 1, 100, 1)), 4, 1e-12)
	nearRel(t, "PN-SGD mDP", f64(t)(PNSGDSigmaSqMDP(2, 1, 10, 1, 100, 1)), 0.4, 1e-12)
}
