package learn

import (
	"fmt"
	"math"
	"testing"
)

// gradCase is a small model exercising some layer types.
type gradCase struct {
	name    string
	arch    Arch
	in      []int
	classes int
	h       float64 // finite-difference step
}

func gradCases() []gradCase {
	smallCNN := func(act Activation) Arch {
		return Arch{Kind: KindCNN, Activation: act, Hidden: []int{5}, Conv: []ConvSpec{
			{Filters: 3, Kernel: 3, Stride: 2, Padding: 1, Pool: 2, PoolStride: 1},
			{Filters: 4, Kernel: 2, Stride: 1, Padding: 0},
		}}
	}
	return []gradCase{
		{"logreg-softmax", Arch{Kind: KindLogReg}, []int{6}, 3, 1e-2},
		{"logreg-sigmoid", Arch{Kind: KindLogReg}, []int{6}, 2, 1e-2},
		{"logreg-sigmoid-nobias", Arch{Kind: KindLogReg, NoBias: true}, []int{6}, 2, 1e-2},
		{"mlp-relu", Arch{Kind: KindMLP, Hidden: []int{5, 4}, Activation: ReLU}, []int{6}, 3, 1e-3},
		{"mlp-tanh", Arch{Kind: KindMLP, Hidden: []int{5, 4}, Activation: Tanh}, []int{6}, 3, 1e-2},
		{"mlp-elu", Arch{Kind: KindMLP, Hidden: []int{5, 4}, Activation: ELU}, []int{6}, 3, 1e-2},
		{"mlp-sigmoid", Arch{Kind: KindMLP, Hidden: []int{5}, Activation: Sigmoid, Output: OutputSigmoid}, []int{6}, 2, 1e-2},
		{"cnn-tanh-2ch", smallCNN(Tanh), []int{2, 7, 7}, 3, 1e-2},
		{"cnn-elu-1ch", smallCNN(ELU), []int{1, 8, 6}, 3, 1e-2},
		{"cnn-maxpool-2ch", Arch{Kind: KindCNN, Activation: Tanh, Conv: []ConvSpec{
			{Filters: 3, Kernel: 3, Stride: 1, Pool: 2, MaxPool: true},
			{Filters: 4, Kernel: 2, Stride: 1, Pool: 2, PoolStride: 1, MaxPool: true},
		}}, []int{2, 9, 8}, 3, 1e-3},
		// A user's layer list with what no preset builds: pooling on the
		// input, a dense layer without bias, a sigmoid head.
		{"layers-pool-first", Arch{Kind: KindLayers, Layers: []LayerSpec{
			{Kind: LayerAvgPool, Size: 2, Stride: 1},
			{Kind: LayerConv2D, Filters: 3, Kernel: 3, Padding: 1},
			{Kind: "tanh"},
			{Kind: LayerMaxPool, Size: 2},
			{Kind: LayerFlatten},
			{Kind: LayerDense, Units: 5, NoBias: true},
			{Kind: "sigmoid"},
			{Kind: LayerDense, Units: 1},
		}}, []int{2, 7, 7}, 2, 1e-3},
	}
}

// TestPerExampleGradientsMatchFiniteDifferences checks every layer type
// (dense, conv with stride and padding, average pooling, relu/tanh/elu/
// sigmoid, softmax and sigmoid cross-entropy) against central differences
// (L(θ+h·e_j) − L(θ−h·e_j))/2h of each example's own loss.
// Tolerance: the model runs in float32, so a difference quotient carries a
// rounding error of about 1e−7/h (≤ 1e−4 at h = 1e−3) plus a truncation
// error O(h²) (≈ 1e−4 at h = 1e−2); |fd − analytic| ≤ 3e−4 + 3e−3·|analytic|
// allows both (observed maxima: 6e−7 … 3.3e−5).
func TestPerExampleGradientsMatchFiniteDifferences(t *testing.T) {
	for _, c := range gradCases() {
		t.Run(c.name, func(t *testing.T) {
			m := mustModel(t, c.arch, c.in, c.classes, 7)
			D := m.InputSize()
			X, Y := randomData(11, 3, D, c.classes)
			P := m.NumParams()
			grads := make([]float32, 3*P)
			if err := m.PerExampleGradients(X, Y, grads, nil); err != nil {
				t.Fatal(err)
			}
			p0 := m.Params()
			worst := 0.0
			for i := 0; i < 3; i++ {
				x, y := X[i*D:(i+1)*D], Y[i]
				for j := 0; j < P; j++ {
					fd := finiteDiff(t, m, p0, j, c.h, func() float64 { return exampleLoss(t, m, x, y) })
					an := float64(grads[i*P+j])
					worst = math.Max(worst, math.Abs(fd-an))
					if !closeTo(fd, an, 3e-4, 3e-3) {
						t.Fatalf("record %d, %s: analytic %.6g, finite difference %.6g", i, m.paramName(j), an, fd)
					}
				}
			}
			t.Logf("%d params × 3 records, max |fd − analytic| = %.2g", P, worst)
		})
	}
}

