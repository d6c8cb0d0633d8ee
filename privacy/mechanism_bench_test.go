package privacy

import "testing"

// BenchmarkMechanismPLD is ε(δ = 1e-5) by PLD on the MNIST schedule
// (q = 256/60000, σ = 1.1, T = 14063) under each adjacency and sampler;
// the replace-one PMF is one direction (the pair is symmetric) against
// add/remove's two. scripts/bench-mechanisms.sh alternates the runs and
// dp_accounting's.
func BenchmarkMechanismPLD(b *testing.B) {
	cases := []struct {
		name string
		m    SampledGaussian
	}{
		{"add_remove", SampledGaussian{NoiseMultiplier: 1.1, SamplingRate: mnistQ, Steps: mnistT}},
		{"replace_one", SampledGaussian{NoiseMultiplier: 1.1, SamplingRate: mnistQ, Steps: mnistT, Adjacency: AdjacencyReplaceOne}},
		{"fixed_size", SampledGaussian{NoiseMultiplier: 1.1, SamplingRate: mnistQ, Steps: mnistT, Adjacency: AdjacencyReplaceOne, Sampling: SamplingFixedSize}},
		{"balls_in_bins", SampledGaussian{NoiseMultiplier: 1.1, SamplingRate: 1.0 / 234, Steps: mnistT, Sampling: SamplingBallsInBins}},
	}
	for _, c := range cases {
		b.Run(c.name, func(b *testing.B) {
			for b.Loop() {
				if _, err := Epsilon(AccountantPLD, c.m, 1e-5, Options{}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
