//go:build amd64 && !purego

#include "textflag.h"

// Sparse row sums for the convolution's backward pass: with o = off[j]
// (in floats),
//
//	acc[v] = Σ_{j<n} coef[j] · base[o+v]    (one FMA chain per element,
//	                                         j ascending, from +0)
//
// then dst[v] = acc[v] (add false) or dst[v] = dst[v] + acc[v] (add
// true) for v < 8 (accRows1AVX2), or v < 48 for each of nseg segments
// (accRowsSeg6AVX2). The chain is
// the GEMM kernels' (VXORPS, then VFMADD231PS per term), so a sum over
// the non-zero coefficients equals the GEMM's sum over all of them bit
// for bit: a zero coefficient adds ±0 to a chain that is never −0.

// func accRows1AVX2(dst, base *float32, off *int32, coef *float32, n int, add bool)
TEXT ·accRows1AVX2(SB), NOSPLIT, $0-41
	MOVQ dst+0(FP), DI
	MOVQ base+8(FP), SI
	MOVQ off+16(FP), R8
	MOVQ coef+24(FP), R9
	MOVQ n+32(FP), CX
	VXORPS Y0, Y0, Y0
	TESTQ CX, CX
	JZ one_done

one_loop:
	MOVLQSX (R8), AX
	VBROADCASTSS (R9), Y15
	VFMADD231PS (SI)(AX*4), Y15, Y0
	ADDQ $4, R8
	ADDQ $4, R9
	DECQ CX
	JNZ one_loop

one_done:
	MOVBLZX add+40(FP), AX
	TESTL AX, AX
	JZ one_store
	VADDPS (DI), Y0, Y0

one_store:
	VMOVUPS Y0, (DI)
	VZEROUPPER
	RET

// ZERO12 sets the twelve accumulators Y0–Y11 to +0.
#define ZERO12 \
	VXORPS Y0, Y0, Y0 \
	VXORPS Y1, Y1, Y1 \
	VXORPS Y2, Y2, Y2 \
	VXORPS Y3, Y3, Y3 \
	VXORPS Y4, Y4, Y4 \
	VXORPS Y5, Y5, Y5 \
	VXORPS Y6, Y6, Y6 \
	VXORPS Y7, Y7, Y7 \
	VXORPS Y8, Y8, Y8 \
	VXORPS Y9, Y9, Y9 \
	VXORPS Y10, Y10, Y10 \
	VXORPS Y11, Y11, Y11

// BCAST_FMA2(m, a, b) adds the float at m times Y12 to a and times Y13
// to b (one step of two accumulators' FMA chains); Y14 is scratch.
#define BCAST_FMA2(m, a, b) \
	VBROADCASTSS m, Y14 \
	VFMADD231PS Y12, Y14, a \
	VFMADD231PS Y13, Y14, b

// BIAS_STORE(a, b) stores one output row of 16 channels, a and b plus
// the bias (BX), at DI and moves DI one row (R8 bytes) on.
#define BIAS_STORE(a, b) \
	VADDPS 0(BX), a, a \
	VMOVUPS a, 0(DI) \
	VADDPS 32(BX), b, b \
	VMOVUPS b, 32(DI) \
	ADDQ R8, DI

// RELU(a) is gemm.ReLU's a & (a > 0 or unordered) & 0x7FFFFFFF, with
// Y13 = +0 and Y15 = 0x7FFFFFFF lanes; Y14 is scratch.
#define RELU(a) \
	VCMPPS $6, Y13, a, Y14 \
	VANDPS a, Y14, Y14 \
	VANDPS Y15, Y14, a

// BIAS_RELU_STORE(a, b) is BIAS_STORE with the ReLU of the sums.
#define BIAS_RELU_STORE(a, b) \
	VADDPS 0(BX), a, a \
	RELU(a) \
	VMOVUPS a, 0(DI) \
	VADDPS 32(BX), b, b \
	RELU(b) \
	VMOVUPS b, 32(DI) \
	ADDQ R8, DI

