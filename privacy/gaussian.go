package privacy

import "math"

// The (non-subsampled, single-release) Gaussian mechanism M(D) = f(D) + N(0, σ²)
// for a query f with ℓ2 sensitivity Δ.

func checkSensitivity(s float64) error {
	if !(s > 0) || math.IsInf(s, 1) {
		return invalidf("sensitivity must be > 0 and finite, got %v", s)
	}
	return nil
}

// ClassicGaussianSigma returns σ = Δ·√(2 ln(1.25/δ))/ε (Dwork & Roth 2014,
// Thm. A.1). The guarantee is only proven for ε < 1; for larger ε it is
// neither tight nor guaranteed, but papers use it anyway, so it is computed
// for any ε > 0. AnalyticGaussianSigma is exact.
func ClassicGaussianSigma(eps, delta, sensitivity float64) (float64, error) {
	if !(eps > 0) || math.IsInf(eps, 1) {
		return 0, invalidf("ε must be > 0 and finite, got %v", eps)
	}
	if err := checkDelta(delta); err != nil {
		return 0, err
	}
	if err := checkSensitivity(sensitivity); err != nil {
		return 0, err
	}
	return sensitivity * math.Sqrt(2*math.Log(1.25/delta)) / eps, nil
}

// AnalyticGaussianSigma returns the smallest σ for which the Gaussian
// mechanism is (ε, δ)-DP, exactly (Balle & Wang 2018, "Improving the
// Gaussian mechanism for differential privacy", Thm. 8): the mechanism is
// (Δ/σ)-GDP, so σ = Δ/μ with μ solving δ = Φ(−ε/μ + μ/2) − e^ε·Φ(−ε/μ − μ/2),
// found by Brent's method to 1e-13 relative. ε = 0 is allowed.
func AnalyticGaussianSigma(eps, delta, sensitivity float64) (float64, error) {
	if err := checkEpsilon(eps); err != nil {
		return 0, err
	}
	if err := checkDelta(delta); err != nil {
		return 0, err
	}
	if err := checkSensitivity(sensitivity); err != nil {
		return 0, err
	}
	mu, err := gdpMuForEpsilon(eps, delta)
	if err != nil {
		return 0, err
	}
	return sensitivity / mu, nil
}

// GaussianEpsilon returns the exact ε(δ) of the Gaussian mechanism with noise
// σ and sensitivity Δ (μ = Δ/σ in GDPEpsilon). σ = 0 (no noise) gives +Inf.
func GaussianEpsilon(sigma, delta, sensitivity float64) (float64, error) {
	if err := checkNoise(sigma, true); err != nil {
		return 0, err
	}
	if err := checkSensitivity(sensitivity); err != nil {
		return 0, err
	}
	if err := checkDelta(delta); err != nil {
		return 0, err
	}
	if sigma == 0 {
		return math.Inf(1), nil
	}
	return GDPEpsilon(sensitivity/sigma, delta)
}
