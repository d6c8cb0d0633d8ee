package privacy

import (
	"errors"
	"math"
	"strings"
	"testing"
)

// Accountants never give up or overshoot silently: at tiny δ, huge ε,
// q = 1 and σ → 0 every answer is a bound, and when it cannot be, an error
// says so.

// TestPLDTinyDeltaNeverUnderReports: at the MNIST schedule (q = 256/60000,
// σ = 1.1, T = 14063) the exact ε is 4.579 at δ = 1e-14 and 4.1746 at
// δ = 1e-12 (to the digits given where the under-estimate was found; the
// exact values may lie half a unit of the last digit lower). The plain FFT composition gave 4.532 and
// 4.1731 — below the exact values, i.e. no bound. The pessimistic PLD must
// be at or above them (taking the lowest value the rounding allows) and
// within 2e-3 (discretisation at h = 1e-4 plus the truncation allowance).
// At δ = 1e-5 (2.3817, dp_accounting) nothing changes beyond the rounding
// bound's 2e-5.
func TestPLDTinyDeltaNeverUnderReports(t *testing.T) {
	m := SampledGaussian{NoiseMultiplier: 1.1, SamplingRate: mnistQ, Steps: mnistT}
	for _, c := range []struct{ delta, exact float64 }{{1e-14, 4.5785}, {1e-12, 4.17455}, {1e-5, 2.381779}} {
		e := mustF(t)(Epsilon(AccountantPLD, m, c.delta, Options{}))
		if e < c.exact || e > c.exact+2e-3 {
			t.Errorf("δ = %g: PLD ε = %.6f, want in [%v, %v] (exact %v)", c.delta, e, c.exact, c.exact+2e-3, c.exact)
		}
		// δ(ε) at the exact ε must not be below δ either (the Delta
		// direction tilts too).
		d := mustF(t)(Delta(AccountantPLD, m, c.exact, Options{}))
		if d < c.delta*0.999 {
			t.Errorf("δ(ε = %v) = %v, below the δ = %v it has exactly", c.exact, d, c.delta)
		}
	}
}

// TestPLDCoarsensInsteadOfGivingUp: a grid beyond the memory cap (here
// injected as the old fixed cap of MaxPMFLen points; by default it is a
// quarter of RAM, where this grid fits) is coarsened (a coarser pessimistic
// grid is still an upper bound) and the interval used is reported. At
// h = 1e-6 the MNIST composition needs ~9.9M points;
// coarsened by 16 (to ~1M points) ε must stay within 3e-4 of the limit
// 2.381695 (h → 0, see PMF) and above it. On main this returned +Inf.
func TestPLDCoarsensInsteadOfGivingUp(t *testing.T) {
	m := SampledGaussian{NoiseMultiplier: 1.1, SamplingRate: mnistQ, Steps: mnistT}
	r, err := EpsilonDetail(AccountantPLD, m, 1e-5, Options{PLDInterval: 1e-6, PLDMemory: oldCapMemory})
	if err != nil {
		t.Fatal(err)
	}
	if r.PLDInterval != 1.6e-5 {
		t.Errorf("interval used = %v, want 1.6e-5", r.PLDInterval)
	}
	if r.Value < 2.381695-1e-5 || r.Value > 2.381695+3e-4 {
		t.Errorf("ε = %v, want ≈ 2.381695 (≤ +3e-4)", r.Value)
	}
	// The default interval is reported as used when it fits.
	r = mustR(t)(EpsilonDetail(AccountantPLD, m, 1e-5, Options{}))
	if r.PLDInterval != DefaultPLDInterval {
		t.Errorf("interval used = %v, want the default", r.PLDInterval)
	}
}

func mustR(t *testing.T) func(Result, error) Result {
	return func(r Result, err error) Result {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
		return r
	}
}

