package audit

import (
	"math"
	"slices"
	"testing"

	"github.com/dpaudit/dpaudit/rng"
)

// sortByAbs is the order orderByAbs must give: a plain sort on
// (|l|, index).
func sortByAbs(l []float64) []int {
	out := make([]int, len(l))
	for i := range out {
		out[i] = i
	}
	slices.SortFunc(out, func(a, b int) int {
		if c := cmpFloat(math.Abs(l[a]), math.Abs(l[b])); c != 0 {
			return c
		}
		return a - b
	})
	return out
}

// The merge gives the sort's permutation on the channels' own grids
// (Gaussian and subsampled at several μ, with long runs of tied |L| in
// the subsampled tails), and on grids that are not monotone (the
// fallback).
func TestOrderByAbs(t *testing.T) {
	for _, f := range []OSFamily{{SamplingRate: 1}, {SamplingRate: 0.2}, {SamplingRate: 0.001}} {
		for _, mu := range []float64{0.01, 0.7, 2, 9, 32} {
			l := newOSProfile(f, mu).logLR
			merged, ok := mergeByAbs(l)
			if !ok || !slices.Equal(merged, sortByAbs(l)) {
				t.Errorf("%s, μ = %v: the merge (in order: %v) differs from the sort", f.Name(), mu, ok)
			}
		}
	}
	r := rng.New(1, "test", "order-by-abs")
	for rep := range 50 {
		l := make([]float64, 200)
		for i := range l {
			l[i] = float64(r.IntN(9) - 4) // ties, both signs, no order
			if rep%2 == 0 {
				l[i] = float64(i-100) / 10 // monotone, ties at |l|
			}
		}
		if !slices.Equal(orderByAbs(l), sortByAbs(l)) {
			t.Fatalf("case %d: %v", rep, l)
		}
	}
	if len(orderByAbs(nil)) != 0 {
		t.Error("empty grid")
	}
}
