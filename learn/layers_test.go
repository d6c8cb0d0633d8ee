package learn

import (
	"encoding/binary"
	"fmt"
	"hash/fnv"
	"math"
	"runtime"
	"strings"
	"testing"

	"github.com/dpaudit/dpaudit/learn/gemm"
	"github.com/dpaudit/dpaudit/rng"
)

// presetCase is a preset architecture on an input shape.
type presetCase struct {
	name    string
	arch    Arch
	in      []int
	classes int
}

func presetCases() []presetCase {
	return []presetCase{
		{"logreg", Arch{Kind: KindLogReg}, []int{64}, 10},
		{"logreg-sigmoid-nobias-glorot", Arch{Kind: KindLogReg, NoBias: true, Init: InitGlorot}, []int{64}, 2},
		{"mlp-relu", Arch{Kind: KindMLP, Hidden: []int{32, 16}}, []int{64}, 10},
		{"mlp-tanh-on-image", Arch{Kind: KindMLP, Hidden: []int{24}, Activation: Tanh}, []int{1, 8, 8}, 10},
		{"mlp-elu-glorot", Arch{Kind: KindMLP, Hidden: []int{20}, Activation: ELU, Init: InitGlorot}, []int{64}, 3},
		{"cnn-tanh", TanhCNN(), []int{1, 28, 28}, 10},
		{"cnn-bernau", BernauCNN(), []int{1, 28, 28}, 10},
		{"cnn-bernau-maxpool", BernauCNNMaxPool(), []int{1, 28, 28}, 10},
		{"cnn-rgb", Arch{Kind: KindCNN, Activation: ReLU, Hidden: []int{8},
			Conv: []ConvSpec{{Filters: 4, Kernel: 3, Stride: 1, Padding: 1, Pool: 2}, {Filters: 6, Kernel: 2, Stride: 2}}}, []int{3, 9, 9}, 4},
	}
}

// trainHash trains a on random data (a few DP-SGD steps with momentum,
// weight decay and a gradient canary, per-example gradients observed) and
// hashes every step's observations and the final parameters.
func trainHash(t *testing.T, a Arch, in []int, classes int) (uint64, []float32) {
	t.Helper()
	m := mustModel(t, a, in, classes, 3)
	X, Y := randomData(9, 120, m.InputSize(), classes)
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
	canary := make([]float32, m.NumParams())
	canary[1], canary[len(canary)-2] = 0.6, -0.8
	hooks := &Hooks{Canary: canary, PerExample: true, CleanSum: true, OnStep: func(s *Step) error {
		put(s.Norms...)
		put(s.Losses...)
		put32(s.NoisySum)
		put32(s.PerExample)
		return nil
	}}
	cfg := DPSGD{ClipNorm: 1, NoiseMultiplier: 0.7, SamplingRate: 0.25, Steps: 5, LearningRate: 0.1,
		Momentum: 0.5, WeightDecay: 1e-3, Threads: 2, ChunkSize: 16}
	mustTrain(t, m, X, Y, cfg, rng.New(4, "test/presets"), hooks)
	put32(m.params)
	return h.Sum64(), m.Params()
}

