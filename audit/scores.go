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
	var s sortedScores
	add := func(i int) {
		if worlds[i] {
			s.w1 = append(s.w1, scores[i])
		} else {
			s.w0 = append(s.w0, scores[i])
		}
	}
	if keep == nil {
		n1 := 0
		for _, w := range worlds {
			if w {
				n1++
			}
		}
		s.w0 = make([]float64, 0, len(worlds)-n1)
		s.w1 = make([]float64, 0, n1)
		for i := range scores {
			add(i)
		}
	} else {
		n1 := 0
		for _, i := range keep {
			if worlds[i] {
				n1++
			}
		}
		s.w0 = make([]float64, 0, len(keep)-n1)
		s.w1 = make([]float64, 0, n1)
		for _, i := range keep {
			add(i)
		}
	}
	sortBoth(s.w0, s.w1)
	return s
}

// sortBoth sorts a and b, side by side on two cores when they are large
// enough to pay for it (an audit of 10⁶ trials sorts 5·10⁵ scores per
// world several times).
func sortBoth(a, b []float64) {
	if len(a)+len(b) < 1<<14 {
		slices.Sort(a)
		slices.Sort(b)
		return
	}
	err := parallel.For(context.Background(), 2, 2, func(i int) error {
		slices.Sort([][]float64{a, b}[i])
		return nil
	})
	if err != nil {
		panic(err) // only a panic inside the sort gets here
	}
}

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
