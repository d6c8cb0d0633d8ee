package main

import "fmt"

// Dot-product kernels for outputs with few columns (n ≤ dotMaxN): C[i][j] =
// alpha·⟨A_i, Bt_j⟩ + beta·C[i][j] with A_i (row i of A) and Bt_j (row j of
// Bᵀ) both contiguous along k. Every element is computed the same way on
// both ISAs:
//
//	s[l] = FMA chain over p ≡ l (mod 16), p ascending, l < 16
//	       (the last, partial, 16-chunk loaded with zeros beyond k)
//	s[l] += s[l+8]; s[l] += s[l+4]; s[l] += s[l+2]; s[0] += s[1]
//	C = fma(beta, C, alpha·s[0])   (C not read when beta == 0)
//
// AVX-512 keeps s in one ZMM, AVX2 in two YMM (lanes 0–7, 8–15).

const dotMaxN = 12

// dotRows512 is the tile height for S columns: the most rows (≤ 8) whose
// R·S accumulators, R A vectors and two B vectors fit in 32 registers.
func dotRows512(s int) int { return min(8, 30/(s+1)) }

// dotCols2 is the AVX2 tile width (one row): 2S accumulators, two A halves,
// two tail masks and a temporary fit in 16 registers.
const dotCols2 = 5

func dotName(s isa, cols, rows int) string {
	return fmt.Sprintf("d%s_%dx%d", s.name, rows, cols)
}

// genDot512 writes the AVX-512 kernel for rows × cols. Arguments as
// kernelFunc: k+0 a+8 lda+16 b+24 ldb+32 c+40 ldc+48 alpha+56 beta+60
// (nr+64 unused).
func genDot512(w *writer, rows, cols int) {
	name := dotName(avx512, cols, rows)
	fmt.Fprintf(&w.Buffer, "// func %s(k int, a *float32, lda int, b *float32, ldb int, c *float32, ldc int, alpha, beta float32, nr int)\n", name)
	fmt.Fprintf(&w.Buffer, "TEXT ·%s(SB), NOSPLIT, $0-72\n", name)
	w.f("MOVQ a+8(FP), SI")
	w.f("MOVQ lda+16(FP), R8")
	w.f("SHLQ $2, R8")
	w.f("LEAQ (R8)(R8*2), R11")
	w.f("MOVQ b+24(FP), DX")
	w.f("MOVQ ldb+32(FP), R9")
	w.f("SHLQ $2, R9")
	w.f("LEAQ (R9)(R9*2), R10")
	if rows > 5 {
		w.f("LEAQ (SI)(R8*4), R12")
		w.f("ADDQ R8, R12")
	}
	if cols > 5 {
		w.f("LEAQ (DX)(R9*4), R13")
		w.f("ADDQ R9, R13")
	}
	if cols > 10 {
		w.f("LEAQ (R13)(R9*4), R14")
		w.f("ADDQ R9, R14")
	}
	acc := func(r, s int) string { return fmt.Sprintf("Z%d", r*cols+s) }
	areg := func(r int) string { return fmt.Sprintf("Z%d", rows*cols+r) }
	breg := func(s int) string { return fmt.Sprintf("Z%d", rows*cols+rows+s%2) }
	aAddr := func(r int) string {
		base := [...]string{"(SI)", "(R12)"}[r/5]
		return base + [...]string{"", "(R8*1)", "(R8*2)", "(R11*1)", "(R8*4)"}[r%5]
	}
	bAddr := func(s int) string {
		base := [...]string{"(DX)", "(R13)", "(R14)"}[s/5]
		return base + [...]string{"", "(R9*1)", "(R9*2)", "(R10*1)", "(R9*4)"}[s%5]
	}
	for r := 0; r < rows; r++ {
		for s := 0; s < cols; s++ {
			a := acc(r, s)
			w.f("VXORPS %s, %s, %s", a, a, a)
		}
	}
	advance := func() {
		w.f("ADDQ $64, SI")
		if rows > 5 {
			w.f("ADDQ $64, R12")
		}
		w.f("ADDQ $64, DX")
		if cols > 5 {
			w.f("ADDQ $64, R13")
		}
		if cols > 10 {
			w.f("ADDQ $64, R14")
		}
	}
	chunk := func(masked bool) {
		z := ""
		k := ""
		if masked {
			z, k = ".Z", " K1,"
		}
		for r := 0; r < rows; r++ {
			w.f("VMOVUPS%s %s,%s %s", z, aAddr(r), k, areg(r))
		}
		for s := 0; s < cols; s++ {
			w.f("VMOVUPS%s %s,%s %s", z, bAddr(s), k, breg(s))
			for r := 0; r < rows; r++ {
				w.f("VFMADD231PS %s, %s, %s", breg(s), areg(r), acc(r, s))
			}
		}
	}
	// Prefetch: the next tile's rows of A (rows further down), at the pace
	// this tile reads its own, so that a tall A streamed from L3 arrives
	// while this tile computes (the 1000×784 A of a
	// Hayes et al. full-batch step is larger than L2).
	w.f("IMUL3Q $%d, R8, DI", rows)
	w.f("ADDQ SI, DI")
	if rows > 5 {
		w.f("LEAQ (DI)(R8*4), BX")
		w.f("ADDQ R8, BX")
	}
	pfAddr := func(r int) string {
		base := [...]string{"(DI)", "(BX)"}[r/5]
		return base + [...]string{"", "(R8*1)", "(R8*2)", "(R11*1)", "(R8*4)"}[r%5]
	}
	w.f("MOVQ k+0(FP), CX")
	w.f("SHRQ $4, CX")
	w.f("JZ tail")
	w.label("loop")
	for r := 0; r < rows; r++ {
		w.f("PREFETCHT0 %s", pfAddr(r))
	}
	chunk(false)
	advance()
	w.f("ADDQ $64, DI")
	if rows > 5 {
		w.f("ADDQ $64, BX")
	}
	w.f("DECQ CX")
	w.f("JNZ loop")
	w.label("tail")
	w.f("MOVQ k+0(FP), CX")
	w.f("ANDQ $15, CX")
	w.f("JZ reduce")
	w.f("MOVL $1, AX")
	w.f("SHLXL CX, AX, AX")
	w.f("DECL AX")
	w.f("KMOVW AX, K1")
	chunk(true)
	w.label("reduce")
	// Fold every accumulator to lane 0 (fixed tree, see file comment), then
	// C = alpha·s + beta·C element by element.
	for r := 0; r < rows; r++ {
		for s := 0; s < cols; s++ {
			n := r*cols + s
			// Full-width ZMM operations only (AVX512F, no VL needed for
			// registers ≥ 16); lanes above the ones still summed are
			// ignored.
			w.f("VEXTRACTF64X4 $1, Z%d, Y30", n) // l += 8
			w.f("VADDPS Z30, Z%d, Z%d", n, n)
			w.f("VEXTRACTF32X4 $1, Z%d, X30", n) // l += 4
			w.f("VADDPS Z30, Z%d, Z%d", n, n)
			w.f("VPERMILPS $0x0e, Z%d, Z30", n) // l += 2
			w.f("VADDPS Z30, Z%d, Z%d", n, n)
			w.f("VMOVSHDUP Z%d, Z30", n) // l += 1
			w.f("VADDSS X30, X%d, X%d", n, n)
		}
	}
	dotEpilogue(w, rows, cols, func(r, s int) string { return fmt.Sprintf("X%d", r*cols+s) }, "X31", "X29")
}

