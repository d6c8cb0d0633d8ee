package bounds

import (
	"context"
	"fmt"
	"math"
)

// DPSGD is the part of a DP-SGD configuration that the reconstruction bound
// of Hayes et al. depends on. Everything is in units of the clipping norm C
// (sensitivity 1), so C, the model and the data dimension do not enter.
type DPSGD struct {
	// NoiseMultiplier σ: the noise standard deviation divided by C (> 0).
	NoiseMultiplier float64
	// SamplingRate q ∈ (0, 1]: each example is in a step's batch
	// independently with probability q (Poisson sampling).
	SamplingRate float64
	// Steps T ≥ 1: the number of released privatised gradients.
	Steps int
}

func (m DPSGD) check() error {
	if err := checkPositive("noise multiplier σ", m.NoiseMultiplier); err != nil {
		return err
	}
	if !(m.SamplingRate > 0 && m.SamplingRate <= 1) {
		return invalidf("sampling rate q must be in (0, 1], got %v", m.SamplingRate)
	}
	return checkCount("steps T", m.Steps, 1)
}

// ReRoMethod selects how ReRoBound computes the blow-up B_κ(μ, ν).
type ReRoMethod string

const (
	// ReRoRobust (the default) estimates the Neyman–Pearson threshold t as
	// the (1 − κ)-quantile of L = log(μ/ν) under ν from N samples, and the
	// bound as P_μ[L ≥ t] from N samples of μ. Unlike Algorithm 1 it never
	// averages likelihood ratios, so it stays reliable when they are
	// heavy-tailed (large √T/σ). Its interval is exact and distribution-free:
	// order statistics for the quantile (Beta laws), Clopper–Pearson for the
	// μ-frequency.
	ReRoRobust ReRoMethod = "robust"
	// ReRoMonteCarlo is Algorithm 1 of Hayes et al. with the 1/N
	// normalisation (the paper prints 1/⌈κN⌉, a typo): the mean of the top
	// ⌈κN⌉ ratios μ/ν over N samples of ν. It under-estimates badly when the
	// ratios are heavy-tailed (ε = 32, q = 0.99, κ = 0.01: ≈ 0.41 for a true
	// 0.994); the result's EffectiveSamples flags this. Its interval is the
	// paper's: DKW for the quantile, Bennett for the mean (plug-in).
	ReRoMonteCarlo ReRoMethod = "montecarlo"
	// ReRoExact computes B_κ from the distribution of L under μ and ν,
	// discretised and composed T times by FFT (no paper has this). It
	// returns a deterministic bracket [Lower, Upper] that contains the true
	// bound; Gamma is Upper, so it is safe to use as an upper bound on
	// attack success. The grid is refined until Upper − Lower ≤ Tolerance;
	// typical DP-SGD points (T = 100) take a few milliseconds. At q = 1 it
	// returns the closed form ReRoFullBatch.
	ReRoExact ReRoMethod = "exact"
)

// Defaults of ReRoOptions.
const (
	DefaultReRoSamples    = 1_000_000 // the paper's Appendix A
	DefaultReRoConfidence = 0.999     // the paper's §3.3 statements
	DefaultReRoTolerance  = 1e-3      // exact method: Upper − Lower
	// MinTopSamples is the smallest ⌈κN⌉ the Monte Carlo methods accept: with
	// fewer samples above the quantile, the estimate is mostly noise.
	MinTopSamples = 100
)

// ReRoOptions configures ReRoBound. The zero value selects the robust Monte
// Carlo estimator with the defaults above and seed 0.
type ReRoOptions struct {
	Method ReRoMethod
	// Samples N drawn from ν (and, for the robust method, again from μ).
	// 0 means DefaultReRoSamples. ⌈κN⌉ must be ≥ MinTopSamples.
	Samples int
	// Seed of the Monte Carlo streams: chunk c of the ν samples uses
	// rng.New(Seed, "rero", c), chunk c of the μ samples
	// rng.New(Seed, "rero", "mu", c). Results do not depend on Workers.
	Seed uint64
	// Confidence of the Monte Carlo interval, in (0, 1); 0 means
	// DefaultReRoConfidence.
	Confidence float64
	// Workers is the number of goroutines for Monte Carlo (0: GOMAXPROCS).
	Workers int
	// Tolerance is the largest Upper − Lower (absolute) the exact method
	// accepts before refining its grid; 0 means DefaultReRoTolerance. After
	// 6 refinements, or when a finer grid would not fit in
	// privacy.MaxPMFLen points, it returns the finest bracket it computed:
	// check Upper − Lower. (At q = 1 the closed form is returned: width 0.)
	Tolerance float64
	// Interval fixes the exact method's discretisation interval of the
	// privacy loss (nats) instead of refining it adaptively; 0 = adaptive.
	Interval float64
}

