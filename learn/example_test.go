package learn_test

import (
	"fmt"
	"math"

	"github.com/dpaudit/dpaudit/learn"
	"github.com/dpaudit/dpaudit/rng"
)

// Train a logistic regression with DP-SGD on two well-separated clusters,
// watching the noisy gradient sums through a hook.
func Example() {
	// 1,000 records in 2 dimensions: class 0 around (−2, −2), class 1 around (2, 2).
	r := rng.New(1, "example/data")
	const n = 1000
	X := make([]float32, 2*n)
	Y := make([]int32, n)
	for i := range Y {
		Y[i] = int32(i % 2)
		c := float64(4*Y[i]) - 2
		X[2*i], X[2*i+1] = float32(c+r.NormFloat64()), float32(c+r.NormFloat64())
	}

	m, err := learn.NewModel(learn.Arch{Kind: learn.KindLogReg}, []int{2}, 2, 7)
	if err != nil {
		panic(err)
	}
	cfg := learn.DPSGD{
		ClipNorm: 1, NoiseMultiplier: 1.1, SamplingRate: 0.05, Steps: 200,
		LearningRate: 0.5,
	}
	var largest float64
	hooks := &learn.Hooks{OnStep: func(s *learn.Step) error {
		// s.NoisySum is Σ clip(g_i) + N(0, σ²C²I); the update uses it / s.Normalizer.
		for _, v := range s.NoisySum {
			largest = math.Max(largest, math.Abs(float64(v)))
		}
		return nil
	}}
	res, err := learn.Train(m, X, Y, cfg, rng.New(1, "example/train"), hooks)
	if err != nil {
		panic(err)
	}
	acc, _ := m.Accuracy(X, Y)
	fmt.Printf("steps %d, normaliser q·N = %g, matches accountant: %v\n", res.Steps, res.Normalizer, res.MatchesAccountant)
	fmt.Printf("accuracy ≥ 0.95: %v; some noisy sum coordinate above 1: %v\n", acc >= 0.95, largest > 1)
	// Output:
	// steps 200, normaliser q·N = 50, matches accountant: true
	// accuracy ≥ 0.95: true; some noisy sum coordinate above 1: true
}
