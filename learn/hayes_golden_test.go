package learn

import (
	"encoding/binary"
	"hash/fnv"
	"math"
	"runtime"
	"testing"

	"github.com/dpaudit/dpaudit/learn/gemm"
	"github.com/dpaudit/dpaudit/rng"
)

// TestHayesTrainingGolden pins the bits of a small Hayes et al.-shaped run
// (MLP 784-10-10 eLU, full batch of 600 records plus a target, so three
// chunks of 256 with the target's chunk gathered, T = 4): the final
// parameters and every step's losses and norms. The constants were
// recorded with the code of main at 7dfe282, before the per-step audit
// kernels of this file's commit (specialised dot reduction, vector ELU,
// softmax head and narrow-row kernels) replaced the ones it had: those must
// not change a trained bit. The assembly paths (AVX-512, AVX2) agree bit
// for bit; the portable path rounds products separately and has its own
// value.
func TestHayesTrainingGolden(t *testing.T) {
	if runtime.GOARCH != "amd64" {
		// The hashed losses go through math.Log, whose last bit may differ
		// on other architectures (see kernels.go).
		t.Skip("constants recorded on amd64")
	}
	asm := map[Activation]uint64{ELU: 0x193da4a94f667742, Tanh: 0xa159eab948992271, ReLU: 0x16dbfa54c9e410f8}
	want := map[string]map[Activation]uint64{
		"avx512": asm,
		"avx2":   asm, // GODEBUG=cpu.avx512f=off
		"purego": {ELU: 0x981db13012bdf9f5, Tanh: 0xf5067c8a8182240d, ReLU: 0x6ebbafcc4d9e0f12},
	}
	for _, act := range []Activation{ELU, Tanh, ReLU} {
		m := mustModel(t, Arch{Kind: KindMLP, Hidden: []int{10}, Activation: act}, []int{784}, 10, 7)
		X, Y := randomData(11, 601, 784, 10)
		n := 600
		h := fnv.New64a()
		var buf []byte
		put := func(vs ...float64) {
			buf = buf[:0]
			for _, v := range vs {
				buf = binary.LittleEndian.AppendUint64(buf, math.Float64bits(v))
			}
			h.Write(buf)
		}
		hooks := &Hooks{Target: &Record{X: X[n*784:], Y: Y[n]}, OnStep: func(s *Step) error {
			put(s.Losses...)
			put(s.Norms...)
			return nil
		}}
		cfg := DPSGD{ClipNorm: 0.1, NoiseMultiplier: 2, SamplingRate: 1, Steps: 4, LearningRate: 1}
		mustTrain(t, m, X[:n*784], Y[:n], cfg, rng.New(5, "test/hayes-golden"), hooks)
		for _, v := range m.params {
			buf = binary.LittleEndian.AppendUint32(buf[:0], math.Float32bits(v))
			h.Write(buf)
		}
		if got, w := h.Sum64(), want[gemm.Path()][act]; got != w {
			t.Errorf("%s %v: hash %#x, want %#x (trained bits changed)", gemm.Path(), act, got, w)
		}
	}
}
