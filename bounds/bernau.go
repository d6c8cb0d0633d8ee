package bounds

import (
	"math"

	"github.com/dpaudit/dpaudit/internal/numeric"
)

// Posterior-belief and advantage bounds of Bernau, Keller, Eibl, Grassal &
// Kerschbaum (2021), "Quantifying identifiability to choose and audit ε in
// differentially private deep learning" (paper 002; notes:
// shared/reference/bernau2021-identifiability.md). The adversary knows both
// neighbouring datasets D, D′ and every released gradient; ρ_β bounds its
// posterior belief in the true dataset (uniform prior ½), ρ_α its
// advantage 2·P[correct] − 1. All are unitless probabilities.

// gaussianC returns c(δ) = √(2·log(1.25/δ)), the classic Gaussian-mechanism
// constant (σ = Δ·c(δ)/ε).
func gaussianC(delta float64) float64 { return math.Sqrt(2 * math.Log(1.25/delta)) }

// RhoBeta returns the posterior-belief bound ρ_β = 1/(1 + e^{−ε}) of an ε-DP
// mechanism, ε the total over all composed steps (Theorem 1(i); Eq. 9). For
// an (ε, δ)-DP mechanism the same value bounds the belief with probability
// 1 − δ (Theorem 1(ii)); see RhoBetaApprox. Passing the accountant's ε at δ
// (privacy.Epsilon with any accountant) gives the RDP-composed form of
// Sec. 4.4 with that accountant's conversion; RhoBetaRDP is the paper's own
// Eq. 17 (classic conversion).
func RhoBeta(eps float64) (float64, error) {
	if err := checkEpsilon("ε", eps); err != nil {
		return 0, err
	}
	return 1 / (1 + math.Exp(-eps)), nil
}

// RhoBetaApprox returns ρ_β for an (ε, δ)-DP mechanism and the probability
// 1 − δ with which it holds (Theorem 1(ii), δ the total failure probability).
func RhoBetaApprox(eps, delta float64) (rho, holdsWithProb float64, err error) {
	if err := checkDeltaClosed(delta); err != nil {
		return 0, 0, err
	}
	rho, err = RhoBeta(eps)
	return rho, 1 - delta, err
}

// RhoBetaRDP returns the RDP-composed ρ_β of Eq. 17, 1/(1 + e^{−ε}) with
// ε = min_α [ε_RDP(α) − log δ/(α − 1)], the classic RDP→DP conversion the
// paper uses, of the whole composed curve (orders α > 1, values in nats, as
// privacy.RDP holds them), and the minimising order. It holds with
// probability 1 − δ.
func RhoBetaRDP(orders, values []float64, delta float64) (rho, order float64, err error) {
	eps, order, err := rdpEpsilonClassic(orders, values, delta)
	if err != nil {
		return 0, 0, err
	}
	rho, err = RhoBeta(eps)
	return rho, order, err
}

// rdpEpsilonClassic converts an RDP curve to ε at δ with the classic
// conversion ε = min_α [ε_RDP(α) + log(1/δ)/(α − 1)] (Mironov 2017).
func rdpEpsilonClassic(orders, values []float64, delta float64) (eps, order float64, err error) {
	if err := checkDeltaOpen(delta); err != nil {
		return 0, 0, err
	}
	if len(orders) == 0 || len(values) != len(orders) {
		return 0, 0, invalidf("RDP curve needs equally many orders and values (got %d and %d)", len(orders), len(values))
	}
	eps, order = math.Inf(1), math.Inf(1)
	for i, a := range orders {
		v := values[i]
		if !(a > 1) || math.IsInf(a, 1) {
			return 0, 0, invalidf("RDP order must be > 1 and finite, got %v", a)
		}
		if !(v >= 0) {
			return 0, 0, invalidf("RDP value at order %v must be ≥ 0, got %v", a, v)
		}
		if e := v + math.Log(1/delta)/(a-1); e < eps {
			eps, order = e, a
		}
	}
	return eps, order, nil
}

