package attack

import (
	"errors"
	"math"
	"sort"
	"testing"

	"github.com/dpaudit/dpaudit/learn"
	"github.com/dpaudit/dpaudit/rng"
)

// blob returns n records of d features from two Gaussian blobs N(±sep/2·1,
// I) labelled 0 and 1 alternately: synthetic data for small games.
func blob(seed uint64, n, d int, sep float64) ([]float32, []int32) {
	r := rng.New(seed, "test", "blob")
	X := make([]float32, n*d)
	Y := make([]int32, n)
	for i := range Y {
		Y[i] = int32(i % 2)
		mu := sep / 2 * float64(2*Y[i]-1)
		for j := 0; j < d; j++ {
			X[i*d+j] = float32(mu + r.NormFloat64())
		}
	}
	return X, Y
}

// auc returns P(score of a world-1 trial > score of a world-0 trial), ties
// counted ½ (the Mann–Whitney statistic).
func auc(res []TrialResult) float64 {
	var s0, s1 []float64
	for _, r := range res {
		if r.World == 1 {
			s1 = append(s1, r.Score())
		} else {
			s0 = append(s0, r.Score())
		}
	}
	return aucOf(s0, s1)
}

// aucOf is the Mann–Whitney AUC of world-1 scores s1 over world-0 scores
// s0 (ties count ½); it sorts s0.
func aucOf(s0, s1 []float64) float64 {
	sort.Float64s(s0)
	var wins float64
	for _, v := range s1 {
		lo := sort.SearchFloat64s(s0, v)
		hi := sort.Search(len(s0), func(i int) bool { return s0[i] > v })
		wins += float64(lo) + float64(hi-lo)/2
	}
	return wins / float64(len(s0)*len(s1))
}

// runTrials runs trials 0…n−1 of a game.
func runTrials(t *testing.T, g *Game, seed uint64, n int) []TrialResult {
	t.Helper()
	out := make([]TrialResult, n)
	for i := range out {
		r, err := g.RunTrialIndex(seed, "test-point", i)
		if err != nil {
			t.Fatalf("trial %d: %v", i, err)
		}
		out[i] = r
	}
	return out
}

// meanScore returns the mean primary score of each world.
func meanScore(res []TrialResult) (m0, m1 float64) {
	var n0, n1 float64
	for _, r := range res {
		if r.World == 1 {
			m1 += r.Score()
			n1++
		} else {
			m0 += r.Score()
			n0++
		}
	}
	return m0 / n0, m1 / n1
}

var _ = math.Inf
var _ = learn.KindMLP

func isInvalid(err error) bool { return err != nil && errors.Is(err, ErrInvalid) }
