package attack_test

import (
	"math"
	"testing"

	"github.com/dpaudit/dpaudit/attack"
)

// The shuffled game puts the canary in exactly one step per epoch, with
// shift 1 (world 0, zeroed out) or 2 (world 1), so the projection summed
// over E epochs has mean E (world 0) or 2E (world 1) and variance Tσ².
// A partial epoch of R < K steps holds the canary w.p. R/K.
func TestIdealShuffleProjection(t *testing.T) {
	for _, c := range []struct {
		steps  int
		epochs float64 // expected canary appearances
	}{{30, 3}, {25, 2.5}} {
		m := attack.IdealMechanism{SamplingRate: 0.1, Steps: c.steps, NoiseMultiplier: 0.5, Shuffle: true}
		tr := simulate(t, attack.IdealRun{Mechanism: m, Seed: 3, Path: []any{"shuffle"}, Count: 20000, Workers: 1})
		var sum [2]float64
		for i, p := range tr.Projection {
			w := 0
			if tr.World[i] {
				w = 1
			}
			sum[w] += p
		}
		n := float64(len(tr.Projection)) / 2
		// Standard error of each mean: σ√T/√n ≈ 0.02; 5 of them.
		for w, want := range []float64{c.epochs, 2 * c.epochs} {
			if got := sum[w] / n; math.Abs(got-want) > 5*0.5*math.Sqrt(float64(c.steps))/math.Sqrt(n) {
				t.Errorf("T=%d world %d: mean projection %.4f, want %.4f", c.steps, w, got, want)
			}
		}
	}
	// The LLR separates the worlds (σ = 0.5, one epoch of 10: the pair is
	// about as distinguishable as N(1) vs N(2) at σ = 0.5).
	m := attack.IdealMechanism{SamplingRate: 0.1, Steps: 10, NoiseMultiplier: 0.5, Shuffle: true}
	tr := simulate(t, attack.IdealRun{Mechanism: m, Seed: 3, Path: []any{"shuffle-llr"}, Count: 4000, Workers: 1})
	right := 0
	for i, l := range tr.LLR {
		if (l > 0) == tr.World[i] {
			right++
		}
	}
	if acc := float64(right) / float64(len(tr.LLR)); acc < 0.8 {
		t.Errorf("LLR accuracy %.3f, want ≥ 0.8 (Φ(1) = 0.84 if the batch were known)", acc)
	}
}
