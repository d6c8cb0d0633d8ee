package privacy

import (
	"errors"
	"math"
	"testing"
)

func TestRDPSampledGaussianSingleStep(t *testing.T) {
	// nasr2021-adversary-instantiation.md §8 item 10 (and guo2022 §F16 note,
	// "without the /1.115 correction": q=0.01, σ=1, α=2 gives 1.71813e-4 per
	// step): q=1, σ=1, α=2 → 1.0; q=0.01, σ=1, α=2 → 1.71813e-4
	// (= log(1 + q²(e^{1/σ²} − 1))); α=2.5 → 2.17575e-4. Tolerance ±5e-10
	// absolute (the note gives six significant digits).
	near(t, "RDP(q=1,σ=1,α=2)", mustF(t)(RDPSampledGaussian(1, 1, 2)), 1.0, 1e-15)
	near(t, "RDP(q=.01,σ=1,α=2)", mustF(t)(RDPSampledGaussian(0.01, 1, 2)), 1.71813e-4, 5e-10)
	near(t, "RDP(q=.01,σ=1,α=2.5)", mustF(t)(RDPSampledGaussian(0.01, 1, 2.5)), 2.17575e-4, 5e-10)
	// The α = 2 closed form log1p(q²·expm1(1/σ²)) (guo2022 §2.7), exactly.
	for _, s := range []float64{0.5, 1, 2, 10} {
		want := math.Log1p(0.01 * 0.01 * math.Expm1(1/(s*s)))
		nearRel(t, "RDP α=2 closed form", mustF(t)(RDPSampledGaussian(0.01, s, 2)), want, 1e-10)
	}
}

func TestRDPIntegerOrdersExact(t *testing.T) {
	// The integer-order binomial sum is the formula dp_accounting evaluates
	// (_compute_log_a_int); the expected values are that sum evaluated with
	// mpmath at 60 digits, so agreement to 1e-9 relative means agreement
	// with dp_accounting to well within the required 1e-6.
	cases := []struct {
		q, sigma, alpha, want float64
	}{
		{mnistQ, 1.1, 2, 0.000023395776009949160215},
		{mnistQ, 1.1, 8, 0.000098341061779925993892},
		{mnistQ, 1.1, 32, 7.5901883462101087905},
		{mnistQ, 1.1, 63, 20.488120577148462936},
		{mnistQ, 1.1, 256, 100.30680187454402632},
		{mnistQ, 1.1, 1024, 417.67823923605194072},
		{0.01, 1, 2, 0.00017181342207454793814},
		{0.01, 1, 3, 0.00026463757458466135937},
		{0.04, 1.35, 10, 0.0091027654693835225897},
		{0.3, 0.5, 5, 8.4950343228293762796},
		{0.5, 2, 20, 1.7796588838340486127},
	}
	for _, c := range cases {
		nearRel(t, "integer-order RDP", mustF(t)(RDPSampledGaussian(c.q, c.sigma, c.alpha)), c.want, 1e-9)
	}
}

func TestRDPFractionalSignedSeries(t *testing.T) {
	// Expected values: the Rényi divergence integral
	// log E_{N(0,σ²)}[(1−q+q·e^{(2x−1)/(2σ²)})^α]/(α−1) by mpmath quadrature
	// at 60 digits. The signed MTZ series must match to 1e-9 relative (the
	// absolute-value sum of dp_accounting ≥ 2024 would overstate these).
	cases := []struct {
		q, sigma, alpha, want float64
	}{
		{mnistQ, 1.1, 1.5, 0.000017479784462924325626},
		{mnistQ, 1.1, 8.1, 0.000099659727619311168302},
		{mnistQ, 1.1, 10.9, 0.0001377984191178603777},
		{0.01, 1, 2.5, 0.00021757533228188046173},
		{0.3, 0.5, 3.7, 5.7501768253832611981},
		{0.5, 1, 1.5, 0.23515803448253101908},
		{0.04, 1.35, 4.3, 0.0027316127251525885841},
		{0.9, 3, 2.5, 0.11419444062961873508},
	}
	for _, c := range cases {
		nearRel(t, "fractional-order RDP", mustF(t)(RDPSampledGaussian(c.q, c.sigma, c.alpha)), c.want, 1e-9)
	}
}

