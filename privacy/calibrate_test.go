package privacy

import (
	"errors"
	"math"
	"testing"
)

func TestCalibratePLDMatchesDPAccounting(t *testing.T) {
	// Google dp_accounting measured on this machine:
	// calibrating σ to ε = 8, δ = 1e-5 at q = 0.04, T = 2250 with the PLD
	// accountant → σ = 1.345899. dp_accounting's brentq uses an absolute
	// tolerance of 1e-6 and we use 1e-6 relative, so the two can differ by
	// ~2e-6; tolerance 5e-6.
	s := mustF(t)(Calibrate(AccountantPLD, 8, 1e-5, 0.04, 2250, Options{}))
	near(t, "PLD σ", s, 1.345899, 5e-6)
	// The returned σ meets the target, and 1e-6 less noise does not.
	e := mustF(t)(Epsilon(AccountantPLD, SampledGaussian{NoiseMultiplier: s, SamplingRate: 0.04, Steps: 2250}, 1e-5, Options{}))
	e2 := mustF(t)(Epsilon(AccountantPLD, SampledGaussian{NoiseMultiplier: s * (1 - 1e-6), SamplingRate: 0.04, Steps: 2250}, 1e-5, Options{}))
	if !(e <= 8 && e2 > 8) {
		t.Errorf("ε(σ) = %v, ε(σ·(1−1e-6)) = %v: want ≤ 8 and > 8", e, e2)
	}
}

func TestCalibrateRDPBernau(t *testing.T) {
	// bernau2021 §6 item 8 (solveNoiseMultiplier, matches the notebooks):
	// q = 1, k = 30 steps, classic conversion, orders {1.1..10.9} ∪ {12..63};
	// tolerance 1e-5 (the note's bisection tolerance), 1e-4 for the value
	// printed with four decimals.
	o := Options{Orders: tfOrders(), Conversion: ConversionClassic}
	cases := []struct{ eps, delta, want, tol float64 }{
		{math.Log(9), 0.01, 8.380227, 1e-5},
		{math.Log(9), 0.001, 9.951727, 1e-5},
		{math.Log(3), 0.01, 15.984861, 1e-5},
		{math.Log(99), 0.01, 4.365337, 1e-5},
		{math.Log(0.52 / 0.48), 0.01, 404.8436, 1e-3}, // optimum at the grid edge α = 63
	}
	for _, c := range cases {
		near(t, "RDP σ", mustF(t)(Calibrate(AccountantRDP, c.eps, c.delta, 1, 30, o)), c.want, c.tol)
	}
}

func TestCalibrateRDPHayes(t *testing.T) {
	// hayes2023 §5.3, "RDP σ": T = 100, δ = 1e-5, improved conversion,
	// orders {1.1..10.9} ∪ {12..63} ∪ {80, 96, 128, 256}; values printed to
	// four decimals (±1e-4, and 1e-4 relative for the large ones).
	o := Options{Orders: append(tfOrders(), 80, 96, 128, 256)}
	cases := []struct{ eps, q, want float64 }{
		{4, 0.01, 0.6420}, {4, 0.05, 1.0045}, {4, 0.10, 1.4815}, {4, 0.99, 11.4621},
		{1, 0.01, 1.0802}, {8, 0.01, 0.5008}, {8, 0.99, 6.3152}, {32, 0.01, 0.3002},
		{1, 1, 40.4539}, {10, 1, 5.2960}, {100, 1, 0.9751},
	}
	for _, c := range cases {
		near(t, "RDP σ", mustF(t)(Calibrate(AccountantRDP, c.eps, 1e-5, c.q, 100, o)), c.want, math.Max(1e-4, 1e-5*c.want)+5e-5)
	}
	// "With classic conversion … 49.0151, 5.6791 and 0.9871" (q = 1).
	o.Conversion = ConversionClassic
	for _, c := range []struct{ eps, want float64 }{{1, 49.0151}, {10, 5.6791}, {100, 0.9871}} {
		near(t, "classic RDP σ", mustF(t)(Calibrate(AccountantRDP, c.eps, 1e-5, 1, 100, o)), c.want, 1e-4)
	}
}

func TestCalibratePLDHayes(t *testing.T) {
	// hayes2023 §5.3, "PLD σ" (T = 100, δ = 1e-5; the note used grids of
	// 1e-4 … 8e-4, coarser grids giving slightly larger σ): ε = 4, q = 0.01
	// → 0.5908, q = 0.5 → 5.5170, q = 0.99 → 10.7172; ε = 32, q = 0.01 →
	// 0.2808. Tolerance 2e-3 relative (the grid spread).
	for _, c := range []struct{ eps, q, want float64 }{{4, 0.01, 0.5908}, {4, 0.5, 5.5170}, {4, 0.99, 10.7172}, {32, 0.01, 0.2808}} {
		nearRel(t, "PLD σ", mustF(t)(Calibrate(AccountantPLD, c.eps, 1e-5, c.q, 100, Options{})), c.want, 2e-3)
	}
}

