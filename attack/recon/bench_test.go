package recon

import (
	"os"
	"syscall"
	"testing"
	"time"

	"github.com/dpaudit/dpaudit/attack"
	"github.com/dpaudit/dpaudit/datasets"
	"github.com/dpaudit/dpaudit/learn"
	"github.com/dpaudit/dpaudit/rng"
)

// fig3 is Hayes et al.'s Fig. 3 setting (Table 1): MNIST, MLP 784-10-10
// elu, |D| = 1000, q = 1, T = 100, C = 0.1, |π| = 10; σ = 4.9989 (ε = 10).
func fig3(b *testing.B) (*Game, Config) {
	s, err := datasets.Load(datasets.Source{Name: datasets.SourceMNIST}, datasets.Options{TrainSize: 1000, TestSize: 2000, Flatten: true, Normalize: "auto", Seed: 1}, datasets.DefaultDataDir())
	if err != nil {
		if os.Getenv("DPAUDIT_REQUIRE_DATA") != "" {
			b.Fatal(err)
		}
		b.Skipf("MNIST not available: %v", err)
	}
	D := s.Train.D
	cfg := Config{
		Arch: learn.Arch{Kind: learn.KindMLP, Hidden: []int{10}, Activation: learn.ELU}, InShape: s.Train.Shape, Classes: 10,
		DPSGD: learn.DPSGD{ClipNorm: 0.1, NoiseMultiplier: 4.9989, SamplingRate: 1, Steps: 100, LearningRate: 1},
		X:     s.Train.X[:999*D], Y: s.Train.Y[:999], PoolX: s.Test.X, PoolY: s.Test.Y,
		PriorSize: 10, Observe: attack.ObserveGradients, InitSeed: 3,
	}
	g, err := NewGame(cfg)
	if err != nil {
		b.Fatal(err)
	}
	return g, cfg
}

// BenchmarkFig3 compares one reconstruction trial (training on D₋ ∪ {z*}
// plus the attack) with the same training alone (the target record, no
// hooks). The attack's share is trial/train − 1; the target is ≤ 30%.
func BenchmarkFig3(b *testing.B) {
	g, cfg := fig3(b)
	b.Run("train", func(b *testing.B) {
		tgt := &learn.Record{X: cfg.PoolX[:len(cfg.PoolX)/len(cfg.PoolY)], Y: cfg.PoolY[0]}
		c0 := cpuTime()
		for i := 0; b.Loop(); i++ {
			m := g.init.Clone()
			if _, err := learn.Train(m, cfg.X, cfg.Y, cfg.DPSGD, rng.New(1, "bench", i), &learn.Hooks{Target: tgt}); err != nil {
				b.Fatal(err)
			}
		}
		b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "runs/s")
		b.ReportMetric((cpuTime()-c0).Seconds()*1e3/float64(b.N), "cpu-ms/op")
	})
	b.Run("trial", func(b *testing.B) {
		c0 := cpuTime()
		for i := 0; b.Loop(); i++ {
			if _, err := g.RunTrialIndex(1, "bench", i); err != nil {
				b.Fatal(err)
			}
		}
		b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "trials/s")
		b.ReportMetric((cpuTime()-c0).Seconds()*1e3/float64(b.N), "cpu-ms/op")
	})
}

// cpuTime is the process's user + system CPU time: on a machine shared
// with other jobs it measures the work better than the wall clock.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// BenchmarkIdeal is the ideal game at T = 100, |π| = 10: 10⁶ trials should
// take seconds (target ≤ 30 s).
func BenchmarkIdeal(b *testing.B) {
	for _, q := range []float64{1, 0.1} {
		g := Ideal{PriorSize: 10, SamplingRate: q, Steps: 100, NoiseMultiplier: 4.9989}
		b.Run(map[float64]string{1: "q=1", 0.1: "q=0.1"}[q], func(b *testing.B) {
			const n = 20000
			c0 := cpuTime()
			for b.Loop() {
				if _, err := SimulateIdeal(g, 1, []any{"bench"}, 0, n, 1); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(b.N*n)/b.Elapsed().Seconds(), "trials/s")
			b.ReportMetric((cpuTime()-c0).Seconds()*1e6/float64(b.N*n), "cpu-µs/trial")
		})
	}
}
