package privacy

import (
	"math"
	"testing"
)

// TestChernoffWindowThinTail: the pessimistic "add" PMF of q = 0.01,
// σ = 0.1 has its bulk on one or two grid points near loss 0.01 and a
// 4e-87 atom 143 nats below (the truncated tail of the noise, put on the
// first grid point). Searching s only within a factor 16 of the Gaussian
// guess s* left the lower Chernoff bound pinned near the atom, so the
// window covered almost all of the T·n support (ErrTooLarge, ε = +Inf);
// the best s lies thousands of times below s*.
func TestChernoffWindowThinTail(t *testing.T) {
	// Validity and tightness for T = 2 at h = 1e-2, where the tails of the
	// 2-fold sum are exact sums: P[S < lo] = Σ_i p_i·F(lo − 1 − i) with F the
	// CDF of p (no FFT, so rounding stays ~1e-16 relative). Each side must
	// hold at most tailMass/2 (the Chernoff guarantee, 1e-3 relative slack
	// for the summation). The window must be at most 6000 points: it is 5258,
	// from −52.5 nats (the exact 2.5e-16 quantile of the sum is near −37;
	// Chernoff is loose on this Gaussian-shaped tail), and was 28351 of the
	// 28575 points of the support.
	d := mustPLD(t)(SampledGaussianPLD(0.01, 0.1, 1, 1e-2, true))
	p := d.Add.probs
	n := len(p)
	lo, hi := chernoffWindow(p, 2, DefaultTailMass)
	if hi-lo+1 > 6000 {
		t.Errorf("T = 2 window [%d, %d] has %d of %d points, want ≤ 6000", lo, hi, hi-lo+1, 2*n-1)
	}
	cdf := make([]float64, n+1) // cdf[k] = Σ_{i<k} p_i
	for i, v := range p {
		cdf[i+1] = cdf[i] + v
	}
	below, above := 0.0, 0.0
	for i, v := range p {
		below += v * cdf[min(max(lo-i, 0), n)]              // j < lo − i
		above += v * (cdf[n] - cdf[min(max(hi+1-i, 0), n)]) // j > hi − i
	}
	if limit := DefaultTailMass / 2 * (1 + 1e-3); below > limit || above > limit {
		t.Errorf("T = 2 window [%d, %d]: mass %g below, %g above, want ≤ %g each", lo, hi, below, above, DefaultTailMass/2)
	}

	// End to end at h = 1e-3, T = 100: the lower end of the window was at
	// −14113 nats (14.1M points, ErrTooLarge); the Chernoff bound puts it
	// near −60 (the exact 1e-15 quantile is around −30). ε must be finite and
	// agree with h = 1e-2, whose grid contains only points of the 1e-3 grid,
	// so its pessimistic ε is at least as large (consistency between
	// intervals; regression value 354.1961, 1e-3 apart at most).
	d = mustPLD(t)(SampledGaussianPLD(0.01, 0.1, 1, 1e-3, true))
	lo, _ = chernoffWindow(d.Add.probs, 100, DefaultTailMass)
	if l := float64(d.Add.offset*100+lo) * 1e-3; l < -100 {
		t.Errorf("T = 100 window starts at loss %v, want ≥ −100", l)
	}
	m := SampledGaussian{NoiseMultiplier: 0.1, SamplingRate: 0.01, Steps: 100}
	fine := mustF(t)(Epsilon(AccountantPLD, m, 1e-5, Options{PLDInterval: 1e-3}))
	coarse := mustF(t)(Epsilon(AccountantPLD, m, 1e-5, Options{PLDInterval: 1e-2}))
	if math.IsInf(fine, 0) || fine > coarse+1e-9*coarse || coarse-fine > 1e-3 {
		t.Errorf("ε at h = 1e-3: %v, at 1e-2: %v; want finite, ≤ and within 1e-3", fine, coarse)
	}
	near(t, "ε(σ=0.1, q=0.01, T=100)", coarse, 354.1961, 1e-3)
}

// TestDecayingSumUpperBound: when the factor underflows before the mass is
// reached, the sum must still bound Σ p_i·step^j from above. The former loop
// dropped the unreached terms: 0 here (a harmless +Inf bound), but an
// optimistic bound whenever the reached masses were nonzero yet smaller
// than the dropped contributions.
func TestDecayingSumUpperBound(t *testing.T) {
	probs := make([]float64, 2000)
	probs[0] = 1 // all the mass at the far end from the start (fromTop)
	got := decayingSum(probs, 1, math.Exp(-1), true)
	if !(got >= decayFloor) {
		t.Errorf("decayingSum = %v, want ≥ %v (true value e^-1999 counted at the floor)", got, decayFloor)
	}
	// Without underflow it is the plain sum (exact to rounding).
	near(t, "decayingSum", decayingSum([]float64{0.5, 0.25, 0.25}, 1, 0.5, false), 0.5+0.125+0.0625, 1e-16)
}

func mustPLD(t *testing.T) func(*PLD, error) *PLD {
	return func(d *PLD, err error) *PLD {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
		return d
	}
}
