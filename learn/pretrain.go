package learn

import (
	"fmt"
	"math"
	"math/rand/v2"
)

// Pretrain trains m in place WITHOUT privacy by plain minibatch SGD on
// (X, Y): epochs passes, each over a fresh random permutation in batches of
// batchSize records (the mean loss of a batch; a last partial batch is
// dropped), learning rate lr, no clipping and no noise.
//
// It is how an auditor crafts worst-case initial parameters θ₀ for a
// last-iterate audit (Annamalai & De Cristofaro, NeurIPS 2024,
// craft_initial_params.ipynb: 5 epochs of SGD, batch 32, lr 0.01 on half of
// MNIST): DP-SGD's analysis holds for every θ₀, and a θ₀ that already fits
// the data leaves the other records' gradients small, so the target's
// gradient dominates what the last iterate reveals. X must be disjoint from
// the records the audited run trains on. It is Train with shuffled
// fixed-size batches, σ = 0 and C = +Inf, so r drives it the same way.
func Pretrain(m *Model, X []float32, Y []int32, epochs, batchSize int, lr float64, r *rand.Rand) (*Result, error) {
	n := len(Y)
	switch {
	case n == 0:
		return nil, fmt.Errorf("pretrain: no records")
	case epochs < 1:
		return nil, fmt.Errorf("pretrain: epochs = %d, want ≥ 1", epochs)
	case batchSize < 1:
		return nil, fmt.Errorf("pretrain: batch size = %d, want ≥ 1", batchSize)
	}
	bs := min(batchSize, n)
	cfg := DPSGD{
		ClipNorm:          math.Inf(1),
		SamplingRate:      float64(bs) / float64(n),
		Steps:             epochs * (n / bs),
		LearningRate:      lr,
		Sampling:          SampleShuffle,
		ExpectedBatchSize: float64(bs),
	}
	return Train(m, X, Y, cfg, r, nil)
}