func TestRDPSeriesAgainstGonumQuadrature(t *testing.T) {
	// An independent check: the signed series against numerical quadrature of
	// the Rényi divergence with gonum/integrate/quad (rdpQuadratureLogA:
	// 16-point Gauss–Legendre on σ-wide pieces). Tolerance 1e-8 relative,
	// plus 4e-15/(α−1) absolute: both compute log A as the log of a sum near
	// 1, so log A itself is only good to ~1e-15 absolute, which is a large
	// relative error when the RDP is ~1e-8.
	for _, q := range []float64{1e-3, mnistQ, 0.04, 0.2, 0.5, 0.9} {
		for _, s := range []float64{0.6, 1, 1.5, 4} {
			for _, a := range []float64{1.25, 2.5, 3.7, 6.3, 10.9, 31.5} {
				e := newSGMEvaluator(q, s)
				series := e.logAFrac(a) / (a - 1)
				quadrature := rdpQuadratureLogA(q, s, a) / (a - 1)
				if math.Abs(series-quadrature) > 1e-8*quadrature+4e-15/(a-1) {
					t.Errorf("q=%v σ=%v α=%v: series %.15g, quadrature %.15g", q, s, a, series, quadrature)
				}
			}
		}
	}
}

func TestRDPFullBatchIsExact(t *testing.T) {
	// q = 1: T steps are (α, T·α/(2σ²))-RDP exactly (hayes2023 §2.1).
	r := mustRDP(t)(NewRDP(nil))
	if err := r.AddSampledGaussian(1, 2, 100); err != nil {
		t.Fatal(err)
	}
	for i, a := range r.Orders() {
		nearRel(t, "q=1 RDP", r.Values()[i], 100*a/8, 1e-15)
	}
}

func TestDefaultOrders(t *testing.T) {
	// dp_accounting rdp_privacy_accountant.DEFAULT_RDP_ORDERS =
	// [1 + x/10 for x in 1..99] + [11..63] + [128, 256, 512, 1024].
	o := DefaultOrders()
	if len(o) != 99+53+4 {
		t.Fatalf("len(DefaultOrders) = %d, want 156", len(o))
	}
	if o[0] != 1.1 || o[98] != 10.9 || o[99] != 11 || o[151] != 63 || o[152] != 128 || o[155] != 1024 {
		t.Errorf("DefaultOrders endpoints wrong: %v … %v", o[:3], o[150:])
	}
	o[0] = 99
	if DefaultOrders()[0] != 1.1 {
		t.Error("DefaultOrders must return a fresh copy")
	}
}

func TestRDPMNISTTable(t *testing.T) {
	// nasr2021 §8 item 9 (TF-Privacy README values): N=60000, batch 256,
	// δ=1e-5, orders {1.1..10.9} ∪ {12..63}, T = ⌈epochs·N/batch⌉. Classic
	// conversion 3.0084 / 1.1923 / 7.1006, improved 2.5967 / 0.9546 / 6.3184,
	// tolerance ±0.01 (the note's); the values are given to 4 decimals and
	// agree to 1e-4 here, which is also checked.
	cases := []struct {
		sigma, epochs, classic, improved float64
	}{
		{1.1, 60, 3.0084, 2.5967},
		{1.3, 15, 1.1923, 0.9546},
		{0.7, 45, 7.1006, 6.3184},
	}
	for _, c := range cases {
		q, steps := must2(t)(StepsFromEpochs(c.epochs, 60000, 256))
		r := mustRDP(t)(NewRDP(tfOrders()))
		if err := r.AddSampledGaussian(q, c.sigma, steps); err != nil {
			t.Fatal(err)
		}
		e, _, err := r.Epsilon(1e-5, ConversionClassic)
		if err != nil {
			t.Fatal(err)
		}
		near(t, "classic ε", e, c.classic, 1e-4)
		e, _, err = r.Epsilon(1e-5, ConversionImproved)
		if err != nil {
			t.Fatal(err)
		}
		near(t, "improved ε", e, c.improved, 1e-4)
	}
}

