package identify

import (
	"math/rand/v2"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/dpaudit/dpaudit/learn"
)

// imageData is n random 1×28×28 "images" in [0, 1] with 10 labels.
func imageData(n int, seed uint64) ([]float32, []int32) {
	r := rand.New(rand.NewPCG(seed, 3))
	X, Y := make([]float32, n*784), make([]int32, n)
	for i := range X {
		if r.IntN(4) == 0 {
			X[i] = float32(r.Float64())
		}
	}
	for i := range Y {
		Y[i] = int32(r.IntN(10))
	}
	return X, Y
}

// BenchmarkRepetition: one repetition (30 full-batch steps, |D| = 100,
// the paper's MNIST CNN as learn.BernauCNN) of the bounded game with
// local-sensitivity noise. Reports repetitions/s.
func BenchmarkRepetition(b *testing.B) {
	X, Y := imageData(100, 1)
	PX, PY := imageData(10, 2)
	g, err := NewGame(Config{Arch: learn.BernauCNN(), InShape: []int{1, 28, 28}, Classes: 10, X: X, Y: Y,
		Pair: Neighbours{Adjacency: Bounded, Remove: 0, Add: 0}, PoolX: PX, PoolY: PY,
		ClipNorm: 3, Steps: 30, LearningRate: 0.005, Optimizer: OptSGD, Sensitivity: SensLocal,
		NoiseMultiplier: 8.380227, RandomInit: true, Delta: 0.01})
	if err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, err := g.Run(1, "bench", i); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "reps/s")
}

// BenchmarkCraftSSIM: the unbounded dataset-sensitivity crafter with
// 1 − SSIM over 1000 28×28 images (499,500 pairs).
func BenchmarkCraftSSIM(b *testing.B) {
	X, _ := imageData(1000, 4)
	for i := 0; i < b.N; i++ {
		if _, err := Craft(CraftInput{X: X, Dim: 784, Shape: []int{1, 28, 28}, Adjacency: Unbounded,
			Distance: DistSSIM, Choose: ChooseMax, Rank: 1}); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkTable2eRepetition: repetitions of examples/bernau2021/
// table2e.yaml's LS-bounded cell (the max-pool CNN, DP-Adam, 30 full-batch
// steps, |D| = 100), one game per core as the runner's workers run them:
// the workload of the peer ../shared/peers/bernau_torch.py. Random images
// stand in for MNIST (the cost does not depend on the pixels). Reports
// repetitions/s over all cores (GOMAXPROCS=1 for one).
//
//	go test -run '^$' -bench Table2eRepetition ./attack/identify/
func BenchmarkTable2eRepetition(b *testing.B) {
	X, Y := imageData(100, 1)
	PX, PY := imageData(10, 2)
	newGame := func() *Game {
		g, err := NewGame(Config{Arch: learn.BernauCNNMaxPool(), InShape: []int{1, 28, 28}, Classes: 10, X: X, Y: Y,
			Pair: Neighbours{Adjacency: Bounded, Remove: 99, Add: 0}, PoolX: PX, PoolY: PY,
			ClipNorm: 3, Steps: 30, LearningRate: 0.005, Optimizer: OptAdam, Sensitivity: SensLocal,
			NoiseMultiplier: 8.380227, RandomInit: true, Delta: 0.01})
		if err != nil {
			b.Fatal(err)
		}
		return g
	}
	var next atomic.Int64
	b.ResetTimer()
	cpu0 := cpuTime()
	b.RunParallel(func(pb *testing.PB) {
		g := newGame()
		for pb.Next() {
			if _, err := g.Run(1, "bench", int(next.Add(1))); err != nil {
				b.Error(err)
				return
			}
		}
	})
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "reps/s")
	// Per CPU-second of the process: what the load of a shared machine
	// disturbs least (compare builds by it, alternating processes).
	b.ReportMetric(float64(b.N)/(cpuTime()-cpu0).Seconds(), "reps/cpu-s")
}

// cpuTime returns the user+system CPU time of the process so far.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
