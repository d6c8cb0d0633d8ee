package audit

import (
	"context"
	"math"
	"slices"
	"sort"

	"github.com/dpaudit/dpaudit/internal/parallel"
)

// The decision rule everywhere in this package: a threshold τ guesses
// world 1 (D′, canary present) for a trial whose score is ≥ τ, and world 0
// otherwise. τ = +Inf never guesses world 1. Distinguishers whose low scores
// mean world 1 (a loss) set Options.LowerMeansWorld1, which negates the
// scores and reports the threshold back in the original orientation.

// sortedScores holds each world's scores sorted ascending; all counting is
// done on it with binary searches and merge walks, in O(n) after the sort.
type sortedScores struct {
	w0, w1 []float64
}

// newSortedScores splits scores by world and sorts them. Only the indices
// in keep are used when keep is non-nil. Inputs are assumed validated.
func newSortedScores(scores []float64, worlds []bool, keep []int) sortedScores {
	if keep == nil {
		w := byWorld(scores, worlds, false)
		sortParts(w[0], w[1])
		return sortedScores{w0: w[0], w1: w[1]}
	}
	var s sortedScores
	n1 := 0
	for _, i := range keep {
		if worlds[i] {
			n1++
		}
	}
	s.w0 = make([]float64, 0, len(keep)-n1)
	s.w1 = make([]float64, 0, n1)
	for _, i := range keep {
		if worlds[i] {
			s.w1 = append(s.w1, scores[i])
		} else {
			s.w0 = append(s.w0, scores[i])
		}
	}
	sortParts(s.w0, s.w1)
	return s
}

// byWorld returns each world's scores in trial order, negated when neg is
// set (LowerMeansWorld1): one sequential pass, which the sorted copies and
// the splits then start from instead of each gathering from all trials.
func byWorld(scores []float64, worlds []bool, neg bool) [2][]float64 {
	n1 := 0
	for _, w := range worlds {
		if w {
			n1++
		}
	}
	w0 := make([]float64, 0, len(worlds)-n1)
	w1 := make([]float64, 0, n1)
	for i, x := range scores {
		if neg {
			x = -x
		}
		if worlds[i] {
			w1 = append(w1, x)
		} else {
			w0 = append(w0, x)
		}
	}
	return [2][]float64{w0, w1}
}

// sortedCopy returns w's worlds sorted, leaving w as it is.
func sortedCopy(w [2][]float64) sortedScores {
	s := sortedScores{w0: slices.Clone(w[0]), w1: slices.Clone(w[1])}
	sortParts(s.w0, s.w1)
	return s
}

// sortParts sorts each of parts in place, several at once when they are
// large enough to pay for it (an audit of 10⁶ trials sorts 5·10⁵ scores
// per world, and again its split's parts). Each sort reads only its own
// slice and slices.Sort is deterministic, so the sorted bits (the order of
// −0 and +0 included) do not depend on the number of workers.
func sortParts(parts ...[]float64) {
	total := 0
	for _, p := range parts {
		total += len(p)
	}
	if total < 1<<14 {
		for _, p := range parts {
			slices.Sort(p)
		}
		return
	}
	// Longest first: the short sorts fill in behind the long ones.
	order := make([]int, len(parts))
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(a, b int) int { return len(parts[b]) - len(parts[a]) })
	err := parallel.For(context.Background(), len(parts), 0, func(i int) error {
		slices.Sort(parts[order[i]])
		return nil
	})
	if err != nil {
		panic(err) // only a panic inside a sort gets here
	}
}

// merged returns the trials of a and b together, sorted: each world's
// sorted scores merged in one pass.
func merged(a, b sortedScores) sortedScores {
	return sortedScores{w0: mergeSorted(a.w0, b.w0), w1: mergeSorted(a.w1, b.w1)}
}

// mergeSorted merges two ascending slices into a new one.
func mergeSorted(a, b []float64) []float64 {
	out := make([]float64, 0, len(a)+len(b))
	i, j := 0, 0
	for i < len(a) && j < len(b) {
		if b[j] < a[i] {
			out = append(out, b[j])
			j++
		} else {
			out = append(out, a[i])
			i++
		}
	}
	out = append(out, a[i:]...)
	return append(out, b[j:]...)
}