func must2(t *testing.T) func(float64, int, error) (float64, int) {
	return func(q float64, s int, err error) (float64, int) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
		return q, s
	}
}

func TestRDPFig10Table(t *testing.T) {
	// nasr2021 §7 table (Fig. 10 reproduction), q = 256/60000, T = 14063,
	// δ = 1e-5: RDP classic and improved columns, tolerance ±0.01 (§8 item 11).
	cases := []struct{ sigma, classic, improved float64 }{
		{0.5, 24.9374, 23.4770},
		{0.6, 13.0749, 11.9922},
		{0.7, 8.0728, 7.2547},
		{0.8, 5.6477, 5.0045},
		{0.9, 4.3335, 3.8020},
		{1.0, 3.5393, 3.0788},
		{1.1, 3.0084, 2.5967},
		{1.3, 2.3354, 1.9891},
	}
	for _, c := range cases {
		r := mustRDP(t)(NewRDP(tfOrders()))
		if err := r.AddSampledGaussian(mnistQ, c.sigma, mnistT); err != nil {
			t.Fatal(err)
		}
		e, _, _ := r.Epsilon(1e-5, ConversionClassic)
		near(t, "classic ε", e, c.classic, 0.01)
		e, _, _ = r.Epsilon(1e-5, ConversionImproved)
		near(t, "improved ε", e, c.improved, 0.01)
	}
}

func TestRDPMatchesDPAccounting(t *testing.T) {
	// Google dp_accounting measured on this machine:
	// RdpAccountant with default orders, q = 256/60000, σ = 1.1, T = 14063,
	// δ = 1e-5 → ε = 2.596656. The optimum is at the fractional order 8.1,
	// where dp_accounting's absolute-value series and the signed series
	// agree to far better than the 6 printed digits; tolerance 1e-6.
	e, err := Epsilon(AccountantRDP, SampledGaussian{NoiseMultiplier: 1.1, SamplingRate: mnistQ, Steps: mnistT}, 1e-5, Options{})
	if err != nil {
		t.Fatal(err)
	}
	near(t, "dp_accounting RDP ε", e, 2.596656, 1e-6)
	r := mustRDP(t)(NewRDP(nil))
	_ = r.AddSampledGaussian(mnistQ, 1.1, mnistT)
	_, order, _ := r.Epsilon(1e-5, ConversionImproved)
	if order != 8.1 {
		t.Errorf("optimal order = %v, want 8.1", order)
	}
}

func TestRDPConversionFromGivenCurve(t *testing.T) {
	// guo2022 F9: (α = 2, ε_RDP = 1.579155151993683), δ = 1e-5, classic
	// conversion ε + ln(1/δ)/(α−1) = 13.092080616963912, rel 1e-9.
	r := mustRDP(t)(NewRDP([]float64{2}))
	r.values[0] = 1.579155151993683
	e, _, _ := r.Epsilon(1e-5, ConversionClassic)
	nearRel(t, "classic conversion", e, 13.092080616963912, 1e-9)
	// Delta inverts Epsilon at the same order (classic: δ = e^{(α−1)(r−ε)}).
	d, _, _ := r.Delta(e, ConversionClassic)
	nearRel(t, "classic δ(ε(δ))", d, 1e-5, 1e-9)
	// Improved: ε = r + log1p(−1/α) − log(δα)/(α−1), and its inverse.
	e, _, _ = r.Epsilon(1e-5, ConversionImproved)
	nearRel(t, "improved conversion", e, 1.579155151993683+math.Log1p(-0.5)-math.Log(2e-5), 1e-12)
	d, _, _ = r.Delta(e, ConversionImproved)
	nearRel(t, "improved δ(ε(δ))", d, 1e-5, 1e-9)
}

