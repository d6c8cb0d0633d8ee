package numeric

import (
	"math"

	"gonum.org/v1/gonum/mathext"
)

// Standard normal helpers with full relative accuracy in the far tails.
// The PLD and RDP code evaluates Φ at arguments down to −40 and below, and
// the ReRo bounds need Φ⁻¹ of priors far below the smallest float64, where
// 1 − Φ(−x) cancels and erfc underflows, so every function here chooses the
// form that keeps its relative error near machine precision.

const (
	// LogSqrt2Pi is log √(2π), the log normaliser of the normal density.
	LogSqrt2Pi  = 0.91893853320467274178032973640562
	asymptoticX = -20.0 // below this, LogNormCDF uses the asymptotic series
)

// NormCDF returns Φ(x). For x < 0 it is computed as ½·erfc(−x/√2), which
// keeps full relative precision down to x ≈ −38 (where it underflows).
func NormCDF(x float64) float64 {
	return 0.5 * math.Erfc(-x/math.Sqrt2)
}

// NormSF returns 1 − Φ(x) = Φ(−x) without cancellation.
func NormSF(x float64) float64 {
	return 0.5 * math.Erfc(x/math.Sqrt2)
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
	return -0.5*x*x - LogSqrt2Pi - math.Log(-x) + math.Log(s)
}

// LogErfc returns log erfc(x) = log 2 + log Φ(−x√2), accurate for large x
// where erfc itself underflows.
func LogErfc(x float64) float64 {
	if x < 5 {
		return math.Log(math.Erfc(x))
	}
	return math.Ln2 + LogNormCDF(-x*math.Sqrt2)
}

// ErfcxAsymptotic is where ErfcxLarge becomes exact to rounding: call it
// only for w ≥ ErfcxAsymptotic.
const ErfcxAsymptotic = 20.0

// ErfcxLarge returns the scaled complementary error function
// erfcx(w) = e^{w²}·erfc(w) for w ≥ 20 from its asymptotic series
// 1/(w√π)·(1 − 1/(2w²) + 3/(4w⁴) − …); nine terms leave < 1e-17 relative.
func ErfcxLarge(w float64) float64 {
	z := 1 / (2 * w * w)
	s, term := 1.0, 1.0
	for k := 1; k <= 9; k++ {
		term *= -float64(2*k-1) * z
		s += term
	}
	return s / (w * math.SqrtPi)
}

// NormQuantile returns Φ⁻¹(p) for p ∈ (0, 1) (Wichura's AS241 as gonum's
// mathext implements it, ~1e-16 relative), −Inf at 0 and +Inf at 1.
func NormQuantile(p float64) float64 { return mathext.NormalQuantile(p) }

// NormQuantileLog returns Φ⁻¹(e^{logP}) for logP ≤ 0, including probabilities
// far below the smallest float64 (log κ = −1086 for the Appendix I prior of
// Hayes et al.). Above e^{−700} it defers to NormQuantile; below, it starts
// from the asymptotic inverse and polishes with Newton steps on log Φ, whose
// derivative φ(x)/Φ(x) is known in closed form.
func NormQuantileLog(logP float64) float64 {
	switch {
	case math.IsNaN(logP) || logP > 0:
		return math.NaN()
	case logP == 0:
		return math.Inf(1)
	case math.IsInf(logP, -1):
		return math.Inf(-1)
	case logP > -700:
		return NormQuantile(math.Exp(logP))
	}
	// log Φ(x) ≈ −x²/2 − log(−x) − log√(2π): solve by fixed point for a start.
	x := -math.Sqrt(-2 * logP)
	for i := 0; i < 3; i++ {
		x = -math.Sqrt(-2 * (logP + math.Log(-x) + LogSqrt2Pi))
	}
	for i := 0; i < 20; i++ {
		lc := LogNormCDF(x)
		// d/dx log Φ(x) = φ(x)/Φ(x) = exp(log φ(x) − log Φ(x)).
		slope := math.Exp(-0.5*x*x - LogSqrt2Pi - lc)
		step := (lc - logP) / slope
		x -= step
		if math.Abs(step) <= 1e-15*math.Abs(x) {
			break
		}
	}
	return x
}
