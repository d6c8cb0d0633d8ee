//go:build amd64 && !purego

#include "textflag.h"

// ROWPTR sets r to row cols[k + off/4] of h.
#define ROWPTR(off, r) \
	MOVLQSX off(SI), r \
	IMULQ   R9, r      \
	ADDQ    DI, r

// QUADCOL adds alpha_r·vals[l] at column cols[l] of the four rows, for
// the column and value at coff(R13) and voff(R14).
#define QUADCOL(coff, voff) \
	MOVLQSX coff(R13), R8      \
	VMOVSD  voff(R14), X7      \
	VMULSD  X7, X0, X1         \
	VMULSD  X7, X6, X2         \
	VMULSD  X7, X9, X3         \
	VMULSD  X7, X10, X4        \
	VADDSD  (AX)(R8*8), X1, X1 \
	VADDSD  (BX)(R8*8), X2, X2 \
	VADDSD  (R10)(R8*8), X3, X3 \
	VADDSD  (R11)(R8*8), X4, X4 \
	VMOVSD  X1, (AX)(R8*8)     \
	VMOVSD  X2, (BX)(R8*8)     \
	VMOVSD  X3, (R10)(R8*8)    \
	VMOVSD  X4, (R11)(R8*8)

// ONE adds alpha·vals[k+i] at column cols[k+i] of the row at r.
#define ONE(r, alpha, i) \
	MOVLQSX (i*4)(SI), R8      \
	VMULSD  (i*8)(DX), alpha, X1 \
	VADDSD  (r)(R8*8), X1, X1  \
	VMOVSD  X1, (r)(R8*8)

// func scatterRows(h *float64, strideBytes int, cols *int32, vals *float64, n, nk int, a float64)
//
// For k < nk (0 < nk ≤ n): row cols[k] of h takes (a·vals[k])·vals[l] at
// column cols[l] for every l in [k, n), each product rounded before it is
// added: a sample's first nk rows of the upper triangle in one call.
// Four (or two) rows at a time share each column's and value's loads;
// the columns of a row are distinct, so four adds may be in flight.
TEXT ·scatterRows(SB), NOSPLIT, $0-56
	MOVQ   h+0(FP), DI
	MOVQ   strideBytes+8(FP), R9
	MOVQ   cols+16(FP), SI
	MOVQ   vals+24(FP), DX
	MOVQ   n+32(FP), CX
	MOVQ   nk+40(FP), R12
	VMOVSD a+48(FP), X5

	CMPQ R12, $4
	JLT  tworows

krow4: // rows cols[k] … cols[k+3] together: one load of each column and value for all four
	ROWPTR(0, AX)
	ROWPTR(4, BX)
	ROWPTR(8, R10)
	ROWPTR(12, R11)
	VMULSD 0(DX), X5, X0
	VMULSD 8(DX), X5, X6
	VMULSD 16(DX), X5, X9
	VMULSD 24(DX), X5, X10
	ONE(AX, X0, 0)  // the triangle of the four rows among themselves
	ONE(AX, X0, 1)
	ONE(AX, X0, 2)
	ONE(AX, X0, 3)
	ONE(BX, X6, 1)
	ONE(BX, X6, 2)
	ONE(BX, X6, 3)
	ONE(R10, X9, 2)
	ONE(R10, X9, 3)
	ONE(R11, X10, 3)
	LEAQ    16(SI), R13
	LEAQ    32(DX), R14
	LEAQ    -4(CX), R15

quad:
	CMPQ    R15, $2
	JLT     quad1
	QUADCOL(0, 0)
	QUADCOL(4, 8)
	ADDQ    $8, R13
	ADDQ    $16, R14
	SUBQ    $2, R15
	JMP     quad

quad1:
	TESTQ   R15, R15
	JZ      next4
	QUADCOL(0, 0)

next4:
	ADDQ $16, SI
	ADDQ $32, DX
	SUBQ $4, CX
	SUBQ $4, R12
	CMPQ R12, $4
	JGE  krow4

tworows:
	CMPQ R12, $2
	JLT  onerow


krow2: // rows cols[k] and cols[k+1] together: one load of each column and value for both
	MOVLQSX 0(SI), AX
	IMULQ   R9, AX
	ADDQ    DI, AX // row cols[k]
	MOVLQSX 4(SI), BX
	IMULQ   R9, BX
	ADDQ    DI, BX // row cols[k+1]
	VMULSD  0(DX), X5, X0
	VMULSD  8(DX), X5, X6
	MOVLQSX 0(SI), R8 // the diagonal of row cols[k]
	VMULSD  0(DX), X0, X1
	VADDSD  (AX)(R8*8), X1, X1
	VMOVSD  X1, (AX)(R8*8)
	LEAQ    4(SI), R13
	LEAQ    8(DX), R14
	LEAQ    -1(CX), R15

pair2:
	CMPQ    R15, $2
	JLT     pair1
	MOVLQSX 0(R13), R8
	MOVLQSX 4(R13), R10
	VMOVSD  0(R14), X7
	VMOVSD  8(R14), X8
	VMULSD  X7, X0, X1
	VMULSD  X7, X6, X2
	VMULSD  X8, X0, X3
	VMULSD  X8, X6, X4
	VADDSD  (AX)(R8*8), X1, X1
	VADDSD  (BX)(R8*8), X2, X2
	VADDSD  (AX)(R10*8), X3, X3
	VADDSD  (BX)(R10*8), X4, X4
	VMOVSD  X1, (AX)(R8*8)
	VMOVSD  X2, (BX)(R8*8)
	VMOVSD  X3, (AX)(R10*8)
	VMOVSD  X4, (BX)(R10*8)
	ADDQ    $8, R13
	ADDQ    $16, R14
	SUBQ    $2, R15
	JMP     pair2

pair1:
	TESTQ   R15, R15
	JZ      next2
	MOVLQSX 0(R13), R8
	VMOVSD  0(R14), X7
	VMULSD  X7, X0, X1
	VMULSD  X7, X6, X2
	VADDSD  (AX)(R8*8), X1, X1
	VADDSD  (BX)(R8*8), X2, X2
	VMOVSD  X1, (AX)(R8*8)
	VMOVSD  X2, (BX)(R8*8)

next2:
	ADDQ $8, SI
	ADDQ $16, DX
	SUBQ $2, CX
	SUBQ $2, R12
	CMPQ R12, $2
	JGE  krow2

onerow:
	TESTQ R12, R12
	JZ    done

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

done:
	RET
