package learn

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/dpaudit/dpaudit/learn/gemm"
)

// TestConvSparseBackwardBits: the sparse backward pass (input gradient,
// per-example weight gradients, their squared norms) has the dense
// pass's bits for deltas as sparse as max pooling leaves them, on shapes
// that cut the weight gradient's sum over positions into several GEMM
// k-chunks (P > 256), stride 2, and more than 64 channels.
func TestConvSparseBackwardBits(t *testing.T) {
	for _, c := range []struct{ h, w, inC, outC, k, st int }{
		{13, 13, 16, 16, 3, 1}, // Bernau et al.'s second layer
		{30, 30, 8, 16, 3, 1},  // P = 784: four k-chunks
		{21, 17, 8, 24, 3, 2},
		{9, 9, 8, 72, 2, 1},  // channels beyond one 64-bit mask
		{7, 7, 32, 16, 3, 1}, // kernel rows of 96 floats
	} {
		l, err := newConv(c.h, c.w, c.inC, c.outC, c.k, c.st, 0)
		if err != nil {
			t.Fatal(err)
		}
		if !l.sparseBackwardOK() {
			t.Skipf("no sparse pass here (%s)", l.describe())
		}
		r := rand.New(rand.NewPCG(uint64(c.outC), uint64(c.h)))
		params := make([]float32, l.numParams())
		l.bind(params)
		l.initParams(r, "he")
		const b = 3
		in := make([]float32, b*l.inSize())
		for i := range in {
			in[i] = float32(r.NormFloat64())
		}
		dOut := make([]float32, b*l.outSize())
		for i := range dOut {
			if r.IntN(5) == 0 {
				dOut[i] = float32(r.NormFloat64())
			}
		}
		dOut[1] = float32(math.Copysign(0, -1)) // a −0 delta adds nothing either
		run := func(sparse bool) ([]float32, []float32, []float64) {
			s := l.newScratch(b)
			dIn, sq := make([]float32, b*l.inSize()), make([]float64, b)
			if sparse {
				if !l.backwardSparse(s, in, dOut, dIn, b, sq, true) {
					t.Fatalf("%s: sparse pass declined", l.describe())
				}
			} else {
				l.backwardDense(s, in, dOut, dIn, b, sq, true)
			}
			return dIn, s.pex[:b*l.numParams()], sq
		}
		dIn0, g0, sq0 := run(false)
		dIn1, g1, sq1 := run(true)
		sameBits32(t, l.describe()+" input gradient", dIn1, dIn0)
		sameBits32(t, l.describe()+" weight gradients", g1, g0)
		for i := range sq0 {
			if math.Float64bits(sq0[i]) != math.Float64bits(sq1[i]) {
				t.Errorf("%s: example %d squared norm %v, dense %v", l.describe(), i, sq1[i], sq0[i])
			}
		}
	}
}

func sameBits32(t *testing.T, what string, got, want []float32) {
	t.Helper()
	for i := range want {
		if math.Float32bits(got[i]) != math.Float32bits(want[i]) {
			t.Errorf("%s: element %d is %v (%#x), dense %v (%#x)", what, i, got[i], math.Float32bits(got[i]), want[i], math.Float32bits(want[i]))
			return
		}
	}
}

// TestConvSparseBackwardDeclinesDense: deltas denser than the threshold
// go to the dense pass, and nothing is written by the sparse one.
func TestConvSparseBackwardDeclinesDense(t *testing.T) {
	l, err := newConv(13, 13, 16, 16, 3, 1, 0)
	if err != nil {
		t.Fatal(err)
	}
	if !l.sparseBackwardOK() {
		t.Skip("no sparse pass here")
	}
	l.bind(make([]float32, l.numParams()))
	s := l.newScratch(1)
	dOut := make([]float32, l.outSize())
	for i := range dOut {
		dOut[i] = 1
	}
	dIn := make([]float32, l.inSize())
	if l.backwardSparse(s, make([]float32, l.inSize()), dOut, dIn, 1, make([]float64, 1), true) {
		t.Fatal("sparse pass taken for all-non-zero deltas")
	}
}

