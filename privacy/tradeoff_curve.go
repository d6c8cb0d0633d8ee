package privacy

import (
	"math"
	"sort"

	"github.com/dpaudit/dpaudit/internal/numeric"
	"gonum.org/v1/gonum/mathext"
)

// Trade-off curves (f-DP, Dong, Roth & Su 2022). For a pair of output
// distributions (P, Q) — the mechanism on a dataset and on a neighbour —
// the trade-off curve β(α) is the lowest false-negative rate (1 − TPR) of
// any test of H0: P against H1: Q whose false-positive rate is at most α.
// It is convex, decreasing, and β(α) ≤ 1 − α (random guessing). A bound on
// it is a bound on every membership attack's TPR at every FPR: TPR ≤
// 1 − β(FPR).
//
// A Curve here is one of three shapes, chosen when it is built:
//
//   - vertices: a convex piecewise-linear curve through (α_k, β_k), read off
//     a discretised privacy-loss distribution (curveFromPMF) or the lower
//     convex hull of two such curves (symmetrised);
//   - gdp: G_μ(α) = Φ(Φ⁻¹(1 − α) − μ), in closed form;
//   - rdp: the curve implied by a Rényi-DP bound (rdpCurve);
//   - max: the pointwise maximum of valid curves (the "best" accountant).
//
// Every curve built from a valid accountant bound lies on or below the true
// curve (never claims less attack power than the truth allows).
type Curve struct {
	shape curveShape
	// vertices, α ascending (the first may be ≤ 0), β descending.
	alpha, beta []float64
	mu          float64   // gdp
	rdp         *rdpCurve // rdp
	parts       []Curve   // max
}

type curveShape int

const (
	shapeTrivial  curveShape = iota // β(α) = 0: no privacy at all (σ = 0, or an accountant that gave up)
	shapeVertices                   // piecewise linear through alpha, beta
	shapeGDP                        // closed-form μ-GDP
	shapeRDP                        // from a Rényi-DP curve
	shapeMax                        // pointwise maximum of parts
)

// Beta returns β(α), the lowest false-negative rate at false-positive rate
// α, clamped to [0, 1 − α]. α outside [0, 1] is clamped to it.
func (c Curve) Beta(alpha float64) float64 {
	alpha = math.Min(math.Max(alpha, 0), 1)
	var b float64
	switch c.shape {
	case shapeVertices:
		b = c.vertexBeta(alpha)
	case shapeGDP:
		b = gdpBeta(c.mu, alpha)
	case shapeRDP:
		b = c.rdp.beta(alpha)
	case shapeMax:
		for _, p := range c.parts {
			b = math.Max(b, p.Beta(alpha))
		}
	}
	// β ≤ 1 − α holds for every true curve, so clamping keeps a lower
	// bound a lower bound.
	return math.Min(math.Max(b, 0), 1-alpha)
}

// TPR returns 1 − β(fpr): the highest true-positive rate any attack can
// reach at false-positive rate fpr.
func (c Curve) TPR(fpr float64) float64 { return 1 - c.Beta(fpr) }

// Advantage returns the maximal advantage max_α (1 − α − β(α)) = TPR − FPR
// at the best threshold, which is the total-variation distance of the pair
// and δ(ε = 0) of its privacy profile.
func (c Curve) Advantage() float64 {
	switch c.shape {
	case shapeVertices:
		// The objective is linear between vertices: its maximum on [0, 1]
		// is at a vertex inside it or at α = 0.
		adv := 1 - c.vertexBeta(0)
		for k, a := range c.alpha {
			if a >= 0 {
				adv = math.Max(adv, 1-a-c.beta[k])
			}
		}
		return math.Min(math.Max(adv, 0), 1)
	case shapeGDP:
		return gdpAdvantage(c.mu)
	case shapeRDP:
		return 1 - 2*c.rdp.fixedPoint()
	case shapeMax:
		// Every part is symmetric (β and its inverse coincide), so each
		// attains its advantage on the diagonal α = β, where the maximum of
		// curves is the curve with the largest fixed point: the smallest
		// advantage.
		adv := 1.0
		for _, p := range c.parts {
			adv = math.Min(adv, p.Advantage())
		}
		return adv
	}
	return 1
}