// Direct convolution, six output positions by 16 channels at a time,
// ntiles tiles: for tile t and rows i < 6 starting at x + 4·off[6t+i]
// bytes,
//
//	acc[i][c] = Σ_{s<nseg} Σ_{j<segLen} x[off[6t+i] + s·segStride + j] · w[(s·segLen + j)·16 + c]
//
// (one FMA chain per element, the patch index s·segLen+j ascending, from
// +0: the GEMM kernels' chain over im2col's row of the patch), then
// out[(6t+i)·ldc + c] = acc[i][c] + bias[c], as addBiasRows adds the
// bias, and with relu set the ReLU of that, by gemm.ReLU's operations
// (v & (v > 0 or unordered) & 0x7FFFFFFF). w is one 16-column panel of
// the transposed weights, K×16.

// func convTilesAVX2(out *float32, ldc int, x *float32, off *int32, w *float32, bias *float32, nseg, segLen, segStride, ntiles int, relu bool)
TEXT ·convTilesAVX2(SB), NOSPLIT, $0-81

ct_tile:
	MOVQ x+16(FP), DX
	MOVQ off+24(FP), AX
	MOVLQSX 0(AX), R8
	LEAQ (DX)(R8*4), R8
	MOVLQSX 4(AX), R9
	LEAQ (DX)(R9*4), R9
	MOVLQSX 8(AX), R10
	LEAQ (DX)(R10*4), R10
	MOVLQSX 12(AX), R11
	LEAQ (DX)(R11*4), R11
	MOVLQSX 16(AX), R12
	LEAQ (DX)(R12*4), R12
	MOVLQSX 20(AX), R13
	LEAQ (DX)(R13*4), R13
	ADDQ $24, AX
	MOVQ AX, off+24(FP)
	MOVQ w+32(FP), SI
	MOVQ nseg+48(FP), R14
	MOVQ segLen+56(FP), DX
	MOVQ segStride+64(FP), AX
	SUBQ DX, AX
	SHLQ $2, AX
	ZERO12

ct_seg:
	MOVQ DX, CX

ct_step:
	VMOVUPS (SI), Y12
	VMOVUPS 32(SI), Y13
	BCAST_FMA2((R8), Y0, Y1)
	BCAST_FMA2((R9), Y2, Y3)
	BCAST_FMA2((R10), Y4, Y5)
	BCAST_FMA2((R11), Y6, Y7)
	BCAST_FMA2((R12), Y8, Y9)
	BCAST_FMA2((R13), Y10, Y11)
	ADDQ $64, SI
	ADDQ $4, R8
	ADDQ $4, R9
	ADDQ $4, R10
	ADDQ $4, R11
	ADDQ $4, R12
	ADDQ $4, R13
	DECQ CX
	JNZ ct_step
	ADDQ AX, R8
	ADDQ AX, R9
	ADDQ AX, R10
	ADDQ AX, R11
	ADDQ AX, R12
	ADDQ AX, R13
	DECQ R14
	JNZ ct_seg

	MOVQ out+0(FP), DI
	MOVQ ldc+8(FP), R8
	SHLQ $2, R8
	MOVQ bias+40(FP), BX
	MOVBLZX relu+80(FP), AX
	TESTL AX, AX
	JNZ ct_relu
	BIAS_STORE(Y0, Y1)
	BIAS_STORE(Y2, Y3)
	BIAS_STORE(Y4, Y5)
	BIAS_STORE(Y6, Y7)
	BIAS_STORE(Y8, Y9)
	BIAS_STORE(Y10, Y11)
	JMP ct_next

ct_relu:
	VXORPS Y13, Y13, Y13
	MOVL $0x7FFFFFFF, DX
	VMOVD DX, X15
	VPBROADCASTD X15, Y15
	BIAS_RELU_STORE(Y0, Y1)
	BIAS_RELU_STORE(Y2, Y3)
	BIAS_RELU_STORE(Y4, Y5)
	BIAS_RELU_STORE(Y6, Y7)
	BIAS_RELU_STORE(Y8, Y9)
	BIAS_RELU_STORE(Y10, Y11)

