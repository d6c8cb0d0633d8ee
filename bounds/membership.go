package bounds

import (
	"math"

	"github.com/dpaudit/dpaudit/internal/numeric"
)

// Bounds every membership audit compares against. Advantage is TPR − FPR of
// the best membership test, a unitless number in [0, 1].

// MembershipAdvantage returns the largest membership-inference advantage
// under ε-DP, (e^ε − 1)/(e^ε + 1) = tanh(ε/2) (Humphries et al. 2020, as
// quoted by Guo et al. 2022 §2; ε = 2 → 0.7616, success (1 + Adv)/2 = 0.881).
func MembershipAdvantage(eps float64) (float64, error) {
	if err := checkEpsilon("ε", eps); err != nil {
		return 0, err
	}
	return math.Tanh(eps / 2), nil
}

// MembershipAdvantageApprox is MembershipAdvantage under (ε, δ)-DP:
// max_α [1 − α − f_{ε,δ}(α)] = (e^ε − 1 + 2δ)/(e^ε + 1), attained at the
// kink α = (1 − δ)/(e^ε + 1) of the trade-off curve DPTradeOff.
func MembershipAdvantageApprox(eps, delta float64) (float64, error) {
	if err := checkEpsilon("ε", eps); err != nil {
		return 0, err
	}
	if err := checkDeltaClosed(delta); err != nil {
		return 0, err
	}
	// (e^ε − 1 + 2δ)/(e^ε + 1) = tanh(ε/2) + 2δ/(e^ε + 1), stable for large ε.
	return math.Tanh(eps/2) + 2*delta/(math.Exp(eps)+1), nil
}

// GDPTradeOff returns the μ-GDP trade-off curve (Dong, Roth & Su 2019):
// the smallest type-II error (false-negative rate) of any membership test
// with type-I error (false-positive rate) α ∈ [0, 1],
//
//	G_μ(α) = Φ(Φ⁻¹(1 − α) − μ),   μ ≥ 0.
func GDPTradeOff(mu, alpha float64) (float64, error) {
	if err := checkEpsilon("GDP μ", mu); err != nil {
		return 0, err
	}
	if !(alpha >= 0 && alpha <= 1) {
		return 0, invalidf("type-I error α must be in [0, 1], got %v", alpha)
	}
	switch alpha {
	case 0:
		return 1, nil
	case 1:
		return 0, nil
	}
	// Φ⁻¹(1 − α) = −Φ⁻¹(α) keeps precision for small α.
	return numeric.NormCDF(-numeric.NormQuantile(alpha) - mu), nil
}

// GDPAdvantage returns the largest advantage under μ-GDP, max_α [1 − α − G_μ(α)]
// = 2Φ(μ/2) − 1.
func GDPAdvantage(mu float64) (float64, error) {
	if err := checkEpsilon("GDP μ", mu); err != nil {
		return 0, err
	}
	return 1 - 2*numeric.NormCDF(-mu/2), nil
}

// DPTradeOff returns the (ε, δ)-DP trade-off curve (Kairouz et al. 2015;
// Dong et al. 2019): f(α) = max{0, 1 − δ − e^ε·α, e^{−ε}·(1 − δ − α)}.
func DPTradeOff(eps, delta, alpha float64) (float64, error) {
	if err := checkEpsilon("ε", eps); err != nil {
		return 0, err
	}
	if err := checkDeltaClosed(delta); err != nil {
		return 0, err
	}
	if !(alpha >= 0 && alpha <= 1) {
		return 0, invalidf("type-I error α must be in [0, 1], got %v", alpha)
	}
	return math.Max(0, math.Max(1-delta-math.Exp(eps)*alpha, math.Exp(-eps)*(1-delta-alpha))), nil
}
