//go:build amd64 && !purego

#include "textflag.h"

// func spmm32(cols *int32, vals *float64, n int, a *float64, stride int, out *float64)
//
// out[0:32] = Σ_k vals[k]·a[cols[k]·stride + 0 … 31] over k = 0 … n−1 in
// order, from +0, each product rounded before it is added (no fused
// multiply-add): per element exactly gonum's floats.AddScaled(u, vals[k],
// row) one row at a time, 32 columns in 8 AVX registers.
TEXT ·spmm32(SB), NOSPLIT, $0-48
	MOVQ cols+0(FP), SI
	MOVQ vals+8(FP), DX
	MOVQ n+16(FP), CX
	MOVQ a+24(FP), R8
	MOVQ stride+32(FP), R9
	MOVQ out+40(FP), DI
	SHLQ $3, R9
	VXORPD Y0, Y0, Y0
	VXORPD Y1, Y1, Y1
	VXORPD Y2, Y2, Y2
	VXORPD Y3, Y3, Y3
	VXORPD Y4, Y4, Y4
	VXORPD Y5, Y5, Y5
	VXORPD Y6, Y6, Y6
	VXORPD Y7, Y7, Y7
	TESTQ CX, CX
	JZ    store

loop:
	MOVLQSX (SI), AX
	IMULQ R9, AX
	ADDQ  R8, AX
	VBROADCASTSD (DX), Y8
	VMULPD 0(AX), Y8, Y9
	VMULPD 32(AX), Y8, Y10
	VMULPD 64(AX), Y8, Y11
	VMULPD 96(AX), Y8, Y12
	VADDPD Y9, Y0, Y0
	VADDPD Y10, Y1, Y1
	VADDPD Y11, Y2, Y2
	VADDPD Y12, Y3, Y3
	VMULPD 128(AX), Y8, Y9
	VMULPD 160(AX), Y8, Y10
	VMULPD 192(AX), Y8, Y11
	VMULPD 224(AX), Y8, Y12
	VADDPD Y9, Y4, Y4
	VADDPD Y10, Y5, Y5
	VADDPD Y11, Y6, Y6
	VADDPD Y12, Y7, Y7
	ADDQ $4, SI
	ADDQ $8, DX
	DECQ CX
	JNZ  loop

store:
	VMOVUPD Y0, 0(DI)
	VMOVUPD Y1, 32(DI)
	VMOVUPD Y2, 64(DI)
	VMOVUPD Y3, 96(DI)
	VMOVUPD Y4, 128(DI)
	VMOVUPD Y5, 160(DI)
	VMOVUPD Y6, 192(DI)
	VMOVUPD Y7, 224(DI)
	VZEROUPPER
	RET

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