ct_next:
	MOVQ DI, out+0(FP)
	MOVQ ntiles+72(FP), CX
	DECQ CX
	MOVQ CX, ntiles+72(FP)
	JNZ ct_tile
	VZEROUPPER
	RET

// func nonzeroMasksAVX2(x *float32, n int, dst *uint8)
// dst[v] bit j = (x[8v+j] != 0) for v < n (n vectors): VCMPPS with
// NEQ_UQ, so NaN counts as non-zero and ±0 as zero, as x != 0 in Go.
TEXT ·nonzeroMasksAVX2(SB), NOSPLIT, $0-24
	MOVQ x+0(FP), SI
	MOVQ n+8(FP), CX
	MOVQ dst+16(FP), DI
	VXORPS Y15, Y15, Y15
	TESTQ CX, CX
	JZ nz_done

nz_loop:
	VCMPPS $4, (SI), Y15, Y0
	VMOVMSKPS Y0, AX
	MOVB AX, (DI)
	ADDQ $32, SI
	INCQ DI
	DECQ CX
	JNZ nz_loop

nz_done:
	VZEROUPPER
	RET

// GT_ROW(a, b) stores one row of convGradT6AVX2's sums, a and b plus
// the 16 floats at SI, at DI; DI and SI move one row (R8, R9 bytes) on,
// and the kernel ends after the last of CX rows.
#define GT_ROW(a, b) \
	VADDPS (SI), a, a \
	VADDPS 32(SI), b, b \
	VMOVUPS a, (DI) \
	VMOVUPS b, 32(DI) \
	ADDQ R8, DI \
	ADDQ R9, SI \
	DECQ CX \
	JZ gt_end

DATA gtZero<>+0(SB)/8, $0
DATA gtZero<>+8(SB)/8, $0
DATA gtZero<>+16(SB)/8, $0
DATA gtZero<>+24(SB)/8, $0
DATA gtZero<>+32(SB)/8, $0
DATA gtZero<>+40(SB)/8, $0
DATA gtZero<>+48(SB)/8, $0
DATA gtZero<>+56(SB)/8, $0
GLOBL gtZero<>(SB), RODATA, $64

// Direct weight gradient of a convolution, transposed, six patch elements
// by 16 channels: for rows i < 6 (patch element displacements disp[i]
// from a patch's top-left input element) and positions p < np,
//
//	acc[i][c] = Σ_p x[pos[p] + disp[i]] · d[p·ldd + c]
//
// (one FMA chain per element, p ascending, from +0: the GEMM kernels'
// chain for Uᵀ·Δ over one k-chunk), then out[i·ldc + c] = acc[i][c] (add
// false) or out[i·ldc + c] + acc[i][c] (add true, a later k-chunk), for
// the first nk ≤ 6 rows.

// func convGradT6AVX2(out *float32, ldc int, x *float32, pos *int32, np int, d *float32, ldd int, disp *int32, nk int, add bool)
TEXT ·convGradT6AVX2(SB), NOSPLIT, $0-73
	MOVQ disp+56(FP), AX
	MOVLQSX 0(AX), R8
	MOVLQSX 4(AX), R9
	MOVLQSX 8(AX), R10
	MOVLQSX 12(AX), R11
	MOVLQSX 16(AX), R12
	MOVLQSX 20(AX), R13
	MOVQ x+16(FP), SI
	MOVQ pos+24(FP), BX
	MOVQ np+32(FP), CX
	MOVQ d+40(FP), DI
	MOVQ ldd+48(FP), R14
	SHLQ $2, R14
	ZERO12
	TESTQ CX, CX
	JZ gt_done