// dotEpilogue stores the lane-0 sums held in reg(r, s); alphaReg and betaReg
// are free X registers.
func dotEpilogue(w *writer, rows, cols int, reg func(r, s int) string, alphaReg, betaReg string) {
	w.f("MOVQ c+40(FP), DI")
	w.f("MOVQ ldc+48(FP), R8")
	w.f("SHLQ $2, R8")
	w.f("VMOVSS alpha+56(FP), %s", alphaReg)
	w.f("VMOVSS beta+60(FP), %s", betaReg)
	for r := 0; r < rows; r++ {
		for s := 0; s < cols; s++ {
			w.f("VMULSS %s, %s, %s", alphaReg, reg(r, s), reg(r, s))
		}
	}
	w.f("MOVL beta+60(FP), AX")
	w.f("ANDL $0x7fffffff, AX")
	w.f("JZ beta0")
	for r := 0; r < rows; r++ {
		for s := 0; s < cols; s++ {
			w.f("VFMADD231SS %d(DI), %s, %s", 4*s, betaReg, reg(r, s))
			w.f("VMOVSS %s, %d(DI)", reg(r, s), 4*s)
		}
		if r < rows-1 {
			w.f("ADDQ R8, DI")
		}
	}
	w.f("VZEROUPPER")
	w.f("RET")
	w.label("beta0")
	for r := 0; r < rows; r++ {
		for s := 0; s < cols; s++ {
			w.f("VMOVSS %s, %d(DI)", reg(r, s), 4*s)
		}
		if r < rows-1 {
			w.f("ADDQ R8, DI")
		}
	}
	w.f("VZEROUPPER")
	w.f("RET")
	w.WriteString("\n")
}

