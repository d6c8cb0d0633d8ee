package learn

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/dpaudit/dpaudit/privacy"
	"github.com/dpaudit/dpaudit/rng"
)

// TestCorrelatedNoiseSolvesC: the noise rows z_t the recurrence produces
// satisfy C·Z = W, W being the independent rows DP-SGD would have drawn
// from the same stream: Σ_i c_i·z_{t−i} = w_t for every t and coordinate
// (float32 arithmetic: 1e-4 absolute on N(0, 1) entries), for a banded
// Toeplitz strategy (8 bands of the optimal coefficients) and a BLT.
func TestCorrelatedNoiseSolvesC(t *testing.T) {
	const n, T = 300, 40
	omega, theta := []float64{0.3, 0.1}, []float64{0.9, 0.5}
	blt, err := privacy.BLTCoefficients(omega, theta, T)
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name string
		c    *CorrelatedNoise
		coef []float64
	}{
		{"banded", &CorrelatedNoise{Toeplitz: privacy.OptimalToeplitzCoefficients(8)}, privacy.OptimalToeplitzCoefficients(8)},
		{"banded c0=2", &CorrelatedNoise{Toeplitz: []float64{2, 0.5, 0.25}}, []float64{2, 0.5, 0.25}},
		{"blt", &CorrelatedNoise{Omega: omega, Theta: theta}, blt},
	}
	for _, c := range cases {
		if err := c.c.Validate(T); err != nil {
			t.Fatal(err)
		}
		iid := newWordStream(rng.Key(9, "mf-test"))
		cor := newWordStream(rng.Key(9, "mf-test"))
		s := newCorrState(c.c, n)
		var W, Z [][]float32
		for step := 0; step < T; step++ {
			w := make([]float32, n)
			addNormalStream(iid, w, 1)
			z := make([]float32, n)
			if !s.add(cor, z, 1) {
				t.Fatalf("%s: non-finite noise", c.name)
			}
			W, Z = append(W, w), append(Z, z)
		}
		worst := 0.0
		for step := 0; step < T; step++ {
			for j := 0; j < n; j++ {
				v := 0.0
				for i := 0; i < len(c.coef) && i <= step; i++ {
					v += c.coef[i] * float64(Z[step-i][j])
				}
				worst = math.Max(worst, math.Abs(v-float64(W[step][j])))
			}
		}
		if worst > 1e-4 {
			t.Errorf("%s: max |(C·Z − W)| = %.3g", c.name, worst)
		}
	}
}

// TestCorrelatedNoiseValidate: a band count above T, c_0 ≤ 0, and BLT
// buffers outside [0, 1) are refused with the reason.
func TestCorrelatedNoiseValidate(t *testing.T) {
	base := DPSGD{ClipNorm: 1, NoiseMultiplier: 1, SamplingRate: 0.1, Steps: 10}
	for _, c := range []*CorrelatedNoise{
		{Toeplitz: privacy.OptimalToeplitzCoefficients(11)},
		{Toeplitz: []float64{0, 1}},
		{Omega: []float64{1}, Theta: []float64{1}},
		{Omega: []float64{1}},
	} {
		cfg := base
		cfg.Correlated = c
		if err := cfg.Validate(); err == nil {
			t.Errorf("%+v accepted", c)
		}
	}
}

// TestCyclicSampler: with q = 1 every record is in exactly one of the
// groups and the steps cycle through them; with q < 1 a step holds a
// Poisson sample of its group only.
func TestCyclicSampler(t *testing.T) {
	r := rand.New(rand.NewChaCha8(rng.Key(6, "cyclic-test")))
	s := newCyclicSampler(r, rand.NewChaCha8(rng.Key(7, "cyclic-test")), 100, 4, 1)
	seen := make([]int, 100)
	var first [][]int
	var batch []int
	for step := 0; step < 8; step++ {
		batch = s.next(batch)
		for _, i := range batch {
			seen[i]++
		}
		if step < 4 {
			first = append(first, append([]int(nil), batch...))
		} else if fmt.Sprint(batch) != fmt.Sprint(first[step-4]) {
			t.Fatalf("step %d does not repeat step %d", step, step-4)
		}
	}
	for i, c := range seen {
		if c != 2 {
			t.Fatalf("record %d used %d times in two cycles", i, c)
		}
	}
	p := newCyclicSampler(rand.New(rand.NewChaCha8(rng.Key(6, "cyclic-test"))), rand.NewChaCha8(rng.Key(8, "cyclic-test")), 100, 4, 0.5)
	for step := 0; step < 4; step++ {
		batch = p.next(batch)
		in := map[int]bool{}
		for _, i := range first[step] {
			in[i] = true
		}
		for _, i := range batch {
			if !in[i] {
				t.Fatalf("step %d sampled record %d from another group", step, i)
			}
		}
	}
}

