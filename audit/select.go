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
}

func newSelector(scores []float64, worlds []bool, all sortedScores, o Options) *selector {
	s := &selector{method: o.Method, tail: o.Sides.pairTail(o.Confidence), choose: all, eval: all}
	switch o.Method {
	case Split:
		choose, eval := splitTrials(worlds, o.SplitFraction, o.Seed)
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
			choose, eval := splitTrials(worlds, o.SplitFraction, o.Seed)
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
func splitTrials(worlds []bool, fraction float64, seed uint64) (choose, eval []int) {
	var idx [2][]int
	for i, w := range worlds {
		b := 0
		if w {
			b = 1
		}
		idx[b] = append(idx[b], i)
	}
	stream := rng.New(seed, "audit", "split")
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
	cands := s.choose.candidates()
	i, _, _, _ := bestCandidate(cands, len(s.choose.w0), len(s.choose.w1), s.tail, f)
	tau = cands[i].tau
	c = s.eval.countsAt(tau)
	fpHi, fnHi = upper(c)
	return tau, c, fpHi, fnHi
}
