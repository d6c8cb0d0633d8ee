//go:build amd64 && !purego

#include "textflag.h"

// Runs of whole vectors for im2col and col2im (n ≥ 1 runs of w floats, w a
// positive multiple of 8): run r is dst[r·ds : r·ds+w] and src[r·ss :
// r·ss+w]. Runs are done one after the other, so overlapping runs in dst
// see the earlier runs' stores, as in the Go loops.

// func copyRunsAVX2(dst *float32, ds int, src *float32, ss int, n, w int)
TEXT ·copyRunsAVX2(SB), NOSPLIT, $0-48
	MOVQ dst+0(FP), DI
	MOVQ ds+8(FP), R8
	SHLQ $2, R8
	MOVQ src+16(FP), SI
	MOVQ ss+24(FP), R9
	SHLQ $2, R9
	MOVQ n+32(FP), CX
	MOVQ w+40(FP), R10
	SHLQ $2, R10

crun:
	XORQ AX, AX

cvec:
	VMOVUPS (SI)(AX*1), Y0
	VMOVUPS Y0, (DI)(AX*1)
	ADDQ $32, AX
	CMPQ AX, R10
	JLT cvec
	ADDQ R8, DI
	ADDQ R9, SI
	DECQ CX
	JNZ crun
	VZEROUPPER
	RET

// func addRunsAVX2(dst *float32, ds int, src *float32, ss int, n, w int)
// dst[j] = dst[j] + src[j]: one float32 add per element (VADDPS), the
// operation of addInto.
TEXT ·addRunsAVX2(SB), NOSPLIT, $0-48
	MOVQ dst+0(FP), DI
	MOVQ ds+8(FP), R8
	SHLQ $2, R8
	MOVQ src+16(FP), SI
	MOVQ ss+24(FP), R9
	SHLQ $2, R9
	MOVQ n+32(FP), CX
	MOVQ w+40(FP), R10
	SHLQ $2, R10

arun:
	XORQ AX, AX

avec:
	VMOVUPS (DI)(AX*1), Y0
	VADDPS (SI)(AX*1), Y0, Y0
	VMOVUPS Y0, (DI)(AX*1)
	ADDQ $32, AX
	CMPQ AX, R10
	JLT avec
	ADDQ R8, DI
	ADDQ R9, SI
	DECQ CX
	JNZ arun
	VZEROUPPER
	RET
