package audit

import (
	"math"

	"github.com/dpaudit/dpaudit/rng"
)

// selector picks thresholds by one method for any objective: the split's
// parts are drawn once, so the ε bound and the GDP fit use the same split.
type selector struct {
	method          Method
	tail            float64      // one-end miss probability of each CP bound
	choose, eval    sortedScores // trials that choose τ and that are counted at it
	grid            []float64    // Bonferroni thresholds
	selectionTrials int
	hypotheses      int
	splits          int // Bonferroni over this many seeded splits (Split only)
	// The choosing trials' candidate thresholds and the grids of their
	// predicted bounds, built by the first pick and read by the next (the
	// ε and the Gaussian-DP searches run over the same ones).
	cands  []candidate
	g0, g1 *cpGrid
}

// newSelector builds split j of k (k = 1 but for Split with Options.Splits).
func newSelector(scores []float64, worlds []bool, all sortedScores, o Options, j, k int) *selector {
	s := &selector{method: o.Method, tail: o.Sides.pairTail(o.Confidence) / float64(k), choose: all, eval: all, splits: k}
	switch o.Method {
	case Split:
		choose, eval := splitTrials(worlds, o.SplitFraction, o.Seed, j)
		s.choose = newSortedScores(scores, worlds, choose)
		s.eval = newSortedScores(scores, worlds, eval)
		s.selectionTrials, s.hypotheses = len(choose), 1
	case Bonferroni:
		s.grid = o.Grid
		switch {
		case s.grid != nil:
		case o.GridFromTrials:
			s.grid = defaultGrid(all, o.GridSize)
		default:
			// The grid comes from a held-out share, evaluated on the rest.
			choose, eval := splitTrials(worlds, o.SplitFraction, o.Seed, 0)
			held := newSortedScores(scores, worlds, choose)
			s.eval = newSortedScores(scores, worlds, eval)
			s.grid = defaultGrid(held, o.GridSize)
			s.selectionTrials = len(choose)
		}
		s.hypotheses = len(s.grid)
		s.tail /= float64(s.hypotheses) // each of K tests at α/K
	}
	return s
}

// splitTrials draws, for each world separately (so both parts see both
// worlds), a fraction of its trials to choose the threshold, at least one
// and at most all but one.
func splitTrials(worlds []bool, fraction float64, seed uint64, j int) (choose, eval []int) {
	var idx [2][]int
	for i, w := range worlds {
		b := 0
		if w {
			b = 1
		}
		idx[b] = append(idx[b], i)
	}
	stream := rng.New(seed, "audit", "split")
	if j > 0 {
		stream = rng.New(seed, "audit", "split", j)
	}
	for _, ix := range idx {
		stream.Shuffle(len(ix), func(a, b int) { ix[a], ix[b] = ix[b], ix[a] })
		k := int(math.Round(fraction * float64(len(ix))))
		k = min(max(k, 1), len(ix)-1)
		choose = append(choose, ix[:k]...)
		eval = append(eval, ix[k:]...)
	}
	return choose, eval
}

// tests returns the evaluation counts of every hypothesis of a valid
// method: the chosen threshold's for split, every grid threshold's for
// Bonferroni.
func (s *selector) tests(chosen Counts) []Counts {
	if s.method != Bonferroni {
		return []Counts{chosen}
	}
	out := make([]Counts, len(s.grid))
	for i, t := range s.grid {
		out[i] = s.eval.countsAt(t)
	}
	return out
}

// pick returns the threshold maximising f on CP upper bounds (on the
// choosing trials, or over the grid), the counts of the evaluation trials
// at it and their CP upper bounds. For Bonferroni, ties go to the larger f
// on raw rates, then the lower threshold.
func (s *selector) pick(f objective) (tau float64, c Counts, fpHi, fnHi float64) {
	upper := func(c Counts) (float64, float64) {
		return cpUpper(float64(c.FP), float64(c.N0), s.tail), cpUpper(float64(c.FN), float64(c.N1), s.tail)
	}
	if s.method == Bonferroni {
		best, bestPoint := -1.0, -1.0
		for _, t := range s.grid {
			ct := s.eval.countsAt(t)
			a, b := upper(ct)
			v, point := f(a, b), f(ct.FPR(), ct.FNR())
			if v > best || (v == best && (point > bestPoint || (point == bestPoint && t < tau))) {
				best, bestPoint = v, point
				tau, c, fpHi, fnHi = t, ct, a, b
			}
		}
		return tau, c, fpHi, fnHi
	}
	if s.cands == nil {
		s.cands = s.choose.candidates()
		s.g0 = predictedGrid(len(s.choose.w0), len(s.eval.w0), s.tail)
		s.g1 = predictedGrid(len(s.choose.w1), len(s.eval.w1), s.tail)
	}
	i, _, _, _ := bestCandidateOn(s.cands, s.g0, s.g1, f)
	tau = s.cands[i].tau
	c = s.eval.countsAt(tau)
	fpHi, fnHi = upper(c)
	return tau, c, fpHi, fnHi
}

// predictedGrid scores a selection count by the bound it would give on
// the evaluation trials' size, not on the selection trials' own: the
// selection rate's median-unbiased estimate (the Clopper–Pearson bound at
// tail ½, about (x + 0.7)/nSel, so a count of 0 is not read as a rate of
// 0) is taken as the evaluation rate, and the Clopper–Pearson upper bound
// of that many errors out of nEval is the prediction. With a selection
// share below ½ the selection's own bound would be far looser than the
// one the evaluation trials give, and would favour thresholds with more
// errors than the evaluation needs. Any rule that looks only at the
// selection trials keeps the split valid. (Bounding the selection rate at
// the evaluation's own tail instead lost power in the self-test: 0.052
// against 0.089 of the true ε at q = 0.01, 10⁴ trials.)
func predictedGrid(nSel, nEval int, tail float64) *cpGrid {
	return newBoundGrid(nSel, func(x float64) float64 {
		r := cpUpper(x, float64(nSel), 0.5)
		return cpUpper(r*float64(nEval), float64(nEval), tail)
	})
}
