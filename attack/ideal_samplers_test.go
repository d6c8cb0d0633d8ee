package attack_test

import (
	"math"
	"testing"

	"github.com/dpaudit/dpaudit/attack"
)

// The LLR of each game is the log-likelihood ratio of world 1 against
// world 0 only if E_0[e^LLR] = 1 and E_1[e^−LLR] = 1 (the likelihood ratio
// integrates to one under the other world). A wrong formula — a wrong
// shift, a missing normaliser 1/K, the wrong world's mixture — breaks
// one of them by far more than the Monte Carlo error at these settings.
func TestIdealSamplerLLRIsTheLikelihoodRatio(t *testing.T) {
	for _, c := range []struct {
		name string
		m    attack.IdealMechanism
	}{
		{"balls_in_bins", attack.IdealMechanism{SamplingRate: 0.25, Steps: 6, NoiseMultiplier: 1.5, BallsInBins: true}},
		{"replace_one", attack.IdealMechanism{SamplingRate: 0.2, Steps: 5, NoiseMultiplier: 1.5, ReplaceOne: true}},
		{"replace_one_q1", attack.IdealMechanism{SamplingRate: 1, Steps: 2, NoiseMultiplier: 2, ReplaceOne: true}},
		{"fixed_size", attack.IdealMechanism{SamplingRate: 0.2, Steps: 5, NoiseMultiplier: 3, ReplaceOne: true, FixedSize: true}},
	} {
		tr := simulate(t, attack.IdealRun{Mechanism: c.m, Seed: 9, Path: []any{c.name}, Count: 200000, Workers: 1})
		var sum, sq [2]float64
		for i, l := range tr.LLR {
			w, v := 0, math.Exp(l)
			if tr.World[i] {
				w, v = 1, math.Exp(-l)
			}
			sum[w] += v
			sq[w] += v * v
		}
		n := float64(len(tr.LLR)) / 2
		for w := range 2 {
			mean := sum[w] / n
			se := math.Sqrt((sq[w]/n - mean*mean) / n)
			if math.Abs(mean-1) > 5*se+1e-3 {
				t.Errorf("%s world %d: E[likelihood ratio] = %.4f ± %.4f, want 1", c.name, w, mean, se)
			}
		}
	}
}

// Fixed-size sampling is accounted under replace-one adjacency only, and
// a replace-one game is simulated with Poisson or fixed-size batches only.
func TestIdealSamplerCombinationsRefused(t *testing.T) {
	for _, m := range []attack.IdealMechanism{
		{SamplingRate: 0.1, Steps: 5, NoiseMultiplier: 1, FixedSize: true},
		{SamplingRate: 0.1, Steps: 5, NoiseMultiplier: 1, BallsInBins: true, ReplaceOne: true},
		{SamplingRate: 0.1, Steps: 5, NoiseMultiplier: 1, BallsInBins: true, Shuffle: true},
	} {
		if err := m.Validate(); err == nil {
			t.Errorf("%+v: accepted", m)
		}
	}
}
