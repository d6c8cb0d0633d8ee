package learn

import (
	"encoding/binary"
	"hash/fnv"
	"math"
	"testing"

	"github.com/dpaudit/dpaudit/rng"
)

// streamHash runs one training run and hashes everything the hooks see
// (step index, parameters, batch, canary flag, noisy sum, norms, losses,
// clean sum, per-example gradients) and the final parameters.
func streamHash(t *testing.T, a Arch, in []int, threads, chunk int, seed uint64, observe bool) (uint64, []float32) {
	t.Helper()
	m := mustModel(t, a, in, 10, 1)
	X, Y := randomData(3, 300, m.InputSize(), 10)
	canary := make([]float32, m.NumParams())
	canary[5], canary[len(canary)-1] = 0.6, -0.8
	h := fnv.New64a()
	var buf []byte
	put := func(vs ...float64) {
		buf = buf[:0]
		for _, v := range vs {
			buf = binary.LittleEndian.AppendUint64(buf, math.Float64bits(v))
		}
		h.Write(buf)
	}
	put32 := func(vs []float32) {
		buf = buf[:0]
		for _, v := range vs {
			buf = binary.LittleEndian.AppendUint32(buf, math.Float32bits(v))
		}
		h.Write(buf)
	}
	hooks := &Hooks{Canary: canary}
	if observe {
		hooks.PerExample, hooks.CleanSum = true, true
		hooks.OnStep = func(s *Step) error {
			put(float64(s.Index), s.Normalizer)
			if s.CanaryIncluded {
				put(1)
			}
			for _, i := range s.Batch {
				put(float64(i))
			}
			put32(s.Params)
			put32(s.NoisySum)
			put(s.Norms...)
			put(s.Losses...)
			put32(s.ClippedSum)
			put32(s.PerExample)
			return nil
		}
	}
	cfg := DPSGD{ClipNorm: 1, NoiseMultiplier: 0.8, SamplingRate: 0.2, Steps: 12, LearningRate: 0.1,
		Momentum: 0.5, WeightDecay: 1e-3, Threads: threads, ChunkSize: chunk}
	mustTrain(t, m, X, Y, cfg, rng.New(seed, "determinism"), hooks)
	put32(m.params)
	return h.Sum64(), m.Params()
}

// TestHookStreamIdenticalForAnyThreadCount: one seed gives bit-identical
// hook observations and final parameters for 1, 2, 3 and 4 threads, on an
// MLP with two noise blocks (19,090 parameters > 16,384) and on a CNN, with
// chunks of 16 so that a batch of ~60 spans several chunks and rounds.
func TestHookStreamIdenticalForAnyThreadCount(t *testing.T) {
	cases := []struct {
		name string
		arch Arch
		in   []int
	}{
		{"mlp", Arch{Kind: KindMLP, Hidden: []int{24}, Activation: ELU}, []int{784}},
		{"cnn", Arch{Kind: KindCNN, Hidden: []int{8}, Conv: []ConvSpec{{Filters: 4, Kernel: 3, Stride: 2, Padding: 1, Pool: 2, PoolStride: 1}}}, []int{2, 10, 10}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			want, _ := streamHash(t, c.arch, c.in, 1, 16, 42, true)
			for _, threads := range []int{2, 3, 4} {
				if got, _ := streamHash(t, c.arch, c.in, threads, 16, 42, true); got != want {
					t.Errorf("threads %d: hook stream hash %x, want %x (threads 1)", threads, got, want)
				}
			}
			if again, _ := streamHash(t, c.arch, c.in, 1, 16, 42, true); again != want {
				t.Errorf("same seed, same threads: hash %x then %x", want, again)
			}
			if other, _ := streamHash(t, c.arch, c.in, 1, 16, 43, true); other == want {
				t.Errorf("seeds 42 and 43 gave the same hook stream")
			}
		})
	}
}

// TestOneChunkSplitGEMMsIdentical: when a step is one chunk, the idle
// workers share its GEMMs (sgemm → gemm.SgemmParallel); an MLP 784-512-10
// with batches of ≈ 60 (one chunk, 48 MFLOP per first-layer product, over
// minParallelFlops) must train to the same bits on 1, 2 and 3 threads.
func TestOneChunkSplitGEMMsIdentical(t *testing.T) {
	a := Arch{Kind: KindMLP, Hidden: []int{512}}
	want, _ := streamHash(t, a, []int{784}, 1, 0, 11, false)
	for _, threads := range []int{2, 3} {
		if got, _ := streamHash(t, a, []int{784}, threads, 0, 11, false); got != want {
			t.Errorf("threads %d: hash %x, want %x (threads 1)", threads, got, want)
		}
	}
}

// TestObservingDoesNotChangeTraining: requesting per-example gradients and
// the clean sum leaves the final parameters bit-identical.
func TestObservingDoesNotChangeTraining(t *testing.T) {
	a := Arch{Kind: KindCNN, Hidden: []int{8}, Conv: []ConvSpec{{Filters: 4, Kernel: 3, Stride: 2, Padding: 1}}}
	_, observed := streamHash(t, a, []int{1, 9, 9}, 2, 16, 7, true)
	_, blind := streamHash(t, a, []int{1, 9, 9}, 1, 16, 7, false)
	for j := range observed {
		if math.Float32bits(observed[j]) != math.Float32bits(blind[j]) {
			t.Fatalf("parameter %d: %g with hooks, %g without", j, observed[j], blind[j])
		}
	}
}

// TestFusedUpdateIdentical: without an on-step hook each noise block's
// parameters are updated right after its noise, on the worker that drew
// it (trainer.noiseBlock); with a hook the whole noisy sum is shown first
// and then updated. Both must give the same bits, on an MLP with two noise
// blocks (19,090 parameters), with momentum and weight decay, on 1, 2 and 3
// threads (one chunk: the GEMMs are shared too; chunks of 16: rounds).
func TestFusedUpdateIdentical(t *testing.T) {
	a := Arch{Kind: KindMLP, Hidden: []int{24}, Activation: ELU}
	for _, chunk := range []int{0, 16} {
		_, want := streamHash(t, a, []int{784}, 1, chunk, 5, true) // hook: not fused
		for _, threads := range []int{1, 2, 3} {
			_, got := streamHash(t, a, []int{784}, threads, chunk, 5, false)
			for j := range want {
				if math.Float32bits(got[j]) != math.Float32bits(want[j]) {
					t.Fatalf("chunk %d, threads %d: parameter %d is %g fused, %g with the hook", chunk, threads, j, got[j], want[j])
				}
			}
		}
	}
}