func TestRDPHeterogeneousComposition(t *testing.T) {
	// bernau2021 §6 item 14: q = 1, k = 30 steps with multipliers
	// z·6/LS, z = 8.380227, δ = 0.01, classic conversion, TF orders:
	// all LS = 3 → ε′ = 1.04517; all LS = 2 → 0.68492 (tol 1e-5, the note's
	// rounding). Composing the 30 steps as 10 + 20 separate mechanisms must
	// give the same curve as 30 at once.
	for _, c := range []struct{ ls, want float64 }{{3, 1.04517}, {2, 0.68492}, {6, 2.19722}} {
		z := 8.380227 * 6 / c.ls
		r := mustRDP(t)(NewRDP(tfOrders()))
		_ = r.AddSampledGaussian(1, z, 10)
		_ = r.AddSampledGaussian(1, z, 20)
		e, _, _ := r.Epsilon(0.01, ConversionClassic)
		near(t, "heterogeneous ε′", e, c.want, 1e-5)
	}
	// Mixed noise levels: the curve is the sum of the parts.
	a := mustRDP(t)(NewRDP(nil))
	_ = a.AddSampledGaussian(0.01, 1, 100)
	_ = a.AddSampledGaussian(0.02, 2, 50)
	b := mustRDP(t)(NewRDP(nil))
	_ = b.AddSampledGaussian(0.02, 2, 50)
	c := mustRDP(t)(NewRDP(nil))
	_ = c.AddSampledGaussian(0.01, 1, 100)
	if err := c.Compose(b); err != nil {
		t.Fatal(err)
	}
	for i := range a.values {
		nearRel(t, "composed curve", c.values[i], a.values[i], 1e-14)
	}
	e1 := mustF(t)(ComposedEpsilon(AccountantRDP, []SampledGaussian{{NoiseMultiplier: 1, SamplingRate: 0.01, Steps: 100}, {NoiseMultiplier: 2, SamplingRate: 0.02, Steps: 50}}, 1e-5, Options{}))
	e2, _, _ := a.Epsilon(1e-5, ConversionImproved)
	nearRel(t, "ComposedEpsilon", e1, e2, 1e-14)
}

func TestRDPEdgeCases(t *testing.T) {
	// σ → 0 gives +Inf cleanly (never NaN), at integer and fractional orders.
	for _, s := range []float64{0, 1e-200, 1e-30, 1e-3} {
		for _, a := range []float64{1.5, 2, 10.9, 1024} {
			v, err := RDPSampledGaussian(0.01, s, a)
			if err != nil || math.IsNaN(v) || v < 1 {
				t.Errorf("RDP(σ=%v, α=%v) = %v, %v: want large or +Inf", s, a, v, err)
			}
		}
	}
	e, err := Epsilon(AccountantRDP, SampledGaussian{NoiseMultiplier: 1e-3, SamplingRate: 0.01, Steps: 1}, 1e-5, Options{})
	if err != nil || math.IsNaN(e) || e < 100 {
		t.Errorf("ε(σ=1e-3) = %v, %v: want huge", e, err)
	}
	// Tiny δ and huge ε stay finite and ordered.
	e, err = Epsilon(AccountantRDP, SampledGaussian{NoiseMultiplier: 1, SamplingRate: 0.01, Steps: 1000}, 1e-300, Options{})
	if err != nil || math.IsNaN(e) || math.IsInf(e, 0) || e < 5 {
		t.Errorf("ε(δ=1e-300) = %v, %v", e, err)
	}
	d, err := Delta(AccountantRDP, SampledGaussian{NoiseMultiplier: 1, SamplingRate: 0.01, Steps: 1000}, 500, Options{})
	if err != nil || !(d >= 0 && d < 1e-100) {
		t.Errorf("δ(ε=500) = %v, %v: want tiny", d, err)
	}
	// Invalid orders and inputs are ErrInvalid.
	for _, bad := range [][3]float64{{0, 1, 2}, {1.5, 1, 2}, {0.1, -1, 2}, {0.1, 1, 1}, {0.1, 1, math.NaN()}, {math.NaN(), 1, 2}} {
		if _, err := RDPSampledGaussian(bad[0], bad[1], bad[2]); !errors.Is(err, ErrInvalid) {
			t.Errorf("RDPSampledGaussian%v: err = %v, want ErrInvalid", bad, err)
		}
	}
	if _, err := NewRDP([]float64{0.5}); !errors.Is(err, ErrInvalid) {
		t.Errorf("order 0.5: err = %v, want ErrInvalid", err)
	}
	r := mustRDP(t)(NewRDP(nil))
	if _, _, err := r.Epsilon(0, ConversionImproved); !errors.Is(err, ErrInvalid) {
		t.Errorf("δ = 0: err = %v, want ErrInvalid", err)
	}
	if _, _, err := r.Epsilon(1e-5, Conversion(7)); !errors.Is(err, ErrInvalid) {
		t.Errorf("conversion 7: err = %v, want ErrInvalid", err)
	}
	// An empty curve (nothing composed) is 0-DP.
	if e, _, _ := r.Epsilon(1e-5, ConversionImproved); e != 0 {
		t.Errorf("empty curve ε = %v, want 0", e)
	}
}

