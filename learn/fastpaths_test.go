package learn

import (
	"math"
	"testing"

	"github.com/dpaudit/dpaudit/rng"
)

// The per-step fast paths (assembly kernels, coded inputs) must give the same bits as
// the scalar code they replace: the same seed must keep training to the
// same parameters.

// TestExpIntoMatchesExp32: expInto is exp32 element by element, bit for
// bit, over [−100, 100] (both sides of the ±80 fallback), the extremes and
// NaN.
func TestExpIntoMatchesExp32(t *testing.T) {
	r := rng.New(1, "test/expinto")
	x := make([]float32, 20000)
	for i := range x {
		x[i] = float32(200*r.Float64() - 100)
	}
	x = append(x, 0, -0.0, 80, -80, 80.0001, -80.0001, 1000, -1000,
		float32(math.Inf(1)), float32(math.Inf(-1)), float32(math.NaN()), 1e-30, -1e-30)
	y := make([]float32, len(x))
	expInto(y, x)
	for i, v := range x {
		want := exp32(v)
		if math.Float32bits(y[i]) != math.Float32bits(want) && !(want != want && y[i] != y[i]) {
			t.Fatalf("expInto(%g) = %g (%#x), exp32 = %g (%#x)", v, y[i], math.Float32bits(y[i]), want, math.Float32bits(want))
		}
	}
	// Values all in range, so the vector kernel (if any) does all but the
	// tail of 3.
	in := make([]float32, 1003)
	for i := range in {
		in[i] = float32(160*r.Float64() - 80)
	}
	out := make([]float32, len(in))
	done := expBlocks(out, in)
	expInto(out, in)
	for i, v := range in {
		if math.Float32bits(out[i]) != math.Float32bits(exp32(v)) {
			t.Fatalf("in range: expInto(%g) = %g, exp32 = %g (vector kernel did %d)", v, out[i], exp32(v), done)
		}
	}
	t.Logf("vector kernel: %d of %d in-range values", done, len(in))
	// In place, as the ELU and the softmax head use it.
	z := append([]float32(nil), x...)
	expInto(z, z)
	for i := range z {
		if math.Float32bits(z[i]) != math.Float32bits(y[i]) {
			t.Fatalf("in place: element %d differs", i)
		}
	}
}

// TestSoftmaxCEDeltaMatchesRowLoop: the chunk-wise softmax head gives the
// losses and logit gradients of the row-by-row loop it replaced, bit for
// bit (b = 37 examples of k = 10 logits spread over ±30).
func TestSoftmaxCEDeltaMatchesRowLoop(t *testing.T) {
	const b, k = 37, 10
	r := rng.New(2, "test/softmax")
	z := make([]float32, b*k)
	for i := range z {
		z[i] = float32(60*r.Float64() - 30)
	}
	y := make([]int32, b)
	for i := range y {
		y[i] = int32(r.IntN(k))
	}
	d := make([]float32, b*k)
	loss := make([]float64, b)
	softmaxCE(z, y, b, k, d, loss)
	dNoLoss := make([]float32, b*k)
	softmaxCE(z, y, b, k, dNoLoss, nil)
	for i := range d {
		if math.Float32bits(d[i]) != math.Float32bits(dNoLoss[i]) {
			t.Fatalf("δ %d: %v with losses, %v without", i, d[i], dNoLoss[i])
		}
	}
	for i := 0; i < b; i++ {
		e, wantLoss := rowLoopSoftmax(z[i*k:(i+1)*k], y[i])
		if loss[i] != wantLoss {
			t.Fatalf("example %d: loss %v, row loop %v", i, loss[i], wantLoss)
		}
		for j := range e {
			if math.Float32bits(d[i*k+j]) != math.Float32bits(e[j]) {
				t.Fatalf("example %d logit %d: δ %v, row loop %v", i, j, d[i*k+j], e[j])
			}
		}
	}
}