gt_loop:
	MOVLQSX (BX), AX
	LEAQ (SI)(AX*4), DX
	VMOVUPS (DI), Y12
	VMOVUPS 32(DI), Y13
	BCAST_FMA2((DX)(R8*4), Y0, Y1)
	BCAST_FMA2((DX)(R9*4), Y2, Y3)
	BCAST_FMA2((DX)(R10*4), Y4, Y5)
	BCAST_FMA2((DX)(R11*4), Y6, Y7)
	BCAST_FMA2((DX)(R12*4), Y8, Y9)
	BCAST_FMA2((DX)(R13*4), Y10, Y11)
	ADDQ $4, BX
	ADDQ R14, DI
	DECQ CX
	JNZ gt_loop

gt_done:
	MOVQ out+0(FP), DI
	MOVQ ldc+8(FP), R8
	SHLQ $2, R8
	MOVQ nk+64(FP), CX
	MOVQ DI, SI // the rows are added to out itself (a later k-chunk)…
	MOVQ R8, R9
	MOVBLZX add+72(FP), AX
	TESTL AX, AX
	JNZ gt_rows
	LEAQ gtZero<>(SB), SI // …or to +0, which leaves a sum from +0 as it is
	XORQ R9, R9

gt_rows:
	GT_ROW(Y0, Y1)
	GT_ROW(Y2, Y3)
	GT_ROW(Y4, Y5)
	GT_ROW(Y6, Y7)
	GT_ROW(Y8, Y9)
	GT_ROW(Y10, Y11)

gt_end:
	VZEROUPPER
	RET

// func accRowsSeg6AVX2(dst *float32, dstStride int, base *float32, baseStride int, nseg int, off *int32, coef *float32, n int, add bool)
// 48 floats (six vectors) for nseg ≥ 1 segments with the same offsets
// and coefficients (n ≥ 1): segment s sums base + s·baseStride into
// dst + s·dstStride (strides in floats).
TEXT ·accRowsSeg6AVX2(SB), NOSPLIT, $0-65
	MOVQ dst+0(FP), DI
	MOVQ dstStride+8(FP), R10
	SHLQ $2, R10
	MOVQ base+16(FP), SI
	MOVQ baseStride+24(FP), R11
	SHLQ $2, R11
	MOVQ nseg+32(FP), R12
	MOVQ n+56(FP), R13
	MOVBLZX add+64(FP), R14

seg_next:
	MOVQ off+40(FP), R8
	MOVQ coef+48(FP), R9
	MOVQ R13, CX
	VXORPS Y0, Y0, Y0
	VXORPS Y1, Y1, Y1
	VXORPS Y2, Y2, Y2
	VXORPS Y3, Y3, Y3
	VXORPS Y4, Y4, Y4
	VXORPS Y5, Y5, Y5

seg_loop:
	MOVLQSX (R8), AX
	VBROADCASTSS (R9), Y15
	LEAQ (SI)(AX*4), DX
	VFMADD231PS (DX), Y15, Y0
	VFMADD231PS 32(DX), Y15, Y1
	VFMADD231PS 64(DX), Y15, Y2
	VFMADD231PS 96(DX), Y15, Y3
	VFMADD231PS 128(DX), Y15, Y4
	VFMADD231PS 160(DX), Y15, Y5
	ADDQ $4, R8
	ADDQ $4, R9
	DECQ CX
	JNZ seg_loop
	TESTL R14, R14
	JZ seg_store
	VADDPS (DI), Y0, Y0
	VADDPS 32(DI), Y1, Y1
	VADDPS 64(DI), Y2, Y2
	VADDPS 96(DI), Y3, Y3
	VADDPS 128(DI), Y4, Y4
	VADDPS 160(DI), Y5, Y5

seg_store:
	VMOVUPS Y0, (DI)
	VMOVUPS Y1, 32(DI)
	VMOVUPS Y2, 64(DI)
	VMOVUPS Y3, 96(DI)
	VMOVUPS Y4, 128(DI)
	VMOVUPS Y5, 160(DI)
	ADDQ R10, DI
	ADDQ R11, SI
	DECQ R12
	JNZ seg_next
	VZEROUPPER
	RET
