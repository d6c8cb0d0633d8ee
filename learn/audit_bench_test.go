package learn

import (
	"os"
	"testing"

	"github.com/dpaudit/dpaudit/datasets"
	"github.com/dpaudit/dpaudit/rng"
)

// BenchmarkAuditTrial times the training of one trial of the two audit
// workloads the per-step kernels are tuned for, on real MNIST (skipped without the data set), one
// trial per iteration, in trials per CPU-second (and per wall second, which
// on a shared machine says little):
//
//   - hayes: Hayes et al.'s MLP 784-10-10 (eLU), |D₋| = 999 plus the
//     target record, full batch, T = 100, C = 0.1, σ = 4.999 (ε = 10),
//     learning rate 1 (examples/hayes2023/fig3-prior-size.yaml);
//   - logreg: logistic regression on MNIST 0-vs-1 (12,665 records) plus
//     the target record, q = 0.01, T = 1000, C = 1, σ = 0.8519,
//     learning rate 0.5 (examples/nasr2021/fig1-adversaries.yaml at
//     T = 1000).
//
// Each trains on inputs prepared once (NewInputs, as the audit games do:
// exact 8-bit codes of the MNIST rows); the -floats variants call Train on
// the float rows, the path before the codes (same parameters, bit for bit).
// BenchmarkDPSGD/trial-* are the same shapes on random dense data.
//
//	go test ./learn -run X -bench AuditTrial -benchtime 20x -count 5
func BenchmarkAuditTrial(b *testing.B) {
	load := func(b *testing.B, o datasets.Options) *datasets.Split {
		s, err := datasets.Load(datasets.Source{Name: datasets.SourceMNIST}, o, datasets.DefaultDataDir())
		if err != nil {
			if os.Getenv("DPAUDIT_REQUIRE_DATA") != "" {
				b.Fatal(err)
			}
			b.Skipf("MNIST not available: %v", err)
		}
		return s
	}
	run := func(b *testing.B, a Arch, classes int, X []float32, Y []int32, cfg DPSGD, floats bool) {
		D := len(X) / len(Y)
		n := len(Y) - 1 // the last record is the target
		init := mustModel(b, a, []int{D}, classes, 3)
		in, err := NewInputs(X[:n*D], Y[:n], D)
		if err != nil {
			b.Fatal(err)
		}
		b.ReportAllocs()
		cpu0 := cpuTime()
		for i := 0; b.Loop(); i++ {
			m := init.Clone()
			h := &Hooks{Target: &Record{X: X[n*D:], Y: Y[n]}}
			r := rng.New(uint64(i), "bench/trial")
			if floats {
				mustTrain(b, m, X[:n*D], Y[:n], cfg, r, h)
			} else if _, err := TrainInputs(m, in, cfg, r, h); err != nil {
				b.Fatal(err)
			}
		}
		reportRates(b, float64(b.N), cpuTime()-cpu0, "trials")
	}
	for _, floats := range []bool{false, true} {
		suffix := ""
		if floats {
			suffix = "-floats"
		}
		b.Run("hayes-mlp-784-10-10-elu-N1000-full-T100"+suffix, func(b *testing.B) {
			s := load(b, datasets.Options{TrainSize: 1000, Flatten: true, Seed: 1})
			cfg := DPSGD{ClipNorm: 0.1, NoiseMultiplier: 4.999, SamplingRate: 1, Steps: 100, LearningRate: 1}
			run(b, Arch{Kind: KindMLP, Hidden: []int{10}, Activation: ELU}, 10, s.Train.X, s.Train.Y, cfg, floats)
		})
		b.Run("logreg-01-N12665-q0.01-T1000"+suffix, func(b *testing.B) {
			s := load(b, datasets.Options{Classes: []int{0, 1}, Flatten: true, Seed: 1})
			cfg := DPSGD{ClipNorm: 1, NoiseMultiplier: 0.8519, SamplingRate: 0.01, Steps: 1000, LearningRate: 0.5}
			run(b, Arch{Kind: KindLogReg}, 2, s.Train.X, s.Train.Y, cfg, floats)
		})
	}
}