// TestELUForwardMatchesScalar: the three-pass ELU is
// max(v, 0) + (exp32(min(v, 0)) − 1) element by element, bit for bit.
func TestELUForwardMatchesScalar(t *testing.T) {
	r := rng.New(3, "test/elu")
	a := &activation{kind: ELU, n: 13}
	const b = 11
	x := make([]float32, b*a.n)
	for i := range x {
		x[i] = float32(20*r.Float64() - 10)
	}
	x[0], x[1] = 0, float32(math.Copysign(0, -1))
	y := make([]float32, len(x))
	a.forward(nil, x, y, b)
	for i, v := range x {
		want := max(v, 0) + (exp32(min(v, 0)) - 1)
		if math.Float32bits(y[i]) != math.Float32bits(want) {
			t.Fatalf("ELU(%g) = %g, scalar %g", v, y[i], want)
		}
	}
}

// TestGatherKeepsChunk: a trainer's workspace does not copy the same
// gathered chunk twice, and copies again when the chunk or the target
// record's version changes. (Checked to fail: with the version ignored,
// the new target's features never reach the chunk.)
func TestGatherKeepsChunk(t *testing.T) {
	m := mustModel(t, Arch{Kind: KindLogReg}, []int{3}, 2, 1)
	w := newWorkspace(m, 4, false)
	w.keep = true
	X := []float32{0, 1, 2, 10, 11, 12, 20, 21, 22}
	Y := []int32{0, 1, 0}
	tg := &Record{X: []float32{7, 8, 9}, Y: 1}
	idx := []int{0, 2, 3} // record 3 = the target: not contiguous in X
	row := func(k int) []float32 { return w.acts[0][3*k : 3*k+3] }
	w.gather(X, Y, idx, tg, 1, false)
	if row(1)[0] != 20 || row(2)[2] != 9 || w.labels[2] != 1 {
		t.Fatalf("first gather: rows %v, labels %v", w.acts[0][:9], w.labels[:3])
	}
	X[6] = -1 // X must not change during a run: the kept copy is used
	w.gather(X, Y, idx, tg, 1, false)
	if row(1)[0] != 20 {
		t.Errorf("same chunk and version: copied again (row 1 = %v)", row(1))
	}
	tg.X[2] = 99
	w.gather(X, Y, idx, tg, 2, false)
	if row(2)[2] != 99 || row(1)[0] != -1 {
		t.Errorf("new target version: rows %v, want the new target and X", w.acts[0][:9])
	}
	w.gather(X, Y, []int{0, 1}, tg, 2, false) // contiguous: in place
	if &w.acts[0][0] != &X[0] {
		t.Errorf("contiguous chunk not used in place")
	}
	X[0] = 5
	w.gather(X, Y, idx, tg, 2, false) // the kept chunk is still in input
	if row(0)[0] != 0 || &w.acts[0][0] != &w.input[0] {
		t.Errorf("back to the kept chunk: rows %v", w.acts[0][:9])
	}
}

// TestTargetChunkKeptMatchesInPlace: full-batch training with the target
// record (gathered every step, copied once) gives the same bits as
// training on X with the target appended as an ordinary record (used in
// place), over 20 steps with a chunk of 64 that cuts the batch in two.
func TestTargetChunkKeptMatchesInPlace(t *testing.T) {
	X, Y := mnistShaped(101, 10)
	a := Arch{Kind: KindMLP, Hidden: []int{8}, Activation: ELU}
	cfg := DPSGD{ClipNorm: 0.5, NoiseMultiplier: 1, SamplingRate: 1, Steps: 20, LearningRate: 0.5, ChunkSize: 64, ExpectedBatchSize: 101}
	m1 := mustModel(t, a, []int{784}, 10, 4)
	m2 := m1.Clone()
	if _, err := Train(m1, X[:100*784], Y[:100], cfg, rng.New(5, "keep"), &Hooks{Target: &Record{X: X[100*784:], Y: Y[100]}}); err != nil {
		t.Fatal(err)
	}
	if _, err := Train(m2, X, Y, cfg, rng.New(5, "keep"), nil); err != nil {
		t.Fatal(err)
	}
	p1, p2 := m1.Params(), m2.Params()
	for i := range p1 {
		if math.Float32bits(p1[i]) != math.Float32bits(p2[i]) {
			t.Fatalf("parameter %d: %v with the target record, %v with it in X", i, p1[i], p2[i])
		}
	}
}

