package privacy

import (
	"math"

	"github.com/dpaudit/dpaudit/internal/numeric"
)

// rdpCurve is the trade-off curve implied by a Rényi-DP curve: a test's
// outcome is a post-processing of the output, so its two Bernoulli laws
// (reject with probability α under H0, 1 − β under H1) obey the same Rényi
// bound in both directions (the sampled Gaussian's RDP bounds both orders
// of the pair; Mironov, Talwar & Zhang 2019, Thm. 5):
//
//	(1−β)^λ·α^{1−λ} + β^λ·(1−α)^{1−λ} ≤ e^{(λ−1)ε_λ}
//	α^λ·(1−β)^{1−λ} + (1−α)^λ·β^{1−λ} ≤ e^{(λ−1)ε_λ}
//
// for every order λ. β(α) is the smallest β meeting both at every order
// (Zhu, Dong & Wang 2022, App. F.1, keeps one term of the first line; the
// full binary constraint is the optimal conversion of a single RDP value).
// Each constraint's left side is convex in β with its minimum 1 at
// β = 1 − α, so the feasible β form an interval ending at 1 − α, found by
// bisection. Valid (below the true curve), and looser than the PLD's.
type rdpCurve struct {
	rdp        *RDP
	conversion Conversion
}

// rdpBisections halves [0, 1 − α] down to 2^-60 of its width: β is then
// resolved far below any digit shown, and is rounded to the feasible side.
const rdpBisections = 60

func (c *rdpCurve) beta(alpha float64) float64 {
	switch {
	case alpha <= 0:
		return 1
	case alpha >= 1:
		return 0
	}
	// Bisect first at the order whose one-term bound β ≥ 1 − (α·e^ε)^{(λ−1)/λ}
	// is largest: it is usually the binding one, and every other order then
	// needs a single feasibility check to be ruled out.
	first, firstBound := -1, math.Inf(-1)
	for i, lambda := range c.rdp.orders {
		if eps := c.rdp.values[i]; !math.IsInf(eps, 1) && !math.IsNaN(eps) {
			if v := -math.Exp((lambda - 1) / lambda * (math.Log(alpha) + eps)); v > firstBound {
				first, firstBound = i, v
			}
		}
	}
	b := 0.0
	if first >= 0 {
		lambda := c.rdp.orders[first]
		b = rdpLowestBeta(alpha, lambda, (lambda-1)*c.rdp.values[first])
	}
	for i, lambda := range c.rdp.orders {
		eps := c.rdp.values[i]
		if i == first || math.IsInf(eps, 1) || math.IsNaN(eps) {
			continue
		}
		bound := (lambda - 1) * eps
		if b > 0 && rdpFeasible(alpha, b, lambda, bound) {
			continue // this order allows β already: it cannot raise the maximum
		}
		b = math.Max(b, rdpLowestBeta(alpha, lambda, bound))
	}
	return b
}

// rdpLowestBeta is the smallest β ∈ [0, 1 − α] with (α, β) feasible at
// order λ (bound = (λ − 1)·ε_λ), rounded up to the feasible side.
func rdpLowestBeta(alpha, lambda, bound float64) float64 {
	lo, hi := 0.0, 1-alpha // infeasible at 0 (unless α = 1), feasible at 1 − α
	if rdpFeasible(alpha, 0, lambda, bound) {
		return 0
	}
	for range rdpBisections {
		mid := lo + (hi-lo)/2
		if mid <= lo || mid >= hi {
			break
		}
		if rdpFeasible(alpha, mid, lambda, bound) {
			hi = mid
		} else {
			lo = mid
		}
	}
	return lo // the infeasible side: the largest β proven impossible
}

// rdpFeasible reports whether both binary Rényi constraints hold at (α, β),
// evaluated in log space (α^{1−λ} overflows for tiny α and large λ).
func rdpFeasible(alpha, beta, lambda, bound float64) bool {
	la, l1a := math.Log(alpha), math.Log1p(-alpha)
	lb, l1b := math.Log(beta), math.Log1p(-beta)
	fwd := numeric.LogAddExp(lambda*l1b+(1-lambda)*la, lambda*lb+(1-lambda)*l1a)
	rev := numeric.LogAddExp(lambda*la+(1-lambda)*l1b, lambda*l1a+(1-lambda)*lb)
	return !(fwd > bound) && !(rev > bound) // NaN (0·∞ at the ends) counts as feasible only at β = 1 − α
}

// fixedPoint is the smallest t with (t, t) feasible at every order. The
// feasible region is convex and symmetric in (α, β), so the largest
// 1 − α − β over it (the advantage) is attained on the diagonal: 1 − 2t.
func (c *rdpCurve) fixedPoint() float64 {
	t := 0.0
	for i, lambda := range c.rdp.orders {
		eps := c.rdp.values[i]
		if math.IsInf(eps, 1) || math.IsNaN(eps) {
			continue
		}
		bound := (lambda - 1) * eps
		if t > 0 && rdpFeasible(t, t, lambda, bound) {
			continue
		}
		lo, hi := 0.0, 0.5
		for range rdpBisections {
			mid := lo + (hi-lo)/2
			if rdpFeasible(mid, mid, lambda, bound) {
				hi = mid
			} else {
				lo = mid
			}
		}
		t = math.Max(t, lo)
	}
	return t
}

// delta is the RDP accountant's δ(ε) for ε ≥ 0 (its (ε, δ) conversion).
func (c *rdpCurve) delta(eps float64) float64 {
	d, _, err := c.rdp.Delta(eps, c.conversion)
	if err != nil {
		return 1
	}
	return d
}
