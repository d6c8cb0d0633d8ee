package attack

import (
	"syscall"
	"testing"
	"time"

	"github.com/dpaudit/dpaudit/learn"
	"github.com/dpaudit/dpaudit/rng"
)

// mnistShaped returns n random records shaped like MNIST (784 features in
// [0, 1]) with binary labels: the size of an MNIST 0-vs-1 audit without
// needing the data.
func mnistShaped(n int) ([]float32, []int32) {
	r := rng.New(1, "bench/data")
	X := make([]float32, n*784)
	for i := range X {
		X[i] = r.Float32()
	}
	Y := make([]int32, n)
	for i := range Y {
		Y[i] = int32(r.IntN(2))
	}
	return X, Y
}

// benchSetting is the benchmark's gradient-canary audit: MLP 784-64-2 (relu),
// N = 1000, binary, C = 1, σ = 1, q = 0.01, T = 1000, η = 0.1.
func benchSetting() CraftInput {
	X, Y := mnistShaped(1000)
	return CraftInput{
		Arch: learn.Arch{Kind: learn.KindMLP, Hidden: []int{64}}, InShape: []int{784}, Classes: 2,
		DPSGD: learn.DPSGD{ClipNorm: 1, NoiseMultiplier: 1, SamplingRate: 0.01, Steps: 1000, LearningRate: 0.1},
		X:     X, Y: Y, Seed: 1, InitSeed: 2,
	}
}

// BenchmarkGradientCanaryAudit measures audit trials per second for the
// gradient attack (Crafter 4 + the watermark LLR, reading the privatised
// sums or the parameters) against plain learn.Train of the same
// configuration (a fresh model per run, no hooks): the target is the
// trainer's own throughput, attack overhead ≤ 10%. One iteration = one
// trial; worlds alternate. Reported per wall-clock second and per
// CPU-second (the shared machine's load moves the first).
func BenchmarkGradientCanaryAudit(b *testing.B) {
	in := benchSetting()
	b.Run("plain-train", func(b *testing.B) {
		cpu0 := cpuTime()
		for i := 0; i < b.N; i++ {
			m, err := learn.NewModel(in.Arch, in.InShape, in.Classes, in.InitSeed)
			if err != nil {
				b.Fatal(err)
			}
			if _, err := learn.Train(m, in.X, in.Y, in.DPSGD, TrialStream(1, "bench", i), nil); err != nil {
				b.Fatal(err)
			}
		}
		reportTrials(b, cpu0)
	})
	cr, err := GradientCanary{Coordinates: 2}.Craft(in)
	if err != nil {
		b.Fatal(err)
	}
	for _, c := range []struct {
		name string
		d    Distinguisher
	}{
		{"game-llr-gradients", Watermark{}},
		{"game-llr-models", Watermark{Observe: ObserveIntermediateModels}},
	} {
		b.Run(c.name, func(b *testing.B) {
			g, err := NewGame(GameConfig{Arch: in.Arch, InShape: in.InShape, Classes: in.Classes, DPSGD: in.DPSGD,
				X: in.X, Y: in.Y, Crafted: cr, Distinguisher: c.d, Threat: ThreatModels["gradient"]})
			if err != nil {
				b.Fatal(err)
			}
			b.ResetTimer()
			cpu0 := cpuTime()
			for i := 0; i < b.N; i++ {
				if _, err := g.RunTrialIndex(1, "bench", i); err != nil {
					b.Fatal(err)
				}
			}
			reportTrials(b, cpu0)
		})
	}
}

// BenchmarkGradientCanaryOverhead pairs, in every iteration, one plain
// learn.Train run and one audit trial (watermark LLR on the privatised
// sums) of the benchmark setting with the same stream, and reports the
// audit's extra process CPU time in percent. Pairing makes the ratio
// robust to the shared machine's load, which moves both alike.
func BenchmarkGradientCanaryOverhead(b *testing.B) {
	in := benchSetting()
	cr, err := GradientCanary{Coordinates: 2}.Craft(in)
	if err != nil {
		b.Fatal(err)
	}
	g, err := NewGame(GameConfig{Arch: in.Arch, InShape: in.InShape, Classes: in.Classes, DPSGD: in.DPSGD,
		X: in.X, Y: in.Y, Crafted: cr, Distinguisher: Watermark{}, Threat: ThreatModels["gradient"]})
	if err != nil {
		b.Fatal(err)
	}
	var plain, audit time.Duration
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		t0 := cpuTime()
		m, err := learn.NewModel(in.Arch, in.InShape, in.Classes, in.InitSeed)
		if err != nil {
			b.Fatal(err)
		}
		if _, err := learn.Train(m, in.X, in.Y, in.DPSGD, TrialStream(1, "bench", i), nil); err != nil {
			b.Fatal(err)
		}
		t1 := cpuTime()
		if _, err := g.RunTrialIndex(1, "bench", i); err != nil {
			b.Fatal(err)
		}
		t2 := cpuTime()
		plain += t1 - t0
		audit += t2 - t1
	}
	b.ReportMetric(100*(audit.Seconds()/plain.Seconds()-1), "overhead-%")
	b.ReportMetric(float64(b.N)/audit.Seconds(), "trials/cpu-s")
	b.ReportMetric(float64(b.N)/plain.Seconds(), "plain-runs/cpu-s")
}

// BenchmarkAdaptivePoisonStep measures one regeneration of the adaptive
// poison (Crafter 3; default 10 inner steps, finite-difference double
// backpropagation) on the benchmark's MLP: a world-1 trial pays it at each
// of its T steps.
func BenchmarkAdaptivePoisonStep(b *testing.B) {
	in := benchSetting()
	m, err := learn.NewModel(in.Arch, in.InShape, in.Classes, in.InitSeed)
	if err != nil {
		b.Fatal(err)
	}
	plan := &AdaptivePlan{InnerSteps: 10, InputStepSize: 0.1, VirtualLR: 0.01, Label: in.Y[0], Normalize: true, ClipInVirtual: true, Method: MethodAuto}
	p, err := newPoisoner(m, plan, row(in.X, in.Y, 784, 0), in.DPSGD)
	if err != nil {
		b.Fatal(err)
	}
	target := &learn.Record{X: make([]float32, 784)}
	params := m.Params()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if err := p.beforeStep(i, params, target); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkCraft measures crafting once per audit point in the benchmark
// setting: the gradient canary's reference run (t_o = 100 steps), the
// malicious dataset (1000 inputs labelled by θ_0 + reference run), and the
// static poison with its defaults (4 shadow models × T = 1000 steps, 100
// ascent steps).
func BenchmarkCraft(b *testing.B) {
	in := benchSetting()
	in.PoolX, in.PoolY = mnistShaped(1000)
	for _, c := range []Crafter{GradientCanary{}, MaliciousDataset{}, StaticPoison{}} {
		b.Run(c.Kind(), func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				in.Seed = uint64(i)
				if _, err := c.Craft(in); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

func reportTrials(b *testing.B, cpu0 time.Duration) {
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "trials/s")
	b.ReportMetric(float64(b.N)/(cpuTime()-cpu0).Seconds(), "trials/cpu-s")
}

// cpuTime returns the user+system CPU time of the process so far.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