func TestRDPSlowSeriesFallsBackToQuadrature(t *testing.T) {
	// q near ½ and small σ: the MTZ tail decays only polynomially and the
	// series hits maxSeriesTerms; the result must still agree with the
	// quadrature (1e-8 relative) and be finite.
	e := newSGMEvaluator(0.5, 0.3)
	v := e.rdp(1.05)
	want := rdpQuadratureLogA(0.5, 0.3, 1.05) / 0.05
	nearRel(t, "slow-series RDP", v, want, 1e-8)
}

func TestRDPEpsilonReportsOrder(t *testing.T) {
	// Same reference as TestRDPMatchesDPAccounting (dp_accounting 2.596656
	// at order 8.1); σ = 0 gives +Inf at the first order.
	m := SampledGaussian{NoiseMultiplier: 1.1, SamplingRate: mnistQ, Steps: mnistT}
	e, order, err := RDPEpsilon(m, 1e-5, Options{})
	if err != nil || order != 8.1 {
		t.Fatalf("RDPEpsilon = %v, %v, %v", e, order, err)
	}
	near(t, "RDPEpsilon", e, 2.596656, 1e-6)
	m.NoiseMultiplier = 0
	if e, _, err := RDPEpsilon(m, 1e-5, Options{}); err != nil || !math.IsInf(e, 1) {
		t.Errorf("σ = 0: %v, %v", e, err)
	}
}

func TestRDPLargeOrders(t *testing.T) {
	// Orders beyond the log-factorial table (integer, lgamma path) and
	// beyond the linear-scale fast path (fractional α > 300, log-space
	// series) against the gonum quadrature, 1e-8 relative.
	for _, a := range []float64{5000, 300.5, 1000.25} {
		e := newSGMEvaluator(0.01, 3)
		nearRel(t, "large-order RDP", e.rdp(a), rdpQuadratureLogA(0.01, 3, a)/(a-1), 1e-8)
	}
}

func TestRDPOrderTwoGuo(t *testing.T) {
	// guo2022 "DP-SGD RDP(α = 2)" table: ε₂ = T·RDP_2(q, σ_eff) with
	// σ_eff = σ/1.115 (the code's soft-clip correction), rel 1e-5; and the
	// uncorrected values F16a 0.171813, F16g 0.00502508.
	r2 := func(q, sigma float64, steps int) float64 {
		r := mustRDP(t)(NewRDP([]float64{2}))
		if err := r.AddSampledGaussian(q, sigma, steps); err != nil {
			t.Fatal(err)
		}
		return r.Values()[0]
	}
	cases := []struct {
		q, sigma float64
		steps    int
		want     float64
	}{
		{0.01, 1 / 1.115, 1000, 0.246647},    // F16a
		{0.01, 1 / 1.115, 5000, 1.23324},     // F16b
		{0.01, 2 / 1.115, 1000, 0.0364518},   // F16c
		{0.01, 0.5 / 1.115, 1000, 14.2426},   // F16h
		{0.004, 1 / 1.115, 12500, 0.493345},  // F17a
		{0.004, 0.5 / 1.115, 12500, 28.6562}, // F17e
		{0.01, 1, 1000, 0.171813},            // F16a uncorrected
		{0.01, 10, 5000, 0.00502508},         // F16g uncorrected
	}
	for _, c := range cases {
		nearRel(t, "ε₂", r2(c.q, c.sigma, c.steps), c.want, 1e-5)
	}
}
