//go:build amd64 && !purego

#include "textflag.h"

// Sparse row sums for the convolution's backward pass: with o = off[j]
// (in floats),
//
//	acc[v] = Σ_{j<n} coef[j] · base[o+v]    (one FMA chain per element,
//	                                         j ascending, from +0)
//
// then dst[v] = acc[v] (add false) or dst[v] = dst[v] + acc[v] (add
// true) for v < 48 (accRows6AVX2) or v < 8 (accRows1AVX2). The chain is
// the GEMM kernels' (VXORPS, then VFMADD231PS per term), so a sum over
// the non-zero coefficients equals the GEMM's sum over all of them bit
// for bit: a zero coefficient adds ±0 to a chain that is never −0.

// func accRows6AVX2(dst, base *float32, off *int32, coef *float32, n int, add bool)
TEXT ·accRows6AVX2(SB), NOSPLIT, $0-41
	MOVQ dst+0(FP), DI
	MOVQ base+8(FP), SI
	MOVQ off+16(FP), R8
	MOVQ coef+24(FP), R9
	MOVQ n+32(FP), CX
	VXORPS Y0, Y0, Y0
	VXORPS Y1, Y1, Y1
	VXORPS Y2, Y2, Y2
	VXORPS Y3, Y3, Y3
	VXORPS Y4, Y4, Y4
	VXORPS Y5, Y5, Y5
	TESTQ CX, CX
	JZ six_done

six_loop:
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
	JNZ six_loop

six_done:
	MOVBLZX add+40(FP), AX
	TESTL AX, AX
	JZ six_store
	VADDPS (DI), Y0, Y0
	VADDPS 32(DI), Y1, Y1
	VADDPS 64(DI), Y2, Y2
	VADDPS 96(DI), Y3, Y3
	VADDPS 128(DI), Y4, Y4
	VADDPS 160(DI), Y5, Y5

six_store:
	VMOVUPS Y0, (DI)
	VMOVUPS Y1, 32(DI)
	VMOVUPS Y2, 64(DI)
	VMOVUPS Y3, 96(DI)
	VMOVUPS Y4, 128(DI)
	VMOVUPS Y5, 160(DI)
	VZEROUPPER
	RET

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
