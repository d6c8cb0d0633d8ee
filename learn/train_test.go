package learn

import (
	"errors"
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/dpaudit/dpaudit/rng"
)

// separableData draws two Gaussian blobs N(±μ, I) in d dimensions with
// ‖μ‖ = 3 along a random direction, labels 0/1, so the Bayes classifier
// is linear with accuracy Φ(3) = 0.99865.
func separableData(seed uint64, n, d int) ([]float32, []int32) {
	r := rng.New(seed, "separable")
	dir := make([]float64, d)
	var norm float64
	for j := range dir {
		dir[j] = r.NormFloat64()
		norm += dir[j] * dir[j]
	}
	for j := range dir {
		dir[j] *= 3 / math.Sqrt(norm)
	}
	X := make([]float32, n*d)
	Y := make([]int32, n)
	for i := 0; i < n; i++ {
		Y[i] = int32(r.IntN(2))
		sign := float64(2*Y[i] - 1)
		for j := 0; j < d; j++ {
			X[i*d+j] = float32(sign*dir[j] + r.NormFloat64())
		}
	}
	return X, Y
}

// TestDPLogisticRegressionLearnsSeparableData: DP-SGD (σ = 1, C = 1,
// q = 0.05, T = 400) on 2,000 records of two Gaussian blobs in 20
// dimensions must reach ≥ 97% accuracy on 2,000 fresh test records (the
// Bayes rate is 99.87%; the noise per coordinate of the averaged gradient
// is σC/(qN) = 0.01, small against the signal).
func TestDPLogisticRegressionLearnsSeparableData(t *testing.T) {
	Xall, Yall := separableData(1, 4000, 20)
	X, Y, Xt, Yt := Xall[:2000*20], Yall[:2000], Xall[2000*20:], Yall[2000:]
	m := mustModel(t, Arch{Kind: KindLogReg}, []int{20}, 2, 1)
	cfg := DPSGD{ClipNorm: 1, NoiseMultiplier: 1, SamplingRate: 0.05, Steps: 400, LearningRate: 0.5}
	res := mustTrain(t, m, X, Y, cfg, rng.New(1, "logreg"), nil)
	acc, err := m.Accuracy(Xt, Yt)
	if err != nil {
		t.Fatal(err)
	}
	if acc < 0.97 {
		t.Errorf("test accuracy %.4f, want ≥ 0.97", acc)
	}
	if !res.MatchesAccountant || len(res.Warnings) != 0 {
		t.Errorf("Poisson + hard clip: MatchesAccountant %v, warnings %q", res.MatchesAccountant, res.Warnings)
	}
	if math.Abs(res.MeanBatchSize-100) > 5*math.Sqrt(95.0/400) {
		t.Errorf("mean batch size %.2f, want qN = 100", res.MeanBatchSize)
	}
	loss, _ := m.Loss(Xt, Yt)
	t.Logf("accuracy %.4f, test loss %.4f, last batch loss %.4f", acc, loss, res.LastBatchLoss)
}

// TestZeroLearningRateKeepsParameters: with η = 0 the parameters never
// change, bit for bit, whatever the noise, momentum and weight decay
// (Nasr et al.'s malicious-dataset setting, reference note §3.6).
func TestZeroLearningRateKeepsParameters(t *testing.T) {
	m := mustModel(t, Arch{Kind: KindMLP, Hidden: []int{6}}, []int{5}, 3, 1)
	p0 := m.Params()
	X, Y := randomData(1, 50, 5, 3)
	cfg := DPSGD{ClipNorm: 1, NoiseMultiplier: 2, SamplingRate: 0.3, Steps: 20, Momentum: 0.9, WeightDecay: 0.1}
	steps := 0
	mustTrain(t, m, X, Y, cfg, rng.New(1, "lr0"), &Hooks{OnStep: func(s *Step) error {
		steps++
		if !slices.Equal(s.Params, p0) {
			t.Errorf("step %d: parameters changed", s.Index)
		}
		return nil
	}})
	if steps != 20 || !slices.Equal(m.Params(), p0) {
		t.Errorf("after %d steps parameters changed with learning rate 0", steps)
	}
}

// TestCanaryIsAddedWithProbabilityQ: with σ = 0 the noisy sum is exactly
// the clipped sum plus the canary on the steps that drew it, and the
// number of such steps is Binomial(T, q): T = 2,000, q = 0.3 → 600 ± 5·√420.
func TestCanaryIsAddedWithProbabilityQ(t *testing.T) {
	m := mustModel(t, Arch{Kind: KindLogReg}, []int{4}, 3, 1)
	X, Y := randomData(2, 30, 4, 3)
	canary := make([]float32, m.NumParams())
	canary[0], canary[3] = 0.6, 0.8 // norm 1 = C
	included := 0
	cfg := DPSGD{ClipNorm: 1, SamplingRate: 0.3, Steps: 2000, LearningRate: 0}
	res := mustTrain(t, m, X, Y, cfg, rng.New(3, "canary"), &Hooks{Canary: canary, CleanSum: true,
		OnStep: func(s *Step) error {
			for j, v := range s.NoisySum {
				want := s.ClippedSum[j]
				if s.CanaryIncluded {
					want += canary[j]
				}
				if v != want {
					t.Fatalf("step %d coordinate %d: noisy sum %g, want %g", s.Index, j, v, want)
				}
			}
			if s.CanaryIncluded {
				included++
			}
			return nil
		}})
	if included != res.CanarySteps || math.Abs(float64(included)-600) > 5*math.Sqrt(420) {
		t.Errorf("canary in %d steps (result says %d), want 600 ± 102", included, res.CanarySteps)
	}
	big := append([]float32(nil), canary...)
	big[1] = 0.1
	if _, err := Train(m, X, Y, cfg, rng.New(3, "canary"), &Hooks{Canary: big}); err == nil || !strings.Contains(err.Error(), "canary norm") {
		t.Errorf("canary of norm > C: error %v, want a canary-norm error", err)
	}
}

