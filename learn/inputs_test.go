package learn

import (
	"fmt"
	"math"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/dpaudit/dpaudit/datasets"
	"github.com/dpaudit/dpaudit/rng"
)

// codedData returns n records of d features that are 8-bit image pixels
// as the datasets package stores them, float32(float64(k)/255) with k
// uniform in 0…255 (half of them 0, like MNIST's background, and in two
// thirds of the records only between a random first and last feature, so
// that the stored spans differ from record to record), and labels in
// 0…classes−1.
func codedData(seed uint64, n, d, classes int) ([]float32, []int32) {
	r := rng.New(seed, "test/coded")
	X := make([]float32, n*d)
	for i := 0; i < n; i++ {
		lo, hi := 0, d
		if i%3 != 0 {
			lo = r.IntN(d)
			hi = lo + r.IntN(d-lo) + 1
		}
		for j := lo; j < hi; j++ {
			if r.IntN(2) == 0 {
				X[i*d+j] = float32(float64(r.IntN(256)) / 255)
			}
		}
	}
	Y := make([]int32, n)
	for i := range Y {
		Y[i] = int32(r.IntN(classes))
	}
	return X, Y
}

// TestDecodeRowExact: every code decodes to float32(float64(k)/255) bit for
// bit, on rows of every length mod 16 (the vector kernel's blocks and the
// table's tail), on whichever decoder this build uses (see also
// TestDecodeKernels for each vector kernel).
func TestDecodeRowExact(t *testing.T) {
	for n := 0; n <= 300; n++ {
		src := make([]uint8, n)
		for j := range src {
			src[j] = uint8((j*37 + n) % 256)
		}
		dst := make([]float32, n+1)
		dst[n] = 42
		decodeRow(dst[:n], src)
		for j, c := range src {
			if want := float32(float64(c) / 255); math.Float32bits(dst[j]) != math.Float32bits(want) {
				t.Fatalf("n = %d: code %d decoded to %v (%#x), want %v (%#x)", n, c, dst[j], math.Float32bits(dst[j]), want, math.Float32bits(want))
			}
		}
		if dst[n] != 42 {
			t.Fatalf("n = %d: decodeRow wrote past the row", n)
		}
	}
}

// TestEncodeRow: a row is coded only if every feature is exactly a code's
// float; the codes decode back to the same bits.
func TestEncodeRow(t *testing.T) {
	row := make([]float32, 20)
	for j := range row {
		row[j] = float32(float64(j*13) / 255)
	}
	codes := make([]uint8, len(row))
	if !encodeRow(codes, row) {
		t.Fatal("row of codes' floats not coded")
	}
	back := make([]float32, len(row))
	decodeRow(back, codes)
	for j := range row {
		if math.Float32bits(back[j]) != math.Float32bits(row[j]) || int(codes[j]) != j*13 {
			t.Fatalf("feature %d: %v → code %d → %v", j, row[j], codes[j], back[j])
		}
	}
	next := func(x float32, d int) float32 { return math.Float32frombits(uint32(int(math.Float32bits(x)) + d)) }
	for _, bad := range []float32{
		float32(math.Copysign(0, -1)), // −0 is not code 0's bits
		float32(math.NaN()), float32(math.Inf(1)), -1e-30, 0.3, 1.5,
		next(float32(7.0/255), 1), next(float32(7.0/255), -1), next(1, 1),
	} {
		r := slices.Clone(row)
		r[11] = bad
		if encodeRow(codes, r) {
			t.Errorf("row with %v (%#x) coded", bad, math.Float32bits(bad))
		}
	}
}