// BenchmarkBandMF is the training-step cost of banded matrix-factorization
// noise against DP-SGD's independent noise on the MLP 784-512-10 benchmark
// (batch 256, 407k parameters): b = 64 bands keep 63 past noise vectors
// and add 63 axpy's per step. Compare the two sub-benchmarks' ns/op
// (scripts/bench-mechanisms.sh bandmf alternates them).
func BenchmarkBandMF(b *testing.B) {
	X, Y := mnistShaped(4096, 10)
	for _, bands := range []int{0, 64} {
		for _, threads := range []int{1, 2} {
			b.Run(fmt.Sprintf("mlp-784-512-10-b256/bands=%d/threads=%d", bands, threads), func(b *testing.B) {
				m := mustModel(b, Arch{Kind: KindMLP, Hidden: []int{512}}, []int{784}, 10, 1)
				cfg := DPSGD{ClipNorm: 1, NoiseMultiplier: 1, SamplingRate: 256.0 / 4096, Sampling: SampleShuffle,
					Steps: b.N, LearningRate: 0.01, Threads: threads}
				if bands > 0 {
					cfg.Correlated = &CorrelatedNoise{Toeplitz: privacy.OptimalToeplitzCoefficients(min(bands, max(b.N, 1)))}
				}
				b.ReportAllocs()
				b.ResetTimer()
				cpu0 := cpuTime()
				mustTrain(b, m, X, Y, cfg, rng.New(1, "bench"), nil)
				reportRates(b, float64(b.N*256), cpuTime()-cpu0, "examples")
			})
		}
	}
}

// TestTrainCorrelatedNoise: through Train, the noise each step adds
// (NoisySum − ClippedSum) is σ·C times the recurrence's z_t, and C·Z = W
// holds for the first coordinates, W being the independent noise the same
// seed gives without Correlated.
func TestTrainCorrelatedNoise(t *testing.T) {
	X, Y := make([]float32, 64*5), make([]int32, 64)
	for i := range Y {
		Y[i] = int32(i % 2)
		X[5*i+i%5] = 1
	}
	coef := []float64{1, 0.5, 0.375, 0.3125}
	noise := func(c *CorrelatedNoise) [][]float32 {
		m, err := NewModel(Arch{Kind: KindLogReg}, []int{5}, 2, 3)
		if err != nil {
			t.Fatal(err)
		}
		var out [][]float32
		cfg := DPSGD{ClipNorm: 1, NoiseMultiplier: 2, SamplingRate: 0.25, Steps: 12, LearningRate: 0.1, Correlated: c}
		h := &Hooks{CleanSum: true, OnStep: func(s *Step) error {
			d := make([]float32, len(s.NoisySum))
			for i := range d {
				d[i] = (s.NoisySum[i] - s.ClippedSum[i]) / 2
			}
			out = append(out, d)
			return nil
		}}
		if _, err := Train(m, X, Y, cfg, rand.New(rand.NewPCG(5, 5)), h); err != nil {
			t.Fatal(err)
		}
		return out
	}
	W, Z := noise(nil), noise(&CorrelatedNoise{Toeplitz: coef})
	for step := range Z {
		for j := range Z[step] {
			v := 0.0
			for i := 0; i < len(coef) && i <= step; i++ {
				v += coef[i] * float64(Z[step-i][j])
			}
			if math.Abs(v-float64(W[step][j])) > 1e-4 {
				t.Fatalf("step %d coordinate %d: (C·Z) = %v, W = %v", step, j, v, W[step][j])
			}
		}
	}
}