// len returns the number of trials of both worlds.
func (s sortedScores) len() int { return len(s.w0) + len(s.w1) }

// countsAt returns the error counts of the rule "score ≥ τ guesses world 1".
func (s sortedScores) countsAt(tau float64) Counts {
	return Counts{
		N0: len(s.w0),
		FP: len(s.w0) - countBelow(s.w0, tau),
		N1: len(s.w1),
		FN: countBelow(s.w1, tau),
	}
}

// countBelow returns #{x ∈ sorted : x < tau}.
func countBelow(sorted []float64, tau float64) int {
	return sort.SearchFloat64s(sorted, tau)
}

// distinctStep is one distinct score value u with its multiplicity in each
// world and the counts strictly below it.
type distinctStep struct {
	u              float64
	c0, c1         int // how many world-0 / world-1 scores equal u
	below0, below1 int // how many are < u
}

// walk calls f for every distinct score in ascending order.
func (s sortedScores) walk(f func(distinctStep)) {
	i, j := 0, 0
	for i < len(s.w0) || j < len(s.w1) {
		var u float64
		switch {
		case i == len(s.w0):
			u = s.w1[j]
		case j == len(s.w1):
			u = s.w0[i]
		default:
			u = math.Min(s.w0[i], s.w1[j])
		}
		st := distinctStep{u: u, below0: i, below1: j}
		for i < len(s.w0) && s.w0[i] == u {
			i++
			st.c0++
		}
		for j < len(s.w1) && s.w1[j] == u {
			j++
			st.c1++
		}
		f(st)
	}
}

// walkDown calls f with the multiplicities in each world of every distinct
// score in descending order, until f returns false.
func (s sortedScores) walkDown(f func(c0, c1 int) bool) {
	i, j := len(s.w0)-1, len(s.w1)-1
	for i >= 0 || j >= 0 {
		var u float64
		switch {
		case i < 0:
			u = s.w1[j]
		case j < 0:
			u = s.w0[i]
		default:
			u = math.Max(s.w0[i], s.w1[j])
		}
		c0, c1 := 0, 0
		for i >= 0 && s.w0[i] == u {
			i--
			c0++
		}
		for j >= 0 && s.w1[j] == u {
			j--
			c1++
		}
		if !f(c0, c1) {
			return
		}
	}
}

// candidate is a threshold with its error counts.
type candidate struct {
	tau    float64
	fp, fn int
}

// candidates returns the thresholds at which a criterion that is
// non-increasing in both FP and FN (the ε of Eq. 4 and 5) can be maximal.
// With the distinct scores u_1 < … < u_K, threshold k sits in
// (u_{k−1}, u_k] (k = K+1 is +Inf). Moving from k to k+1 removes the
// world-0 scores equal to u_k from the positives (FP falls) and adds the
// world-1 ones to the negatives (FN rises). So k is dominated by k+1 when u_k
// has no world-1 score, and by k−1 when u_{k−1} has no world-0 score; only
// the rest are returned, each with τ the midpoint of its interval (u_1 for
// k = 1), so a threshold chosen on some trials also sits between, not on,
// the scores of other trials.
func (s sortedScores) candidates() []candidate {
	var out []candidate
	first := true
	var prev distinctStep
	n0 := len(s.w0)
	s.walk(func(st distinctStep) {
		if st.c1 > 0 && (first || prev.c0 > 0) {
			tau := st.u
			if !first {
				tau = midpoint(prev.u, st.u)
			}
			out = append(out, candidate{tau: tau, fp: n0 - st.below0, fn: st.below1})
		}
		first = false
		prev = st
	})
	if !first && prev.c0 > 0 {
		out = append(out, candidate{tau: math.Inf(1), fp: 0, fn: len(s.w1)})
	}
	return out
}

// midpoint returns a value in (a, b] for finite a < b, halfway where
// floating point allows, without overflow.
func midpoint(a, b float64) float64 {
	m := a/2 + b/2
	if !(m > a) || m > b {
		return b
	}
	return m
}
