package bounds

import (
	"fmt"
	"math"

	"github.com/dpaudit/dpaudit/privacy"
)

// MSE lower bounds of Guo, Karrer, Chaudhuri & van der Maaten (2022),
// "Bounding training data reconstruction in private (deep) learning"
// (paper 004; notes: shared/reference/guo2022-bounding-reconstruction.md).
// Units: per-coordinate mean squared error E[‖ẑ − z‖²/d], in the squared
// units of the data (e.g. pixels in [0,1]). Multiply by d for the total
// squared distance that Mukherjee & Lokam's bounds use.

// SoftClipFactor is the largest norm of Guo et al.'s GELU soft clip
// g/(GELU(‖g‖/C − 1) + 1), in units of C (their §6.2: "≤ 1.115C"; the exact
// maximum is 1.11522). Their RDP accounting divides σ by it.
const SoftClipFactor = 1.115

// GuoMSEBound returns Theorem 1 of Guo et al. for unbiased attackers: if
// training is (2, ε)-RDP (ε in nats, the order-2 Rényi DP of the whole run),
// every unbiased reconstruction of a point in the box with per-coordinate
// diameters diam_i has
//
//	E[‖ẑ − z‖²/d] ≥ (Σ_i diam_i²/(4d)) / (e^ε − 1),
//
// +Inf at ε = 0 ("infinite variance"). diameters must be > 0 (d = their
// number ≥ 1). For [0,1]^d it is 1/(4(e^ε − 1)).
func GuoMSEBound(eps2 float64, diameters []float64) (float64, error) {
	return GuoMSEBoundBiased(eps2, diameters, nil, 0)
}

// GuoMSEBoundBiased is Theorem 1 for biased attackers with mean map μ(z):
//
//	E[‖ẑ − z‖²/d] ≥ (Σ_i γ_i²·diam_i²/(4d)) / (e^ε − 1) + ‖μ(z) − z‖²/d,
//
// γ_i = inf_z |∂μ(z)_i/∂z_i| (nil gammas means all 1, the unbiased case)
// and biasSq = ‖μ(z) − z‖² (total, ≥ 0). γ_i must be ≥ 0 and finite.
func GuoMSEBoundBiased(eps2 float64, diameters, gammas []float64, biasSq float64) (float64, error) {
	if err := checkEpsilon("order-2 RDP ε", eps2); err != nil {
		return 0, err
	}
	d := len(diameters)
	if d == 0 {
		return 0, invalidf("need at least one coordinate diameter (dimension d ≥ 1)")
	}
	if gammas != nil && len(gammas) != d {
		return 0, invalidf("need one γ_i per coordinate: %d diameters, %d gammas", d, len(gammas))
	}
	if !(biasSq >= 0) || math.IsInf(biasSq, 1) {
		return 0, invalidf("squared bias ‖μ(z) − z‖² must be ≥ 0 and finite, got %v", biasSq)
	}
	sum := 0.0
	for i, diam := range diameters {
		if err := checkPositive(fmt.Sprintf("diameter of coordinate %d", i), diam); err != nil {
			return 0, err
		}
		g := 1.0
		if gammas != nil {
			g = gammas[i]
			if !(g >= 0) || math.IsInf(g, 1) {
				return 0, invalidf("γ_%d must be ≥ 0 and finite, got %v", i, g)
			}
		}
		sum += g * g * diam * diam
	}
	bias := biasSq / float64(d)
	if sum == 0 {
		return bias, nil
	}
	if eps2 == 0 {
		return math.Inf(1), nil
	}
	return sum/(4*float64(d))/math.Expm1(eps2) + bias, nil
}

// GuoMSEBoundUniform is GuoMSEBound when every coordinate has the same
// diameter (the bound does not depend on d then): diam²/(4(e^ε − 1)).
func GuoMSEBoundUniform(eps2, diameter float64) (float64, error) {
	return GuoMSEBound(eps2, []float64{diameter})
}