// TestBestAccountant: best is the minimum of the valid upper bounds. At
// σ = 18.89, q = 0.000667, T = 32217, δ = 6.6e-8 PLD at the
// default interval gives 0.0383 and RDP 0.0285 (exact 0.0249): best = RDP.
// At the MNIST schedule PLD is tighter: best = PLD. At q = 1 best is the
// exact GDP value. δ(ε) likewise takes the smaller δ.
func TestBestAccountant(t *testing.T) {
	m := SampledGaussian{NoiseMultiplier: 18.89, SamplingRate: 0.000667, Steps: 32217}
	pld := mustF(t)(Epsilon(AccountantPLD, m, 6.6e-8, Options{}))
	rdp := mustF(t)(Epsilon(AccountantRDP, m, 6.6e-8, Options{}))
	near(t, "PLD", pld, 0.0383, 5e-4)
	near(t, "RDP", rdp, 0.0285, 5e-4)
	b := mustR(t)(EpsilonDetail(AccountantBest, m, 6.6e-8, Options{}))
	if b.Value != rdp || b.Accountant != AccountantRDP || b.PLDInterval != DefaultPLDInterval {
		t.Errorf("best = %+v, want RDP's %v (with the PLD interval recorded)", b, rdp)
	}
	if b.Value < 0.0249 {
		t.Errorf("best ε %v below the exact 0.0249", b.Value)
	}
	m = SampledGaussian{NoiseMultiplier: 1.1, SamplingRate: mnistQ, Steps: mnistT}
	b = mustR(t)(EpsilonDetail(AccountantBest, m, 1e-5, Options{}))
	if pld := mustF(t)(Epsilon(AccountantPLD, m, 1e-5, Options{})); b.Value != pld || b.Accountant != AccountantPLD {
		t.Errorf("best = %+v, want PLD's %v", b, pld)
	}
	d := mustR(t)(DeltaDetail(AccountantBest, m, 2, Options{}))
	dr := mustF(t)(Delta(AccountantRDP, m, 2, Options{}))
	dp := mustF(t)(Delta(AccountantPLD, m, 2, Options{}))
	if d.Value != math.Min(dr, dp) {
		t.Errorf("best δ = %v, want min(%v, %v)", d.Value, dr, dp)
	}
	// Calibration: the smallest σ of the two, meeting the target.
	s := mustF(t)(Calibrate(AccountantBest, 0.04, 6.6e-8, 0.000667, 32217, Options{}))
	sr := mustF(t)(Calibrate(AccountantRDP, 0.04, 6.6e-8, 0.000667, 32217, Options{}))
	if s != sr {
		t.Errorf("best calibration σ = %v, want RDP's %v", s, sr)
	}
	if e := mustF(t)(Epsilon(AccountantBest, SampledGaussian{NoiseMultiplier: s, SamplingRate: 0.000667, Steps: 32217}, 6.6e-8, Options{})); e > 0.04 {
		t.Errorf("ε_best(σ_best) = %v above the target", e)
	}
	if _, err := Epsilon("bestest", m, 1e-5, Options{}); !errors.Is(err, ErrInvalid) {
		t.Errorf("unknown accountant: err = %v", err)
	}
}

// TestGDPExactAtFullBatch: at q = 1, T steps of the Gaussian mechanism are
// exactly (√T/σ)-GDP, so the GDP accountant must give the exact ε — that of
// one Gaussian mechanism with noise σ/√T (Balle & Wang 2018's analytic
// GaussianEpsilon, an independent computation) — not the CLT value, which at
// σ = 0.5, T = 100 (μ_CLT = √(T(e^{1/σ²} − 1)) = 73.2 against the exact
// μ = 20) is far too high. PLD (pessimistic, h = 1e-4) and RDP bracket it
// from above.
func TestGDPExactAtFullBatch(t *testing.T) {
	for _, c := range []struct {
		sigma float64
		T     int
	}{{0.5, 100}, {2, 10}, {6.8, 115661}} {
		m := SampledGaussian{NoiseMultiplier: c.sigma, SamplingRate: 1, Steps: c.T}
		r := mustR(t)(EpsilonDetail(AccountantGDP, m, 1e-5, Options{}))
		exact := mustF(t)(GaussianEpsilon(c.sigma/math.Sqrt(float64(c.T)), 1e-5, 1))
		nearRel(t, "GDP at q = 1", r.Value, exact, 1e-6)
		if !r.Exact {
			t.Errorf("σ=%v T=%d: GDP not labelled exact", c.sigma, c.T)
		}
		if rdp := mustF(t)(Epsilon(AccountantRDP, m, 1e-5, Options{})); rdp < r.Value {
			t.Errorf("RDP %v below the exact %v", rdp, r.Value)
		}
	}
	// Subsampled: still the CLT approximation, labelled so.
	if r := mustR(t)(EpsilonDetail(AccountantGDP, SampledGaussian{NoiseMultiplier: 1.1, SamplingRate: mnistQ, Steps: mnistT}, 1e-5, Options{})); r.Exact {
		t.Error("GDP at q < 1 labelled exact")
	}
	// Calibration with GDP at q = 1 inverts the exact μ: the calibration
	// that once returned σ = 6.8 needs σ ≈ 0.7686 (ε = 1e5, T = 115661, δ = 8.335e-7).
	s := mustF(t)(Calibrate(AccountantGDP, 1e5, 8.335e-7, 1, 115661, Options{}))
	nearRel(t, "GDP σ at q = 1", s, 0.76865, 1e-4)
}