// TestTargetRecordAndBeforeStep: the Target record is index N, sampled
// like the others (q = 1: every step), its features can be rewritten by
// BeforeStep, and its clipped gradient in the step is the clipped
// gradient of the rewritten record at the step's parameters (relative
// 1e−5: same formula, different chunk).
func TestTargetRecordAndBeforeStep(t *testing.T) {
	m := mustModel(t, Arch{Kind: KindMLP, Hidden: []int{5}, Activation: Tanh}, []int{4}, 3, 1)
	X, Y := randomData(4, 10, 4, 3)
	target := &Record{X: []float32{0, 0, 0, 0}, Y: 2}
	h := &Hooks{Target: target, PerExample: true}
	h.BeforeStep = func(step int, params []float32, tg *Record) error {
		for j := range tg.X {
			tg.X[j] = float32(step+1) * 0.3 * float32(j-1)
		}
		return nil
	}
	P := m.NumParams()
	h.OnStep = func(s *Step) error {
		if len(s.Batch) != 11 || s.Batch[10] != 10 {
			t.Fatalf("step %d: batch %v, want 0…10 with the target last", s.Index, s.Batch)
		}
		probe := m.Clone()
		if err := probe.SetParams(s.Params); err != nil {
			return err
		}
		g := make([]float32, P)
		norm := make([]float64, 1)
		if err := probe.PerExampleGradients(target.X, []int32{target.Y}, g, norm); err != nil {
			return err
		}
		c := math.Min(1, 0.5/norm[0])
		row := s.PerExample[10*P : 11*P]
		for j := range g {
			if !closeTo(float64(row[j]), c*float64(g[j]), 1e-9, 1e-5) {
				t.Fatalf("step %d: target gradient %s = %g, want %g", s.Index, m.paramName(j), row[j], c*float64(g[j]))
			}
		}
		return nil
	}
	cfg := DPSGD{ClipNorm: 0.5, NoiseMultiplier: 1, SamplingRate: 1, Steps: 5, LearningRate: 0.1}
	res := mustTrain(t, m, X, Y, cfg, rng.New(5, "target"), h)
	if res.Normalizer != 10 {
		t.Errorf("normaliser %g, want q·N = 10 (the target does not count)", res.Normalizer)
	}
}

// TestEmptyBatchesAndWarnings: q·N < 1 warns (not an error) and empty
// Poisson batches are noise-only steps; fixed-size shuffling is flagged as
// not matching the accountant.
func TestEmptyBatchesAndWarnings(t *testing.T) {
	m := mustModel(t, Arch{Kind: KindLogReg}, []int{3}, 2, 1)
	X, Y := randomData(5, 20, 3, 2)
	p0 := m.Params()
	cfg := DPSGD{ClipNorm: 1, NoiseMultiplier: 1, SamplingRate: 0.01, Steps: 50, LearningRate: 0.1}
	res := mustTrain(t, m, X, Y, cfg, rng.New(6, "empty"), nil)
	if len(res.Warnings) != 1 || !strings.Contains(res.Warnings[0], "most Poisson batches are empty") {
		t.Errorf("warnings %q, want one about empty batches", res.Warnings)
	}
	// P(empty) = 0.99²⁰ = 0.818, so 40.9 ± 2.7 of 50 steps are empty; the
	// parameters still move (noise-only steps).
	if math.Abs(float64(res.EmptyBatches)-40.9) > 5*2.73 || slices.Equal(m.Params(), p0) {
		t.Errorf("%d of 50 batches empty (expect 40.9 ± 2.7); parameters changed: %v", res.EmptyBatches, !slices.Equal(m.Params(), p0))
	}
	cfg.Sampling, cfg.SamplingRate = SampleShuffle, 0.25
	var sizes []int
	res = mustTrain(t, m, X, Y, cfg, rng.New(6, "shuffle"), &Hooks{OnStep: func(s *Step) error {
		sizes = append(sizes, len(s.Batch))
		return nil
	}})
	if res.MatchesAccountant || len(res.Warnings) != 1 || !strings.Contains(res.Warnings[0], "shuffle") {
		t.Errorf("shuffle: MatchesAccountant %v, warnings %q", res.MatchesAccountant, res.Warnings)
	}
	for _, b := range sizes {
		if b != 5 {
			t.Fatalf("shuffle batch sizes %v, want all 5", sizes)
		}
	}
}