// finiteDiff perturbs parameter j of m (whose unperturbed values are p0) by
// ±h and returns the central difference of f; m is restored afterwards.
func finiteDiff(t testing.TB, m *Model, p0 []float32, j int, h float64, f func() float64) float64 {
	t.Helper()
	p := append([]float32(nil), p0...)
	p[j] = float32(float64(p0[j]) + h)
	hp := float64(p[j]) - float64(p0[j]) // the step actually taken in float32
	mustSet(t, m, p)
	up := f()
	p[j] = float32(float64(p0[j]) - h)
	hm := float64(p0[j]) - float64(p[j])
	mustSet(t, m, p)
	down := f()
	mustSet(t, m, p0)
	return (up - down) / (hp + hm)
}

func mustSet(t testing.TB, m *Model, p []float32) {
	t.Helper()
	if err := m.SetParams(p); err != nil {
		t.Fatal(err)
	}
}

// TestInputGradientMatchesFiniteDifferences checks ∂loss/∂x (used to craft
// poisons) for every model of gradCases, including the C×H×W ↔ H×W×C
// reordering of 2-channel images. Same tolerance argument as above.
func TestInputGradientMatchesFiniteDifferences(t *testing.T) {
	for _, c := range gradCases() {
		t.Run(c.name, func(t *testing.T) {
			m := mustModel(t, c.arch, c.in, c.classes, 3)
			D := m.InputSize()
			X, Y := randomData(5, 2, D, c.classes)
			dX := make([]float32, len(X))
			loss := make([]float64, 2)
			if err := m.InputGradient(X, Y, dX, loss); err != nil {
				t.Fatal(err)
			}
			for i := 0; i < 2; i++ {
				x := append([]float32(nil), X[i*D:(i+1)*D]...)
				if l := exampleLoss(t, m, x, Y[i]); !closeTo(loss[i], l, 0, 1e-12) {
					t.Fatalf("record %d: InputGradient loss %g, PerExampleLoss %g", i, loss[i], l)
				}
				for j := 0; j < D; j++ {
					orig := x[j]
					x[j] = orig + float32(c.h)
					up := exampleLoss(t, m, x, Y[i])
					x[j] = orig - float32(c.h)
					down := exampleLoss(t, m, x, Y[i])
					x[j] = orig
					fd := (up - down) / (2 * c.h)
					if an := float64(dX[i*D+j]); !closeTo(fd, an, 3e-4, 3e-3) {
						t.Fatalf("record %d feature %d: analytic %.6g, finite difference %.6g", i, j, an, fd)
					}
				}
			}
		})
	}
}