// genDotAVX2 writes the AVX2 kernel for one row × cols (≤ dotCols2).
// Accumulator s lives in Y(2s) (lanes 0–7) and Y(2s+1) (lanes 8–15).
func genDotAVX2(w *writer, cols int) {
	name := dotName(avx2, cols, 1)
	fmt.Fprintf(&w.Buffer, "// func %s(k int, a *float32, lda int, b *float32, ldb int, c *float32, ldc int, alpha, beta float32, nr int)\n", name)
	fmt.Fprintf(&w.Buffer, "TEXT ·%s(SB), NOSPLIT, $0-72\n", name)
	w.f("MOVQ a+8(FP), SI")
	w.f("MOVQ b+24(FP), DX")
	w.f("MOVQ ldb+32(FP), R9")
	w.f("SHLQ $2, R9")
	w.f("LEAQ (R9)(R9*2), R10")
	lo := func(s int) string { return fmt.Sprintf("Y%d", 2*s) }
	hi := func(s int) string { return fmt.Sprintf("Y%d", 2*s+1) }
	bAddr := func(s int, off int) string {
		return fmt.Sprintf("%d(DX)%s", off, [...]string{"", "(R9*1)", "(R9*2)", "(R10*1)", "(R9*4)"}[s])
	}
	for s := 0; s < cols; s++ {
		w.f("VXORPS %s, %s, %s", lo(s), lo(s), lo(s))
		w.f("VXORPS %s, %s, %s", hi(s), hi(s), hi(s))
	}
	const alo, ahi, tmp, mlo, mhi = "Y10", "Y11", "Y12", "Y13", "Y14"
	// Prefetch the next row of A (the next call's) at this row's pace, as
	// genDot512 does for its next tile.
	w.f("MOVQ lda+16(FP), R8")
	w.f("SHLQ $2, R8")
	w.f("MOVQ k+0(FP), CX")
	w.f("SHRQ $4, CX")
	w.f("JZ tail")
	w.label("loop")
	w.f("PREFETCHT0 (SI)(R8*1)")
	w.f("VMOVUPS (SI), %s", alo)
	w.f("VMOVUPS 32(SI), %s", ahi)
	for s := 0; s < cols; s++ {
		w.f("VFMADD231PS %s, %s, %s", bAddr(s, 0), alo, lo(s))
		w.f("VFMADD231PS %s, %s, %s", bAddr(s, 32), ahi, hi(s))
	}
	w.f("ADDQ $64, SI")
	w.f("ADDQ $64, DX")
	w.f("DECQ CX")
	w.f("JNZ loop")
	w.label("tail")
	w.f("MOVQ k+0(FP), CX")
	w.f("ANDQ $15, CX")
	w.f("JZ reduce")
	// Masks for lanes 0–7 (min(rem, 8)) and 8–15 (max(rem−8, 0)).
	w.f("LEAQ dotMask<>+32(SB), AX")
	w.f("MOVQ $8, BX")
	w.f("CMPQ CX, BX")
	w.f("CMOVQLT CX, BX")
	w.f("SHLQ $2, BX")
	w.f("MOVQ AX, R11")
	w.f("SUBQ BX, R11")
	w.f("VMOVUPS (R11), %s", mlo)
	w.f("XORQ BX, BX")
	w.f("SUBQ $8, CX")
	w.f("CMOVQLT BX, CX")
	w.f("SHLQ $2, CX")
	w.f("SUBQ CX, AX")
	w.f("VMOVUPS (AX), %s", mhi)
	w.f("VMASKMOVPS (SI), %s, %s", mlo, alo)
	w.f("VMASKMOVPS 32(SI), %s, %s", mhi, ahi)
	for s := 0; s < cols; s++ {
		w.f("LEAQ %s, AX", bAddr(s, 0))
		w.f("VMASKMOVPS (AX), %s, %s", mlo, tmp)
		w.f("VFMADD231PS %s, %s, %s", tmp, alo, lo(s))
		w.f("VMASKMOVPS 32(AX), %s, %s", mhi, tmp)
		w.f("VFMADD231PS %s, %s, %s", tmp, ahi, hi(s))
	}
	w.label("reduce")
	for s := 0; s < cols; s++ {
		l := 2 * s
		w.f("VADDPS Y%d, Y%d, Y%d", l+1, l, l)
		w.f("VEXTRACTF128 $1, Y%d, X15", l)
		w.f("VADDPS X15, X%d, X%d", l, l)
		w.f("VMOVHLPS X%d, X%d, X15", l, l)
		w.f("VADDPS X15, X%d, X%d", l, l)
		w.f("VMOVSHDUP X%d, X15", l)
		w.f("VADDSS X15, X%d, X%d", l, l)
	}
	dotEpilogue(w, 1, cols, func(r, s int) string { return fmt.Sprintf("X%d", 2*s) }, "X12", "X13")
}