// TestTrainInputsBitIdentical: TrainInputs gives the very same run as
// Train on the same floats — every parameter bit for bit, and the same
// Result — on coded rows, rows that must stay floats, a target record,
// with and without the up-front scan (q·T ≥ 1 or not), dense and
// convolutional first layers, one and two threads, reading coded rows
// from their codes or not (gatherCodes). Run it with -tags purego too for
// the portable decoder.
func TestTrainInputsBitIdentical(t *testing.T) {
	const n, classes = 300, 3
	type tc struct {
		name  string
		arch  Arch
		shape []int
		cfg   DPSGD
	}
	cases := []tc{
		{"logreg", Arch{Kind: KindLogReg}, []int{49}, DPSGD{ClipNorm: 1, NoiseMultiplier: 0.8, SamplingRate: 0.1, Steps: 30, LearningRate: 0.5}},
		{"logreg-sparse-steps", Arch{Kind: KindLogReg}, []int{49}, DPSGD{ClipNorm: 1, NoiseMultiplier: 0.8, SamplingRate: 0.02, Steps: 20, LearningRate: 0.5}},
		{"mlp-2threads", Arch{Kind: KindMLP, Hidden: []int{8}, Activation: ELU}, []int{49}, DPSGD{ClipNorm: 0.5, NoiseMultiplier: 1, SamplingRate: 0.5, Steps: 10, LearningRate: 0.3, Threads: 2, ChunkSize: 32}},
		{"mlp-full-batch", Arch{Kind: KindMLP, Hidden: []int{8}}, []int{49}, DPSGD{ClipNorm: 0.1, NoiseMultiplier: 2, SamplingRate: 1, Steps: 5, LearningRate: 1}},
		{"mlp-noclip", Arch{Kind: KindMLP, Hidden: []int{8}}, []int{49}, DPSGD{ClipNorm: math.Inf(1), SamplingRate: 0.2, Steps: 10, LearningRate: 0.1}},
		{"cnn-chw", Arch{Kind: KindCNN, Activation: Tanh, Conv: []ConvSpec{{Filters: 2, Kernel: 3, Stride: 1}}}, []int{2, 5, 5}, DPSGD{ClipNorm: 1, NoiseMultiplier: 1, SamplingRate: 0.1, Steps: 10, LearningRate: 0.1}},
	}
	defer func(g bool) { gatherCodes = g }(gatherCodes)
	for _, c := range cases {
		for _, codes := range []bool{true, false} {
			gatherCodes = codes
			t.Run(fmt.Sprintf("%s/codes=%v", c.name, codes), func(t *testing.T) {
				d := 1
				for _, s := range c.shape {
					d *= s
				}
				X, Y := codedData(1, n, d, classes)
				X[5*d+3] = 0.3                                        // not a code: row 5 stays floats
				X[17*d] = float32(math.Copysign(0, -1))               // −0: row 17 stays floats
				X[40*d+d-1] = math.Nextafter32(float32(200.0/255), 2) // one ulp off a code
				in, err := NewInputs(X, Y, d)
				if err != nil {
					t.Fatal(err)
				}
				if got := in.CodedRows(); got != n-3 {
					t.Fatalf("CodedRows = %d, want %d", got, n-3)
				}
				tx, ty := codedData(2, 1, d, classes)
				for _, withTarget := range []bool{false, true} {
					var hooks [2]*Hooks
					var steps [2]int
					for k := range hooks {
						hooks[k] = &Hooks{OnStep: func(s *Step) error { steps[k]++; return nil }}
						if withTarget {
							hooks[k].Target = &Record{X: tx, Y: ty[0]}
						}
					}
					m0 := mustModel(t, c.arch, c.shape, classes, 7)
					m1 := m0.Clone()
					r0 := mustTrain(t, m0, X, Y, c.cfg, rng.New(3, "inputs"), hooks[0])
					r1, err := TrainInputs(m1, in, c.cfg, rng.New(3, "inputs"), hooks[1])
					if err != nil {
						t.Fatal(err)
					}
					p0, p1 := m0.Params(), m1.Params()
					for i := range p0 {
						if math.Float32bits(p0[i]) != math.Float32bits(p1[i]) {
							t.Fatalf("target %v: parameter %d: Train %v, TrainInputs %v", withTarget, i, p0[i], p1[i])
						}
					}
					if !sameResult(r0, r1) || steps[0] != steps[1] || steps[0] != c.cfg.Steps {
						t.Errorf("target %v: results differ: %+v vs %+v", withTarget, *r0, *r1)
					}
				}
			})
		}
	}
}

func sameResult(a, b *Result) bool {
	return a.Steps == b.Steps && math.Float64bits(a.LastBatchLoss) == math.Float64bits(b.LastBatchLoss) &&
		a.MeanBatchSize == b.MeanBatchSize && a.EmptyBatches == b.EmptyBatches && a.CanarySteps == b.CanarySteps &&
		a.Normalizer == b.Normalizer && a.MatchesAccountant == b.MatchesAccountant && slices.Equal(a.Warnings, b.Warnings)
}

