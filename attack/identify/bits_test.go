package identify

import (
	"hash/fnv"
	"math"
	"testing"

	"github.com/dpaudit/dpaudit/learn"
	"github.com/dpaudit/dpaudit/learn/gemm"
)

// TestTable2eRepetitionBits pins the bits of repetitions of
// examples/bernau2021/table2e.yaml's model (the max-pool CNN, 30
// full-batch steps, |D| = 100; random images for MNIST): every step's
// local sensitivity and noise scale, the log-odds and the final accuracy,
// for the LS-bounded cell (DP-Adam) and the GS-unbounded one (SGD). The
// constants were recorded with main at e6e8e55, before the speed-ups of
// the layers this game runs through; any change to the kernels that moves
// a bit of a repetition fails here.
func TestTable2eRepetitionBits(t *testing.T) {
	if gemm.Path() != "avx2" && gemm.Path() != "avx512" {
		t.Skipf("constants recorded on the AVX2 path (this is %s)", gemm.Path())
	}
	X, Y := imageData(100, 1)
	PX, PY := imageData(10, 2)
	for _, c := range []struct {
		name      string
		pair      Neighbours
		opt, sens string
		want      uint64
	}{
		{"LS-bounded-adam", Neighbours{Adjacency: Bounded, Remove: 99, Add: 0}, OptAdam, SensLocal, 0xc041647d1bbb5272},
		{"GS-unbounded-sgd", Neighbours{Adjacency: Unbounded, Remove: 75}, OptSGD, SensGlobal, 0x0a70f543e61416a6},
	} {
		t.Run(c.name, func(t *testing.T) {
			g, err := NewGame(Config{Arch: learn.BernauCNNMaxPool(), InShape: []int{1, 28, 28}, Classes: 10, X: X, Y: Y,
				Pair: c.pair, PoolX: PX, PoolY: PY, ClipNorm: 3, Steps: 30, LearningRate: 0.005, Optimizer: c.opt,
				Sensitivity: c.sens, NoiseMultiplier: 8.380227, RandomInit: true, Delta: 0.01})
			if err != nil {
				t.Fatal(err)
			}
			h := fnv.New64a()
			put := func(v float64) {
				b := math.Float64bits(v)
				h.Write([]byte{byte(b), byte(b >> 8), byte(b >> 16), byte(b >> 24), byte(b >> 32), byte(b >> 40), byte(b >> 48), byte(b >> 56)})
			}
			for i := 0; i < 2; i++ {
				res, err := g.Run(1, "bits", i)
				if err != nil {
					t.Fatal(err)
				}
				for s := range res.LS {
					put(res.LS[s])
					put(res.Sigma[s])
				}
				put(res.LogOdds)
				put(res.TrainAccuracy)
			}
			if got := h.Sum64(); got != c.want {
				t.Errorf("hash %#x, recorded %#x", got, c.want)
			}
		})
	}
}