// DPSGDRenyi2 returns the order-2 RDP (nats) of T steps of DP-SGD with
// Poisson rate q and noise multiplier σ, from the privacy accountant
// (add/remove adjacency): T·log(1 + q²(e^{1/σ²} − 1)). With softClip, σ is
// first divided by SoftClipFactor, as Guo et al.'s code does for their
// GELU soft clip (notes §2.7; facts F16/F17).
func DPSGDRenyi2(q, sigma float64, steps int, softClip bool) (float64, error) {
	if err := checkCount("steps T", steps, 1); err != nil {
		return 0, err
	}
	if err := checkPositive("noise multiplier σ", sigma); err != nil {
		return 0, err
	}
	if softClip {
		sigma /= SoftClipFactor
	}
	v, err := privacy.RDPSampledGaussian(q, sigma, 2)
	if err != nil {
		return 0, fmt.Errorf("order-2 RDP of DP-SGD: %w", err)
	}
	return float64(steps) * v, nil
}

// OutputPerturbationFormula names the ε of Guo et al.'s output-perturbed
// logistic regression (θ* + N(0, σ²I), objective Σℓ + (nλ/2)‖θ‖²).
type OutputPerturbationFormula string

const (
	// OutputPerturbationPaper is the paper's (v1) ε = 2/(nλσ): n = 12665,
	// λ = σ = 1e-2 gives their "ε = 1.58".
	OutputPerturbationPaper OutputPerturbationFormula = "paper"
	// OutputPerturbationCorrected is the order-2 RDP of the Gaussian
	// mechanism with sensitivity 2/(nλ), α·Δ²/(2σ²) = 4/(nλσ)², as in the
	// authors' code after commit dc87132 ("fix rdp epsilon"): 2.494 for the
	// same example.
	OutputPerturbationCorrected OutputPerturbationFormula = "corrected"
)

// OutputPerturbationEpsilon returns the ε that feeds GuoMSEBound for
// output perturbation of L2-regularised logistic regression with n samples,
// regularisation λ and noise standard deviation σ (absolute, not a
// multiplier), by the named formula.
func OutputPerturbationEpsilon(n int, lambda, sigma float64, formula OutputPerturbationFormula) (float64, error) {
	if err := checkCount("training set size n", n, 1); err != nil {
		return 0, err
	}
	if err := checkPositive("regularisation λ", lambda); err != nil {
		return 0, err
	}
	if err := checkPositive("noise σ", sigma); err != nil {
		return 0, err
	}
	s := float64(n) * lambda * sigma
	switch formula {
	case OutputPerturbationPaper:
		return 2 / s, nil
	case OutputPerturbationCorrected:
		return 4 / (s * s), nil
	}
	return 0, invalidf("unknown output-perturbation formula %q (want %q or %q)", formula, OutputPerturbationPaper, OutputPerturbationCorrected)
}

// FILStepEpsilon returns the per-step ε that Guo et al. plug into the
// subsampling factor: the classic Gaussian-mechanism ε for replace-one
// sensitivity 2C and noise σC, 2·√(2·log(1.25/δ))/σ, times SoftClipFactor
// with softClip (their Algorithm 1 line 4). δ ∈ (0, 1) is the per-step
// failure probability (1e-9 and 1e-10 in their code).
func FILStepEpsilon(sigma, delta float64, softClip bool) (float64, error) {
	if err := checkPositive("noise multiplier σ", sigma); err != nil {
		return 0, err
	}
	if err := checkDeltaOpen(delta); err != nil {
		return 0, err
	}
	eps := 2 * math.Sqrt(2*math.Log(1.25/delta)) / sigma
	if softClip {
		eps *= SoftClipFactor
	}
	return eps, nil
}

// FILSubsamplingFactor returns Guo et al.'s Theorem 4 amplification factor
// κ = q/(q + (1 − q)·e^{−ε}) ∈ [q, 1] that multiplies the Fisher
// information of a step run on a q-subsample, when the step is ε-DP.
func FILSubsamplingFactor(q, eps float64) (float64, error) {
	if !(q > 0 && q <= 1) {
		return 0, invalidf("sampling rate q must be in (0, 1], got %v", q)
	}
	if err := checkEpsilon("per-step ε", eps); err != nil {
		return 0, err
	}
	return q / (q + (1-q)*math.Exp(-eps)), nil
}

// FILMSEBound returns Guo et al.'s Theorem 2 bound for unbiased attackers,
// E[‖ẑ − z‖²/d] ≥ 1/η̄², from the dFIL η̄² = Tr(I_h(z))/d (the accumulated,
// κ-weighted Fisher information per coordinate, > 0).
func FILMSEBound(dFIL float64) (float64, error) {
	if err := checkPositive("dFIL η̄²", dFIL); err != nil {
		return 0, err
	}
	return 1 / dFIL, nil
}
