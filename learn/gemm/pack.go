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

// packBFull packs the first `panels` whole panels of nr columns of an
// untransposed B[p0:p0+kc, j0:], panel q at dst[q·kc·nr:] as packB would,
// one row of B at a time: each row's columns are read in one sequential run
// and dealt out to the panels, where packB reads one panel's kc short runs
// from kc rows (at a 4 KiB row stride, kc pages) and calls memmove for each
// (as Go's copy of a 64-byte array also does: the assembly moves them in
// registers).
func packBFull(dst []float32, b []float32, ldb, p0, kc, j0, panels, nr int) {
	if panels == 0 || packBRowsVec(dst, b, ldb, p0, kc, j0, panels, nr) {
		return
	}
	dst = dst[:panels*kc*nr]
	for p := 0; p < kc; p++ {
		src := b[(p0+p)*ldb+j0 : (p0+p)*ldb+j0+panels*nr]
		for q := range panels {
			copy(dst[(q*kc+p)*nr:(q*kc+p+1)*nr], src[nr*q:])
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
	if rows == 6 {
		packA6(dst, a, lda, i0, p0, kc)
		return
	}
	for i := 0; i < rows; i++ {
		src := a[(i0+i)*lda+p0 : (i0+i)*lda+p0+kc]
		for p, v := range src {
			dst[p*rows+i] = v
		}
	}
}

// packA6 is packA of six untransposed rows (AVX2's tile height, below the
// vector transposer's eight): six read streams and one contiguous write
// stream, where the loop above writes each row's values 24 bytes apart
// (0.41 against 0.74 ms for a 1024² A's 6-row panels); eight columns at a
// time through packA6Vec where the CPU has AVX (0.20 ms), the rest here.
func packA6(dst []float32, a []float32, lda, i0, p0, kc int) {
	done := packA6Vec(dst, a[i0*lda+p0:], lda, kc)
	dst, p0, kc = dst[6*done:], p0+done, kc-done
	r0 := a[(i0+0)*lda+p0 : (i0+0)*lda+p0+kc]
	r1 := a[(i0+1)*lda+p0 : (i0+1)*lda+p0+kc]
	r2 := a[(i0+2)*lda+p0 : (i0+2)*lda+p0+kc]
	r3 := a[(i0+3)*lda+p0 : (i0+3)*lda+p0+kc]
	r4 := a[(i0+4)*lda+p0 : (i0+4)*lda+p0+kc]
	r5 := a[(i0+5)*lda+p0 : (i0+5)*lda+p0+kc]
	dst = dst[:6*kc]
	for p := range r0 {
		d := (*[6]float32)(dst[6*p:])
		d[0], d[1], d[2], d[3], d[4], d[5] = r0[p], r1[p], r2[p], r3[p], r4[p], r5[p]
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
