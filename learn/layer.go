package learn

import (
	"math/rand/v2"

	"github.com/dpaudit/dpaudit/learn/gemm"
)

// layer is one stage of the network. It works on a chunk of b examples
// stored row-major: in is b×inSize(), out is b×outSize(). Images are stored
// height × width × channels (HWC) inside the model so that convolutions are
// one GEMM over the whole chunk.
type layer interface {
	describe() string
	inSize() int
	outSize() int
	numParams() int
	// bind points the layer's weights into the flat parameter vector p
	// (len numParams(): weights first, then biases).
	bind(p []float32)
	initParams(r *rand.Rand, scheme string)
	// newScratch allocates the layer's per-worker buffers for chunks of up
	// to maxB examples.
	newScratch(maxB int) *scratch
	forward(s *scratch, in, out []float32, b int)
	// backward computes dIn = ∂loss/∂in (skipped when dIn is nil) from dOut.
	// A parameter layer with norms set adds each example's squared
	// parameter-gradient norm into sq[i].
	backward(s *scratch, in, out, dOut, dIn []float32, b int, sq []float64, norms bool)
}

// paramLayer is a layer with trainable parameters.
type paramLayer interface {
	layer
	// clippedSum writes Σ_i c[i]·g_i into grad (len numParams()), where g_i
	// is example i's gradient. It must follow a backward over the same
	// chunk; it never materialises g_i unless backward already did.
	clippedSum(s *scratch, in, dOut, c []float32, b int, grad []float32)
	// perExample writes c[i]·g_i into dst[i·stride : i·stride+numParams()].
	perExample(s *scratch, in, dOut, c []float32, b int, dst []float32, stride int)
}

// scratch holds a layer's per-worker buffers; each layer uses the fields it
// needs and leaves the others nil.
type scratch struct {
	cols []float32 // conv: im2col matrix of the chunk, (b·P)×K
	// colsFor is the chunk size whose patch matrix cols holds (−1: none,
	// the direct forward pass builds none; see conv.needCols).
	colsFor int
	dcols   []float32 // conv: gradient w.r.t. cols, for the input gradient
	pad     []float32 // conv: one zero-bordered input image
	dpad    []float32 // conv: one padded input-gradient image (col2im)
	win     []float32 // avgPool: window sums at every corner of the chunk
	argmax  []int32   // maxPool: input offset of each output's maximum
	pex     []float32 // conv: materialised per-example gradients, b×numParams
	gradT   []float32 // conv: one example's weight gradient, transposed (K×outC)
	scaled  []float32 // dense/conv: output deltas scaled by clip factors
	rowsq   []float64 // per-example squared norms (deltas)
	rowsq2  []float64 // per-example squared norms (inputs)
	rowf32  []float32 // the same in float32, as gemm.RowSumSquares returns them
	// biasTile: dense layers' bias repeated to a whole number of vectors
	// (addBiasRows).
	biasTile []float32
	// inSq, when set by the trainer for the first layer, holds the inputs'
	// squared norms, precomputed once per run instead of once per step.
	inSq []float64
	wt   []float32 // conv: transposed weights for the direct forward pass
	tile []float32 // conv: a partial tile's outputs (direct forward pass)
	// sparse: conv: one example's non-zero output deltas (conv_sparse.go).
	sparse sparseDeltas
	// materialised records that backward filled pex for this chunk.
	materialised bool
	// threads is how many goroutines the layer's GEMMs may use (≤ 1: the
	// calling one): the trainer's idle workers when a step is one chunk.
	threads int
}

// minParallelFlops is the smallest product sgemm splits (2·m·n·k).
const minParallelFlops = 1 << 25

// sgemm is gemm.Sgemm split over threads goroutines when threads > 1;
// gemm.SgemmParallel's result is bit-identical to Sgemm's for any thread
// count, so this never changes a trained bit. Measured: with one chunk per
// step (batch ≤ 256) a second thread only shared the noise, and 2 threads
// ran an MLP 784-512-10 step 1.06× faster than one. Products under
// minParallelFlops stay on one goroutine: waking the other worker cost more
// than it saved on MLP 784-128-10 at batch 64 (12.8 MFLOP per product: 2
// threads fell from 1.06× to 0.94× of one).
func sgemm(threads int, transA, transB bool, m, n, k int, alpha float32, a []float32, lda int, b []float32, ldb int, beta float32, c []float32, ldc int) {
	if threads > 1 && 2*float64(m)*float64(n)*float64(k) >= minParallelFlops {
		gemm.SgemmParallel(threads, transA, transB, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc)
		return
	}
	gemm.Sgemm(transA, transB, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc)
}
