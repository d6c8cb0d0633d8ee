//go:build amd64 && !purego

#include "textflag.h"

// func scatterAxpy(row *float64, cols *int32, vals *float64, n int, alpha float64)
//
// row[cols[l]] += alpha·vals[l] for l < n, each product rounded before it
// is added (as the Go loop without fused multiply-adds).
TEXT ·scatterAxpy(SB), NOSPLIT, $0-40
	MOVQ row+0(FP), DI
	MOVQ cols+8(FP), SI
	MOVQ vals+16(FP), DX
	MOVQ n+24(FP), CX
	VMOVSD alpha+32(FP), X0
	CMPQ CX, $4
	JLT  tail

loop4:
	MOVLQSX 0(SI), AX
	MOVLQSX 4(SI), BX
	MOVLQSX 8(SI), R8
	MOVLQSX 12(SI), R9
	VMULSD 0(DX), X0, X1
	VMULSD 8(DX), X0, X2
	VMULSD 16(DX), X0, X3
	VMULSD 24(DX), X0, X4
	VADDSD (DI)(AX*8), X1, X1
	VADDSD (DI)(BX*8), X2, X2
	VADDSD (DI)(R8*8), X3, X3
	VADDSD (DI)(R9*8), X4, X4
	VMOVSD X1, (DI)(AX*8)
	VMOVSD X2, (DI)(BX*8)
	VMOVSD X3, (DI)(R8*8)
	VMOVSD X4, (DI)(R9*8)
	ADDQ $16, SI
	ADDQ $32, DX
	SUBQ $4, CX
	CMPQ CX, $4
	JGE  loop4

tail:
	TESTQ CX, CX
	JZ    done
	MOVLQSX 0(SI), AX
	VMULSD 0(DX), X0, X1
	VADDSD (DI)(AX*8), X1, X1
	VMOVSD X1, (DI)(AX*8)
	ADDQ $4, SI
	ADDQ $8, DX
	DECQ CX
	JMP  tail

done:
	RET
