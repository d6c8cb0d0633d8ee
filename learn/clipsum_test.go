package learn

import (
	"math"
	"math/rand/v2"
	"strings"
	"testing"
)

// ClippedGradientSum must equal the sum of the explicitly materialised
// per-example gradients, each clipped to C (the definition), for a CNN
// and an MLP, including records whose gradient is below C.
func TestClippedGradientSum(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for _, tc := range []struct {
		arch  Arch
		shape []int
	}{
		{Arch{Kind: KindCNN, Activation: ReLU, Conv: []ConvSpec{{Filters: 4, Kernel: 3, Stride: 1, Pool: 2}, {Filters: 4, Kernel: 3, Stride: 1, Pool: 2}}}, []int{1, 12, 12}},
		{Arch{Kind: KindMLP, Hidden: []int{7}}, []int{9}},
	} {
		m, err := NewModel(tc.arch, tc.shape, 3, 5)
		if err != nil {
			t.Fatal(err)
		}
		n, D, P := 300, m.InputSize(), m.NumParams() // 300 > one eval chunk
		X, Y := make([]float32, n*D), make([]int32, n)
		for i := range X {
			X[i] = float32(r.Float64())
		}
		for i := range Y {
			Y[i] = int32(r.IntN(3))
		}
		pex, norms := make([]float32, n*P), make([]float64, n)
		if err := m.PerExampleGradients(X, Y, pex, norms); err != nil {
			t.Fatal(err)
		}
		sort := append([]float64(nil), norms...)
		C := median(sort) // half the records clipped, half not
		want := make([]float64, P)
		for i := 0; i < n; i++ {
			f := math.Min(1, C/norms[i])
			for j := 0; j < P; j++ {
				want[j] += f * float64(pex[i*P+j])
			}
		}
		got := make([]float32, P)
		if err := m.ClippedGradientSum(X, Y, C, got); err != nil {
			t.Fatal(err)
		}
		var diff, ref float64
		for j := range got {
			diff += (float64(got[j]) - want[j]) * (float64(got[j]) - want[j])
			ref += want[j] * want[j]
		}
		// float32 GEMMs against a float64 sum of float32 rows: relative 1e-5.
		if rel := math.Sqrt(diff / ref); rel > 1e-5 {
			t.Errorf("%s: relative error %g of the clipped sum", tc.arch, rel)
		}
	}
}

func median(x []float64) float64 {
	for i := 1; i < len(x); i++ {
		for j := i; j > 0 && x[j] < x[j-1]; j-- {
			x[j], x[j-1] = x[j-1], x[j]
		}
	}
	return x[len(x)/2]
}

// BernauCNN has 160 + 2320 + 4010 = 6,490 parameters on MNIST (the
// authors' 6,554 less the 64 batch-norm parameters).
func TestBernauCNNParams(t *testing.T) {
	m, err := NewModel(BernauCNN(), []int{1, 28, 28}, 10, 1)
	if err != nil {
		t.Fatal(err)
	}
	if m.NumParams() != 6490 {
		t.Errorf("%d parameters, want 6490", m.NumParams())
	}
}

// Max pooling against its definition: each output is the largest input of
// its window, and the backward pass puts each output's gradient on that
// input (summed where windows overlap).
func TestMaxPoolMatchesDefinition(t *testing.T) {
	for _, sh := range []struct{ h, w, c, k, s int }{{26, 26, 16, 2, 2}, {11, 11, 16, 2, 2}, {7, 6, 3, 3, 1}} {
		p, err := newMaxPool(sh.h, sh.w, sh.c, sh.k, sh.s)
		if err != nil {
			t.Fatal(err)
		}
		const b = 2
		x, _ := randomData(5, b, p.inSize(), 2)
		g, _ := randomData(6, b, p.outSize(), 2)
		s := p.newScratch(b)
		y := make([]float32, b*p.outSize())
		p.forward(s, x, y, b)
		dx := make([]float32, b*p.inSize())
		p.backward(s, x, y, g, dx, b, nil, false)
		want := make([]float32, len(dx))
		for i := 0; i < b; i++ {
			for oy := 0; oy < p.outH; oy++ {
				for ox := 0; ox < p.outW; ox++ {
					for c := 0; c < sh.c; c++ {
						o := i*p.outSize() + (oy*p.outW+ox)*sh.c + c
						best, at := float32(math.Inf(-1)), -1
						for dy := 0; dy < sh.k; dy++ {
							for ddx := 0; ddx < sh.k; ddx++ {
								j := i*p.inSize() + ((oy*sh.s+dy)*sh.w+ox*sh.s+ddx)*sh.c + c
								if x[j] > best {
									best, at = x[j], j
								}
							}
						}
						if y[o] != best {
							t.Fatalf("%+v: forward[%d] = %v, want %v", sh, o, y[o], best)
						}
						want[at] += g[o]
					}
				}
			}
		}
		for j := range dx {
			if math.Abs(float64(dx[j]-want[j])) > 1e-6 {
				t.Fatalf("%+v: backward[%d] = %v, want %v", sh, j, dx[j], want[j])
			}
		}
	}
}

func TestBernauCNNMaxPool(t *testing.T) {
	m, err := NewModel(BernauCNNMaxPool(), []int{1, 28, 28}, 10, 1)
	if err != nil {
		t.Fatal(err)
	}
	if m.NumParams() != 6490 || BernauCNN().Conv[0].MaxPool {
		t.Errorf("%d parameters (want 6490), or BernauCNN changed", m.NumParams())
	}
	if got := m.layers[2].describe(); !strings.Contains(got, "maxpool") {
		t.Errorf("layer 2 is %q, want a max pool", got)
	}
}
