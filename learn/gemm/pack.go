package gemm

// Packing copies operand blocks into the contiguous layouts the micro-kernels
// stream through: B panels of nr columns (row stride = panel width rounded up
// to whole vectors, zero-padded), A panels of mr rows (a[p·mr + i]).

// packB copies op(B)[p0:p0+kc, j0:j0+cols] into dst with row stride `stride`
// (≥ cols), zero-filling columns cols..stride-1.
func packB(dst []float32, transB bool, b []float32, ldb, p0, kc, j0, cols, stride int) {
	dst = dst[:kc*stride]
	if !transB {
		for p := 0; p < kc; p++ {
			row := dst[p*stride : (p+1)*stride]
			src := b[(p0+p)*ldb+j0:]
			copy(row, src[:cols])
			clear(row[cols:])
		}
		return
	}
	// B stored n×k: column j of op(B) is row j0+j of b. Whole 8×8 blocks
	// go through the vector transposer when there is one, the rest (and
	// everything on the purego path) through the scalar loop.
	jv, pv := 0, 0
	if transposeBlocks != nil {
		jv, pv = cols/8*8, kc/8*8
		transposeBlocks(dst, stride, b[j0*ldb+p0:], ldb, jv/8, pv/8)
	}
	for j := 0; j < cols; j++ {
		src := b[(j0+j)*ldb+p0 : (j0+j)*ldb+p0+kc]
		pStart := 0
		if j < jv {
			pStart = pv // columns of full blocks: only the k tail is left
		}
		for p := pStart; p < kc; p++ {
			dst[p*stride+j] = src[p]
		}
	}
	if cols < stride {
		for p := 0; p < kc; p++ {
			clear(dst[p*stride+cols : (p+1)*stride])
		}
	}
}

// packA copies op(A)[i0:i0+rows, p0:p0+kc] into dst as a[p·rows + i].
func packA(dst []float32, transA bool, a []float32, lda, i0, rows, p0, kc int) {
	dst = dst[:kc*rows]
	if transA {
		// A stored k×m: the rows values for one p are contiguous.
		for p := 0; p < kc; p++ {
			copy(dst[p*rows:(p+1)*rows], a[(p0+p)*lda+i0:])
		}
		return
	}
	for i := 0; i < rows; i++ {
		src := a[(i0+i)*lda+p0 : (i0+i)*lda+p0+kc]
		for p, v := range src {
			dst[p*rows+i] = v
		}
	}
}