// TestELUKernelMatchesScalar: eluForward (the AVX-512 one-pass kernel where
// there is one, then the loops) is max(v, 0) + (exp32(min(v, 0)) − 1)
// element by element, bit for bit, over [−100, 100] (both sides of the
// exponential's −80 fallback, which sends the rest of the slice to the
// loops), signed zeros and infinities; NaN in, NaN out.
func TestELUKernelMatchesScalar(t *testing.T) {
	r := rng.New(4, "test/elu-kernel")
	check := func(name string, x []float32) int {
		y := make([]float32, len(x))
		eluForward(y, x)
		for i, v := range x {
			want := max(v, 0) + (exp32(min(v, 0)) - 1)
			if math.Float32bits(y[i]) != math.Float32bits(want) && !(want != want && y[i] != y[i]) {
				t.Fatalf("%s: ELU(%g) = %g (%#x), scalar %g (%#x)", name, v, y[i], math.Float32bits(y[i]), want, math.Float32bits(want))
			}
		}
		return eluBlocks(make([]float32, len(x)), x)
	}
	x := make([]float32, 5003)
	for i := range x {
		x[i] = float32(160*r.Float64() - 80)
	}
	x[0], x[1], x[2] = 0, float32(math.Copysign(0, -1)), -80
	t.Logf("in range: vector kernel did %d of %d", check("in range", x), len(x))
	for i := range x {
		x[i] = float32(200*r.Float64() - 100)
	}
	x = append(x, float32(math.Inf(1)), float32(math.Inf(-1)), float32(math.NaN()), -1e-30, 1e-30)
	check("wide", x)
	check("NaN first", []float32{float32(math.NaN()), 1, -1, 2, -2, 3, -3, 4, 5})
}

// TestLog8MatchesMathLog: log8 is math.Log lane by lane, bit for bit: on
// the softmax head's range [1, 10], on positive normals of every exponent,
// at the √2/2 mantissa boundary, and on a block holding a special value
// (zero, negative, subnormal, ±Inf, NaN), which math.Log handles.
func TestLog8MatchesMathLog(t *testing.T) {
	r := rng.New(5, "test/log8")
	check := func(x [8]float64) {
		y := x
		log8(&y)
		for i, v := range x {
			want := math.Log(v)
			if math.Float64bits(y[i]) != math.Float64bits(want) && !(want != want && y[i] != y[i]) {
				t.Fatalf("log8(%g) = %g (%#x), math.Log %g (%#x)", v, y[i], math.Float64bits(y[i]), want, math.Float64bits(want))
			}
		}
	}
	for n := 0; n < 20000; n++ {
		var x [8]float64
		for i := range x {
			switch n % 3 {
			case 0:
				x[i] = 1 + 9*r.Float64()
			case 1:
				x[i] = math.Ldexp(0.5+r.Float64(), r.IntN(2040)-1020)
			default:
				x[i] = math.Float64frombits(math.Float64bits(math.Sqrt2/2) + uint64(r.IntN(5)) - 2)
			}
		}
		check(x)
	}
	for _, s := range []float64{0, -1, 5e-324, 1e-310, math.Inf(1), math.Inf(-1), math.NaN(), math.SmallestNonzeroFloat64} {
		check([8]float64{1, 2, 3, s, 5, 6, 7, 8})
	}
}

