package learn

import (
	"fmt"
	"math/rand/v2"
	"syscall"
	"testing"
	"time"

	"github.com/dpaudit/dpaudit/rng"
)

// mnistShaped returns n random records shaped like MNIST (784 features in
// [0, 1]) with labels in 0…classes−1.
func mnistShaped(n, classes int) ([]float32, []int32) {
	r := rng.New(1, "bench/data")
	X := make([]float32, n*784)
	for i := range X {
		X[i] = r.Float32()
	}
	Y := make([]int32, n)
	for i := range Y {
		Y[i] = int32(r.IntN(classes))
	}
	return X, Y
}

// BenchmarkDPSGD measures DP-SGD training throughput (C = 1, σ = 1, fixed
// batches of B examples by shuffling N = 4096 random MNIST-shaped records;
// one benchmark iteration = one step) in examples/s, and whole audit-sized
// training runs in trials/s. Targets, single run:
// logreg 784→10 B=256 ≥ 500,000; MLP 784-512-10 B=256 ≥ 25,000;
// MLP 784-128-10 B=64 ≥ 50,000; TanhCNN B=128 ≥ 14,000 examples/s.
func BenchmarkDPSGD(b *testing.B) {
	X, Y := mnistShaped(4096, 10)
	steps := []struct {
		name  string
		arch  Arch
		in    []int
		batch int
	}{
		{"logreg-784-10-b256", Arch{Kind: KindLogReg}, []int{784}, 256},
		{"mlp-784-512-10-relu-b256", Arch{Kind: KindMLP, Hidden: []int{512}}, []int{784}, 256},
		{"mlp-784-128-10-relu-b64", Arch{Kind: KindMLP, Hidden: []int{128}}, []int{784}, 64},
		{"cnn-tanh-26010-b128", TanhCNN(), []int{1, 28, 28}, 128},
	}
	for _, c := range steps {
		for _, threads := range []int{1, 2} {
			b.Run(fmt.Sprintf("%s/threads=%d", c.name, threads), func(b *testing.B) {
				m := mustModel(b, c.arch, c.in, 10, 1)
				cfg := DPSGD{ClipNorm: 1, NoiseMultiplier: 1, SamplingRate: float64(c.batch) / 4096,
					Sampling: SampleShuffle, Steps: b.N, LearningRate: 0.01, Threads: threads}
				b.ReportAllocs()
				b.ResetTimer()
				cpu0 := cpuTime()
				mustTrain(b, m, X, Y, cfg, rng.New(1, "bench"), nil)
				reportRates(b, float64(b.N*c.batch), cpuTime()-cpu0, "examples")
			})
		}
	}

	// Hayes et al.'s MNIST setting: MLP 784-10-10 (elu), N = 1000, full
	// batch, T = 100 (Hayes reference note, experiment table).
	b.Run("trial-mlp-784-10-10-elu-N1000-full-T100", func(b *testing.B) {
		X, Y := mnistShaped(1000, 10)
		cfg := DPSGD{ClipNorm: 1, NoiseMultiplier: 1, SamplingRate: 1, Steps: 100, LearningRate: 1}
		benchTrials(b, Arch{Kind: KindMLP, Hidden: []int{10}, Activation: ELU}, X, Y, 10, cfg)
	})
	// Guo et al.'s / Mukherjee & Lokam's MNIST 0-vs-1 size: binary logistic
	// regression, N = 12,665, q = 0.01, T = 1000.
	b.Run("trial-logreg-binary-N12665-q0.01-T1000", func(b *testing.B) {
		X, Y := mnistShaped(12665, 2)
		cfg := DPSGD{ClipNorm: 1, NoiseMultiplier: 1, SamplingRate: 0.01, Steps: 1000, LearningRate: 0.1}
		benchTrials(b, Arch{Kind: KindLogReg}, X, Y, 2, cfg)
	})
}

// benchTrials times whole runs (model initialisation + training), one per
// iteration, each from its own seed, and reports trials/s.
func benchTrials(b *testing.B, a Arch, X []float32, Y []int32, classes int, cfg DPSGD) {
	b.ReportAllocs()
	cpu0 := cpuTime()
	for i := 0; i < b.N; i++ {
		m := mustModel(b, a, []int{784}, classes, uint64(i))
		mustTrain(b, m, X, Y, cfg, rng.New(uint64(i), "trial"), nil)
	}
	reportRates(b, float64(b.N), cpuTime()-cpu0, "trials")
}

// reportRates reports n units per wall-clock second and per CPU-second of
// this process. On a shared machine the wall rate varies with other load;
// the CPU rate is what one otherwise idle core would give (for one thread).
func reportRates(b *testing.B, n float64, cpu time.Duration, unit string) {
	b.ReportMetric(n/b.Elapsed().Seconds(), unit+"/s")
	b.ReportMetric(n/cpu.Seconds(), unit+"/cpu-s")
}

