package gemm

// kernelFunc computes an mr×nr tile of C = alpha·A·B + beta·C where mr is fixed
// by the function and (nv-1)·width < nr ≤ nv·width:
//
//	A: contig layout a[p·as + i], or rows layout a[i·as + p]   (i < mr, p < k)
//	B: b[p·bs + j] for j < nv·width — the full vectors must be readable,
//	   except on paths with maskedB, whose kernels read only j < nr
//	C: c[i·ldc + j] for j < nr; not read when beta == 0.
//
// k ≥ 1. All strides are in elements.
type kernelFunc func(k int, a *float32, as int, b *float32, bs int, c *float32, ldc int, alpha, beta float32, nr int)

// Layouts of A as a kernel reads it.
const (
	layoutContig = 0 // packed panels and stored-transposed A
	layoutRows   = 1 // untransposed A read in place
)

// kernelTable is indexed [layout][vectors per row][rows].
type kernelTable [2][3][]kernelFunc

// arch is one implementation path: the vector width its kernels assume and the
// kernels themselves.
type arch struct {
	name    string
	width   int    // float32 lanes per vector
	maxMR   [3]int // largest tile height for 1 and 2 vectors per row
	kernels *kernelTable
	maskedB bool // kernels load the last B vector under the column mask

	// dotKernels[cols][rows] are the dot-product kernels for narrow outputs
	// (dot.go); nil on paths without them.
	dotKernels [][]kernelFunc
	dotCols    int    // widest dot tile
	mc         [3]int // rows per A block for 1 and 2 vectors per row (setup)

	dot  func(x, y []float32) float32
	axpy func(alpha float32, x, y []float32)
	scal func(alpha float32, x []float32)
	tanh func(dst, x []float32)
	// reluGrad is ReLUGrad on len(d) a multiple of 16; nil: portable loop.
	reluGrad func(d, g, y []float32)
	// relu is ReLU on len(y) a multiple of 16; nil: portable loop.
	relu func(y, x []float32)

	rows rowKernels
	// rowSumSquaresNarrow is RowSumSquares for rows a multiple of 16 and
	// 1 ≤ cols ≤ 15, bit for bit (rowsq_amd64.s); nil: one dot per row.
	rowSumSquaresNarrow func(rows, cols int, x *float32, ldx int, dst *float32)
}

// current is the path used by the exported functions; set once in init.
var current *arch

// available lists every path this CPU can run, best first; tests and
// benchmarks iterate over it.
var available []*arch

// Path names the implementation in use: "avx512", "avx2" or "purego".
func Path() string { return current.name }

func init() {
	available = append(detectAsm(), genericArch())
	for _, ar := range available {
		ar.setup()
	}
	current = available[0]
}

// setup derives the per-path block sizes once: the rows of an A block are
// the multiple of the tile height nearest below mcTarget.
func (ar *arch) setup() {
	for nv := 1; nv <= 2; nv++ {
		ar.mc[nv] = max(ar.maxMR[nv], mcTarget/ar.maxMR[nv]*ar.maxMR[nv])
	}
}