// RhoAlpha returns the advantage bound of the Gaussian mechanism calibrated
// with the classic formula σ = Δ·c(δ)/ε (Theorem 2):
//
//	ρ_α = 2·Φ(ε/(2·c(δ))) − 1,   c(δ) = √(2·log(1.25/δ)).
//
// δ ∈ (0, 1). Table 2(f): ε = ln 9, δ = 0.01 → 0.2763 (printed 0.28).
func RhoAlpha(eps, delta float64) (float64, error) {
	if err := checkEpsilon("ε", eps); err != nil {
		return 0, err
	}
	if err := checkDeltaOpen(delta); err != nil {
		return 0, err
	}
	return 2*numeric.NormCDF(eps/(2*gaussianC(delta))) - 1, nil
}

// RhoAlphaRDP returns the RDP form of the advantage bound (Sec. 4.4),
// ρ_α = 2·Φ(√(ε_RDP/(2α))) − 1, for a composed Gaussian mechanism that is
// (α, ε_RDP)-RDP (ε_RDP ≥ 0 in nats, α > 1).
func RhoAlphaRDP(epsRDP, alpha float64) (float64, error) {
	if err := checkEpsilon("RDP ε", epsRDP); err != nil {
		return 0, err
	}
	if !(alpha > 1) || math.IsInf(alpha, 1) {
		return 0, invalidf("RDP order α must be > 1 and finite, got %v", alpha)
	}
	return 2*numeric.NormCDF(math.Sqrt(epsRDP/(2*alpha))) - 1, nil
}

// RhoAlphaGaussianSteps returns ρ_α = 2·Φ(√k/(2z)) − 1 for k full-batch
// Gaussian steps with noise multiplier z (the RDP form with ε_RDP(α) =
// kα/(2z²); α cancels). It is the exact advantage of the Bayes-optimal
// adversary when every step's sensitivity is reached.
func RhoAlphaGaussianSteps(steps int, z float64) (float64, error) {
	if err := checkCount("steps k", steps, 1); err != nil {
		return 0, err
	}
	if err := checkPositive("noise multiplier z", z); err != nil {
		return 0, err
	}
	return 2*numeric.NormCDF(math.Sqrt(float64(steps))/(2*z)) - 1, nil
}

// EpsilonFromRhoBeta returns the total ε that caps the posterior belief at
// ρ_β (Eq. 10): ε = log(ρ_β/(1 − ρ_β)), ρ_β ∈ (0.5, 1). ρ_β = 0.9 → ln 9.
func EpsilonFromRhoBeta(rho float64) (float64, error) {
	if !(rho > 0.5 && rho < 1) {
		return 0, invalidf("target posterior belief ρ_β must be in (0.5, 1), got %v", rho)
	}
	return math.Log(rho / (1 - rho)), nil
}

// EpsilonFromRhoAlpha returns the ε at which the classic-calibrated
// Gaussian mechanism has advantage bound ρ_α ∈ (0, 1), the inverse of
// RhoAlpha: ε = 2·c(δ)·Φ⁻¹((ρ_α + 1)/2). The paper's Eq. 15 drops the
// factor 2 (its notebooks have it; without it the round trip fails).
func EpsilonFromRhoAlpha(rho, delta float64) (float64, error) {
	if !(rho > 0 && rho < 1) {
		return 0, invalidf("target advantage ρ_α must be in (0, 1), got %v", rho)
	}
	if err := checkDeltaOpen(delta); err != nil {
		return 0, err
	}
	return 2 * gaussianC(delta) * numeric.NormQuantile((rho+1)/2), nil
}

// YeomBound returns the membership-advantage bound min(1, e^ε − 1) of an
// ε-DP mechanism (Yeom et al. 2018; Bernau et al. Proposition 2).
func YeomBound(eps float64) (float64, error) {
	if err := checkEpsilon("ε", eps); err != nil {
		return 0, err
	}
	return math.Min(1, math.Expm1(eps)), nil
}

// ExpectedConfidenceBound returns ρ_β + δ·(1 − ρ_β): the posterior-belief
// bound averaged over the failure event of (ε, δ)-DP (the authors' code,
// get_expected_confidence_bound; likely their Fig. 3(a)).
func ExpectedConfidenceBound(eps, delta float64) (float64, error) {
	if err := checkDeltaClosed(delta); err != nil {
		return 0, err
	}
	rho, err := RhoBeta(eps)
	if err != nil {
		return 0, err
	}
	return rho + delta*(1-rho), nil
}
