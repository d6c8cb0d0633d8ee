package learn

import (
	"fmt"
	"math/rand/v2"

	"github.com/dpaudit/dpaudit/learn/gemm"
)

// conv is a 2-D convolution over HWC images with a square kernel, stride and
// symmetric zero padding. The forward pass is im2col followed by ONE GEMM
// over the whole chunk: cols is (b·P)×K with P = outH·outW output positions
// and K = k·k·inC, and out = cols·Wᵀ. W is stored outC×K with K ordered
// (ky, kx, c) — note this differs from PyTorch's (c, ky, kx) flat order.
// Behind max pooling, and for first layers of one channel, the layer
// instead takes direct passes that read the images in place and skip
// zero output deltas, with the GEMMs' bits (conv_direct.go,
// conv_sparse.go).
//
// Per-example gradient norms: example i's weight gradient is Δ_iᵀU_i (Δ_i:
// P×outC output deltas, U_i: P×K its im2col rows). Two ways to get its norm:
// materialise G_i = Δ_iᵀU_i (P·K·outC multiply-adds) or the Gram trick
// ‖Δ_iᵀU_i‖² = ⟨U_iU_iᵀ, Δ_iΔ_iᵀ⟩ (P²·(K+outC)). Materialising is cheaper
// whenever P ≥ K·outC/(K+outC), which holds for both layers of TanhCNN
// (P = 196 vs 13.5 and P = 25 vs 28.4 — nearly even there, and the
// materialised G_i also makes the clipped sum a cheap Σ c_i G_i instead of a
// second full GEMM). BenchmarkConvNorms measures norms plus clipped sum for
// a chunk of 128 (medians of 5): first layer 151,000 examples/s
// materialised vs 10,500 by the Gram trick; second layer 97,000 vs 72,000.
// So when clipping is on,
// backward materialises G_i (plus the bias gradient Σ_p δ_p) into a b×params
// buffer; when it is off, the gradient sum is one GEMM (c∘Δ)ᵀU.
type conv struct {
	inH, inW, inC    int
	outC, k, st, pad int
	outH, outW       int
	w, b             []float32
	// posOff[p] is the input offset of output position p's patch
	// (top-left element) in one image, and disp[k] that of patch element
	// k from the top-left (K entries, then five repeats of the last), for
	// the direct passes (conv_direct.go).
	posOff, disp []int32
	// sparseDeltas is set when a ReLU and disjoint max pooling follow
	// the layer (markSparseDeltas).
	sparseDeltas bool
}

func newConv(inH, inW, inC, outC, k, stride, pad int) (*conv, error) {
	outH := (inH+2*pad-k)/stride + 1
	outW := (inW+2*pad-k)/stride + 1
	if inH+2*pad < k || inW+2*pad < k || outH <= 0 || outW <= 0 {
		return nil, fmt.Errorf("conv k%d s%d p%d does not fit a %d×%d input", k, stride, pad, inH, inW)
	}
	l := &conv{inH: inH, inW: inW, inC: inC, outC: outC, k: k, st: stride, pad: pad, outH: outH, outW: outW}
	l.posOff = make([]int32, outH*outW)
	for oy := 0; oy < outH; oy++ {
		for ox := 0; ox < outW; ox++ {
			l.posOff[oy*outW+ox] = int32((oy*stride*inW + ox*stride) * inC)
		}
	}
	K := l.kdim()
	l.disp = make([]int32, K+5)
	for j := range l.disp {
		e := min(j, K-1) // element (ky, kx, c) of a patch row of k·inC
		l.disp[j] = int32(e/(k*inC)*inW*inC + e%(k*inC))
	}
	return l, nil
}

func (l *conv) describe() string {
	return fmt.Sprintf("conv %dx%dx%d→%dx%dx%d k%d s%d p%d", l.inC, l.inH, l.inW, l.outC, l.outH, l.outW, l.k, l.st, l.pad)
}
func (l *conv) inSize() int     { return l.inH * l.inW * l.inC }
func (l *conv) outSize() int    { return l.outH * l.outW * l.outC }
func (l *conv) positions() int  { return l.outH * l.outW }
func (l *conv) kdim() int       { return l.k * l.k * l.inC }
func (l *conv) numWeights() int { return l.outC * l.kdim() }
func (l *conv) numParams() int  { return l.numWeights() + l.outC }

func (l *conv) bind(p []float32) {
	l.w = p[:l.numWeights()]
	l.b = p[l.numWeights():l.numParams()]
}

func (l *conv) initParams(r *rand.Rand, scheme string) {
	initWeights(r, scheme, l.w, l.b, l.kdim(), l.k*l.k*l.outC)
}

func (l *conv) newScratch(maxB int) *scratch {
	return &scratch{} // buffers grow on first use: a direct pass needs no patch matrix
}

func (l *conv) forward(s *scratch, in, out []float32, b int) {
	if l.directForwardOK() {
		l.forwardDirect(s, in, out, b, false)
		s.colsFor = -1
		return
	}
	l.im2col(s, in, b)
	s.colsFor = b
	P, K := l.positions(), l.kdim()
	gemm.Sgemm(false, true, b*P, l.outC, K, 1, s.cols, K, l.w, K, 0, out, l.outC)
	addBiasRows(out, b*P, l.b, nil)
}

func (l *conv) backward(s *scratch, in, out, dOut, dIn []float32, b int, sq []float64, norms bool) {
	if l.sparseBackwardOK() && l.backwardSparse(s, in, dOut, dIn, b, sq, norms) {
		return
	}
	l.backwardDense(s, in, dOut, dIn, b, sq, norms)
}

