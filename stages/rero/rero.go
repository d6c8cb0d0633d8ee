// Package rero builds the nodes of the ReRo bound (Hayes, Mahloujifar &
// Balle 2023, Corollary 4) and its comparators. Two games use them: the
// bounds game for a spec's rero entry, and the reconstruction game, which
// compares the attack's success with the bound of the same point. The
// nodes key on this package's code, so both games build one node.
package rero

import (
	"fmt"
	"math"

	"github.com/dpaudit/dpaudit/bounds"
	"github.com/dpaudit/dpaudit/rng"
	"github.com/dpaudit/dpaudit/spec"
	"github.com/dpaudit/dpaudit/stages"
)

// Versions of the rero stages: bump when they compute differently.
const (
	reroVersion           = 1
	reroComparatorVersion = 1
)

// guoSensitivity is the distance between two candidates' clipped
// gradients in Guo et al.'s Fano bound as Hayes et al.'s Table 2 uses it:
// two orthogonal gradients of norm C = 1 are √2 apart.
var guoSensitivity = math.Sqrt2

// reroParams is everything the ReRo bound of one point depends on. Monte
// Carlo settings are left out for the exact method and vice versa, so
// that equal work has equal keys; κ stands for the prior (prior_size n
// gives κ = 1/n, the same key as kappa: 1/n).
type reroParams struct {
	stages.Mechanism
	Kappa      float64 `json:"kappa"`
	Method     string  `json:"method"`
	Samples    int     `json:"samples,omitempty"`
	Seed       uint64  `json:"seed,omitempty"`
	Confidence float64 `json:"confidence,omitempty"`
	Tolerance  float64 `json:"tolerance,omitempty"`
}

// reroComparatorParams is one comparator of the ReRo bound.
type reroComparatorParams struct {
	Comparator string `json:"comparator"`
	stages.Mechanism
	Kappa     float64 `json:"kappa,omitempty"`      // rdp
	PriorSize int     `json:"prior_size,omitempty"` // guo_fano, guo_fano_mc
	Samples   int     `json:"samples,omitempty"`    // guo_fano_mc
	Seed      uint64  `json:"seed,omitempty"`       // guo_fano_mc
}

var (
	// Columns are the rero node's summary columns.
	Columns        = []string{"rero_kappa", "rero_gamma", "rero_gamma_lo", "rero_gamma_hi", "rero_advantage", "rero_method", "rero_confidence", "rero_effective_samples"}
	compareColumns = map[string][]string{
		"rdp":         {"rero_rdp_gamma", "rero_rdp_advantage", "rero_rdp_order"},
		"guo_fano":    {"rero_guo_fano_gamma", "rero_guo_fano_advantage", "rero_guo_fano_info"},
		"guo_fano_mc": {"rero_guo_fano_mc_gamma", "rero_guo_fano_mc_advantage", "rero_guo_fano_mc_info", "rero_guo_fano_mc_info_se"},
	}
)

// pkg is this package: the code the rero nodes run.
var pkg = stages.PackageOf(runRero)

