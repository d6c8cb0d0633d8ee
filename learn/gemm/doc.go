// Package gemm holds dpaudit's float32 dense kernels: the matrix multiply
// (Sgemm, SgemmParallel) that dominates DP-SGD training, the level-1 vector
// kernels (Dot, Axpy, Scal, SumSquares) and the trainer's row/column
// bookkeeping (ColSums, AddRowVector, ScaleRows, RowSumSquares, AllFinite,
// Tanh, ReLU, ReLUGrad), and the vector part of the trainer's Gaussian
// noise (ZigguratFast, ZigguratScan, ZigguratWedge, ZigguratAddKept).
//
// # Paths
//
// On amd64 the kernels are Go assembly, chosen once at start-up from the CPU's
// features (golang.org/x/sys/cpu): AVX-512F (16-lane ZMM FMA, lane masks)
// when present, else AVX2+FMA (8-lane YMM). Every other CPU and architecture,
// and any build with the `purego` tag, uses a portable Go implementation of
// the same blocked algorithm. [Path] reports which one is in use. The
// default `go build` needs no cgo and no system libraries.
//
// # Algorithm
//
// Sgemm is the GotoBLAS/BLIS scheme: C is computed in register tiles of up
// to 14×32 (AVX-512) or 6×16 (AVX2) by micro-kernels that broadcast one
// element of op(A) and multiply it with one or two vectors of op(B) per step
// of k. The kernels are generated (internal/asmgen) for every tile height and
// both layouts of A, so m edges need no padding, and the last vector of a row
// is masked, so n edges need none either: no operand is read past its last
// element. Operands are copied into packed panels only when that pays — a
// transposed B always (through an 8×8 AVX transposer), a B with rows 4 KiB
// or more apart or a row stride that is a multiple of 512 bytes (its panel
// would fold into a few L1 sets) once enough row tiles reuse it (copied a
// row of B at a time), an A when its row stride is a multiple of 4 KiB
// (rows would alias in L1) or when a block of it is reused by 8 or more
// column panels (16 for AVX2's 6-row tiles; blocking.go); otherwise both are read
// in place, which is what makes the skinny shapes of small models fast
// (256×784 · 784×10 has nothing worth packing). k is cut into equal chunks
// of at most 256, rows into equal blocks of at most 384. The AVX-512
// kernels prefetch the packed A panel ahead into L1 and, one row per k
// step, the rows of C they and the next tiles will write into L2.
//
// Outputs with at most 12 columns and long enough k (n = 1 for binary
// logistic regression, n = 10 for ten classes) take a dot-product path
// instead: a broadcast kernel would leave most of its 16 lanes idle there.
// The dot kernels prefetch the next tile's rows of A as they read their
// own, so a tall A streamed from L3 (a full batch larger than L2) keeps
// up with the FMAs. See dot.go.
//
// # Determinism
//
// For a given path, every element of C is computed by one fixed sequence of
// operations that depends only on the problem's shape. On the broadcast path
// it is one FMA chain over p ascending within each k-chunk, the chunk's sum s
// folded in as C ← fma(β′, C, alpha·s) with β′ = beta for the first chunk and
// 1 after it; on the dot path, 16 lane sums folded by a fixed tree. Neither
// depends on the tile that computes the element, on packing, or on how
// SgemmParallel splits the output, so results are bit-identical for any
// thread count. The AVX2 and AVX-512 kernels perform the same sequences, so
// those two paths also agree bit for bit. The portable Go path rounds every
// product separately (no fused multiply-add; see generic.go) and so differs
// from the assembly in the last bits, but gives the same bits on every
// architecture and GOAMD64 level.
//
// Dot uses 64 partial sums (element i goes to sum i mod 64) folded pairwise,
// identical on AVX2 and AVX-512. ColSums, AddRowVector, ScaleRows and Tanh
// do exactly the operations of their plain Go loops and so match them bit for
// bit on every path.
//
// # Concurrency and memory
//
// All functions are safe for concurrent use. Sgemm runs on the calling
// goroutine; packing buffers come from a sync.Pool, so steady-state calls do
// not allocate. SgemmParallel starts goroutines only when asked to.
package gemm

//go:generate go run ./internal/asmgen
