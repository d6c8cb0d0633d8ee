package privacy

import "math"

// Standard normal helpers with full relative accuracy in the far tails.
// The PLD and RDP code evaluates Φ at arguments down to −40 and below, where
// 1 − Φ(−x) cancels and erfc underflows, so every function here chooses the
// form that keeps its relative error near machine precision.

const (
	sqrt2       = math.Sqrt2
	logSqrt2Pi  = 0.91893853320467274178032973640562 // log √(2π)
	asymptoticX = -20.0                              // below this, logNormCDF uses the asymptotic series
)

// NormCDF returns Φ(x). For x < 0 it is computed as ½·erfc(−x/√2), which
// keeps full relative precision down to x ≈ −38 (where it underflows).
func NormCDF(x float64) float64 {
	return 0.5 * math.Erfc(-x/sqrt2)
}

// NormSF returns 1 − Φ(x) = Φ(−x) without cancellation.
func NormSF(x float64) float64 {
	return 0.5 * math.Erfc(x/sqrt2)
}

// LogNormCDF returns log Φ(x) for any x, with relative accuracy near machine
// precision: log1p(−Φ(−x)) for x > 0, log of ½·erfc for moderate negative x,
// and the asymptotic expansion of Mills' ratio for x < −20, where erfc would
// underflow for x < −38.
func LogNormCDF(x float64) float64 {
	switch {
	case math.IsNaN(x):
		return x
	case x > 0:
		return math.Log1p(-NormSF(x))
	case x >= asymptoticX:
		return math.Log(NormCDF(x))
	case math.IsInf(x, -1):
		return math.Inf(-1)
	}
	// Φ(x) = φ(x)/|x| · (1 − 1/x² + 3/x⁴ − 15/x⁶ + …) for x → −∞. At |x| ≥ 20
	// ten terms leave a truncation error below 1e-17 relative.
	z := 1 / (x * x)
	s, term := 1.0, 1.0
	for k := 1; k <= 10; k++ {
		term *= -float64(2*k-1) * z
		s += term
	}
	return -0.5*x*x - logSqrt2Pi - math.Log(-x) + math.Log(s)
}

// logErfc returns log erfc(x) = log 2 + log Φ(−x√2), accurate for large x
// where erfc itself underflows.
func logErfc(x float64) float64 {
	if x < 5 {
		return math.Log(math.Erfc(x))
	}
	return math.Ln2 + LogNormCDF(-x*sqrt2)
}

// erfcxAsymptotic is where erfcxLarge becomes exact to rounding.
const erfcxAsymptotic = 20.0

// erfcxLarge returns the scaled complementary error function
// erfcx(w) = e^{w²}·erfc(w) for w ≥ 20 from its asymptotic series
// 1/(w√π)·(1 − 1/(2w²) + 3/(4w⁴) − …); nine terms leave < 1e-17 relative.
func erfcxLarge(w float64) float64 {
	z := 1 / (2 * w * w)
	s, term := 1.0, 1.0
	for k := 1; k <= 9; k++ {
		term *= -float64(2*k-1) * z
		s += term
	}
	return s / (w * math.SqrtPi)
}