// Calcs makes the bound node of a rero entry and one node per comparator;
// path is the entry's spec path, for errors. Monte Carlo seeds derive from
// the spec seed only, so a result depends neither on the point's position
// nor on -j.
func Calcs(exp *spec.Experiment, r *spec.ReroBound, path string) ([]stages.Calc, error) {
	d := stages.MechanismOf(exp.DPSGD)
	kappa := r.Kappa
	if r.PriorSize > 0 {
		kappa = 1 / float64(r.PriorSize)
	}
	p := reroParams{Mechanism: d, Kappa: kappa, Method: r.Method}
	if r.Method == string(bounds.ReRoExact) {
		p.Tolerance = r.Tolerance
	} else {
		// Rules only the library knows, checked before anything runs.
		top := int(math.Ceil(kappa * float64(r.Samples)))
		if top < bounds.MinTopSamples {
			return nil, &stages.PathError{Path: path + ".samples", Err: fmt.Errorf("%w: ⌈κN⌉ = ⌈%g × %d⌉ = %d samples lie above the quantile, fewer than %d, so the estimate would be mostly noise; use samples ≥ %d (or the exact method, which draws none)",
				bounds.ErrInvalid, kappa, r.Samples, top, bounds.MinTopSamples, int(math.Ceil(bounds.MinTopSamples/kappa)))}
		}
		p.Samples, p.Confidence = r.Samples, r.Confidence
		p.Seed = rng.Seed(uint64(exp.Seed), "rero")
	}
	out := []stages.Calc{{
		Kind:    "rero",
		Version: reroVersion,
		Params:  p,
		Label:   fmt.Sprintf("%s κ=%.4g %s", d, kappa, r.Method),
		Columns: Columns,
		Compute: func() ([]stages.Output, error) { return runRero(p) },
		Package: pkg,
	}}
	for _, c := range r.Compare {
		cp := reroComparatorParams{Comparator: c, Mechanism: d}
		switch c {
		case "rdp":
			cp.Kappa = kappa
		case "guo_fano":
			cp.PriorSize = r.PriorSize
		case "guo_fano_mc":
			cp.PriorSize, cp.Samples = r.PriorSize, r.Samples
			cp.Seed = rng.Seed(uint64(exp.Seed), "rero", "guo_fano_mc")
		}
		out = append(out, stages.Calc{
			Kind:    "rero_comparator",
			Version: reroComparatorVersion,
			Params:  cp,
			Label:   fmt.Sprintf("%s %s", c, d),
			Sub:     c,
			Columns: compareColumns[c],
			Compute: func() ([]stages.Output, error) { return runReroComparator(cp) },
			Package: pkg,
		})
	}
	return out, nil
}

// runRero computes the ReRo bound γ (Hayes et al. Corollary 4) with its
// bracket and the advantage over the prior baseline (their Eq. 4).
func runRero(p reroParams) ([]stages.Output, error) {
	var res bounds.ReRoResult
	if p.NoNoise() {
		// No noise: the gradients reveal the target, γ = 1.
		res = bounds.ReRoResult{Gamma: 1, Lower: 1, Upper: 1, Confidence: 1, Method: bounds.ReRoMethod(p.Method)}
	} else {
		var err error
		m := bounds.DPSGD{NoiseMultiplier: p.NoiseMultiplier, SamplingRate: p.SamplingRate, Steps: p.Steps}
		res, err = bounds.ReRoBound(m, p.Kappa, bounds.ReRoOptions{
			Method: bounds.ReRoMethod(p.Method), Samples: p.Samples, Seed: p.Seed,
			Confidence: p.Confidence, Tolerance: p.Tolerance,
		})
		if err != nil {
			return nil, err
		}
	}
	adv, err := bounds.ReRoAdvantage(res.Gamma, p.Kappa)
	if err != nil {
		return nil, err
	}
	outs := []stages.Output{
		stages.F64("rero_kappa", p.Kappa),
		stages.F64("rero_gamma", res.Gamma),
		stages.F64("rero_gamma_lo", res.Lower),
		stages.F64("rero_gamma_hi", res.Upper),
		stages.F64("rero_advantage", adv),
		stages.Str("rero_method", p.Method),
		stages.F64("rero_confidence", res.Confidence),
	}
	if p.Method == string(bounds.ReRoMonteCarlo) {
		outs = append(outs, stages.F64("rero_effective_samples", res.EffectiveSamples))
	}
	return outs, nil
}

// runReroComparator computes one comparator of the ReRo bound.
func runReroComparator(p reroComparatorParams) ([]stages.Output, error) {
	switch p.Comparator {
	case "rdp":
		return reroRDP(p)
	case "guo_fano":
		return guoFano(p)
	case "guo_fano_mc":
		return guoFanoMC(p)
	}
	return nil, fmt.Errorf("unknown ReRo comparator %q", p.Comparator)
}

