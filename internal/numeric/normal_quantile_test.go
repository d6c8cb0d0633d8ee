package numeric

import (
	"math"
	"testing"
)

func TestNormQuantileLogTinyPriors(t *testing.T) {
	// Hayes et al. Appendix I (notes §2.5): κ = 0.25^{dρ} underflows float64;
	// Φ⁻¹(κ) ≈ −46.52 for MNIST (ln κ = −1086.85) and ≈ −92.23 for CIFAR-10
	// (log₁₀ κ = −1849.53). The notes give two decimals: tolerance 0.01.
	near(t, "Φ⁻¹(0.25^784)", NormQuantileLog(784*math.Log(0.25)), -46.52, 0.01)
	near(t, "Φ⁻¹(10^-1849.53)", NormQuantileLog(-1849.53*math.Ln10), -92.23, 0.01)
	// Python statistics.NormalDist().inv_cdf(1e-300) = −37.0470962993612
	// (independent implementation), relative 1e-12.
	nearRel(t, "Φ⁻¹(1e-300)", NormQuantileLog(math.Log(1e-300)), -37.0470962993612, 1e-12)
}

func TestNormQuantileLogRoundTrip(t *testing.T) {
	// Definition: Φ⁻¹ inverts Φ; log Φ is computed independently (asymptotic
	// series below −20), so the round trip checks both to 1e-12 relative.
	for _, x := range []float64{-25, -38, -40, -100, -1000} {
		nearRel(t, "Φ⁻¹(Φ(x))", NormQuantileLog(LogNormCDF(x)), x, 1e-12)
	}
	// Continuity at the switch to the series (x = −20): log Φ from erfc and
	// from the series agree to 1e-13 relative.
	nearRel(t, "log Φ(−20)", LogNormCDF(-20), math.Log(NormCDF(-20)), 1e-13)
	nearRel(t, "log Φ(−20.000001)", LogNormCDF(-20.000001), math.Log(NormCDF(-20.000001)), 1e-13)
}