// cpuTime returns the user+system CPU time of the process so far.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// BenchmarkConvNorms compares, for TanhCNN's two conv layers and a chunk of
// 128 examples, the two ways to get per-example gradient norms and the
// clipped sum: materialising each example's gradient (what conv does) and
// the Gram trick followed by one GEMM for the clipped sum.
func BenchmarkConvNorms(b *testing.B) {
	const B = 128
	for _, cv := range []*conv{mustConv(b, 28, 28, 1, 16, 8, 2, 3), mustConv(b, 13, 13, 16, 32, 4, 2, 0)} {
		X, _ := randomData(1, B, cv.inSize(), 2)
		dOut, _ := randomData(2, B, cv.outSize(), 2)
		params, _ := randomData(3, 1, cv.numParams(), 2)
		cv.bind(params)
		s := cv.newScratch(B)
		out := make([]float32, B*cv.outSize())
		cv.forward(s, X, out, B)
		sq := make([]float64, B)
		c := make([]float32, B)
		for i := range c {
			c[i] = 0.5
		}
		grad := make([]float32, cv.numParams())
		b.Run(cv.describe()+"/materialise", func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				cv.backward(s, X, out, dOut, nil, B, sq, true)
				cv.clippedSum(s, X, dOut, c, B, grad)
			}
			b.ReportMetric(float64(b.N*B)/b.Elapsed().Seconds(), "examples/s")
		})
		P := cv.positions()
		gu, gd, bias := make([]float32, P*P), make([]float32, P*P), make([]float32, cv.outC)
		cv.needCols(s, X, B)
		b.Run(cv.describe()+"/gram", func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				cv.gramSqNorms(s.cols, dOut, B, gu, gd, bias, sq)
				s.materialised = false
				cv.clippedSum(s, X, dOut, c, B, grad)
			}
			b.ReportMetric(float64(b.N*B)/b.Elapsed().Seconds(), "examples/s")
		})
	}
}

// BenchmarkNoise measures Gaussian noise generation per coordinate.
func BenchmarkNoise(b *testing.B) {
	v := make([]float32, 1<<16)
	src := rand.NewChaCha8(rng.Key(1, "bench/noise"))
	b.Run("ziggurat-float32", func(b *testing.B) {
		cpu0 := cpuTime()
		for i := 0; i < b.N; i++ {
			addNormal(src, v, 1)
		}
		b.ReportMetric(b.Elapsed().Seconds()*1e9/float64(b.N*len(v)), "ns/draw")
		b.ReportMetric(float64(cpuTime()-cpu0)/float64(b.N*len(v)), "cpu-ns/draw")
	})
	ws := newWordStream(rng.Key(1, "bench/noise"))
	b.Run("ziggurat-float32-stream", func(b *testing.B) {
		cpu0 := cpuTime()
		for i := 0; i < b.N; i++ {
			addNormalStream(ws, v, 1)
		}
		b.ReportMetric(b.Elapsed().Seconds()*1e9/float64(b.N*len(v)), "ns/draw")
		b.ReportMetric(float64(cpuTime()-cpu0)/float64(b.N*len(v)), "cpu-ns/draw")
	})
	r := rand.New(src)
	b.Run("math-rand-NormFloat64", func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			for j := range v {
				v[j] += float32(r.NormFloat64())
			}
		}
		b.ReportMetric(b.Elapsed().Seconds()*1e9/float64(b.N*len(v)), "ns/draw")
	})
}

// BenchmarkTanhCNNLayers times each layer of TanhCNN on one chunk of 16
// random examples, forward and backward (with per-example norms, and the
// clipped sum for layers with parameters), in CPU-ns per example: where a
// training step's time goes.
func BenchmarkTanhCNNLayers(b *testing.B) {
	const B = 16
	m := mustModel(b, TanhCNN(), []int{1, 28, 28}, 10, 1)
	w := newWorkspace(m, B, false)
	X, Y := mnistShaped(B, 10)
	copy(w.input, X)
	copy(w.labels, Y)
	w.forward(B)
	w.lossAndDelta(B, true)
	w.backward(B, true, false)
	for i := range w.clip[:B] {
		w.clip[i] = 0.5
	}
	for l, ly := range m.layers {
		name := fmt.Sprintf("%d-%s", l, ly.describe())
		b.Run(name+"/forward", func(b *testing.B) {
			cpu0 := cpuTime()
			for i := 0; i < b.N; i++ {
				ly.forward(w.scr[l], w.acts[l], w.acts[l+1], B)
			}
			b.ReportMetric(float64(cpuTime()-cpu0)/float64(b.N*B), "cpu-ns/example")
		})
		var dIn []float32
		if l > 0 {
			dIn = w.deltas[l]
		}
		b.Run(name+"/backward", func(b *testing.B) {
			cpu0 := cpuTime()
			for i := 0; i < b.N; i++ {
				ly.backward(w.scr[l], w.acts[l], w.acts[l+1], w.deltas[l+1], dIn, B, w.sq, true)
				if p, ok := ly.(paramLayer); ok {
					p.clippedSum(w.scr[l], w.acts[l], w.deltas[l+1], w.clip, B, w.grad[m.offsets[l]:])
				}
			}
			b.ReportMetric(float64(cpuTime()-cpu0)/float64(b.N*B), "cpu-ns/example")
		})
	}
}