// TestPresetsAreLayerLists: every preset trains to the same bits as its
// layer list (arch layers), and to the bits the presets trained to before
// they became layer lists. The constants were recorded with the code of
// main at fac05fa (the presets' own build), under the paths of
// gemm.Path(): AVX2 (here, and GODEBUG=cpu.avx512f=off on an AVX-512
// machine) and purego (-tags purego). AVX-512 shares AVX2's values (as in
// TestHayesTrainingGolden); no AVX-512 machine was at hand to record them.
func TestPresetsAreLayerLists(t *testing.T) {
	if runtime.GOARCH != "amd64" {
		t.Skip("constants recorded on amd64")
	}
	asm := map[string]uint64{
		"logreg": 0x188b1ab207fb43c3, "logreg-sigmoid-nobias-glorot": 0x5e3ae5189fe8f39d,
		"mlp-relu": 0x58d41098fcbb3e6e, "mlp-tanh-on-image": 0xe47fd427fe3297b5, "mlp-elu-glorot": 0x5a09a89007259aca,
		"cnn-tanh": 0x8c10eb04e56fc1fa, "cnn-bernau": 0x73b3c608bfa845f4, "cnn-bernau-maxpool": 0xd3cf1c291d2f5bb0,
		"cnn-rgb": 0xb60e0529db2342c6,
	}
	golden := map[string]map[string]uint64{"avx512": asm, "avx2": asm, "purego": {
		"logreg": 0x79d09dc18bfc5f8b, "logreg-sigmoid-nobias-glorot": 0xd4865fc4eb0dfc45,
		"mlp-relu": 0x1933bea25d58ec80, "mlp-tanh-on-image": 0x135e87001c4186bc, "mlp-elu-glorot": 0x6e0478cbb9941bbc,
		"cnn-tanh": 0x171ca970d86064ce, "cnn-bernau": 0xa5091a9cab6f77a6, "cnn-bernau-maxpool": 0xad5108056455d158,
		"cnn-rgb": 0x62b894b64f191cfd,
	}}
	for _, c := range presetCases() {
		t.Run(c.name, func(t *testing.T) {
			want, wantParams := trainHash(t, c.arch, c.in, c.classes)
			list := c.arch.LayerList(c.classes)
			got, gotParams := trainHash(t, Arch{Kind: KindLayers, Layers: list, Init: c.arch.Init}, c.in, c.classes)
			for j := range wantParams {
				if math.Float32bits(gotParams[j]) != math.Float32bits(wantParams[j]) {
					t.Fatalf("parameter %d: %g as layers [%s], %g as the preset", j, gotParams[j], layersString(list), wantParams[j])
				}
			}
			if got != want {
				t.Fatalf("hook stream %x as layers, %x as the preset", got, want)
			}
			if g, ok := golden[gemm.Path()][c.name]; !ok || g != want {
				t.Errorf("%s on %s: hash %#x, recorded before the presets became lists: %#x", c.name, gemm.Path(), want, g)
			}
		})
	}
}

// TestLayerShapeErrors: a list that does not fit its input names the
// layer, the shape it got and where that shape came from.
func TestLayerShapeErrors(t *testing.T) {
	conv := func(f, k, s, p int) LayerSpec {
		return LayerSpec{Kind: LayerConv2D, Filters: f, Kernel: k, Stride: s, Padding: p}
	}
	dense := func(u int) LayerSpec { return LayerSpec{Kind: LayerDense, Units: u} }
	pool := func(kind string, k int) LayerSpec { return LayerSpec{Kind: kind, Size: k} }
	flat, relu := LayerSpec{Kind: LayerFlatten}, LayerSpec{Kind: "relu"}
	for _, tc := range []struct {
		list    []LayerSpec
		in      []int
		classes int
		want    string
	}{
		{[]LayerSpec{conv(4, 3, 1, 0), relu, pool(LayerMaxPool, 2), conv(8, 5, 1, 0), flat, dense(10)}, []int{1, 10, 10}, 10,
			"layers[3]: conv2d kernel 5 > input 4×4 (after layers[2] maxpool)"},
		{[]LayerSpec{conv(4, 7, 1, 1), flat, dense(10)}, []int{1, 4, 4}, 10,
			"layers[0]: conv2d kernel 7 > input 4×4 padded by 1 (the data's shape)"},
		{[]LayerSpec{conv(4, 3, 1, 0), dense(10)}, []int{1, 8, 8}, 10,
			"layers[1]: dense needs a flat input, got 4×6×6 (after layers[0] conv2d): add {kind: flatten} before it"},
		{[]LayerSpec{conv(4, 3, 1, 0), flat, dense(10)}, []int{784}, 10,
			"layers[0]: conv2d needs a [C, H, W] input, got [784] (the data's shape)"},
		{[]LayerSpec{flat, dense(8), pool(LayerAvgPool, 2), dense(10)}, []int{1, 8, 8}, 10,
			"layers[2]: avgpool needs a [C, H, W] input, got [8] (after layers[1] dense)"},
		{[]LayerSpec{conv(2, 3, 1, 0), pool(LayerAvgPool, 7), flat, dense(10)}, []int{1, 8, 8}, 10,
			"layers[1]: avgpool size 7 > input 6×6 (after layers[0] conv2d)"},
		{[]LayerSpec{flat, dense(8), relu}, []int{64}, 10,
			"layers[2]: the last layer must be dense"},
		{[]LayerSpec{flat, dense(2)}, []int{64}, 3,
			"layers[1]: the last layer has 2 units, but the data has 3 classes (labels 0…2): it needs one unit per class"},
		{[]LayerSpec{flat, dense(1)}, []int{64}, 3,
			"layers[1]: dense 1 is a sigmoid head for 2 classes, but the data has 3 classes"},
		{[]LayerSpec{{Kind: "softmax"}, dense(3)}, []int{64}, 3,
			`layers[0]: softmax unknown layer kind "softmax"`},
		{nil, []int{64}, 3, "layers[0]: the list is empty"},
	} {
		_, err := NewModel(Arch{Kind: KindLayers, Layers: tc.list}, tc.in, tc.classes, 1)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s on %v: error %v\nwant %q", layersString(tc.list), tc.in, err, tc.want)
		}
	}
}