func (o ReRoOptions) withDefaults() (ReRoOptions, error) {
	if o.Method == "" {
		o.Method = ReRoRobust
	}
	switch o.Method {
	case ReRoRobust, ReRoMonteCarlo, ReRoExact:
	default:
		return o, invalidf("unknown ReRo method %q (want %q, %q or %q)", o.Method, ReRoRobust, ReRoMonteCarlo, ReRoExact)
	}
	if o.Samples == 0 {
		o.Samples = DefaultReRoSamples
	}
	if o.Samples < 0 {
		return o, invalidf("Monte Carlo samples must be > 0, got %d", o.Samples)
	}
	if o.Confidence == 0 {
		o.Confidence = DefaultReRoConfidence
	}
	if !(o.Confidence > 0 && o.Confidence < 1) {
		return o, invalidf("confidence must be in (0, 1), got %v", o.Confidence)
	}
	if o.Workers < 0 {
		return o, invalidf("workers must be ≥ 0, got %d", o.Workers)
	}
	if o.Tolerance == 0 {
		o.Tolerance = DefaultReRoTolerance
	}
	if !(o.Tolerance > 0) {
		return o, invalidf("exact tolerance must be > 0, got %v", o.Tolerance)
	}
	if !(o.Interval >= 0) || math.IsInf(o.Interval, 1) {
		return o, invalidf("exact interval must be ≥ 0 and finite, got %v", o.Interval)
	}
	return o, nil
}

// ReRoResult is a ReRo bound with its uncertainty.
type ReRoResult struct {
	// Gamma is the bound γ on the success probability of any reconstruction
	// attack (the Monte Carlo point estimate, or the exact method's Upper).
	Gamma float64
	// Lower and Upper bracket the true B_κ(μ, ν): with probability at least
	// Confidence for Monte Carlo, always for the exact method (up to float64
	// rounding).
	Lower, Upper float64
	// Confidence of [Lower, Upper]; 1 for the exact method.
	Confidence float64
	Method     ReRoMethod
	// Samples is N (Monte Carlo), Interval the final grid spacing in nats
	// (exact; 0 for the closed form at q = 1).
	Samples  int
	Interval float64
	// Threshold is the Neyman–Pearson threshold t on the privacy loss
	// L = log(μ/ν) (nats) with P_ν[L > t] ≈ κ.
	Threshold float64
	// QuantileError (Algorithm 1 only) is the DKW bound on the error of the
	// empirical ν-mass of the selected set, in units of κ's probability.
	QuantileError float64
	// EffectiveSamples (Algorithm 1 only) is (Σr)²/Σr² over the selected
	// ratios r. Far below ⌈κN⌉ (say < 1000) it means a few huge ratios carry
	// the estimate: the heavy-tail regime where Algorithm 1 under-estimates
	// and its interval is not to be trusted.
	EffectiveSamples float64
}

// ReRoBound returns the reconstruction-robustness bound of Hayes,
// Mahloujifar & Balle (2023), Corollary 4: when DP-SGD releases all T
// privatised gradients (noise multiplier σ, Poisson rate q), no attack
// against a prior with baseline success κ succeeds with probability above
//
//	γ = B_κ(μ, ν) = sup{ μ(E) : ν(E) ≤ κ },
//	μ = Σ_w P[Bern(q)^T = w]·N(w, σ²I_T),  ν = N(0, σ²I_T),
//
// estimated by the method in o (see ReRoMethod). κ ∈ (0, 1) (1/n for a
// uniform prior of n candidates, see KappaUniform). For q = 1 the exact
// value is ReRoFullBatch.
func ReRoBound(m DPSGD, kappa float64, o ReRoOptions) (ReRoResult, error) {
	if err := m.check(); err != nil {
		return ReRoResult{}, err
	}
	if err := checkKappa(kappa); err != nil {
		return ReRoResult{}, err
	}
	o, err := o.withDefaults()
	if err != nil {
		return ReRoResult{}, err
	}
	rs, err := reroAll(context.Background(), m, []float64{kappa}, o)
	if err != nil {
		return ReRoResult{}, err
	}
	return rs[0], nil
}

// ReRoBounds is ReRoBound for several priors at once. The exact method
// composes the loss distributions once and reads every κ from them, which
// makes a sweep over prior sizes nearly as cheap as one point; the Monte
// Carlo methods reuse the same samples for every κ.
func ReRoBounds(m DPSGD, kappas []float64, o ReRoOptions) ([]ReRoResult, error) {
	if err := m.check(); err != nil {
		return nil, err
	}
	for _, k := range kappas {
		if err := checkKappa(k); err != nil {
			return nil, err
		}
	}
	o, err := o.withDefaults()
	if err != nil {
		return nil, err
	}
	return reroAll(context.Background(), m, kappas, o)
}

// reroAll dispatches on the method; inputs are checked and defaulted. The
// Monte Carlo methods stop early once ctx is done. (ReRoBound and
// ReRoBounds pass a context that is never done: their callers, the bound
// nodes, do not hand theirs down yet.)
func reroAll(ctx context.Context, m DPSGD, kappas []float64, o ReRoOptions) ([]ReRoResult, error) {
	var rs []ReRoResult
	var err error
	switch o.Method {
	case ReRoExact:
		rs, err = reroExact(m, kappas, o)
	case ReRoMonteCarlo:
		rs, err = reroAlgorithm1(ctx, m, kappas, o)
	default:
		rs, err = reroRobust(ctx, m, kappas, o)
	}
	if err != nil {
		return nil, fmt.Errorf("ReRo bound (σ=%v, q=%v, T=%d, %s): %w",
			m.NoiseMultiplier, m.SamplingRate, m.Steps, o.Method, err)
	}
	return rs, nil
}