// TestConvDirectForwardBits: the direct forward pass has the im2col
// GEMM's bits, on shapes with partial tiles, stride 2, two 16-channel
// panels and one input channel.
func TestConvDirectForwardBits(t *testing.T) {
	for _, c := range []struct{ h, w, inC, outC, k, st, b int }{
		{28, 28, 1, 16, 3, 1, 3}, // Bernau et al.'s first layer
		{13, 13, 16, 16, 3, 1, 2},
		{15, 11, 3, 32, 4, 2, 1},
		{7, 9, 8, 16, 1, 1, 5},
	} {
		l, r := directConv(t, c.h, c.w, c.inC, c.outC, c.k, c.st)
		l.initParams(r, InitPyTorch)
		for i := range l.b {
			l.b[i] = float32(r.NormFloat64())
		}
		in := make([]float32, c.b*l.inSize())
		for i := range in {
			in[i] = float32(r.NormFloat64())
		}
		s := l.newScratch(c.b)
		want := make([]float32, c.b*l.outSize())
		l.im2col(s, in, c.b)
		P, K := l.positions(), l.kdim()
		gemm.Sgemm(false, true, c.b*P, l.outC, K, 1, s.cols, K, l.w, K, 0, want, l.outC)
		addBiasRows(want, c.b*P, l.b, nil)
		got := make([]float32, len(want))
		l.forwardDirect(s, in, got, c.b, false)
		sameBits32(t, l.describe()+" output", got, want)
		relu := make([]float32, len(want))
		gemm.ReLU(relu, want)
		l.forwardDirect(s, in, got, c.b, true)
		sameBits32(t, l.describe()+" output through a ReLU", got, relu)
	}
}

// TestConvDirectWeightGradBits: the per-example weight gradient from the
// images has the bits of the one from the patch matrix, on shapes whose
// sum over positions spans several k-chunks (P = 676), whose K is not a
// multiple of six, with two 16-channel panels and stride 2.
func TestConvDirectWeightGradBits(t *testing.T) {
	for _, c := range []struct{ h, w, inC, outC, k, st int }{
		{28, 28, 1, 16, 3, 1}, // Bernau et al.'s first layer
		{13, 13, 16, 32, 4, 2},
		{10, 12, 3, 16, 2, 1},
	} {
		l, r := directConv(t, c.h, c.w, c.inC, c.outC, c.k, c.st)
		const b = 2
		in := make([]float32, b*l.inSize())
		for i := range in {
			in[i] = float32(r.NormFloat64())
		}
		dOut := make([]float32, b*l.outSize())
		for i := range dOut {
			dOut[i] = float32(r.NormFloat64())
		}
		s := l.newScratch(b)
		l.im2col(s, in, b)
		P, K, n, m := l.positions(), l.kdim(), l.numParams(), l.positions()*l.outC
		for i := 0; i < b; i++ {
			want, got := make([]float32, n), make([]float32, n)
			l.exampleGrad(s, s.cols[i*P*K:(i+1)*P*K], dOut[i*m:(i+1)*m], want)
			l.weightGradDirect(s, in[i*l.inSize():(i+1)*l.inSize()], dOut[i*m:(i+1)*m], got)
			sameBits32(t, l.describe()+" weight gradient", got, want)
		}
	}
}

// TestDirectPassesWherePooled: the direct passes are taken by the layers
// max pooling follows and by first layers of one channel, not by
// TanhCNN's second layer, where the GEMMs over the patch matrix are
// faster.
func TestDirectPassesWherePooled(t *testing.T) {
	if !haveAccRows || gemm.Path() == "purego" {
		t.Skip("no direct passes on this path")
	}
	for _, c := range []struct {
		arch Arch
		want []bool
	}{
		{BernauCNNMaxPool(), []bool{true, true}},
		{BernauCNN(), []bool{true, false}},
		{TanhCNN(), []bool{false, false}},
	} {
		m, err := NewModel(c.arch, []int{1, 28, 28}, 10, 1)
		if err != nil {
			t.Fatal(err)
		}
		var got []bool
		for _, ly := range m.layers {
			if cv, ok := ly.(*conv); ok {
				got = append(got, cv.directForwardOK())
			}
		}
		if fmt.Sprint(got) != fmt.Sprint(c.want) {
			t.Errorf("%s: direct passes %v, want %v", c.arch, got, c.want)
		}
	}
}

// directConv returns a convolution without padding that takes the direct
// passes (as behind max pooling), with its parameters bound, and a
// random stream for its data; it skips the test where there are none.
func directConv(t *testing.T, h, w, inC, outC, k, st int) (*conv, *rand.Rand) {
	t.Helper()
	l, err := newConv(h, w, inC, outC, k, st, 0)
	if err != nil {
		t.Fatal(err)
	}
	l.sparseDeltas = true
	if !l.directForwardOK() {
		t.Skipf("no direct pass here (%s)", l.describe())
	}
	l.bind(make([]float32, l.numParams()))
	return l, rand.New(rand.NewPCG(uint64(outC), uint64(h*w)))
}
