package bounds

import (
	"context"
	"math"

	"gonum.org/v1/gonum/mathext"
)

// reroRobust is the Neyman–Pearson Monte Carlo estimator ("NP-MC" in the
// notes §2.6(a)): the threshold t̂ is the ⌈κN⌉-th largest loss
// L = log(μ/ν) among N samples of ν, and γ̂ is the fraction of N samples of μ
// with L ≥ t̂. It only counts, so it has no heavy tails: its error is the
// quantile error plus a binomial error of at most 0.5/√N.
//
// Interval at confidence 1 − α, exact and distribution-free (L has a
// continuous law under ν, as a strictly increasing function of Gaussian
// coordinates):
//   - the true ν-tail P_ν[L ≥ X_(j)] of the j-th largest of N samples is
//     Beta(j, N − j + 1) distributed. Take j⁺ ≥ ⌈κN⌉ smallest with
//     P[Beta(j⁺, ·) < κ] ≤ α/4 and j⁻ ≤ ⌈κN⌉ largest with
//     P[Beta(j⁻, ·) > κ] ≤ α/4. Then with probability ≥ 1 − α/2 the set
//     {L ≥ X_(j⁺)} has ν-mass ≥ κ and {L ≥ X_(j⁻)} has ν-mass ≤ κ, so
//     μ(L ≥ X_(j⁻)) ≤ B_κ ≤ μ(L ≥ X_(j⁺)) (B is increasing, and these sets
//     are Neyman–Pearson sets).
//   - the two μ-masses are bounded by one-sided Clopper–Pearson limits at
//     α/4 each from the (independent) μ sample.
func reroRobust(ctx context.Context, m DPSGD, kappas []float64, o ReRoOptions) ([]ReRoResult, error) {
	n := o.Samples
	alpha := 1 - o.Confidence
	type plan struct{ k, jUp, jDown int }
	plans := make([]plan, len(kappas))
	jMax := 0
	for i, kappa := range kappas {
		k, err := topCount(kappa, n)
		if err != nil {
			return nil, err
		}
		up, down := orderStatisticBracket(kappa, n, k, alpha/4)
		plans[i] = plan{k, up, down}
		jMax = max(jMax, up)
	}
	s := newLossSampler(m)
	losses, err := sampleNuLosses(ctx, s, n, o.Workers, o.Seed)
	if err != nil {
		return nil, err
	}
	top := topSorted(losses, jMax)
	// X_(j) for j = 0 means "no sample": the empty set, threshold +Inf.
	orderStat := func(j int) float64 {
		if j < 1 {
			return math.Inf(1)
		}
		return top[j-1]
	}
	thresholds := make([]float64, 0, 3*len(plans))
	for _, p := range plans {
		thresholds = append(thresholds, orderStat(p.k), orderStat(p.jUp), orderStat(p.jDown))
	}
	counts, err := countMuAbove(ctx, s, n, o.Workers, o.Seed, thresholds)
	if err != nil {
		return nil, err
	}
	out := make([]ReRoResult, len(kappas))
	for i, p := range plans {
		c, cUp, cDown := counts[3*i], counts[3*i+1], counts[3*i+2]
		out[i] = ReRoResult{
			Gamma:      float64(c) / float64(n),
			Lower:      clopperPearsonLower(cDown, n, alpha/4),
			Upper:      clopperPearsonUpper(cUp, n, alpha/4),
			Confidence: o.Confidence,
			Method:     ReRoRobust,
			Samples:    n,
			Threshold:  orderStat(p.k),
		}
	}
	return out, nil
}

// orderStatisticBracket returns j⁺ ≥ k and j⁻ ≤ k such that, among n samples
// of a continuous law, the ν-tail U_(j) of the j-th largest sample satisfies
// P[U_(j⁺) < κ] ≤ a and P[U_(j⁻) > κ] ≤ a. U_(j) ∼ Beta(j, n − j + 1), and
// P[U_(j) ≤ κ] = I_κ(j, n − j + 1) (regularised incomplete beta) decreases
// in j, so both are found by bisection. j⁻ = 0 means no order statistic is
// safe (the lower limit is then 0).
func orderStatisticBracket(kappa float64, n, k int, a float64) (jUp, jDown int) {
	below := func(j int) float64 { return mathext.RegIncBeta(float64(j), float64(n-j+1), kappa) }
	// j⁺: smallest j in [k, n] with below(j) ≤ a (n itself if none).
	lo, hi := k, n
	for lo < hi {
		mid := lo + (hi-lo)/2
		if below(mid) <= a {
			hi = mid
		} else {
			lo = mid + 1
		}
	}
	jUp = lo
	// j⁻: largest j in [1, k] with 1 − below(j) ≤ a (0 if none).
	lo, hi = 0, k
	for lo < hi {
		mid := lo + (hi-lo+1)/2
		if 1-below(mid) <= a {
			lo = mid
		} else {
			hi = mid - 1
		}
	}
	jDown = lo
	return jUp, jDown
}

// clopperPearsonLower returns the one-sided lower confidence limit at error
// a for a binomial proportion with c successes in n trials.
func clopperPearsonLower(c, n int, a float64) float64 {
	if c <= 0 {
		return 0
	}
	return mathext.InvRegIncBeta(float64(c), float64(n-c+1), a)
}

// clopperPearsonUpper returns the one-sided upper confidence limit at error a.
func clopperPearsonUpper(c, n int, a float64) float64 {
	if c >= n {
		return 1
	}
	return mathext.InvRegIncBeta(float64(c+1), float64(n-c), 1-a)
}
