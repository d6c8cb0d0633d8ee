package audit

import (
	"math"
	"testing"
)

// The grids filled on every core before a large search hold the values
// the lazy path computes, so the search's choice does not depend on the
// number of cores: every candidate's brackets are the same bits, and so
// is the chosen threshold.
func TestPrefilledGridsBracketAsLazy(t *testing.T) {
	scores, worlds := gaussianShift(3, 0, 50000, 0.5)
	s := newSortedScores(scores, worlds, nil)
	cands := s.candidates()
	tail := 0.025
	lazy0, lazy1 := newCPGrid(len(s.w0), tail), newCPGrid(len(s.w1), tail)
	pre0, pre1 := newCPGrid(len(s.w0), tail), newCPGrid(len(s.w1), tail)
	pre0.prefill(len(cands), func(i int) int { return cands[i].fp })
	pre1.prefill(len(cands), func(i int) int { return cands[i].fn })
	filled := 0
	for _, v := range pre0.val {
		if !math.IsNaN(v) {
			filled++
		}
	}
	if filled < 256 {
		t.Fatalf("only %d grid values prefilled: the test does not reach the parallel path", filled)
	}
	for _, c := range cands {
		for _, g := range [][2]*cpGrid{{lazy0, pre0}, {lazy1, pre1}} {
			x := c.fp
			if g[0] == lazy1 {
				x = c.fn
			}
			lo, hi := g[0].bracket(x)
			plo, phi := g[1].bracket(x)
			if math.Float64bits(lo) != math.Float64bits(plo) || math.Float64bits(hi) != math.Float64bits(phi) {
				t.Fatalf("count %d: prefilled bracket [%v, %v], lazy [%v, %v]", x, plo, phi, lo, hi)
			}
		}
	}
	// Every value the prefill wrote is the bound at its grid count.
	for j, v := range pre1.val {
		if !math.IsNaN(v) && v != pre1.upper(float64(pre1.at[j])) {
			t.Fatalf("grid value %d (count %d) is %v, want %v", j, pre1.at[j], v, pre1.upper(float64(pre1.at[j])))
		}
	}
	a, va, _, _ := bestCandidateOn(cands, newCPGrid(len(s.w0), tail), newCPGrid(len(s.w1), tail), epsObjective(1e-5))
	b, vb, _, _ := bestCandidateOn(cands, lazy0, lazy1, epsObjective(1e-5))
	if a != b || va != vb {
		t.Fatalf("search chose %d (%v) on fresh grids, %d (%v) on lazily filled ones", a, va, b, vb)
	}
}
