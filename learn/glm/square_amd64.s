//go:build amd64 && !purego

#include "textflag.h"

// func kernel4x8FMA(a, b *float64, kc int, c *float64, ldc int)
//
// c[r·ldc + l] += Σ_{k<kc} a[4k+r]·b[8k+l] for r < 4, l < 8, each sum by
// fused multiply-adds in order of k from +0 (kernel4x8Go): eight
// accumulators, two per row.
TEXT ·kernel4x8FMA(SB), NOSPLIT, $0-40
	MOVQ a+0(FP), SI
	MOVQ b+8(FP), DX
	MOVQ kc+16(FP), CX
	MOVQ c+24(FP), DI
	MOVQ ldc+32(FP), R8
	SHLQ $3, R8
	VXORPD Y0, Y0, Y0
	VXORPD Y1, Y1, Y1
	VXORPD Y2, Y2, Y2
	VXORPD Y3, Y3, Y3
	VXORPD Y4, Y4, Y4
	VXORPD Y5, Y5, Y5
	VXORPD Y6, Y6, Y6
	VXORPD Y7, Y7, Y7

loop:
	VMOVUPD      0(DX), Y8
	VMOVUPD      32(DX), Y9
	VBROADCASTSD 0(SI), Y10
	VFMADD231PD  Y8, Y10, Y0
	VFMADD231PD  Y9, Y10, Y1
	VBROADCASTSD 8(SI), Y11
	VFMADD231PD  Y8, Y11, Y2
	VFMADD231PD  Y9, Y11, Y3
	VBROADCASTSD 16(SI), Y12
	VFMADD231PD  Y8, Y12, Y4
	VFMADD231PD  Y9, Y12, Y5
	VBROADCASTSD 24(SI), Y13
	VFMADD231PD  Y8, Y13, Y6
	VFMADD231PD  Y9, Y13, Y7
	ADDQ         $32, SI
	ADDQ         $64, DX
	DECQ         CX
	JNZ          loop

	VADDPD  0(DI), Y0, Y0
	VADDPD  32(DI), Y1, Y1
	VMOVUPD Y0, 0(DI)
	VMOVUPD Y1, 32(DI)
	ADDQ    R8, DI
	VADDPD  0(DI), Y2, Y2
	VADDPD  32(DI), Y3, Y3
	VMOVUPD Y2, 0(DI)
	VMOVUPD Y3, 32(DI)
	ADDQ    R8, DI
	VADDPD  0(DI), Y4, Y4
	VADDPD  32(DI), Y5, Y5
	VMOVUPD Y4, 0(DI)
	VMOVUPD Y5, 32(DI)
	ADDQ    R8, DI
	VADDPD  0(DI), Y6, Y6
	VADDPD  32(DI), Y7, Y7
	VMOVUPD Y6, 0(DI)
	VMOVUPD Y7, 32(DI)
	VZEROUPPER
	RET
