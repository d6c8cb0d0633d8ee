//go:build amd64 && !purego

#include "textflag.h"

// func reluGradAVX512(d, g, y []float32)
// d[i] = g[i] & (−bits(y[i]) >> 31, arithmetic) for len(d) a multiple of 16.
TEXT ·reluGradAVX512(SB), NOSPLIT, $0-72
	MOVQ d_base+0(FP), DI
	MOVQ d_len+8(FP), CX
	MOVQ g_base+24(FP), SI
	MOVQ y_base+48(FP), DX
	VPXORD Z7, Z7, Z7
	SHRQ $4, CX
	JZ rdone

rloop:
	VPSUBD (DX), Z7, Z0     // −bits(y), wrapping
	VPSRAD $31, Z0, Z0      // all ones where −bits < 0
	VPANDD (SI), Z0, Z0
	VMOVDQU32 Z0, (DI)
	ADDQ $64, DX
	ADDQ $64, SI
	ADDQ $64, DI
	DECQ CX
	JNZ rloop

rdone:
	VZEROUPPER
	RET

// func reluGradAVX2(d, g, y []float32)
// As reluGradAVX512, 8 lanes at a time (len(d) a multiple of 16).
TEXT ·reluGradAVX2(SB), NOSPLIT, $0-72
	MOVQ d_base+0(FP), DI
	MOVQ d_len+8(FP), CX
	MOVQ g_base+24(FP), SI
	MOVQ y_base+48(FP), DX
	VPXOR Y7, Y7, Y7
	SHRQ $3, CX
	JZ r2done

r2loop:
	VPSUBD (DX), Y7, Y0
	VPSRAD $31, Y0, Y0
	VPAND (SI), Y0, Y0
	VMOVDQU Y0, (DI)
	ADDQ $32, DX
	ADDQ $32, SI
	ADDQ $32, DI
	DECQ CX
	JNZ r2loop

r2done:
	VZEROUPPER
	RET

// func reluAVX512(y, x []float32)
// y[i] = |x[i]| where x[i] > 0 or x[i] is NaN, else +0: Go's max(x[i], 0)
// as the amd64 compiler builds it (max(−0, 0) = +0; a NaN comes back with
// its sign cleared), for len(y) a multiple of 16.
TEXT ·reluAVX512(SB), NOSPLIT, $0-48
	MOVQ y_base+0(FP), DI
	MOVQ y_len+8(FP), CX
	MOVQ x_base+24(FP), SI
	VPXORD Z7, Z7, Z7
	MOVL $0x7FFFFFFF, DX
	VPBROADCASTD DX, Z6
	SHRQ $4, CX
	JZ fdone

floop:
	VMOVUPS (SI), Z0
	VCMPPS $6, Z7, Z0, K1   // x NLE_UQ 0: x > 0 or unordered
	VPANDD.Z Z6, Z0, K1, Z1
	VMOVUPS Z1, (DI)
	ADDQ $64, SI
	ADDQ $64, DI
	DECQ CX
	JNZ floop

fdone:
	VZEROUPPER
	RET

// func reluAVX2(y, x []float32)
// As reluAVX512, 8 lanes at a time (len(y) a multiple of 16).
TEXT ·reluAVX2(SB), NOSPLIT, $0-48
	MOVQ y_base+0(FP), DI
	MOVQ y_len+8(FP), CX
	MOVQ x_base+24(FP), SI
	VXORPS Y7, Y7, Y7
	MOVL $0x7FFFFFFF, DX
	MOVQ DX, X6
	VPBROADCASTD X6, Y6
	SHRQ $3, CX
	JZ f2done

f2loop:
	VMOVUPS (SI), Y0
	VCMPPS $6, Y7, Y0, Y1   // all ones where x > 0 or unordered
	VANDPS Y0, Y1, Y1
	VANDPS Y6, Y1, Y1
	VMOVUPS Y1, (DI)
	ADDQ $32, SI
	ADDQ $32, DI
	DECQ CX
	JNZ f2loop

f2done:
	VZEROUPPER
	RET
