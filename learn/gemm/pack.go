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
	// B stored n×k: column j of op(B) is row j0+j of b.
	transposeInto(dst, stride, b[j0*ldb+p0:], ldb, cols, kc)
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
	if transposeBlocks != nil && rows >= 8 && kc >= 8 {
		// A tile-high strip is a rows×kc transpose: whole 8×8 blocks through
		// the vector transposer, and the row and column remainders as blocks
		// that overlap the previous ones (they rewrite a few elements with
		// the same values). The scalar loop below took 5% of a 2048³ product.
		src := a[i0*lda+p0:]
		pb := kc / 8
		for r := 0; r < rows; r += 8 {
			r = min(r, rows-8)
			transposeBlocks(dst[r:], rows, src[r*lda:], lda, 1, pb)
			if kc%8 != 0 {
				transposeBlocks(dst[(kc-8)*rows+r:], rows, src[r*lda+kc-8:], lda, 1, 1)
			}
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

// transposeInto sets dst[c·ldd + r] = src[r·lds + c] for r < rows, c < cols.
// Whole 8×8 blocks go through the vector transposer when there is one; the
// rest (everything on the purego path) through a scalar loop.
func transposeInto(dst []float32, ldd int, src []float32, lds, rows, cols int) {
	rv, cv := 0, 0
	if transposeBlocks != nil {
		rv, cv = rows/8*8, cols/8*8
		transposeBlocks(dst, ldd, src, lds, rv/8, cv/8)
	}
	for r := 0; r < rows; r++ {
		row := src[r*lds : r*lds+cols]
		c0 := 0
		if r < rv {
			c0 = cv // rows of whole blocks: only the column tail is left
		}
		for c := c0; c < cols; c++ {
			dst[c*ldd+r] = row[c]
		}
	}
}