// TestTrainInputsMNIST: on real MNIST 0-vs-1 (BenchmarkAuditTrial's logreg
// workload, shortened) every record is coded and TrainInputs
// matches Train bit for bit. Skipped without the data set.
func TestTrainInputsMNIST(t *testing.T) {
	s, err := datasets.Load(datasets.Source{Name: datasets.SourceMNIST}, datasets.Options{Classes: []int{0, 1}, TrainSize: 2000, Flatten: true, Seed: 1}, datasets.DefaultDataDir())
	if err != nil {
		if os.Getenv("DPAUDIT_REQUIRE_DATA") != "" {
			t.Fatal(err)
		}
		t.Skipf("MNIST not available: %v", err)
	}
	X, Y := s.Train.X, s.Train.Y
	D := s.Train.D
	n := len(Y) - 1 // the last record is the target
	in, err := NewInputs(X[:n*D], Y[:n], D)
	if err != nil {
		t.Fatal(err)
	}
	if in.CodedRows() != n {
		t.Fatalf("%d of %d MNIST records coded, want all", in.CodedRows(), n)
	}
	cfg := DPSGD{ClipNorm: 1, NoiseMultiplier: 0.8519, SamplingRate: 0.01, Steps: 200, LearningRate: 0.5}
	m0 := mustModel(t, Arch{Kind: KindLogReg}, []int{D}, 2, 3)
	m1 := m0.Clone()
	h := func() *Hooks { return &Hooks{Target: &Record{X: X[n*D:], Y: Y[n]}} }
	mustTrain(t, m0, X[:n*D], Y[:n], cfg, rng.New(1, "inputs/mnist"), h())
	if _, err := TrainInputs(m1, in, cfg, rng.New(1, "inputs/mnist"), h()); err != nil {
		t.Fatal(err)
	}
	p0, p1 := m0.Params(), m1.Params()
	for i := range p0 {
		if math.Float32bits(p0[i]) != math.Float32bits(p1[i]) {
			t.Fatalf("parameter %d: Train %v, TrainInputs %v", i, p0[i], p1[i])
		}
	}
}

// TestTrainInputsErrors: bad inputs are refused as Train refuses them,
// with the same message for a non-finite feature.
func TestTrainInputsErrors(t *testing.T) {
	X, Y := codedData(1, 10, 4, 2)
	if _, err := NewInputs(X[:39], Y, 4); err == nil {
		t.Error("NewInputs accepted 39 features for 10×4")
	}
	if _, err := NewInputs(X, Y, 0); err == nil {
		t.Error("NewInputs accepted d = 0")
	}
	cfg := DPSGD{ClipNorm: 1, NoiseMultiplier: 1, SamplingRate: 0.5, Steps: 4, LearningRate: 0.1}
	in, _ := NewInputs(X, Y, 4)
	if _, err := TrainInputs(mustModel(t, Arch{Kind: KindLogReg}, []int{5}, 2, 1), in, cfg, rng.New(1), nil); err == nil || !strings.Contains(err.Error(), "features per record") {
		t.Errorf("model with 5 inputs on 4-feature inputs: %v", err)
	}
	if _, err := TrainInputs(mustModel(t, Arch{Kind: KindLogReg}, []int{4}, 2, 1), nil, cfg, rng.New(1), nil); err == nil {
		t.Error("nil inputs accepted")
	}
	Y3 := slices.Clone(Y)
	Y3[2] = 5
	in3, _ := NewInputs(X, Y3, 4)
	if _, err := TrainInputs(mustModel(t, Arch{Kind: KindLogReg}, []int{4}, 2, 1), in3, cfg, rng.New(1), nil); err == nil || !strings.Contains(err.Error(), "label of record 2") {
		t.Errorf("label 5 of 2 classes: %v", err)
	}
	for _, arch := range []Arch{{Kind: KindLogReg}, {Kind: KindMLP, Hidden: []int{3}}} {
		Xn := slices.Clone(X)
		Xn[6*4+2] = float32(math.Inf(-1))
		inN, err := NewInputs(Xn, Y, 4)
		if err != nil {
			t.Fatal(err)
		}
		_, want := Train(mustModel(t, arch, []int{4}, 2, 1), Xn, Y, cfg, rng.New(1), nil)
		_, got := TrainInputs(mustModel(t, arch, []int{4}, 2, 1), inN, cfg, rng.New(1), nil)
		if want == nil || got == nil || got.Error() != want.Error() {
			t.Errorf("%s: non-finite feature: TrainInputs %v, Train %v", arch, got, want)
		}
	}
}