// BayesAccuracy returns the highest probability with which any attack
// guesses a binary secret right (member or not, attribute a or b) when the
// secret is 1 with probability prior: 1 − min_α[(1 − prior)·α + prior·β(α)].
// It is at least max(prior, 1 − prior), the accuracy of guessing the more
// likely value without looking. For a symmetric curve it is
// p + (1 − p)·δ(log(p/(1 − p))) with p = max(prior, 1 − prior), δ the
// privacy profile (Kulynych et al. 2025, Prop. D.1, as riskcal computes it).
func (c Curve) BayesAccuracy(prior float64) float64 {
	p := math.Max(prior, 1-prior)
	switch c.shape {
	case shapeVertices:
		errMin := math.Min(math.Min(prior, 1-prior), prior*c.vertexBeta(0))
		for k, a := range c.alpha {
			if a >= 0 {
				errMin = math.Min(errMin, (1-prior)*a+prior*c.beta[k])
			}
		}
		return 1 - math.Max(errMin, 0)
	case shapeGDP:
		return p + (1-p)*math.Exp(gdpLogDeltaAny(c.mu, math.Log(p/(1-p))))
	case shapeRDP:
		return p + (1-p)*c.rdp.delta(math.Log(p/(1-p)))
	case shapeMax:
		acc := 1.0
		for _, part := range c.parts {
			acc = math.Min(acc, part.BayesAccuracy(prior))
		}
		return acc
	}
	return 1
}

// vertexBeta interpolates the vertices linearly (the curve between two
// Neyman–Pearson thresholds is the randomised test between them).
func (c Curve) vertexBeta(alpha float64) float64 {
	n := len(c.alpha)
	if n == 0 {
		return 0
	}
	if alpha <= c.alpha[0] {
		return c.beta[0] // only reached at α = 0 with α_0 = 0: β(0)
	}
	k := sort.SearchFloat64s(c.alpha, alpha) // first vertex with α_k ≥ alpha
	if k == n {
		return c.beta[n-1]
	}
	a0, a1 := c.alpha[k-1], c.alpha[k]
	b0, b1 := c.beta[k-1], c.beta[k]
	if a1 == a0 {
		return math.Min(b0, b1)
	}
	return b0 + (b1-b0)*(alpha-a0)/(a1-a0)
}

// gdpBeta is G_μ(α) = Φ(Φ⁻¹(1 − α) − μ) (Dong, Roth & Su 2022, Eq. 6), in
// the form that keeps its relative accuracy when α is tiny.
func gdpBeta(mu, alpha float64) float64 {
	switch {
	case alpha <= 0:
		return 1
	case alpha >= 1:
		return 0
	case math.IsInf(mu, 1):
		return 0
	}
	return numeric.NormCDF(-mathext.NormalQuantile(alpha) - mu)
}

// gdpAdvantage is the total variation of N(0, 1) and N(μ, 1): 2Φ(μ/2) − 1.
func gdpAdvantage(mu float64) float64 {
	if math.IsInf(mu, 1) {
		return 1
	}
	return 1 - 2*numeric.NormCDF(-mu/2)
}

// gdpLogDeltaAny is gdpLogDelta for any ε ≥ 0 including μ = 0 and +Inf.
func gdpLogDeltaAny(mu, eps float64) float64 {
	if math.IsInf(mu, 1) {
		return 0
	}
	return gdpLogDelta(mu, eps)
}

