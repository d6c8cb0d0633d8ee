package bounds

import (
	"math"

	"gonum.org/v1/gonum/mathext"
)

// Standard normal helpers. The bounds evaluate Φ far in the tails (tiny
// priors κ, large μ), so each helper picks the form that keeps full relative
// precision there.

const logSqrt2Pi = 0.91893853320467274178032973640562 // log √(2π)

// normCDF returns Φ(x), as ½·erfc(−x/√2) so that the left tail keeps full
// relative precision down to x ≈ −38.
func normCDF(x float64) float64 { return 0.5 * math.Erfc(-x/math.Sqrt2) }

// normSF returns 1 − Φ(x) = Φ(−x) without cancellation.
func normSF(x float64) float64 { return 0.5 * math.Erfc(x/math.Sqrt2) }

// normQuantile returns Φ⁻¹(p) for p ∈ (0, 1) (Wichura's AS241, ~1e-16
// relative), −Inf at 0 and +Inf at 1.
func normQuantile(p float64) float64 { return mathext.NormalQuantile(p) }

// logNormCDF returns log Φ(x) for any x: log1p(−Φ(−x)) for x > 0, the log of
// ½·erfc for moderate negative x, and the asymptotic series of Mills' ratio
// below −20, where erfc would underflow at −38.
func logNormCDF(x float64) float64 {
	switch {
	case math.IsNaN(x):
		return x
	case x > 0:
		return math.Log1p(-normSF(x))
	case x >= -20:
		return math.Log(normCDF(x))
	case math.IsInf(x, -1):
		return math.Inf(-1)
	}
	// Φ(x) = φ(x)/|x|·(1 − 1/x² + 3/x⁴ − …); ten terms are exact to rounding at |x| ≥ 20.
	z := 1 / (x * x)
	s, term := 1.0, 1.0
	for k := 1; k <= 10; k++ {
		term *= -float64(2*k-1) * z
		s += term
	}
	return -0.5*x*x - logSqrt2Pi - math.Log(-x) + math.Log(s)
}

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
		lc := logNormCDF(x)
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
