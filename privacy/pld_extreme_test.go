package privacy

import (
	"errors"
	"fmt"
	"math"
	"testing"

	"github.com/dpaudit/dpaudit/internal/numeric"
)

// TestPLDIssueReproduction is the reported failure: σ = 0.1, q = 0.01,
// T = 100, δ = 1e-5 at the default interval failed with "hockey-stick
// divergence increases at ε = 14.6589". It must return without error. At
// 1e-4 the composed remove PMF needs a Chernoff window of 8.54M points,
// above MaxPMFLen = 2^23; the accountant used to answer +Inf (from
// ErrTooLarge, still checked if it does) and now coarsens the interval
// (to 1.6e-3, measured); ε must agree with the
// coarser intervals (354.1961 at h = 1e-2, see TestChernoffWindowThinTail;
// a finer grid can only lower the pessimistic ε, by at most 1e-3 here).
// A grid too fine for one step (σ = 0.05 at h = 2e-5: 20M points) returns
// +Inf cleanly for every q and T, without building anything.
func TestPLDIssueReproduction(t *testing.T) {
	m := SampledGaussian{NoiseMultiplier: 0.1, SamplingRate: 0.01, Steps: 100}
	// Under the old fixed cap (by default, a quarter of RAM, this runs at
	// 1e-4 on a grid of tens of millions of points: seconds and GBs).
	e, err := Epsilon(AccountantPLD, m, 1e-5, Options{PLDMemory: oldCapMemory})
	switch {
	case err != nil || math.IsNaN(e):
		t.Errorf("ε = %v, err = %v", e, err)
	case math.IsInf(e, 1):
		if _, err := SampledGaussianPLD(0.01, 0.1, 100, 0, true); !errors.Is(err, ErrTooLarge) {
			t.Errorf("ε = +Inf but SampledGaussianPLD err = %v, want ErrTooLarge", err)
		}
	case e > 354.1961+1e-4 || e < 354.1961-1e-3:
		t.Errorf("ε = %v, want +Inf (too large) or ≈ 354.196", e)
	}
	// (The accountant now coarsens such grids instead: the
	// σ = 0.1 case above, and TestPLDCoarsensInsteadOfGivingUp.)
	for _, q := range sweepQs {
		for _, T := range sweepSteps {
			if _, err := SampledGaussianPLD(q, 0.05, T, 2e-5, true); !errors.Is(err, ErrTooLarge) {
				t.Errorf("σ=0.05 q=%v T=%d h=2e-5: err = %v, want ErrTooLarge", q, T, err)
			}
		}
	}
}

// TestSampledGaussianRemoveSplitAccurate checks the remove-direction
// hockey-stick divergence of one step where the former two-form split lost
// all precision: for −1 < x_ε < 0 at large ε it subtracted two numbers near
// e^ε (δ(30) came out as 0.009765625 = 10/1024 for q = 0.01, σ = 0.1). The
// reference is an independent evaluation in log space of
// δ(ε) = q·Φ((x+1)/σ) − (e^ε − 1 + q)·Φ(x/σ) at x = x_ε, via log Φ
// (logNormCDF, ~1e-15 relative); tolerance 1e-12 relative, and δ must be
// non-increasing along a fine ε grid to 1e-15 absolute.
func TestSampledGaussianRemoveSplitAccurate(t *testing.T) {
	for _, c := range []struct{ q, sigma float64 }{{0.01, 0.1}, {0.5, 0.05}, {1e-4, 0.2}, {1, 0.1}, {0.99, 0.3}} {
		m := sampledGaussianLoss(c.q, c.sigma, false)
		ref := func(eps float64) float64 {
			x := m.InverseLoss(eps)
			la := math.Log(c.q) + numeric.LogNormCDF((x+1)/c.sigma)
			lb := math.Log(math.Expm1(eps)+c.q) + numeric.LogNormCDF(x/c.sigma)
			return math.Exp(la) * -math.Expm1(lb-la)
		}
		top := m.Loss(m.XLow)
		prev := math.Inf(1)
		for eps := 0.0; eps < top; eps += top / 2000 {
			d := m.Delta(eps)
			name := fmt.Sprintf("q=%v σ=%v δ(%v)", c.q, c.sigma, eps)
			nearRel(t, name, d, ref(eps), 1e-12)
			if d > prev+1e-15 {
				t.Errorf("%s = %v increases from %v", name, d, prev)
			}
			prev = d
		}
	}
}

// TestPLDHugeLosses: at σ ≤ 0.02 one step's losses reach thousands of nats,
// where e^ε overflows and e^{−l} underflows. The hockey-stick divergence
// used to be NaN there (ε ≥ 709.8: "hockey-stick divergence is NaN") and
// ε(δ) fell back to the upper δ-quantile of the loss, about a nat too high
// (optimistic mode: 1463.2 for σ = 0.02, above the exact 1462.285). q = 1,
// T = 1 is the Gaussian mechanism, whose exact ε is GaussianEpsilon (Balle
// & Wang 2018, analytic): the pessimistic PLD must lie in [exact,
// exact + 1e-3] and the optimistic one in [exact − h, exact] (h = 0.05,
// measured: +3e-4 and −0.025). With subsampling (q = 0.01, T = 10) there is
// no closed form: no error, optimistic ≤ pessimistic ≤ optimistic + T·h,
// pessimistic ≤ RDP.
func TestPLDHugeLosses(t *testing.T) {
	const h = 0.05
	o := Options{PLDInterval: h}
	opt := Options{PLDInterval: h, Optimistic: true}
	for _, sigma := range []float64{0.01, 0.02} {
		exact := mustF(t)(GaussianEpsilon(sigma, 1e-5, 1))
		m := SampledGaussian{NoiseMultiplier: sigma, SamplingRate: 1, Steps: 1}
		hi := mustF(t)(Epsilon(AccountantPLD, m, 1e-5, o))
		lo := mustF(t)(Epsilon(AccountantPLD, m, 1e-5, opt))
		if !(exact <= hi && hi <= exact+1e-3 && exact-h <= lo && lo <= exact) {
			t.Errorf("σ = %v, q = 1: PLD ε in [%v, %v], exact %v", sigma, lo, hi, exact)
		}
		m = SampledGaussian{NoiseMultiplier: sigma, SamplingRate: 0.01, Steps: 10}
		hi = mustF(t)(Epsilon(AccountantPLD, m, 1e-5, o))
		lo = mustF(t)(Epsilon(AccountantPLD, m, 1e-5, opt))
		r := mustF(t)(Epsilon(AccountantRDP, m, 1e-5, Options{}))
		// (The pessimistic bound also carries the FFT rounding bound, and
		// the optimistic one has it subtracted: 15h, not 10h.)
		if !(lo <= hi && hi <= lo+15*h && hi <= r) || math.IsInf(hi, 0) {
			t.Errorf("σ = %v, q = 0.01, T = 10: PLD ε in [%v, %v], RDP %v", sigma, lo, hi, r)
		}
	}
}
