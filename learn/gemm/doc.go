// Package gemm holds dpaudit's float32 dense kernels: the matrix multiply
// (Sgemm) that dominates DP-SGD training, and the level-1 vector kernels
// (Dot, Axpy, Scal, ...).
//
// # Paths
//
// On amd64 the kernels are Go assembly, chosen once at start-up from the CPU's
// features (golang.org/x/sys/cpu): AVX-512F (16-lane ZMM FMA) when present,
// else AVX2+FMA (8-lane YMM). Every other CPU and architecture, and any build
// with the `purego` tag, uses a portable Go implementation of the same blocked
// algorithm. [Path] reports which one is in use.
//
// # Algorithm
//
// Sgemm is the GotoBLAS/BLIS scheme: C is computed in register tiles of up
// to 14×32 (AVX-512) or 6×16 (AVX2) by a micro-kernel that broadcasts one
// element of op(A) and multiplies it with one or two vectors of op(B) per step
// of k. Operands are packed into contiguous panels only when that pays: a
// transposed B is always packed, an untransposed B and an A that is reused by
// few column panels are read in place, which matters for the skinny shapes of
// small models (256×784 · 784×10). The k dimension is cut into chunks of
// 256 (kcBlock) for cache locality; m and n edges are handled by kernels for every row
// count and a lane mask on the last vector, so no operand is ever read past
// its last element.
//
// # Determinism
//
// Each element of C is one FMA chain over p = 0, 1, …, k−1 within every
// k-chunk of 256 (kcBlock), chunks accumulated into C in order, then
// C = alpha·acc + beta·C. That sequence does not depend on the tile that
// computes the element, on packing, or on how SgemmParallel splits the output,
// so results are bit-identical for any thread count, and the AVX2 and
// AVX-512 paths give identical bits as well. The portable Go path rounds
// differently (no fused multiply-add) and so differs in the last bits.
//
// Level-1 Dot uses 64 partial sums (element i goes to sum i mod 64) reduced
// by a fixed pairwise tree; again identical for AVX2 and AVX-512.
package gemm

//go:generate go run ./internal/asmgen
