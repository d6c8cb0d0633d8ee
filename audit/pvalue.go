package audit

import (
	"math"
	"slices"
)

// PValue returns the p-value of the claim "the mechanism is
// (claimedEpsilon, Delta)-DP" under the result's procedure: the smallest
// miss probability α at which the same procedure (the same threshold, or
// the same Bonferroni grid at α/K per threshold) would put its ε lower
// bound above claimedEpsilon. So ViolatesClaim at confidence 1 − α holds
// exactly when PValue < α (up to the bisection's 1e-12 relative
// precision), and p-values of several points can be combined by a
// family-wise correction (Holm). An invalid result (posthoc, Bonferroni on
// a grid from the evaluated trials) has no p-value: NaN. A claim of +Inf
// gives 1.
func (r Result) PValue(claimedEpsilon float64) float64 {
	if !r.Valid || len(r.tests) == 0 {
		return math.NaN()
	}
	if math.IsInf(claimedEpsilon, 1) {
		return 1
	}
	best := 1.0
	for _, c := range r.tests {
		best = math.Min(best, countsPValue(c, r.Delta, claimedEpsilon))
	}
	return math.Min(1, best*float64(len(r.tests)))
}

// CountsPValue is PValue for a single threshold fixed before the trials:
// the smallest α at which the Eq. 5 bound on c (two-sided, α/2 per rate)
// exceeds claimedEpsilon; 1 if it never does.
func CountsPValue(c Counts, delta, claimedEpsilon float64) (float64, error) {
	if err := c.check(); err != nil {
		return 0, err
	}
	if err := checkDelta(delta); err != nil {
		return 0, err
	}
	if math.IsNaN(claimedEpsilon) || claimedEpsilon < 0 {
		return 0, invalidf("claimed ε must be ≥ 0, got %v", claimedEpsilon)
	}
	return countsPValue(c, delta, claimedEpsilon), nil
}

// countsPValue bisects log α: the bound grows with α (looser CP bounds at
// smaller α), so the rejection region is an interval (α*, 1].
func countsPValue(c Counts, delta, claim float64) float64 {
	if math.IsInf(claim, 1) {
		return 1
	}
	rejects := func(logA float64) bool {
		tail := math.Exp(logA) / 2
		fp := cpUpper(float64(c.FP), float64(c.N0), tail)
		fn := cpUpper(float64(c.FN), float64(c.N1), tail)
		return epsilonFromRates(fp, fn, delta) > claim
	}
	const floor = -690.0 // α = e^−690 ≈ 1e-300
	if !rejects(0) {
		return 1
	}
	if rejects(floor) {
		return math.Exp(floor)
	}
	lo, hi := floor, 0.0 // rejects(hi), !rejects(lo)
	for range 60 {
		mid := (lo + hi) / 2
		if rejects(mid) {
			hi = mid
		} else {
			lo = mid
		}
	}
	return math.Exp(hi)
}

// Holm applies Holm's (1979) step-down procedure to the p-values of m
// hypotheses at family-wise error rate alpha: sorted ascending, p_(k) is
// rejected while p_(j) ≤ α/(m − j + 1) for every j ≤ k. It controls the
// probability of any false rejection at α under any dependence, and is
// uniformly more powerful than Bonferroni (α/m for all). NaN (no p-value,
// e.g. an invalid estimate) is never rejected. The result is in input
// order.
func Holm(pvalues []float64, alpha float64) []bool {
	m := len(pvalues)
	order := make([]int, m)
	for i := range order {
		order[i] = i
	}
	key := func(i int) float64 {
		if math.IsNaN(pvalues[i]) {
			return math.Inf(1)
		}
		return pvalues[i]
	}
	slices.SortStableFunc(order, func(a, b int) int {
		switch ka, kb := key(a), key(b); {
		case ka < kb:
			return -1
		case ka > kb:
			return 1
		}
		return 0
	})
	out := make([]bool, m)
	for j, i := range order {
		if !(key(i) <= alpha/float64(m-j)) {
			break
		}
		out[i] = true
	}
	return out
}
