package bounds

import (
	"math"
	"testing"
)

// Facts F1–F17 of shared/reference/guo2022-bounding-reconstruction.md §6
// (derived in double precision from the paper's formulas; quoted paper
// values in the comments).

func TestGuoTheorem1(t *testing.T) {
	// F1: [0,1]^d, ε = 1.579155151993683 → 0.06492063326937275 (paper "≈ 0.1").
	nearRel(t, "F1", f64(t)(GuoMSEBoundUniform(1.579155151993683, 1)), 0.06492063326937275, 1e-9)
	// F2: Z = [0,100], ε = 2 → 391.294… (paper "≈ 391"), std 19.78 ("≈ 19").
	v := f64(t)(GuoMSEBound(2, []float64{100}))
	nearRel(t, "F2", v, 391.29410687416413, 1e-9)
	nearRel(t, "F2 std", math.Sqrt(v), 19.78115534730376, 1e-9)
	// F3: d = 2, diam = (1, 2), ε = 1 → (5/8)/(e − 1).
	nearRel(t, "F3", f64(t)(GuoMSEBound(1, []float64{1, 2})), 0.36373544179332906, 1e-9)
	// F4: biased, γ = (0.5, 1), no bias → (4.25/8)/(e − 1); a bias adds ‖μ − z‖²/d.
	nearRel(t, "F4", f64(t)(GuoMSEBoundBiased(1, []float64{1, 2}, []float64{0.5, 1}, 0)), 0.3091751255243297, 1e-9)
	nearRel(t, "F4 + bias", f64(t)(GuoMSEBoundBiased(1, []float64{1, 2}, []float64{0.5, 1}, 0.3)), 0.3091751255243297+0.15, 1e-9)
	// F5: tightness example M²/(4(e^{M²/σ²} − 1)), σ = 1.
	for _, c := range []struct{ m, want float64 }{{1, 0.1454941767173316}, {0.01, 0.24998750020833332}, {5, 8.679964915723059e-11}} {
		nearRel(t, "F5", f64(t)(GuoMSEBound(c.m*c.m, []float64{c.m})), c.want, 1e-9)
	}
	// F6: ε = 0 → +Inf ("infinite variance", paper).
	if v := f64(t)(GuoMSEBound(0, []float64{1})); !math.IsInf(v, 1) {
		t.Errorf("F6: bound at ε = 0 is %v, want +Inf", v)
	}
}

func TestGuoOutputPerturbation(t *testing.T) {
	// F10/F11: paper v1 ε = 2/(nλσ), n = 12665, λ = 1e-2 (paper "1.58", "1579").
	nearRel(t, "F10", f64(t)(OutputPerturbationEpsilon(12665, 1e-2, 1e-2, OutputPerturbationPaper)), 1.579155151993683, 1e-12)
	nearRel(t, "F11", f64(t)(OutputPerturbationEpsilon(12665, 1e-2, 1e-5, OutputPerturbationPaper)), 1579.1551519936831, 1e-12)
	// F12: corrected 4/(nλσ)² and its bounds on [0,1]^d.
	e := f64(t)(OutputPerturbationEpsilon(12665, 1e-2, 1e-2, OutputPerturbationCorrected))
	nearRel(t, "F12 ε", e, 2.4937309940681924, 1e-9)
	nearRel(t, "F12 bound", f64(t)(GuoMSEBoundUniform(e, 1)), 0.02250962365037583, 1e-9)
	e = f64(t)(OutputPerturbationEpsilon(12665, 1e-2, 1e-5, OutputPerturbationCorrected))
	nearRel(t, "F12 ε (σ = 1e-5)", e, 2493730.9940681923, 1e-9)
	if b := f64(t)(GuoMSEBoundUniform(e, 1)); b != 0 {
		t.Errorf("F12 bound at ε = 2.5e6 = %v, want 0", b)
	}
}

