package gemm

// Narrow outputs. When C has at most dotMaxN columns, a broadcast kernel
// wastes most of its vector lanes (n = 1 uses 1 of 16, n = 10 uses 10 of 16),
// so untransposed-A products vectorise along k instead: each C element is a
// dot product of a row of A with a row of Bᵀ, both contiguous (Bᵀ is B
// itself when transB, else a transposed copy). Per element, every assembly
// path forms 16 lane sums (lane l: FMA chain over p ≡ l mod 16, p ascending),
// folds them by a fixed tree (l += 8, 4, 2, 1) and stores
// fma(beta, C, alpha·sum), so AVX2 and AVX-512 agree bit for bit, and no
// k-chunks are used (the result does not depend on kcBlock either).

const dotMaxN = 12 // widest output that takes the dot path

// dotMinK is the shortest k for which the dot path beats the broadcast
// kernels at n columns: the lane reduction at the end of every dot product
// must be amortised, and the broadcast kernels' lane waste shrinks as n
// approaches a vector. Measured on Zen 4 (BenchmarkTune, m = 128): n = 1…4
// gains already at k = 32, n = 6 from 64, n = 10 from ≈100, n = 12 from
// ≈160. 0 disables the dot path (tests set it to compare).
var dotMinK = func(n int) int {
	switch {
	case n <= 4:
		return 32
	case n <= 6:
		return 64
	case n <= 10:
		return 128
	default:
		return 256
	}
}

// useDot depends on the shape alone (not on the path's tile sizes), so that
// every path with dot kernels takes it for the same problems.
func useDot(ar *arch, transA bool, n, k int) bool {
	return ar.dotKernels != nil && !transA && n <= dotMaxN && k >= dotMinK(n)
}

// gemmDot computes C[0:m, 0:n] on the dot path (m, n, k ≥ 1, alpha ≠ 0).
func (ar *arch) gemmDot(ws *workspace, transB bool, m, n, k int,
	alpha float32, a []float32, lda int, b []float32, ldb int, beta float32, c []float32, ldc int) {

	bt, ldbt := b, ldb
	if !transB {
		bt, ldbt = ws.bufB(n*k), k
		transposeInto(bt, k, b, ldb, k, n)
	}
	for j0 := 0; j0 < n; j0 += ar.dotCols {
		cols := min(ar.dotCols, n-j0)
		kerns := ar.dotKernels[cols]
		tiles := rowTiles(m, len(kerns)-1)
		for i := 0; i < m; i += tiles.rows(i) {
			kerns[tiles.rows(i)](k, &a[i*lda], lda, &bt[j0*ldbt], ldbt, &c[i*ldc+j0], ldc, alpha, beta, cols)
		}
	}
}
