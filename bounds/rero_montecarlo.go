package bounds

import (
	"context"
	"math"
)

// topCount returns ⌈κN⌉, or an error that suggests a sufficient N when it is
// below MinTopSamples.
func topCount(kappa float64, n int) (int, error) {
	k := int(math.Ceil(kappa * float64(n)))
	if k < MinTopSamples {
		need := int(math.Ceil(MinTopSamples / kappa))
		return 0, invalidf("N = %d samples leave only ⌈κN⌉ = %d above the (1−κ)-quantile for κ = %v; "+
			"need ⌈κN⌉ ≥ %d: use N ≥ %d", n, k, kappa, MinTopSamples, need)
	}
	return k, nil
}

// reroAlgorithm1 is Algorithm 1 of Hayes et al. (§3.3), corrected to divide
// by N: γ̂ = (1/N)·Σ of the ⌈κN⌉ largest ratios r_i = μ(w_i)/ν(w_i), w_i ∼ ν.
// It estimates μ(E) = E_ν[r·1_E] for E the top-κ set of the ratio, i.e. the
// Neyman–Pearson set. The sum is taken in log space (log-sum-exp).
//
// Interval, the paper's two error sources at confidence 1 − α, α split in
// halves:
//   - quantile: by the DKW inequality, with probability ≥ 1 − α/2 the
//     empirical ν-mass of every threshold set is within
//     η = √(log(4/α)/(2N)) of the true one. A change of κ by η changes
//     B_κ by at most e^t·η (the slope of the blow-up function at κ is the
//     likelihood ratio at its threshold, B concave); e^t is read off as the
//     smallest selected ratio (plug-in).
//   - mean: Bennett's inequality for the average of X_i = r_i·1[i selected],
//     P[|X̄ − E X| ≥ ε] ≤ 2·exp(−(N v/b²)·h(b ε/v)), h(u) = (1+u)log(1+u) − u,
//     solved for ε at probability α/2 with the sample variance v and the
//     largest deviation b (plug-in: X is unbounded, which is why this
//     interval fails in the heavy-tail regime; see EffectiveSamples).
func reroAlgorithm1(ctx context.Context, m DPSGD, kappas []float64, o ReRoOptions) ([]ReRoResult, error) {
	n := o.Samples
	ks := make([]int, len(kappas))
	kMax := 0
	for i, kappa := range kappas {
		k, err := topCount(kappa, n)
		if err != nil {
			return nil, err
		}
		ks[i], kMax = k, max(kMax, k)
	}
	s := newLossSampler(m)
	losses, err := sampleNuLosses(ctx, s, n, o.Workers, o.Seed)
	if err != nil {
		return nil, err
	}
	top := topSorted(losses, kMax)
	alpha := 1 - o.Confidence
	out := make([]ReRoResult, len(kappas))
	for i, k := range ks {
		out[i] = algorithm1Estimate(top[:k], n, alpha)
		out[i].Samples = n
		out[i].Confidence = o.Confidence
	}
	return out, nil
}

// algorithm1Estimate computes γ̂ and its interval from the selected log
// ratios (decreasing) out of n samples.
func algorithm1Estimate(top []float64, n int, alpha float64) ReRoResult {
	k := len(top)
	scale := top[0] // largest log ratio: work with r/e^scale to avoid overflow
	var s1, s2 float64
	for _, l := range top {
		r := math.Exp(l - scale)
		s1 += r
		s2 += r * r
	}
	nf := float64(n)
	logGamma := scale + math.Log(s1) - math.Log(nf)
	gamma := math.Exp(logGamma)
	threshold := top[k-1]

	// Quantile (DKW) part.
	eta := math.Sqrt(math.Log(4/alpha) / (2 * nf))
	quantilePart := math.Exp(threshold) * eta

	// Mean (Bennett) part, on the scaled variables X/e^scale (the bound is
	// scale-invariant), then scaled back.
	mean := s1 / nf
	variance := math.Max(s2/nf-mean*mean, 0)
	dev := math.Max(1-mean, mean) // largest |X_i − X̄|: the top ratio, or a zero
	meanPart := 0.0
	if variance > 0 {
		c := dev * dev * math.Log(4/alpha) / (nf * variance)
		meanPart = bennettInverse(c) * variance / dev * math.Exp(scale)
	}
	half := quantilePart + meanPart
	est := math.Min(gamma, 1)
	return ReRoResult{
		Gamma:            est,
		Lower:            math.Max(0, est-half),
		Upper:            math.Min(1, est+half),
		Method:           ReRoMonteCarlo,
		Threshold:        threshold,
		QuantileError:    eta,
		EffectiveSamples: s1 * s1 / s2,
	}
}

// bennettInverse returns the u ≥ 0 with h(u) = (1+u)·log(1+u) − u = c, by
// bisection (h is increasing and convex; h(u) ≈ u²/2 near 0, ≈ u·log u far out).
func bennettInverse(c float64) float64 {
	h := func(u float64) float64 { return (1+u)*math.Log1p(u) - u }
	lo, hi := 0.0, math.Max(1, math.Sqrt(2*c))
	for h(hi) < c {
		hi *= 2
	}
	for i := 0; i < 200 && hi-lo > 1e-15*hi; i++ {
		mid := 0.5 * (lo + hi)
		if h(mid) < c {
			lo = mid
		} else {
			hi = mid
		}
	}
	return hi
}
