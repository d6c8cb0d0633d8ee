package audit

import (
	"context"
	"math"
	"slices"

	"github.com/dpaudit/dpaudit/internal/parallel"
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

// trials are the scores an estimate reads, each prepared once: w holds
// each world's scores in trial order; all every trial sorted, when the
// search reads it (o.heldOut() false); choose and eval split 0's sorted
// parts, when the search holds trials out.
type trials struct {
	w            [2][]float64
	all          sortedScores
	choose, eval sortedScores
}

// prepare sorts what the search under o reads.
func prepare(w [2][]float64, o Options) *trials {
	t := &trials{w: w}
	if o.heldOut() {
		t.choose, t.eval = splitScores(w, o.SplitFraction, o.Seed, 0)
	} else {
		t.all = sortedCopy(w)
	}
	return t
}

// split returns split j's parts, drawn and sorted again for j > 0.
func (t *trials) split(o Options, j int) (choose, eval sortedScores) {
	if j == 0 {
		return t.choose, t.eval
	}
	return splitScores(t.w, o.SplitFraction, o.Seed, j)
}

// newSelector builds split j of k (k = 1 but for Split with Options.Splits).
func newSelector(t *trials, o Options, j, k int) *selector {
	s := &selector{method: o.Method, tail: o.Sides.pairTail(o.Confidence) / float64(k), choose: t.all, eval: t.all, splits: k}
	switch o.Method {
	case Split:
		s.choose, s.eval = t.split(o, j)
		s.selectionTrials, s.hypotheses = s.choose.len(), 1
	case Bonferroni:
		s.grid = o.Grid
		switch {
		case s.grid != nil:
		case o.GridFromTrials:
			s.grid = defaultGrid(t.all, o.GridSize)
		default:
			// The grid comes from a held-out share, evaluated on the rest.
			var held sortedScores
			held, s.eval = t.split(o, 0)
			s.grid = defaultGrid(held, o.GridSize)
			s.selectionTrials = held.len()
		}
		s.hypotheses = len(s.grid)
		s.tail /= float64(s.hypotheses) // each of K tests at α/K
	}
	return s
}

// heldOut reports whether the threshold search holds trials out (Split,
// and Bonferroni's default grid): it then reads only splitScores' parts,
// never every trial sorted (trials.all).
func (o Options) heldOut() bool {
	return o.Method == Split || (o.Method == Bonferroni && o.Grid == nil && !o.GridFromTrials)
}

// splitScores draws, for each world separately (so both parts see both
// worlds), a fraction of its trials to choose the threshold, at least one
// and at most all but one, and returns both parts sorted. The stream
// rng.New(seed, "audit", "split") (with j appended for j > 0) shuffles
// world 0's trials, then world 1's, in trial order; the first k of each
// choose. The scores are shuffled rather than trial indices, which is the
// same permutation of the same values without gathering each part from
// all trials by index (a random read per trial, and at 10⁶ trials as long
// as sorting the parts).
func splitScores(w [2][]float64, fraction float64, seed uint64, j int) (choose, eval sortedScores) {
	stream := rng.New(seed, "audit", "split")
	if j > 0 {
		stream = rng.New(seed, "audit", "split", j)
	}
	var parts [4][]float64 // choose₀, eval₀, choose₁, eval₁
	shuffle := func(b int) {
		v := slices.Clone(w[b])
		stream.Shuffle(len(v), func(a, c int) { v[a], v[c] = v[c], v[a] })
		k := int(math.Round(fraction * float64(len(v))))
		k = min(max(k, 1), len(v)-1)
		parts[2*b], parts[2*b+1] = v[:k:k], v[k:]
	}
	// The stream is one sequence, so world 1's shuffle must follow world
	// 0's; world 0's parts sort meanwhile (with one worker, after it).
	shuffle(0)
	workers := 0
	if len(w[0])+len(w[1]) < 1<<14 {
		workers = 1
	}
	err := parallel.For(context.Background(), 2, workers, func(b int) error {
		if b == 1 {
			shuffle(1)
		}
		sortParts(parts[2*b], parts[2*b+1])
		return nil
	})
	if err != nil {
		panic(err) // only a panic inside a shuffle or a sort gets here
	}
	return sortedScores{w0: parts[0], w1: parts[2]}, sortedScores{w0: parts[1], w1: parts[3]}
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