// TestClipNormsFromTrickEqualMaterialised checks that the per-example norms
// the trainer clips with — ‖δ‖·‖a‖ for dense layers, materialised Δᵀ·U for
// conv layers — equal the norms of the explicitly materialised gradients,
// and that the conv Gram trick ⟨UUᵀ, ΔΔᵀ⟩ agrees too.
// Tolerance: float32 sums of a few hundred terms, relative 1e−5.
func TestClipNormsFromTrickEqualMaterialised(t *testing.T) {
	cases := append(gradCases(), gradCase{"tanh-cnn-mnist", TanhCNN(), []int{1, 28, 28}, 10, 0})
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			m := mustModel(t, c.arch, c.in, c.classes, 9)
			const n = 5
			X, Y := randomData(2, n, m.InputSize(), c.classes)
			P := m.NumParams()
			rows := make([]float32, n*P)
			norms := make([]float64, n)
			if err := m.PerExampleGradients(X, Y, rows, norms); err != nil {
				t.Fatal(err)
			}
			for i := 0; i < n; i++ {
				want := 0.0
				for _, v := range rows[i*P : (i+1)*P] {
					want += float64(v) * float64(v)
				}
				want = math.Sqrt(want)
				if !closeTo(norms[i], want, 0, 1e-5) {
					t.Errorf("record %d: trick norm %.8g, materialised norm %.8g", i, norms[i], want)
				}
			}
		})
	}
}

// TestConvGramNormsEqualMaterialised checks the Gram-trick conv norms
// against materialised per-example conv gradients on TanhCNN's first two
// layers' shapes. Tolerance relative 1e−4: the Gram form sums P² products
// of float32 dot products.
func TestConvGramNormsEqualMaterialised(t *testing.T) {
	for _, cv := range []*conv{mustConv(t, 28, 28, 1, 16, 8, 2, 3), mustConv(t, 13, 13, 16, 32, 4, 2, 0), mustConv(t, 7, 7, 2, 3, 3, 2, 1)} {
		t.Run(cv.describe(), func(t *testing.T) {
			const b = 4
			X, _ := randomData(4, b, cv.inSize(), 2)
			dOut, _ := randomData(5, b, cv.outSize(), 2)
			params, _ := randomData(6, 1, cv.numParams(), 2)
			cv.bind(params)
			s := cv.newScratch(b)
			out := make([]float32, b*cv.outSize())
			cv.forward(s, X, out, b)
			sqMat := make([]float64, b)
			cv.backward(s, X, out, dOut, nil, b, sqMat, true)
			P := cv.positions()
			sqGram := make([]float64, b)
			cv.needCols(s, X, b) // the direct forward pass builds none
			cv.gramSqNorms(s.cols, dOut, b, make([]float32, P*P), make([]float32, P*P), make([]float32, cv.outC), sqGram)
			for i := range sqMat {
				if !closeTo(sqGram[i], sqMat[i], 0, 1e-4) {
					t.Errorf("example %d: Gram %.8g, materialised %.8g", i, sqGram[i], sqMat[i])
				}
			}
		})
	}
}

func mustConv(t testing.TB, h, w, c, o, k, s, p int) *conv {
	t.Helper()
	cv, err := newConv(h, w, c, o, k, s, p)
	if err != nil {
		t.Fatal(err)
	}
	return cv
}

// TestTanhCNNParameterCount: 26,010 parameters on 1×28×28 with 10 classes
// (Guo reference note, fact F29, code architecture), with the shapes the
// note lists: 28 → conv 14×14×16 → pool 13×13 → conv 5×5×32 → pool 4×4 → 512.
func TestTanhCNNParameterCount(t *testing.T) {
	m := mustModel(t, TanhCNN(), []int{1, 28, 28}, 10, 1)
	if got := m.NumParams(); got != 26010 {
		t.Errorf("NumParams = %d, want 26010", got)
	}
	var names []string
	for _, l := range m.Layers() {
		names = append(names, l.Name)
	}
	want := []string{
		"conv 1x28x28→16x14x14 k8 s2 p3", "tanh 3136", "avgpool 16x14x14→13x13 k2 s1",
		"conv 16x13x13→32x5x5 k4 s2 p0", "tanh 800", "avgpool 32x5x5→4x4 k2 s1",
		"dense 512→32", "tanh 32", "dense 32→10",
	}
	if fmt.Sprint(names) != fmt.Sprint(want) {
		t.Errorf("layers\n got %q\nwant %q", names, want)
	}
	// Hayes et al.'s MLP 784→10→10: 7,960 parameters (Hayes reference note).
	if got := mustModel(t, Arch{Kind: KindMLP, Hidden: []int{10}, Activation: ELU}, []int{784}, 10, 1).NumParams(); got != 7960 {
		t.Errorf("MLP 784-10-10 NumParams = %d, want 7960", got)
	}
}