func TestGuoRDPOfDPSGD(t *testing.T) {
	// F16/F17: ε₂ = T·log(1 + q²(e^{1/σ_eff²} − 1)), σ_eff = σ/1.115, and the
	// Theorem 1 bound with diam = 1. Tolerance: half a unit of the last
	// printed digit, relative (rel 1e-5 for six digits).
	cases := []struct {
		id             string
		q, sigma       float64
		T              int
		eps, mse       float64
		tolEps, tolMSE float64
	}{
		{"F16a", 0.01, 1, 1000, 0.246647, 0.893727, 1e-5, 1e-5},
		{"F16b", 0.01, 1, 5000, 1.23324, 0.102783, 1e-5, 1e-5},
		{"F16c", 0.01, 2, 1000, 0.0364518, 6.73413, 1e-5, 1e-5},
		{"F16d", 0.01, 2, 5000, 0.182259, 1.25047, 1e-5, 1e-5},
		{"F16e", 0.01, 5, 5000, 0.0254931, 9.68212, 1e-5, 1e-5},
		{"F16f", 0.01, 10, 1000, 0.00125098, 199.718, 1e-5, 1e-5},
		{"F16g", 0.01, 10, 5000, 0.00625492, 39.8437, 1e-5, 1e-5},
		{"F16h", 0.01, 0.5, 1000, 14.2426, 1.631e-7, 1e-5, 5e-4},
		{"F17a", 0.004, 1, 12500, 0.493345, 0.391981, 1e-5, 1e-5},
		{"F17b", 0.004, 1, 37500, 1.48004, 0.0736788, 1e-5, 1e-5},
		{"F17c", 0.004, 2, 12500, 0.0729048, 3.30565, 1e-5, 1e-5},
		{"F17d", 0.004, 2, 37500, 0.218714, 1.0226, 1e-5, 5e-5},
		{"F17e", 0.004, 0.5, 12500, 28.6562, 8.97e-14, 1e-5, 6e-3},
	}
	for _, c := range cases {
		e := f64(t)(DPSGDRenyi2(c.q, c.sigma, c.T, true))
		nearRel(t, c.id+" ε₂", e, c.eps, c.tolEps)
		nearRel(t, c.id+" MSE bound", f64(t)(GuoMSEBoundUniform(e, 1)), c.mse, c.tolMSE)
	}
	// Without the soft-clip correction (notes §6): F16a → 0.171813, 1.33364;
	// F16g → 0.00502508, 49.6255.
	e := f64(t)(DPSGDRenyi2(0.01, 1, 1000, false))
	nearRel(t, "F16a hard clip ε₂", e, 0.171813, 1e-5)
	nearRel(t, "F16a hard clip MSE", f64(t)(GuoMSEBoundUniform(e, 1)), 1.33364, 1e-5)
	e = f64(t)(DPSGDRenyi2(0.01, 10, 5000, false))
	nearRel(t, "F16g hard clip ε₂", e, 0.00502508, 1e-5)
	nearRel(t, "F16g hard clip MSE", f64(t)(GuoMSEBoundUniform(e, 1)), 49.6255, 1e-5)
	// F9: RDP → DP (classic), α = 2, ε = 1.579155151993683, δ = 1e-5.
	eps, order, err := rdpEpsilonClassic([]float64{2}, []float64{1.579155151993683}, 1e-5)
	if err != nil || order != 2 {
		t.Fatalf("classic conversion: %v (order %v)", err, order)
	}
	nearRel(t, "F9", eps, 13.092080616963912, 1e-9)
}

func TestGuoSubsamplingFactor(t *testing.T) {
	// F14 (MNIST: q = 0.01, δ = 1e-9, soft clip) and F15 (CIFAR: q = 0.004,
	// δ = 1e-10): per-step ε = 1.115·2√(2 log(1.25/δ))/σ and κ; rel 1e-5.
	cases := []struct {
		q, delta, sigma, eps, kappa float64
	}{
		{0.01, 1e-9, 0.2, 72.168, 1.0},
		{0.01, 1e-9, 0.5, 28.8672, 1.0},
		{0.01, 1e-9, 1, 14.4336, 0.999947},
		{0.01, 1e-9, 2, 7.2168, 0.932244},
		{0.01, 1e-9, 5, 2.88672, 0.153371},
		{0.01, 1e-9, 10, 1.44336, 0.041022},
		{0.004, 1e-10, 0.5, 30.4125, 1.0},
		{0.004, 1e-10, 1, 15.2062, 0.999938},
		{0.004, 1e-10, 2, 7.60312, 0.889502},
	}
	for _, c := range cases {
		e := f64(t)(FILStepEpsilon(c.sigma, c.delta, true))
		nearRel(t, "per-step ε", e, c.eps, 1e-5)
		nearRel(t, "κ", f64(t)(FILSubsamplingFactor(c.q, e)), c.kappa, 1e-5)
	}
	// The ε_step constants of F14/F15 themselves.
	nearRel(t, "F14 constant", f64(t)(FILStepEpsilon(1, 1e-9, true)), 14.433599637434954, 1e-12)
	nearRel(t, "F15 constant", f64(t)(FILStepEpsilon(1, 1e-10, true)), 15.206243760760337, 1e-12)
	// Q5: κ → q as ε → 0 (exactly q at ε = 0).
	near(t, "κ at ε = 0", f64(t)(FILSubsamplingFactor(0.01, 0)), 0.01, 1e-18)
	// F22: dFIL η̄² → MSE bound 1/η̄² (0.4030656538 → 2.480985394).
	nearRel(t, "F22", f64(t)(FILMSEBound(0.4030656538)), 2.480985394, 1e-8)
}