// A user's list with what the presets never build: pooling straight on
// the input, a dense layer without bias, a sigmoid head. It trains, and its
// parameter count is the sum of its layers' (its gradients are checked
// against finite differences in gradcheck_test.go).
func TestLayerListTrains(t *testing.T) {
	list := []LayerSpec{
		{Kind: LayerAvgPool, Size: 2, Stride: 1},
		{Kind: LayerConv2D, Filters: 3, Kernel: 3, Padding: 1},
		{Kind: "tanh"},
		{Kind: LayerMaxPool, Size: 2},
		{Kind: LayerFlatten},
		{Kind: LayerDense, Units: 5, NoBias: true},
		{Kind: "sigmoid"},
		{Kind: LayerDense, Units: 1},
	}
	m := mustModel(t, Arch{Kind: KindLayers, Layers: list}, []int{2, 7, 7}, 2, 1)
	// avgpool 2 s1: 2×6×6; conv 3 k3 p1: 3×6×6 (3·(3·3·2)+3 = 57); maxpool 2:
	// 3×3×3 = 27; dense 27→5 without bias (135); dense 5→1 (6).
	if got, want := m.NumParams(), 57+135+6; got != want {
		t.Fatalf("%d parameters, want %d (%v)", got, want, m.Layers())
	}
	if got, want := m.Arch().String(), "layers avgpool 2 s1, conv2d 3 k3 s1 p1, tanh, maxpool 2 s2, flatten, dense 5 nobias, sigmoid, dense 1"; got != want {
		t.Errorf("String %q, want %q", got, want)
	}
	X, Y := randomData(2, 40, m.InputSize(), 2)
	before := m.Params()
	mustTrain(t, m, X, Y, DPSGD{ClipNorm: 1, NoiseMultiplier: 0.5, SamplingRate: 0.5, Steps: 3, LearningRate: 0.1}, rng.New(1, "t"), nil)
	changed := 0
	for j, v := range m.Params() {
		if v != before[j] {
			changed++
		}
	}
	if changed < m.NumParams()/2 {
		t.Fatalf("training changed %d of %d parameters", changed, m.NumParams())
	}
}

// FIL accounting needs a smooth gradient: a list with ReLU or max pooling
// is refused, naming the layer; tanh, sigmoid and average pooling pass.
func TestCheckSmoothLayers(t *testing.T) {
	smooth := []LayerSpec{{Kind: LayerConv2D, Filters: 2, Kernel: 3}, {Kind: "tanh"}, {Kind: LayerAvgPool, Size: 2},
		{Kind: LayerFlatten}, {Kind: LayerDense, Units: 4}, {Kind: "sigmoid"}, {Kind: LayerDense, Units: 2}}
	if err := CheckSmooth(Arch{Kind: KindLayers, Layers: smooth}, ClipSoft); err != nil {
		t.Fatal(err)
	}
	for i, bad := range []string{"relu", LayerMaxPool} {
		list := append([]LayerSpec(nil), smooth...)
		list[1+i] = LayerSpec{Kind: bad, Size: 2}
		err := CheckSmooth(Arch{Kind: KindLayers, Layers: list}, ClipSoft)
		if err == nil || !strings.HasPrefix(err.Error(), fmt.Sprintf("layers[%d]: ", 1+i)) {
			t.Errorf("%s: %v", bad, err)
		}
	}
}