// TestErrors: bad input and numerical blow-ups stop the run with an error
// naming what and where, and never return a result.
func TestErrors(t *testing.T) {
	arch := Arch{Kind: KindMLP, Hidden: []int{4}}
	good := DPSGD{ClipNorm: 1, NoiseMultiplier: 1, SamplingRate: 0.5, Steps: 3, LearningRate: 0.1}
	nan := float32(math.NaN())
	cases := []struct {
		name  string
		cfg   func(*DPSGD)
		data  func(X []float32, Y []int32) ([]float32, []int32)
		hooks *Hooks
		want  string
	}{
		{"short X", nil, func(X []float32, Y []int32) ([]float32, []int32) { return X[:len(X)-1], Y }, nil, "features"},
		{"bad label", nil, func(X []float32, Y []int32) ([]float32, []int32) { Y[3] = 7; return X, Y }, nil, "label of record 3 is 7"},
		{"NaN upfront", nil, func(X []float32, Y []int32) ([]float32, []int32) { X[2*6+4] = nan; return X, Y }, nil, "record 2 feature 4 is NaN"},
		{"NaN gathered", func(c *DPSGD) { c.Steps = 1 }, func(X []float32, Y []int32) ([]float32, []int32) {
			for i := range X {
				X[i] = float32(math.Inf(1))
			}
			return X, Y
		}, nil, "step 0: record"},
		{"exploding", func(c *DPSGD) { c.LearningRate = 1e38; c.Steps = 50 }, nil, nil, "step 1: noisy gradient of layer 0 (dense 6→4)"},
		{"overflow in update", func(c *DPSGD) { c.ClipNorm, c.NoiseMultiplier, c.LearningRate = math.Inf(1), 0, 1e38 },
			func(X []float32, Y []int32) ([]float32, []int32) {
				for i := range X {
					X[i] *= 1000
				}
				return X, Y
			}, nil, "step 0: parameter layer 0 (dense 6→4) weight"},
		// with noise and no on-step hook the update follows each noise block
		// (trainer.noiseBlock): the same check, on one thread and on two
		{"overflow in fused update", func(c *DPSGD) { c.NoiseMultiplier, c.LearningRate = 100, 1e38 }, nil, nil,
			"step 0: parameter layer 0 (dense 6→4) weight"},
		{"overflow in fused update, 2 threads", func(c *DPSGD) { c.NoiseMultiplier, c.LearningRate, c.Threads = 100, 1e38, 2 }, nil, nil,
			"step 0: parameter layer 0 (dense 6→4) weight"},
		{"huge inputs", nil, func(X []float32, Y []int32) ([]float32, []int32) {
			for i := range X {
				X[i] = 3e38
			}
			return X, Y
		}, nil, "noisy gradient of layer"},
		{"q = 0", func(c *DPSGD) { c.SamplingRate = 0 }, nil, nil, "SamplingRate"},
		{"noise without clip", func(c *DPSGD) { c.ClipNorm = math.Inf(1) }, nil, nil, "infinite"},
		{"soft without clip", func(c *DPSGD) { c.ClipNorm = math.Inf(1); c.NoiseMultiplier = 0; c.Clip = ClipSoft }, nil, nil, "soft clipping needs"},
		{"bad sampling", func(c *DPSGD) { c.Sampling = "uniform" }, nil, nil, `"shuffle", "fixed_size", "balls_in_bins" or "cyclic"`},
		{"hook error", nil, nil, &Hooks{OnStep: func(*Step) error { return errors.New("stop here") }}, "step 0: on-step hook: stop here"},
		{"target shape", nil, nil, &Hooks{Target: &Record{X: []float32{1}, Y: 0}}, "target record has 1 features"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			m := mustModel(t, arch, []int{6}, 3, 1)
			X, Y := randomData(7, 20, 6, 3)
			if c.data != nil {
				X, Y = c.data(X, Y)
			}
			cfg := good
			if c.cfg != nil {
				c.cfg(&cfg)
			}
			res, err := Train(m, X, Y, cfg, rng.New(1, "errors"), c.hooks)
			if err == nil || res != nil {
				t.Fatalf("got result %v, error %v; want an error containing %q", res, err, c.want)
			}
			if !strings.Contains(err.Error(), c.want) {
				t.Errorf("error %q, want it to contain %q", err, c.want)
			}
		})
	}
	if _, err := NewModel(TanhCNN(), []int{784}, 10, 1); err == nil || !strings.Contains(err.Error(), "[C, H, W]") {
		t.Errorf("CNN on a flat input: error %v", err)
	}
	if _, err := NewModel(TanhCNN(), []int{1, 6, 6}, 10, 1); err == nil || !strings.Contains(err.Error(), "layers[3]: conv2d kernel 4 > input 2×2 (after layers[2] avgpool)") {
		t.Errorf("CNN on a 6×6 input: error %v", err)
	}
}
