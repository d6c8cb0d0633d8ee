package bounds

import (
	"context"
	"math"
	"math/rand/v2"
)

// The Fano-based reconstruction bound of Guo, Sablayrolles & Sanjabi
// (2022b), as Hayes et al. compare with it (their Appendix H, Eq. 5 and
// Table 2; notes §2.12): for a uniform prior over n candidates and an
// observation with mutual information I(π; w) about the target, the error
// probability t of any reconstruction satisfies Fano's inequality
//
//	f(t) = log n − I + t·log t + (1−t)·log(1−t) − t·log(n−1) ≤ 0,
//
// so success ≤ 1 − t* with t* the smallest root of f on [0, (n−1)/n].

// FanoSuccessBound returns 1 − t*, the largest reconstruction success that
// Fano's inequality allows for a uniform prior of n ≥ 2 candidates and
// mutual information I ∈ [0, log n] nats. f is convex with f(0) = log n − I
// ≥ 0 and f((n−1)/n) = −I ≤ 0, so t* is found by bisection. I > log n is
// clipped to log n (success ≤ 1).
func FanoSuccessBound(priorSize int, mutualInfo float64) (float64, error) {
	if err := checkCount("prior size", priorSize, 2); err != nil {
		return 0, err
	}
	if !(mutualInfo >= 0) || math.IsInf(mutualInfo, 1) {
		return 0, invalidf("mutual information must be ≥ 0 and finite (nats), got %v", mutualInfo)
	}
	n := float64(priorSize)
	logN, logN1 := math.Log(n), math.Log(n-1)
	if mutualInfo >= logN {
		return 1, nil
	}
	if mutualInfo == 0 {
		// f touches 0 only at its minimum t = (n−1)/n (a double root, which
		// bisection would locate to √ε_machine only).
		return 1 / n, nil
	}
	xlogx := func(x float64) float64 {
		if x == 0 {
			return 0
		}
		return x * math.Log(x)
	}
	f := func(t float64) float64 { return logN - mutualInfo + xlogx(t) + xlogx(1-t) - t*logN1 }
	lo, hi := 0.0, (n-1)/n // f(lo) > 0 ≥ f(hi)
	for i := 0; i < 200 && hi-lo > 1e-15; i++ {
		mid := 0.5 * (lo + hi)
		if f(mid) > 0 {
			lo = mid
		} else {
			hi = mid
		}
	}
	return 1 - hi, nil
}

// GuoGaussianMutualInfo returns the upper bound on the mutual information
// (nats) between a uniformly drawn target among n candidates and T releases
// of a Gaussian mechanism with noise σ and sensitivity Δ between candidates:
//
//	I ≤ −T·log(1/n + (1 − 1/n)·e^{−Δ²/(2σ²)})
//
// (Guo et al. 2022b as quoted by Hayes et al. Appendix H, with
// p_i = 1/n; T releases add up by the chain rule, each term bounded alike).
// Hayes et al.'s Table 2 rows "Guo et al. (2022b)" come out with Δ² = 2 (two
// orthogonal unit gradients) and T = 1.
func GuoGaussianMutualInfo(priorSize int, sigma, sensitivity float64, steps int) (float64, error) {
	if err := checkCount("prior size", priorSize, 2); err != nil {
		return 0, err
	}
	if err := checkPositive("noise σ", sigma); err != nil {
		return 0, err
	}
	if err := checkPositive("sensitivity Δ", sensitivity); err != nil {
		return 0, err
	}
	if err := checkCount("steps T", steps, 1); err != nil {
		return 0, err
	}
	p := 1 / float64(priorSize)
	perStep := -math.Log(p + (1-p)*math.Exp(-sensitivity*sensitivity/(2*sigma*sigma)))
	return float64(steps) * perStep, nil
}

// GuoFanoAdvantage returns the Table 2 "Guo et al. (2022b)" entry: the Fano
// success bound for GuoGaussianMutualInfo(n, σ, Δ, T), as an advantage
// (γ − 1/n)/(1 − 1/n).
func GuoFanoAdvantage(priorSize int, sigma, sensitivity float64, steps int) (float64, error) {
	info, err := GuoGaussianMutualInfo(priorSize, sigma, sensitivity, steps)
	if err != nil {
		return 0, err
	}
	gamma, err := FanoSuccessBound(priorSize, info)
	if err != nil {
		return 0, err
	}
	return ReRoAdvantage(gamma, 1/float64(priorSize))
}

// GuoMutualInfoMC estimates by Monte Carlo the exact mutual information
// (nats) of the Gaussian mechanism w = e_Z + N(0, σ²I_n) with Z uniform over
// n orthonormal candidates e_1..e_n — the "MC" rows of Hayes et al.'s
// Table 2 (notes §2.12). Per sample (Z = 1 by symmetry)
//
//	log p(w|Z)/p(w) = −log((1/n)·Σ_j exp((w_j − w_1)/σ²)),
//
// averaged over `samples` draws (streams rng.New(seed, "guo-fano", chunk)).
// It also returns the standard error of the estimate.
func GuoMutualInfoMC(priorSize int, sigma float64, samples int, seed uint64) (info, stdErr float64, err error) {
	if err := checkCount("prior size", priorSize, 2); err != nil {
		return 0, 0, err
	}
	if err := checkPositive("noise σ", sigma); err != nil {
		return 0, 0, err
	}
	if err := checkCount("Monte Carlo samples", samples, 2); err != nil {
		return 0, 0, err
	}
	n := priorSize
	chunks := (samples + reroChunk - 1) / reroChunk
	sums := make([][2]float64, chunks)
	inv := 1 / (sigma * sigma)
	logN := math.Log(float64(n))
	err = parallelChunks(context.Background(), chunks, 0, seed, []any{"guo-fano"}, func(c int, r *rand.Rand) {
		w := make([]float64, n)
		var s1, s2 float64
		for i := c * reroChunk; i < min((c+1)*reroChunk, samples); i++ {
			for j := range w {
				w[j] = sigma * r.NormFloat64()
			}
			w[0]++ // the target's coordinate
			// log Σ_j exp((w_j − w_0)/σ²), stably.
			top := math.Inf(-1)
			for j := range w {
				top = math.Max(top, (w[j]-w[0])*inv)
			}
			acc := 0.0
			for j := range w {
				acc += math.Exp((w[j]-w[0])*inv - top)
			}
			v := logN - top - math.Log(acc)
			s1 += v
			s2 += v * v
		}
		sums[c] = [2]float64{s1, s2}
	})
	if err != nil {
		return 0, 0, err
	}
	var s1, s2 float64
	for _, s := range sums {
		s1 += s[0]
		s2 += s[1]
	}
	m := float64(samples)
	mean := s1 / m
	variance := math.Max(s2/m-mean*mean, 0) * m / (m - 1)
	return mean, math.Sqrt(variance / m), nil
}
