package bounds

import (
	"math"

	"github.com/dpaudit/dpaudit/internal/numeric"
)

// Closed-form pieces of the reconstruction-robustness (ReRo) bounds of
// Hayes, Mahloujifar & Balle (2023), "Bounding training data reconstruction
// in DP-SGD" (paper 000; notes: shared/reference/hayes2023-rero-dpsgd.md).
// A bound γ is a probability: no attack reconstructs the target (within the
// error threshold η) with probability above γ. κ is the prior baseline, the
// success of the best guess made without seeing the model.

// KappaUniform returns the prior baseline κ = 1/n of a uniform prior over n
// candidates with exact reconstruction as success (Hayes et al. §2.5; all of
// the paper's experiments). n must be ≥ 2: with one candidate there is
// nothing to reconstruct.
func KappaUniform(priorSize int) (float64, error) {
	if priorSize < 2 {
		return 0, invalidf("prior size must be ≥ 2 (κ = 1/n must be < 1), got %d", priorSize)
	}
	return 1 / float64(priorSize), nil
}

// ReRoFullBatch returns the exact ReRo bound of full-batch DP-SGD (q = 1)
// with noise multiplier σ run for T steps, releasing every gradient:
//
//	γ = Φ(Φ⁻¹(κ) + √T/σ)
//
// (Corollary 4 of Hayes et al.; with q = 1 the mixture μ is a single
// Gaussian shifted by √T/σ in noise units, so the blow-up function is the
// Gaussian trade-off curve; derivation in the notes §2.4). Unitless
// probability in [κ, 1). Valid for any σ > 0, T ≥ 1, κ ∈ (0, 1).
func ReRoFullBatch(sigma float64, steps int, kappa float64) (float64, error) {
	if err := checkKappa(kappa); err != nil {
		return 0, err
	}
	return ReRoFullBatchLogKappa(sigma, steps, math.Log(kappa))
}

// ReRoFullBatchLogKappa is ReRoFullBatch with the prior baseline given as
// log κ < 0, for priors too small for float64 (Hayes et al. Appendix I:
// κ = 0.25^784, log κ = −1086.85 for MNIST pixels within 32/255). The result
// is a probability; it may be a tiny positive number or 0 if γ itself
// underflows.
func ReRoFullBatchLogKappa(sigma float64, steps int, logKappa float64) (float64, error) {
	if err := checkPositive("noise multiplier σ", sigma); err != nil {
		return 0, err
	}
	if err := checkCount("steps T", steps, 1); err != nil {
		return 0, err
	}
	if !(logKappa < 0) || math.IsInf(logKappa, -1) {
		return 0, invalidf("log κ must be finite and < 0, got %v", logKappa)
	}
	shift := math.Sqrt(float64(steps)) / sigma
	return numeric.NormCDF(numeric.NormQuantileLog(logKappa) + shift), nil
}

// ReRoAdvantage converts a success probability γ into the advantage over
// the prior baseline, (γ − κ)/(1 − κ) ∈ [0, 1] when γ ∈ [κ, 1] (Hayes et
// al. Eq. 4, used in their Table 2). Values of γ below κ give a negative
// advantage; that is reported, not clipped, so a caller can see it.
func ReRoAdvantage(gamma, kappa float64) (float64, error) {
	if err := checkKappa(kappa); err != nil {
		return 0, err
	}
	if !(gamma >= 0 && gamma <= 1) {
		return 0, invalidf("success probability γ must be in [0, 1], got %v", gamma)
	}
	return (gamma - kappa) / (1 - kappa), nil
}
