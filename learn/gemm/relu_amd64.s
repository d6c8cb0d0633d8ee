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
