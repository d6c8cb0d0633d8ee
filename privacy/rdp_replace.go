package privacy

import (
	"math"
	"sync"

	"github.com/dpaudit/dpaudit/internal/numeric"
	"gonum.org/v1/gonum/integrate/quad"
)

// addMechanism composes all of m's steps into r.
func (r *RDP) addMechanism(m SampledGaussian) error {
	if err := m.check(); err != nil {
		return err
	}
	if err := m.supports(AccountantRDP); err != nil {
		return err
	}
	if m.isStandard() {
		return r.AddSampledGaussian(m.SamplingRate, m.accountedSigma(), m.Steps)
	}
	var one func(alpha float64) float64
	switch m.Sampling.orDefault() {
	case SamplingPoisson:
		one = func(a float64) float64 { return rdpReplaceOne(m.SamplingRate, m.NoiseMultiplier, a) }
	case SamplingFixedSize:
		// Wang, Balle & Kasiviswanathan's bound is stated for a base
		// mechanism whose RDP is α/(2s²) under replace-one on the batch:
		// the batch sum moves by up to 2C, so s = σ/2.
		one = func(a float64) float64 { return rdpWithoutReplacement(m.SamplingRate, m.NoiseMultiplier/2, a) }
	default:
		return noAccountantf("no RDP for %s", m.describe())
	}
	t := float64(m.Steps)
	for i, a := range r.orders {
		if m.NoiseMultiplier == 0 {
			r.values[i] = math.Inf(1)
			continue
		}
		r.values[i] += t * one(a)
	}
	return nil
}

// RDPReplaceOne returns the order-α Rényi divergence of one step of the
// Poisson-subsampled Gaussian under replace-one adjacency: D_α(P‖Q) for
// the ±1 mixture pair P = (1−q)N(0,σ²) + qN(−1,σ²),
// Q = (1−q)N(0,σ²) + qN(1,σ²) (see replace_loss.go for why that pair
// dominates). It is symmetric (D_α(P‖Q) = D_α(Q‖P)), so it bounds both
// orientations. σ = 0 gives +Inf.
func RDPReplaceOne(q, sigma, alpha float64) (float64, error) {
	if err := checkSamplingRate(q); err != nil {
		return 0, err
	}
	if err := checkNoise(sigma, true); err != nil {
		return 0, err
	}
	if err := checkOrder(alpha); err != nil {
		return 0, err
	}
	if sigma == 0 {
		return math.Inf(1), nil
	}
	return rdpReplaceOne(q, sigma, alpha), nil
}

// rdpReplaceOne integrates
//
//	log ∫ p^α q^{1−α} = log E_{x∼N(0,σ²)}[e^{α·l₋(x) − (α−1)·l₊(x)}],
//	l∓(x) = log(1 − q + q·e^{(∓2x−1)/(2σ²)}),
//
// numerically (no binomial expansion exists: Q's density enters with a
// negative power). The integrand has a bump near x = −α (where the shifted
// component of P dominates) and one near 0, and its logarithm bends
// where q·e^{(∓2x−1)/(2σ²)} crosses 1 − q, over a width of about σ², so
// [−α − 40σ, 40σ] is cut into pieces of width min(σ, σ²)/4, each
// integrated by 16-point Gauss–Legendre, with the integrand scaled by its
// largest value on a finer grid so that nothing overflows. Halving the
// pieces changes the RDP by less than 1e-12 relative over the tested
// grid (TestRDPReplaceOneQuadratureConverges). At q = 1 it is the
// Gaussian with sensitivity 2, 2α/σ², exactly.
func rdpReplaceOne(q, sigma, alpha float64) float64 {
	if q == 1 {
		return 2 * alpha / (sigma * sigma)
	}
	return replaceOneLogA(q, sigma, alpha, 4) / (alpha - 1)
}

// replaceOneLogA is the log-integral above with pieces of width
// min(σ, σ²)/refine.
func replaceOneLogA(q, sigma, alpha, refine float64) float64 {
	logq, log1mq := math.Log(q), math.Log1p(-q)
	inv2s2 := 1 / (2 * sigma * sigma)
	logNorm := -math.Log(sigma) - numeric.LogSqrt2Pi
	logIntegrand := func(x float64) float64 {
		lm := numeric.LogAddExp(log1mq, logq+(-2*x-1)*inv2s2)
		lp := numeric.LogAddExp(log1mq, logq+(2*x-1)*inv2s2)
		return logNorm - x*x*inv2s2 + alpha*lm - (alpha-1)*lp
	}
	lo, hi := -alpha-40*sigma, 40*sigma
	width := math.Min(sigma, sigma*sigma) / refine
	pieces := int(math.Ceil((hi - lo) / width))
	if pieces > 1<<22 {
		pieces = 1 << 22
	}
	width = (hi - lo) / float64(pieces)
	scale := math.Inf(-1)
	for k := 0; k <= 4*pieces; k++ {
		scale = math.Max(scale, logIntegrand(lo+float64(k)*width/4))
	}
	nodes, weights := legendre16()
	total := 0.0
	for k := 0; k < pieces; k++ {
		mid := lo + (float64(k)+0.5)*width
		for j, u := range nodes {
			total += weights[j] * math.Exp(logIntegrand(mid+u*width/2)-scale)
		}
	}
	return math.Max(0, scale+math.Log(total*width/2))
}

// legendre16 returns the 16-point Gauss–Legendre nodes and weights on
// [−1, 1].
var legendre16 = sync.OnceValues(func() ([]float64, []float64) {
	x, w := make([]float64, 16), make([]float64, 16)
	quad.Legendre{}.FixedLocations(x, w, -1, 1)
	return x, w
})
