//go:build amd64 && !purego

#include "textflag.h"

// func scatterRows(h *float64, strideBytes int, cols *int32, vals *float64, n, nk int, a float64)
//
// For k < nk (0 < nk ≤ n): row cols[k] of h takes (a·vals[k])·vals[l] at
// column cols[l] for every l in [k, n), each product rounded before it is
// added: a sample's first nk rows of the upper triangle in one call.
// The columns of a row are distinct, so four adds may be in flight.
TEXT ·scatterRows(SB), NOSPLIT, $0-56
	MOVQ   h+0(FP), DI
	MOVQ   strideBytes+8(FP), R9
	MOVQ   cols+16(FP), SI
	MOVQ   vals+24(FP), DX
	MOVQ   n+32(FP), CX
	MOVQ   nk+40(FP), R12
	VMOVSD a+48(FP), X5

krow:
	MOVLQSX (SI), AX
	IMULQ   R9, AX
	ADDQ    DI, AX // row cols[k]
	VMULSD  (DX), X5, X0
	MOVQ    SI, R13
	MOVQ    DX, R14
	MOVQ    CX, R15
	CMPQ    R15, $4
	JLT     rtail

rloop4:
	MOVLQSX 0(R13), BX
	MOVLQSX 4(R13), R8
	MOVLQSX 8(R13), R10
	MOVLQSX 12(R13), R11
	VMULSD  0(R14), X0, X1
	VMULSD  8(R14), X0, X2
	VMULSD  16(R14), X0, X3
	VMULSD  24(R14), X0, X4
	VADDSD  (AX)(BX*8), X1, X1
	VADDSD  (AX)(R8*8), X2, X2
	VADDSD  (AX)(R10*8), X3, X3
	VADDSD  (AX)(R11*8), X4, X4
	VMOVSD  X1, (AX)(BX*8)
	VMOVSD  X2, (AX)(R8*8)
	VMOVSD  X3, (AX)(R10*8)
	VMOVSD  X4, (AX)(R11*8)
	ADDQ    $16, R13
	ADDQ    $32, R14
	SUBQ    $4, R15
	CMPQ    R15, $4
	JGE     rloop4

rtail:
	TESTQ   R15, R15
	JZ      rnext
	MOVLQSX 0(R13), BX
	VMULSD  0(R14), X0, X1
	VADDSD  (AX)(BX*8), X1, X1
	VMOVSD  X1, (AX)(BX*8)
	ADDQ    $4, R13
	ADDQ    $8, R14
	DECQ    R15
	JMP     rtail

rnext:
	ADDQ $4, SI
	ADDQ $8, DX
	DECQ CX
	DECQ R12
	JNZ  krow
	RET
