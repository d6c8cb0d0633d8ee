package audit

import (
	"math"
	"slices"

	"github.com/dpaudit/dpaudit/internal/numeric"
)

// FamilyPerStepGDP labels the per-step white-box estimate (Nasr et al.,
// USENIX Security 2023): a lower bound on the per-step μ inside the
// claim's family of per-step mechanisms (Gaussian at q = 1, the Poisson
// subsampled Gaussian with the claimed q otherwise), composed over T steps.
// It tests that family's claim only, not (ε, δ)-DP in general.
const FamilyPerStepGDP = "per_step_gdp"

// PerStepResult is the per-step audit of one set of samples.
type PerStepResult struct {
	// SamplingRate is the family's q (1: Gaussian, μ-GDP per step).
	SamplingRate float64
	// N1, N0: evaluation samples with and without the canary; the other
	// half of each (by index parity) chose the threshold.
	N1, N0 int
	// Threshold: guess "canary present" when the sample exceeds it.
	Threshold float64
	FP, FN    int
	// Two-sided Clopper–Pearson intervals of the two rates, each at
	// 1 − (1 − confidence)/2, so both hold jointly at confidence.
	FPRLower, FPRUpper, FNRLower, FNRUpper float64
	// MuLower, MuUpper: the per-step μ interval at Confidence (valid
	// given the samples are independent draws of a per-step mechanism
	// in the family); MuPoint the moment estimate
	// (mean_in − mean_out)/(q·sd_out), a point estimate only.
	MuLower, MuUpper, MuPoint float64
	// EpsilonStepLB is the Clopper–Pearson (ε, δ) lower bound of ONE step
	// at the same threshold and counts (Nasr et al. 2021 Eq. 5): valid for
	// (ε, δ)-DP of a single step in general, without the family.
	EpsilonStepLB float64
	Confidence    float64
}

// PerStepMu is the per-step μ of the family with rate q that a threshold
// test with false-positive rate alpha and false-negative rate beta
// certifies: the smallest μ whose trade-off curve
// f(α) = (1−q)(1−α) + q·Φ(Φ⁻¹(1−α) − μ) lies at or below beta at alpha.
// The likelihood ratio of (1−q)N(0,1) + qN(μ,1) to N(0,1) increases in the
// sample, so a threshold test is the Neyman–Pearson test and f is the
// family's exact trade-off curve; at q = 1 this is μ = Φ⁻¹(1−α) − Φ⁻¹(β),
// the GDP formula. 0 when (α, β) is no better than guessing, +Inf when
// beta is below what any μ allows.
func PerStepMu(alpha, beta, q float64) float64 {
	if q <= 0 || q > 1 || math.IsNaN(alpha) || math.IsNaN(beta) {
		return math.NaN()
	}
	if alpha >= 1 || beta >= 1-alpha {
		return 0
	}
	arg := (beta - (1-q)*(1-alpha)) / q
	if arg <= 0 || alpha <= 0 {
		return math.Inf(1)
	}
	mu := -numeric.NormQuantile(alpha) - numeric.NormQuantile(arg)
	if mu < 0 || math.IsNaN(mu) {
		return 0
	}
	return mu
}

// PerStep audits one step of DP-SGD from its canary projections: in holds
// the samples of steps where the canary coordinate may carry the canary
// (present with probability q, as claimed), out the samples where it never
// does, each already divided by the clip norm and with the data's own
// clipped gradient subtracted. They must be independent given the model
// (the fresh Gaussian noise of each step and coordinate makes them so).
// The samples of even index choose the threshold (q = 1: half-way between
// the two sides' medians; q < 1: the largest certified μ on them); the odd
// ones are counted at that threshold, so the interval does not pay for the
// choice. delta is the δ of the per-step CP ε bound.
func PerStep(in, out []float64, q, delta, confidence float64) (PerStepResult, error) {
	if !(q > 0 && q <= 1) {
		return PerStepResult{}, invalidf("per-step sampling rate %v outside (0, 1]", q)
	}
	if !(confidence > 0 && confidence < 1) {
		return PerStepResult{}, invalidf("confidence %v outside (0, 1)", confidence)
	}
	if !(delta >= 0 && delta < 1) {
		return PerStepResult{}, invalidf("delta %v outside [0, 1)", delta)
	}
	if len(in) < 4 || len(out) < 4 {
		return PerStepResult{}, invalidf("per-step audit needs at least 4 samples with and 4 without the canary, got %d and %d", len(in), len(out))
	}
	for _, xs := range [][]float64{in, out} {
		for _, x := range xs {
			if math.IsNaN(x) || math.IsInf(x, 0) {
				return PerStepResult{}, invalidf("per-step sample %v is not finite", x)
			}
		}
	}
	selIn, evIn := halves(in)
	selOut, evOut := halves(out)
	var t float64
	if q == 1 {
		// Two Gaussians of equal variance: the threshold half-way between
		// them balances the two rates, where the μ estimate's variance is
		// smallest; the medians of the selection halves locate it without
		// the overfitting of a search (a search over thresholds chose
		// extreme quantiles on some seeds and lost up to 7% of μ at 10⁵
		// samples a side, against 1–2% here).
		t = (sampleMedian(selIn) + sampleMedian(selOut)) / 2
	} else {
		t = bestThreshold(selIn, selOut, q, confidence)
	}
	r := PerStepResult{SamplingRate: q, N1: len(evIn), N0: len(evOut), Threshold: t, Confidence: confidence}
	for _, x := range evOut {
		if x > t {
			r.FP++
		}
	}
	for _, x := range evIn {
		if x <= t {
			r.FN++
		}
	}
	var err error
	if r.FPRLower, r.FPRUpper, err = cpInterval(r.FP, r.N0, confidence); err != nil {
		return r, err
	}
	if r.FNRLower, r.FNRUpper, err = cpInterval(r.FN, r.N1, confidence); err != nil {
		return r, err
	}
	r.MuLower = PerStepMu(r.FPRUpper, r.FNRUpper, q)
	r.MuUpper = PerStepMu(r.FPRLower, r.FNRLower, q)
	r.MuPoint = momentMu(in, out, q)
	r.EpsilonStepLB = epsilonFromRates(r.FPRUpper, r.FNRUpper, delta)
	return r, nil
}