// reroRDP is the bound of Balle et al. (2022) from the RDP curve: at q = 1
// Hayes et al.'s Eq. 2 over every real order, otherwise the accountant's
// curve over dp_accounting's orders.
func reroRDP(p reroComparatorParams) ([]stages.Output, error) {
	gamma, order := 1.0, math.NaN()
	switch {
	case p.NoNoise():
	case p.SamplingRate == 1:
		var err error
		if gamma, err = bounds.ReRoRDPFullBatch(p.NoiseMultiplier, p.Steps, p.Kappa); err != nil {
			return nil, err
		}
		// α* = √(log(1/κ)·2σ²/T); below 1 the bound is trivial.
		if a := math.Sqrt(math.Log(1/p.Kappa) * 2 * p.NoiseMultiplier * p.NoiseMultiplier / float64(p.Steps)); a > 1 {
			order = a
		}
	default:
		var err error
		m := bounds.DPSGD{NoiseMultiplier: p.NoiseMultiplier, SamplingRate: p.SamplingRate, Steps: p.Steps}
		if gamma, order, err = bounds.ReRoRDPSampledGaussian(m, p.Kappa, nil); err != nil {
			return nil, err
		}
		if math.IsInf(order, 0) {
			order = math.NaN()
		}
	}
	adv, err := bounds.ReRoAdvantage(gamma, p.Kappa)
	if err != nil {
		return nil, err
	}
	return []stages.Output{stages.F64("rero_rdp_gamma", gamma), stages.F64("rero_rdp_advantage", adv), stages.F64("rero_rdp_order", stages.OrNull(order))}, nil
}

// guoFano is Guo et al.'s (2022b) Fano bound with their closed-form mutual
// information of T Gaussian releases, sensitivity √2 (Hayes et al. Table
// 2, "Guo et al. (2022b)"). It ignores subsampling, which can only lower
// the information (I ≤ q·I_full), so it holds for every q.
func guoFano(p reroComparatorParams) ([]stages.Output, error) {
	kappa := 1 / float64(p.PriorSize)
	info := math.Log(float64(p.PriorSize))
	if !p.NoNoise() {
		var err error
		if info, err = bounds.GuoGaussianMutualInfo(p.PriorSize, p.NoiseMultiplier, guoSensitivity, p.Steps); err != nil {
			return nil, err
		}
	}
	gamma, err := bounds.FanoSuccessBound(p.PriorSize, info)
	if err != nil {
		return nil, err
	}
	adv, err := bounds.ReRoAdvantage(gamma, kappa)
	if err != nil {
		return nil, err
	}
	return []stages.Output{stages.F64("rero_guo_fano_gamma", gamma), stages.F64("rero_guo_fano_advantage", adv), stages.F64("rero_guo_fano_info", info)}, nil
}

// guoFanoMC is the Fano bound with the mutual information of one release
// estimated by Monte Carlo for n orthonormal candidates (Hayes et al.
// Table 2, "MC"), times T for T releases (conditionally independent given
// the target, so the information adds up at most).
func guoFanoMC(p reroComparatorParams) ([]stages.Output, error) {
	kappa := 1 / float64(p.PriorSize)
	info, se := math.Log(float64(p.PriorSize)), 0.0
	if !p.NoNoise() {
		var err error
		if info, se, err = bounds.GuoMutualInfoMC(p.PriorSize, p.NoiseMultiplier, p.Samples, p.Seed); err != nil {
			return nil, err
		}
		info, se = info*float64(p.Steps), se*float64(p.Steps)
	}
	gamma, err := bounds.FanoSuccessBound(p.PriorSize, math.Max(0, info))
	if err != nil {
		return nil, err
	}
	adv, err := bounds.ReRoAdvantage(gamma, kappa)
	if err != nil {
		return nil, err
	}
	return []stages.Output{stages.F64("rero_guo_fano_mc_gamma", gamma), stages.F64("rero_guo_fano_mc_advantage", adv), stages.F64("rero_guo_fano_mc_info", info), stages.F64("rero_guo_fano_mc_info_se", se)}, nil
}