func TestCalibrateGDPClosedForm(t *testing.T) {
	// GDP calibration inverts μ = q√(T(e^{1/σ²}−1)) exactly: the returned σ
	// gives the target ε back (1e-9).
	s := mustF(t)(Calibrate(AccountantGDP, 2.3243152684, 1e-5, mnistQ, mnistT, Options{}))
	e := mustF(t)(Epsilon(AccountantGDP, SampledGaussian{NoiseMultiplier: s, SamplingRate: mnistQ, Steps: mnistT}, 1e-5, Options{}))
	near(t, "GDP ε(σ)", e, 2.3243152684, 1e-9)
}

func TestCalibrateOrdering(t *testing.T) {
	// For the same target the accountants order as GDP (CLT, optimistic) ≤
	// PLD (tight upper bound) ≤ RDP (looser upper bound), for DP-SGD-like q.
	g := mustF(t)(Calibrate(AccountantGDP, 3, 1e-5, 0.01, 1000, Options{}))
	p := mustF(t)(Calibrate(AccountantPLD, 3, 1e-5, 0.01, 1000, Options{}))
	r := mustF(t)(Calibrate(AccountantRDP, 3, 1e-5, 0.01, 1000, Options{}))
	if !(g <= p && p <= r) {
		t.Errorf("σ: GDP %v, PLD %v, RDP %v: want GDP ≤ PLD ≤ RDP", g, p, r)
	}
}

func TestCalibrateErrors(t *testing.T) {
	// The classic conversion cannot certify ε below log(1/δ)/(α_max − 1)
	// (= 0.1857 for δ = 1e-5 and α_max = 63): unreachable, not a failure.
	_, err := Calibrate(AccountantRDP, 0.1, 1e-5, 0.01, 100, Options{Orders: tfOrders(), Conversion: ConversionClassic})
	if !errors.Is(err, ErrUnreachable) || errors.Is(err, ErrInvalid) {
		t.Errorf("unreachable target: err = %v", err)
	}
	bad := []struct {
		acc           Accountant
		eps, delta, q float64
		steps         int
	}{
		{"moments", 1, 1e-5, 0.01, 10},
		{AccountantRDP, 0, 1e-5, 0.01, 10},
		{AccountantRDP, math.Inf(1), 1e-5, 0.01, 10},
		{AccountantPLD, 1, 0, 0.01, 10},
		{AccountantPLD, 1, 1, 0.01, 10},
		{AccountantGDP, 1, 1e-5, 0, 10},
		{AccountantGDP, 1, 1e-5, 1.5, 10},
		{AccountantRDP, 1, 1e-5, 0.01, 0},
	}
	for _, c := range bad {
		if _, err := Calibrate(c.acc, c.eps, c.delta, c.q, c.steps, Options{}); !errors.Is(err, ErrInvalid) {
			t.Errorf("Calibrate%+v: err = %v, want ErrInvalid", c, err)
		}
	}
	if _, err := Calibrate(AccountantPLD, 1, 1e-5, 0.01, 10, Options{PLDInterval: -1}); !errors.Is(err, ErrInvalid) {
		t.Errorf("negative interval: err = %v", err)
	}
}

func TestStepsFromEpochs(t *testing.T) {
	// nasr2021 §8 item 9: T = ⌈epochs·N/batch⌉ with N = 60000, batch 256:
	// 60 → 14063, 15 → 3516, 45 → 10547.
	for _, c := range []struct {
		epochs float64
		want   int
	}{{60, 14063}, {15, 3516}, {45, 10547}} {
		q, steps, err := StepsFromEpochs(c.epochs, 60000, 256)
		if err != nil || steps != c.want || q != 256.0/60000 {
			t.Errorf("StepsFromEpochs(%v) = %v, %v, %v; want %v", c.epochs, q, steps, err, c.want)
		}
	}
	// Exact multiples are not bumped up by rounding: 0.7·600/6 = 70.
	if _, steps, _ := StepsFromEpochs(0.7, 600, 6); steps != 70 {
		t.Errorf("0.7 epochs of 100 steps = %d, want 70", steps)
	}
	if _, steps, _ := StepsFromEpochs(0.001, 100, 10); steps != 1 {
		t.Errorf("a tiny schedule still has 1 step, got %d", steps)
	}
	for _, c := range []struct {
		e    float64
		n, b int
	}{{0, 100, 10}, {1, 0, 1}, {1, 100, 0}, {1, 100, 101}, {math.NaN(), 100, 10}} {
		if _, _, err := StepsFromEpochs(c.e, c.n, c.b); !errors.Is(err, ErrInvalid) {
			t.Errorf("StepsFromEpochs%v: err = %v, want ErrInvalid", c, err)
		}
	}
}
