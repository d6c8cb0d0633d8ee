package bounds

import (
	"math"

	"github.com/dpaudit/dpaudit/privacy"
	"gonum.org/v1/gonum/mathext"
)

// Standard normal helpers. The bounds evaluate Φ far in the tails (tiny
// priors κ, large μ); Φ, 1 − Φ and log Φ with full relative precision there
// come from package privacy (privacy.NormCDF, NormSF, LogNormCDF).

const logSqrt2Pi = 0.91893853320467274178032973640562 // log √(2π)

// normQuantile returns Φ⁻¹(p) for p ∈ (0, 1) (Wichura's AS241, ~1e-16
// relative), −Inf at 0 and +Inf at 1.
func normQuantile(p float64) float64 { return mathext.NormalQuantile(p) }

// normQuantileLog returns Φ⁻¹(e^{logP}) for logP ≤ 0, including probabilities
// far below the smallest float64 (log κ = −1086 for the Appendix I prior of
// Hayes et al.). Above e^{−700} it defers to normQuantile; below, it starts
// from the asymptotic inverse and polishes with Newton steps on log Φ, whose
// derivative φ(x)/Φ(x) is known in closed form.
func normQuantileLog(logP float64) float64 {
	switch {
	case math.IsNaN(logP) || logP > 0:
		return math.NaN()
	case logP == 0:
		return math.Inf(1)
	case math.IsInf(logP, -1):
		return math.Inf(-1)
	case logP > -700:
		return normQuantile(math.Exp(logP))
	}
	// log Φ(x) ≈ −x²/2 − log(−x) − log√(2π): solve by fixed point for a start.
	x := -math.Sqrt(-2 * logP)
	for i := 0; i < 3; i++ {
		x = -math.Sqrt(-2 * (logP + math.Log(-x) + logSqrt2Pi))
	}
	for i := 0; i < 20; i++ {
		lc := privacy.LogNormCDF(x)
		// d/dx log Φ(x) = φ(x)/Φ(x) = exp(log φ(x) − log Φ(x)).
		slope := math.Exp(-0.5*x*x - logSqrt2Pi - lc)
		step := (lc - logP) / slope
		x -= step
		if math.Abs(step) <= 1e-15*math.Abs(x) {
			break
		}
	}
	return x
}