// TestCalibrateInfiniteEpsilonSaysSo: a search that ends next to a σ where
// the accountant gives ε = +Inf stopped at the accountant's limit, not at
// the target, and must say so instead of returning that σ. A synthetic
// ε(σ) (+Inf below σ = 1, 1/σ above: the target 10 would be met at 0.1)
// must give ErrUnreachable naming +Inf; a finite curve must calibrate. The
// case that once returned σ = 6.8 where 0.77 suffices (q = 1, T = 115661,
// δ = 8.335e-7, ε = 1e5) is answered by best (the exact GDP value).
func TestCalibrateInfiniteEpsilonSaysSo(t *testing.T) {
	f := func(sigma float64, _ Options) (float64, error) {
		if sigma < 1 {
			return math.Inf(1), nil
		}
		return 1 / sigma, nil
	}
	_, err := calibrateSearch(AccountantPLD, f, 10, 0.3, Options{})
	if !errors.Is(err, ErrUnreachable) || !strings.Contains(err.Error(), "+Inf") {
		t.Errorf("err = %v, want ErrUnreachable naming +Inf", err)
	}
	g := func(sigma float64, _ Options) (float64, error) { return 1 / sigma, nil }
	s, err := calibrateSearch(AccountantRDP, g, 10, 0.3, Options{})
	if err != nil || math.Abs(s-0.1) > 1e-6 {
		t.Errorf("finite curve: σ = %v, err = %v; want 0.1", s, err)
	}
	s = mustF(t)(Calibrate(AccountantBest, 1e5, 8.335e-7, 1, 115661, Options{}))
	nearRel(t, "best σ", s, 0.76865, 1e-4)
}

// TestAccountantEdgeCases: σ → 0, huge ε, q = 1, tiny δ; every answer is a
// bound (finite or +Inf), never NaN, never an error for valid input, and
// best is never above any valid accountant. The PLD runs under the old
// fixed cap (oldCapMemory), which keeps it fast and exercises coarsening.
func TestAccountantEdgeCases(t *testing.T) {
	o := Options{PLDMemory: oldCapMemory}
	cases := []struct {
		m     SampledGaussian
		delta float64
	}{
		{SampledGaussian{NoiseMultiplier: 1e-9, SamplingRate: 0.01, Steps: 10}, 1e-5},     // σ → 0: +Inf
		{SampledGaussian{NoiseMultiplier: 0.3, SamplingRate: 1, Steps: 1000}, 1e-5},       // q = 1, huge ε
		{SampledGaussian{NoiseMultiplier: 1.1, SamplingRate: mnistQ, Steps: 100}, 1e-300}, // δ below PLD's truncation: PLD +Inf, RDP finite
		{SampledGaussian{NoiseMultiplier: 50, SamplingRate: 0.5, Steps: 1}, 0.5},          // ε ≈ 0
	}
	for _, c := range cases {
		b := mustR(t)(EpsilonDetail(AccountantBest, c.m, c.delta, o))
		if math.IsNaN(b.Value) || b.Value < 0 {
			t.Errorf("%+v δ=%g: best = %+v", c.m, c.delta, b)
		}
		for _, a := range []Accountant{AccountantRDP, AccountantPLD} {
			v := mustF(t)(Epsilon(a, c.m, c.delta, o))
			if math.IsNaN(v) || b.Value > v {
				t.Errorf("%+v δ=%g: %s = %v, best = %v", c.m, c.delta, a, v, b.Value)
			}
		}
	}
	// δ = 1e-300: RDP certifies a finite ε where PLD cannot; best uses it.
	b := mustR(t)(EpsilonDetail(AccountantBest, SampledGaussian{NoiseMultiplier: 1.1, SamplingRate: mnistQ, Steps: 100}, 1e-300, o))
	if math.IsInf(b.Value, 0) || b.Accountant != AccountantRDP {
		t.Errorf("δ = 1e-300: best = %+v, want RDP's finite ε", b)
	}
}
