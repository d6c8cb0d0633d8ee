package privacy

import (
	"math"

	"github.com/dpaudit/dpaudit/internal/numeric"
	"gonum.org/v1/gonum/integrate/quad"
)

// rdpQuadratureLogA integrates log A_α = log E_{x∼N(0,σ²)}[(1−q+q·e^{(2x−1)/(2σ²)})^α]
// numerically. It is the fallback for fractional orders whose MTZ series
// converges too slowly, and the independent check of the series in tests.
//
// The integrand is smooth with (at most two) bumps of width σ, near 0 and near
// α, so [−40σ, α+40σ] is cut into pieces of width σ and each is integrated
// with 16-point Gauss–Legendre, which is exact to rounding for an analytic
// integrand on that scale. The integrand is scaled by its largest value on a
// σ/4 grid so that nothing overflows.
func rdpQuadratureLogA(q, sigma, alpha float64) float64 {
	logq, log1mq := math.Log(q), math.Log1p(-q)
	inv2s2 := 1 / (2 * sigma * sigma)
	logNorm := -math.Log(sigma) - numeric.LogSqrt2Pi
	logIntegrand := func(x float64) float64 {
		l := logq + (2*x-1)*inv2s2
		var inner float64
		if q == 1 {
			inner = l
		} else {
			inner = numeric.LogAddExp(log1mq, l)
		}
		return logNorm - x*x*inv2s2 + alpha*inner
	}
	lo, hi := -40*sigma, alpha+40*sigma
	pieces := int(math.Ceil((hi - lo) / sigma))
	if pieces > 1<<20 {
		pieces = 1 << 20
	}
	width := (hi - lo) / float64(pieces)
	scale := math.Inf(-1)
	for x := lo; x <= hi; x += width / 4 {
		scale = math.Max(scale, logIntegrand(x))
	}
	f := func(x float64) float64 { return math.Exp(logIntegrand(x) - scale) }
	total := 0.0
	for k := 0; k < pieces; k++ {
		a := lo + float64(k)*width
		total += quad.Fixed(f, a, a+width, 16, quad.Legendre{}, 0)
	}
	return scale + math.Log(total)
}
