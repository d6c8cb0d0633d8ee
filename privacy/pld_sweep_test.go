package privacy

import (
	"errors"
	"fmt"
	"math"
	"testing"
)

// sweepSigmas, sweepQs and sweepSteps span DP-SGD configurations from
// "no privacy" (σ = 0.05: ε in the hundreds of thousands) to "almost
// perfect privacy" (σ = 20, q = 1e-4: ε ≈ 0).
var (
	sweepSigmas = []float64{0.05, 0.1, 0.2, 0.3, 0.5, 1, 2, 5, 20}
	sweepQs     = []float64{1e-4, 1e-3, 0.01, 0.1, 0.5, 0.99, 1}
	sweepSteps  = []int{1, 10, 1000}
)

// sweepInterval is the PLD interval used at noise multiplier σ and
// sampling rate q. One step's losses span ≈ ½/σ² + 10/σ nats, so small σ
// needs a coarse grid to stay within MaxPMFLen and to keep the sweep fast
// (≈ 3 s for all 189 points on the loaded 2-core machine); large σ with
// small q, where ε is 1e-3 … 1e-2, needs the default 1e-4 for the
// pessimistic bias to stay within the RDP slack. The intervals are nested
// (each an integer multiple of the next finer one) and never shrink as σ
// falls or q grows. A coarser grid that contains only points of a finer one
// yields a pessimistic PMF that dominates the finer one (connect-the-dots
// interpolates the same convex δ(ε) through fewer points), so the
// pessimistic ε can only grow from the coarser grid: the interval changes
// reinforce "ε decreases in σ, increases in q" rather than blur them.
func sweepInterval(sigma, q float64) float64 {
	switch {
	case sigma < 0.1:
		return 0.04
	case sigma < 0.2:
		return 0.02
	case sigma < 0.5:
		return 4e-3
	case sigma < 1:
		return 2e-3
	case sigma < 5 || q >= 0.1:
		return 1e-3
	}
	return 1e-4
}

type sweepKey struct {
	sigma, q float64
	steps    int
}

// TestPLDRobustnessSweep checks the PLD accountant over a grid of noise
// multipliers, sampling rates and step counts (a regression test for the
// catastrophic cancellation in the remove-direction hockey-stick divergence,
// which made σ = 0.1, q = 0.01 fail with "hockey-stick divergence increases
// at ε = 14.6589"). Expected properties, no reference numbers:
//
//   - no error and no NaN; ε is finite, or +Inf exactly when the PLD does not
//     fit in MaxPMFLen points (SampledGaussianPLD returns ErrTooLarge);
//   - PLD ε ≤ RDP ε: RDP is an upper bound on the exact ε and the PLD is the
//     exact ε plus its pessimistic discretisation bias, which must stay
//     within the slack 1e-3 + 1e-3·ε (closest point: σ = 20, q = 1e-3,
//     T = 1000, h = 1e-4, PLD 0.00449 against RDP 0.00479);
//   - ε does not increase with σ and does not decrease with q or T: a
//     mechanism that dominates another keeps dominating after connect-the-dots
//     (which interpolates the same δ(ε) at the same grid points) and
//     composition, so at a fixed interval the pessimistic ε is monotone up to
//     rounding (1e-9·(1 + ε)).
func TestPLDRobustnessSweep(t *testing.T) {
	const delta = 1e-5
	pld := map[sweepKey]float64{}
	for _, s := range sweepSigmas {
		for _, q := range sweepQs {
			h := sweepInterval(s, q)
			for _, T := range sweepSteps {
				k := sweepKey{s, q, T}
				m := SampledGaussian{NoiseMultiplier: s, SamplingRate: q, Steps: T}
				name := fmt.Sprintf("σ=%v q=%v T=%d h=%v", s, q, T, h)
				e, err := Epsilon(AccountantPLD, m, delta, Options{PLDInterval: h})
				if err != nil || math.IsNaN(e) || e < 0 {
					t.Errorf("%s: PLD ε = %v, err = %v", name, e, err)
					continue
				}
				r, err := Epsilon(AccountantRDP, m, delta, Options{})
				if err != nil || !(r >= 0) || math.IsInf(r, 0) {
					t.Errorf("%s: RDP ε = %v, err = %v", name, r, err)
					continue
				}
				pld[k] = e
				if math.IsInf(e, 1) {
					// +Inf is the accountant's answer to ErrTooLarge only.
					if _, err := SampledGaussianPLD(q, s, T, h, true); !errors.Is(err, ErrTooLarge) {
						t.Errorf("%s: PLD ε = +Inf but SampledGaussianPLD err = %v, want ErrTooLarge", name, err)
					}
					continue
				}
				if e > r+1e-3+1e-3*r {
					t.Errorf("%s: PLD ε = %.6g above RDP ε = %.6g", name, e, r)
				}
			}
		}
	}
	// Monotonicity, among the finite values.
	check := func(a, b sweepKey, what string) { // want ε(a) ≤ ε(b)
		ea, okA := pld[a]
		eb, okB := pld[b]
		if !okA || !okB || math.IsInf(ea, 1) || math.IsInf(eb, 1) {
			return
		}
		if ea > eb+1e-9*(1+eb) {
			t.Errorf("ε not monotone in %s: ε%v = %.10g > ε%v = %.10g", what, a, ea, b, eb)
		}
	}
	for _, s := range sweepSigmas {
		for _, q := range sweepQs {
			for _, T := range sweepSteps {
				k := sweepKey{s, q, T}
				for i, s2 := range sweepSigmas[:len(sweepSigmas)-1] {
					if s2 == s {
						check(sweepKey{sweepSigmas[i+1], q, T}, k, "σ")
					}
				}
				for i, q2 := range sweepQs[:len(sweepQs)-1] {
					if q2 == q {
						check(k, sweepKey{s, sweepQs[i+1], T}, "q")
					}
				}
				for i, T2 := range sweepSteps[:len(sweepSteps)-1] {
					if T2 == T {
						check(k, sweepKey{s, q, sweepSteps[i+1]}, "T")
					}
				}
			}
		}
	}
	finite := 0
	for _, e := range pld {
		if !math.IsInf(e, 1) {
			finite++
		}
	}
	// At these intervals every point fits (regression); +Inf points would
	// drop out of the comparisons above and leave them vacuous.
	if finite < len(sweepSigmas)*len(sweepQs)*len(sweepSteps) {
		t.Errorf("only %d of %d sweep points have a finite PLD ε", finite, len(pld))
	}
}