// TestSoftmaxKernelMatchesRowLoop: the sixteen-row kernel of the softmax
// head (ten classes, with losses) gives the row loop's losses and logit
// gradients bit for bit, and declines blocks it cannot do alike: block 0
// ordinary, 1 with logits 100 apart (an exponential below −80), 2 with a
// NaN, 3 with a +Inf, 4 of zeros of both signs (a maximum of ±0), 5 wide
// (±35), then 3 rows for the loops. (Checked to fail with the label's −1
// on the wrong column. The order of the float64 row sum is the loop's by
// construction; swapping two columns went unnoticed here, as float64 sums
// of ten float32 values are almost always exact.)
func TestSoftmaxKernelMatchesRowLoop(t *testing.T) {
	const k = 10
	b := 6*16 + 3
	r := rng.New(6, "test/softmax-kernel")
	z := make([]float32, b*k)
	for i := range z {
		z[i] = float32(20*r.Float64() - 10)
	}
	z[16*k+3] = -100
	z[2*16*k+7*k+4] = float32(math.NaN())
	z[3*16*k+5] = float32(math.Inf(1))
	for i := 4 * 16 * k; i < 5*16*k; i++ {
		z[i] = float32(math.Copysign(0, float64(i%3)-1))
	}
	for i := 5 * 16 * k; i < 6*16*k; i++ {
		z[i] = float32(70*r.Float64() - 35)
	}
	y := make([]int32, b)
	for i := range y {
		y[i] = int32(r.IntN(k))
	}
	d := make([]float32, b*k)
	loss := make([]float64, b)
	softmaxCE(z, y, b, k, d, loss)
	same32 := func(a, b float32) bool { return math.Float32bits(a) == math.Float32bits(b) || (a != a && b != b) }
	for i := 0; i < b; i++ {
		e, wantLoss := rowLoopSoftmax(z[i*k:(i+1)*k], y[i])
		if math.Float64bits(loss[i]) != math.Float64bits(wantLoss) && !(loss[i] != loss[i] && wantLoss != wantLoss) {
			t.Fatalf("example %d: loss %v, row loop %v", i, loss[i], wantLoss)
		}
		for j := range e {
			if !same32(d[i*k+j], e[j]) {
				t.Fatalf("example %d logit %d: δ %v, row loop %v", i, j, d[i*k+j], e[j])
			}
		}
	}
	ran := 0
	for blk := 0; blk < 6; blk++ {
		if softmaxDelta16(z[blk*16*k:], make([]float32, 16*k), y[blk*16:], make([]float64, 16)) {
			ran++
		}
	}
	if want := map[bool]int{true: 3, false: 0}[haveSoftmaxKernel()]; ran != want {
		t.Errorf("kernel ran on %d of 6 blocks, want %d (blocks 0, 4, 5)", ran, want)
	}
}

// TestELUBackwardMatchesScalar: the ELU's backward pass (a vector kernel
// with AVX-512, then the loop) is g·(min(y, 0) + 1) element by element,
// bit for bit, for outputs of both signs, ±0 and the −1 floor. (Checked
// to fail with the kernel's +1 replaced by a doubling.)
func TestELUBackwardMatchesScalar(t *testing.T) {
	r := rng.New(7, "test/elu-backward")
	a := &activation{kind: ELU, n: 10}
	const b = 37
	y := make([]float32, b*a.n)
	g := make([]float32, b*a.n)
	for i := range y {
		y[i] = float32(10*r.Float64() - 1)
		g[i] = float32(2*r.Float64() - 1)
	}
	y[0], y[1], y[2] = 0, float32(math.Copysign(0, -1)), -1
	d := make([]float32, len(y))
	a.backward(nil, nil, y, g, d, b, nil, false)
	for i, v := range y {
		want := g[i] * (min(v, 0) + 1)
		if math.Float32bits(d[i]) != math.Float32bits(want) {
			t.Fatalf("element %d: y %g g %g: %g, scalar %g", i, v, g[i], d[i], want)
		}
	}
	if n := eluGradBlocks(d, g, y); haveSoftmaxKernel() && n != 368 {
		t.Errorf("vector kernel did %d of 370", n)
	}
}

// rowLoopSoftmax is the softmax head's plain row loop (the reference the fast
// paths are compared with bit for bit): δ = softmax(z) − onehot(y) and the
// loss max + log Σ exp(z − max) − z_y.
func rowLoopSoftmax(zi []float32, y int32) ([]float32, float64) {
	m := zi[0]
	for _, v := range zi[1:] {
		m = max(m, v)
	}
	e := make([]float32, len(zi))
	var sum float64
	for j, v := range zi {
		e[j] = exp32(v - m)
		sum += float64(e[j])
	}
	loss := float64(m) + math.Log(sum) - float64(zi[y])
	inv := float32(1 / sum)
	for j := range e {
		e[j] *= inv
	}
	e[y] -= 1
	return e, loss
}
