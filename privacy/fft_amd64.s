//go:build amd64 && !purego

#include "textflag.h"

// AVX2 butterflies of fft_plan.go, two complex128 per register. Every
// operation is the one Go's complex arithmetic performs, in the same
// order and with the same rounding (no fused multiply-add): a complex
// product w·x is (wr·xr − wi·xi) + (wr·xi + wi·xr)i, each product rounded,
// then the sum (VADDSUBPD); so the transforms are the Go code's bits.

// CMUL sets D = W·X for the two complex numbers of each register; T and S
// are scratch.
#define CMUL(W, X, T, S, D) \
	VMOVDDUP W, T; \
	VPERMILPD $15, W, S; \
	VMULPD X, T, T; \
	VPERMILPD $5, X, D; \
	VMULPD D, S, S; \
	VADDSUBPD S, T, D

// func radix4AVX2(x0, x1, x2, x3, w1, w2 *complex128, n int)
//
// One radix-4 pass (radix4Stage) over n complex numbers (n even) of each
// quarter: for each k, with t1 = w1·x1, t2 = w1·x3, t3 = w2·(x2 + t2),
// t4 = −i·w2·(x2 − t2):
// x0, x2 = (x0 + t1) ± t3 and x1, x3 = (x0 − t1) ± t4.
TEXT ·radix4AVX2(SB), NOSPLIT, $0-56
	MOVQ x0+0(FP), DI
	MOVQ x1+8(FP), SI
	MOVQ x2+16(FP), DX
	MOVQ x3+24(FP), R8
	MOVQ w1+32(FP), R9
	MOVQ w2+40(FP), R10
	MOVQ n+48(FP), CX
	SHRQ $1, CX
	JZ   done
	VMOVUPD negOdd<>(SB), Y15

loop:
	VMOVUPD (R9), Y12         // w1
	VMOVUPD (SI), Y1          // x1
	CMUL(Y12, Y1, Y8, Y9, Y4) // t1
	VMOVUPD (DI), Y0          // a
	VADDPD Y4, Y0, Y5         // a1 = a + t1
	VSUBPD Y4, Y0, Y6         // b1 = a − t1
	VMOVUPD (R8), Y3          // x3
	CMUL(Y12, Y3, Y8, Y9, Y4) // t2
	VMOVUPD (DX), Y2          // x2
	VADDPD Y4, Y2, Y7         // c1 = x2 + t2
	VSUBPD Y4, Y2, Y10        // d1 = x2 − t2
	VMOVUPD (R10), Y13        // w2
	CMUL(Y13, Y7, Y8, Y9, Y11)  // t3 = w2·c1
	CMUL(Y13, Y10, Y8, Y9, Y14) // w2·d1
	VPERMILPD $5, Y14, Y14
	VXORPD Y15, Y14, Y14      // t4 = −i·w2·d1
	VADDPD Y11, Y5, Y0
	VSUBPD Y11, Y5, Y2
	VADDPD Y14, Y6, Y1
	VSUBPD Y14, Y6, Y3
	VMOVUPD Y0, (DI)
	VMOVUPD Y1, (SI)
	VMOVUPD Y2, (DX)
	VMOVUPD Y3, (R8)
	ADDQ $32, DI
	ADDQ $32, SI
	ADDQ $32, DX
	ADDQ $32, R8
	ADDQ $32, R9
	ADDQ $32, R10
	DECQ CX
	JNZ  loop

done:
	VZEROUPPER
	RET

// Negate the imaginary parts: (re, im) → (re, −im).
DATA negOdd<>+0(SB)/8, $0
DATA negOdd<>+8(SB)/8, $0x8000000000000000
DATA negOdd<>+16(SB)/8, $0
DATA negOdd<>+24(SB)/8, $0x8000000000000000
GLOBL negOdd<>(SB), RODATA|NOPTR, $32