// curveFromPMF returns a curve on or below T(P, Q) for the pair whose
// privacy loss L = log(dP/dQ) under P the PMF p discretises (pessimistic
// rounding: p dominates the pair, so its curve lies below the pair's).
//
// Why it is a lower bound: for any pair, T(P, Q)(α) = sup_ε e^{−ε}(1 − α −
// δ(ε)) (the convex dual of the hockey-stick curve δ(ε) = H_{e^ε}(P‖Q)), so
// any δ̃ ≥ δ evaluated at any set of ε gives a curve below T(P, Q). At ε =
// l_k, the k-th grid loss, the line is tangent to the curve at
//
//	α_k = 1 − P̃[L > l_k],   β_k = Σ_{l > l_k} e^{−l}·P̃[L = l],
//
// the Neyman–Pearson test that rejects H0 when L ≤ l_k, and consecutive
// vertices are joined by the randomised tests in between. The FFT's
// rounding bound and truncated tails can make the PMF's total mass S
// slightly more than 1; α_k is then P̃[L ≤ l_k] − (S − 1), the form that
// keeps its relative accuracy at small α (and, with S < 1, P̃[L ≤ l_k]
// alone, which is smaller: still below the curve).
func curveFromPMF(p *PMF) Curve {
	n := len(p.probs)
	total := p.infMass
	for _, x := range p.probs {
		total += x
	}
	excess := math.Max(0, total-1)
	// Dual (Q) masses e^{−l}·p, summed from the top. e^{−l} is stepped by
	// e^h from one grid point to the next and recomputed exactly every
	// 64 points (rounding stays below 1e-14 relative); where it leaves the
	// float64 range (|l| > 700) each mass is formed in log space.
	qAbove := make([]float64, n+1) // qAbove[i] = Σ_{j ≥ i} q_j
	step := math.Exp(p.interval)
	w := 0.0
	for i := n - 1; i >= 0; i-- {
		if (n-1-i)%64 == 0 {
			w = math.Exp(-p.Loss(i))
		} else {
			w *= step
		}
		q := 0.0
		if x := p.probs[i]; x > 0 {
			if l := p.Loss(i); l > 700 || l < -700 {
				q = math.Exp(math.Log(x) - l)
			} else {
				q = x * w
			}
		}
		qAbove[i] = qAbove[i+1] + q
	}
	alpha := make([]float64, 0, n+2)
	beta := make([]float64, 0, n+2)
	// k = −1: reject H0 only where P has no mass (L = −∞).
	alpha = append(alpha, -excess)
	beta = append(beta, qAbove[0])
	cum := 0.0
	for i, x := range p.probs {
		if x == 0 {
			continue
		}
		cum += x
		alpha = append(alpha, cum-excess)
		beta = append(beta, qAbove[i+1])
	}
	if alpha[len(alpha)-1] < 1 {
		// Rejecting H0 always: the infinity atom is rejected too.
		alpha = append(alpha, 1)
		beta = append(beta, 0)
	}
	return lowerHull(alpha, beta)
}

// symmetrised returns the lower convex hull of two curves: min(f, g)**,
// the largest convex curve below both. The f-DP curve of a mechanism under
// a symmetric neighbouring relation (add/remove) is min(f_remove, f_add)**
// (Dong, Roth & Su 2022, Appendix F).
func symmetrised(f, g Curve) Curve {
	a := make([]float64, 0, len(f.alpha)+len(g.alpha))
	b := make([]float64, 0, cap(a))
	i, j := 0, 0
	for i < len(f.alpha) || j < len(g.alpha) {
		if j == len(g.alpha) || (i < len(f.alpha) && f.alpha[i] <= g.alpha[j]) {
			a, b = append(a, f.alpha[i]), append(b, f.beta[i])
			i++
		} else {
			a, b = append(a, g.alpha[j]), append(b, g.beta[j])
			j++
		}
	}
	return lowerHull(a, b)
}

// lowerHull returns the lower convex hull of points sorted by α (Andrew's
// monotone chain), dropping points above it.
func lowerHull(alpha, beta []float64) Curve {
	ha := make([]float64, 0, len(alpha))
	hb := make([]float64, 0, len(alpha))
	for k := range alpha {
		x, y := alpha[k], beta[k]
		if n := len(ha); n > 0 && ha[n-1] == x {
			if hb[n-1] <= y {
				continue // same α, higher β: not on the lower hull
			}
			ha, hb = ha[:n-1], hb[:n-1]
		}
		for n := len(ha); n >= 2; n = len(ha) {
			// Drop the last point while it lies on or above the chord from
			// the one before it to the new point.
			cross := (ha[n-1]-ha[n-2])*(y-hb[n-2]) - (hb[n-1]-hb[n-2])*(x-ha[n-2])
			if cross > 0 {
				break
			}
			ha, hb = ha[:n-1], hb[:n-1]
		}
		ha, hb = append(ha, x), append(hb, y)
	}
	return Curve{shape: shapeVertices, alpha: ha, beta: hb}
}