// PerStepPValue is the p-value of the claim "the per-step mechanism is
// the family's with μ ≤ claimMu" from r's counts: the smallest 1 −
// confidence at which MuLower exceeds claimMu (bisection; 1 when even a
// coin flip's confidence does not, floored at 1e-15).
func PerStepPValue(r PerStepResult, claimMu float64) float64 {
	lb := func(conf float64) float64 {
		_, fu, err1 := cpInterval(r.FP, r.N0, conf)
		_, nu, err2 := cpInterval(r.FN, r.N1, conf)
		if err1 != nil || err2 != nil {
			return math.NaN()
		}
		return PerStepMu(fu, nu, r.SamplingRate)
	}
	// Work in log10 of the miss probability.
	lo, hi := -15.0, 0.0 // miss probability 1e-15 … 1
	if !(lb(1-1e-15) <= claimMu) {
		return 1e-15
	}
	if !(lb(1e-9) > claimMu) {
		return 1
	}
	for range 60 {
		mid := (lo + hi) / 2
		if lb(1-math.Pow(10, mid)) > claimMu {
			hi = mid
		} else {
			lo = mid
		}
	}
	return math.Pow(10, hi)
}

// cpInterval is the two-sided Clopper–Pearson interval at
// 1 − (1 − confidence)/2: the pair of two rates' intervals holds jointly
// at confidence.
func cpInterval(x, n int, confidence float64) (lo, hi float64, err error) {
	c := 1 - (1-confidence)/2
	if lo, err = ClopperPearsonLower(x, n, c, TwoSided); err != nil {
		return
	}
	hi, err = ClopperPearsonUpper(x, n, c, TwoSided)
	return
}

// halves splits xs by index parity: even indices select, odd evaluate.
func halves(xs []float64) (sel, ev []float64) {
	for i, x := range xs {
		if i%2 == 0 {
			sel = append(sel, x)
		} else {
			ev = append(ev, x)
		}
	}
	return sel, ev
}

// bestThreshold is the threshold among the central quantiles (steps of 1/400) of the pooled
// selection samples whose Clopper–Pearson-certified μ on those samples is
// largest (ties: the first).
func bestThreshold(in, out []float64, q, confidence float64) float64 {
	si := slices.Sorted(slices.Values(in))
	so := slices.Sorted(slices.Values(out))
	pool := slices.Sorted(slices.Values(slices.Concat(in, out)))
	best, bestMu := pool[len(pool)/2], -1.0
	// Only the central 80% of the pool: at the extremes one side's rate
	// rests on a few counts, its bound on the selection half is noisy, and
	// the maximum over such thresholds overfits.
	const k = 400
	for i := k / 10; i <= k-k/10; i++ {
		t := pool[i*(len(pool)-1)/k]
		fp := len(so) - upperIndex(so, t)
		fn := upperIndex(si, t)
		_, fu, err1 := cpInterval(fp, len(so), confidence)
		_, nu, err2 := cpInterval(fn, len(si), confidence)
		if err1 != nil || err2 != nil {
			continue
		}
		if mu := PerStepMu(fu, nu, q); mu > bestMu && !math.IsInf(mu, 1) {
			best, bestMu = t, mu
		}
	}
	return best
}

// upperIndex is the number of sorted xs at or below t.
func upperIndex(xs []float64, t float64) int {
	i, _ := slices.BinarySearchFunc(xs, t, func(x, t float64) int {
		if x <= t {
			return -1
		}
		return 1
	})
	return i
}

// momentMu is (mean_in − mean_out)/(q·sd_out): under the family the mean
// shift of the in samples is q·μ in units of the noise's sd.
func momentMu(in, out []float64, q float64) float64 {
	mi, mo := mean(in), mean(out)
	var ss float64
	for _, x := range out {
		ss += (x - mo) * (x - mo)
	}
	sd := math.Sqrt(ss / float64(len(out)-1))
	return (mi - mo) / (q * sd)
}

func mean(xs []float64) float64 {
	var s float64
	for _, x := range xs {
		s += x
	}
	return s / float64(len(xs))
}

func sampleMedian(xs []float64) float64 {
	s := slices.Sorted(slices.Values(xs))
	n := len(s)
	if n%2 == 1 {
		return s[n/2]
	}
	return (s[n/2-1] + s[n/2]) / 2
}