// needCols runs im2col for the chunk in unless forward left its patch
// matrix in s.cols (the direct forward pass does not build one).
func (l *conv) needCols(s *scratch, in []float32, b int) {
	if s.colsFor != b {
		l.im2col(s, in, b)
		s.colsFor = b
	}
}

// backwardDense is backward by GEMMs over the im2col matrix of forward.
func (l *conv) backwardDense(s *scratch, in, dOut, dIn []float32, b int, sq []float64, norms bool) {
	P, K := l.positions(), l.kdim()
	// Without the patch matrix from forward, the weight gradients are
	// computed from the images directly rather than building it.
	direct := s.colsFor != b && l.directForwardOK()
	if norms && !direct {
		l.needCols(s, in, b)
	}
	if dIn != nil {
		s.dcols = grow(s.dcols, b*P*K)
		gemm.Sgemm(false, false, b*P, K, l.outC, 1, dOut, l.outC, l.w, K, 0, s.dcols, K)
		l.col2im(s, s.dcols, dIn, b)
	}
	s.materialised = norms
	if !norms {
		return
	}
	n := l.numParams()
	s.pex = grow(s.pex, b*n)
	for i := 0; i < b; i++ {
		d, g := dOut[i*P*l.outC:(i+1)*P*l.outC], s.pex[i*n:(i+1)*n]
		if direct {
			l.weightGradDirect(s, in[i*l.inSize():(i+1)*l.inSize()], d, g)
		} else {
			l.exampleGrad(s, s.cols[i*P*K:(i+1)*P*K], d, g)
		}
		sq[i] += sumSq(g)
	}
}

// exampleGrad writes one example's gradient [Δᵀ·U, Σ_p δ_p] into g.
func (l *conv) exampleGrad(s *scratch, cols, dOut, g []float32) {
	P, K := l.positions(), l.kdim()
	if l.weightGradTransposed() {
		s.gradT = grow(s.gradT, K*l.outC)
		gemm.Sgemm(true, false, K, l.outC, P, 1, cols, K, dOut, l.outC, 0, s.gradT, l.outC)
		transposeInto(g[:l.numWeights()], s.gradT, K, l.outC)
	} else {
		gemm.Sgemm(true, false, l.outC, K, P, 1, dOut, l.outC, cols, K, 0, g[:l.numWeights()], K)
	}
	colSums(dOut, P, l.outC, g[l.numWeights():l.numParams()])
}

// weightGradTransposed reports whether exampleGrad computes the weight
// gradient as its transpose Uᵀ·Δ (K×outC) and transposes that: the same
// FMA chain over p for every element (a product's operands commute, and
// the k-chunks depend on P alone), so the same bits, but with outC
// columns instead of K the GEMM's B operand is read in place instead of
// being packed into a zero-padded edge panel for every example. Measured
// (learn/gemm BenchmarkConvWeightGrad, BernauCNN's first layer: K = 9,
// outC = 16, P = 676): 16×9×676 took 10× as long as 9×16×676.
func (l *conv) weightGradTransposed() bool {
	return l.kdim()%8 != 0 && l.outC%8 == 0
}

// transposeInto sets dst (cols×rows) to the transpose of src (rows×cols).
func transposeInto(dst, src []float32, rows, cols int) {
	dst, src = dst[:rows*cols], src[:rows*cols]
	for r := 0; r < rows; r++ {
		for c, v := range src[r*cols : (r+1)*cols] {
			dst[c*rows+r] = v
		}
	}
}

func (l *conv) clippedSum(s *scratch, in, dOut, c []float32, b int, grad []float32) {
	n := l.numParams()
	grad = grad[:n]
	if s.materialised {
		clear(grad)
		for i := 0; i < b; i++ {
			gemm.Axpy(c[i], s.pex[i*n:(i+1)*n], grad)
		}
		return
	}
	if b == 0 {
		clear(grad)
		return
	}
	P, K := l.positions(), l.kdim()
	l.needCols(s, in, b)
	s.scaled = grow(s.scaled, b*P*l.outC)
	m := P * l.outC
	for i := 0; i < b; i++ {
		dst, src, ci := s.scaled[i*m:(i+1)*m], dOut[i*m:(i+1)*m], c[i]
		for j, v := range src {
			dst[j] = ci * v
		}
	}
	gemm.Sgemm(true, false, l.outC, K, b*P, 1, s.scaled, l.outC, s.cols, K, 0, grad[:l.numWeights()], K)
	colSums(s.scaled, b*P, l.outC, grad[l.numWeights():])
}

func (l *conv) perExample(s *scratch, in, dOut, c []float32, b int, dst []float32, stride int) {
	n := l.numParams()
	P, K := l.positions(), l.kdim()
	for i := 0; i < b; i++ {
		row := dst[i*stride : i*stride+n]
		if s.materialised {
			copy(row, s.pex[i*n:(i+1)*n])
		} else {
			l.needCols(s, in, b)
			l.exampleGrad(s, s.cols[i*P*K:(i+1)*P*K], dOut[i*P*l.outC:(i+1)*P*l.outC], row)
		}
		gemm.Scal(c[i], row)
	}
}

// grow returns buf if it holds n elements, else a new slice of length n.
// Workspaces call it on first use only, so the step loop does not allocate.
func grow[T any](buf []T, n int) []T {
	if cap(buf) >= n {
		return buf[:n]
	}
	return make([]T, n)
}
