//go:build amd64 && !purego

#include "textflag.h"

// Row/column kernels for the trainer's bookkeeping (bias sums, bias adds,
// per-example scaling, finiteness checks). Each element sees exactly the
// operations of the plain Go loop in rows.go, in the same order, so the
// results are bit-identical on every path. Partial vectors use masks
// (AVX-512 K registers, AVX2 VMASKMOVPS) and never touch memory past a row.

DATA rowMask<>+0(SB)/4, $-1
DATA rowMask<>+4(SB)/4, $-1
DATA rowMask<>+8(SB)/4, $-1
DATA rowMask<>+12(SB)/4, $-1
DATA rowMask<>+16(SB)/4, $-1
DATA rowMask<>+20(SB)/4, $-1
DATA rowMask<>+24(SB)/4, $-1
DATA rowMask<>+28(SB)/4, $-1
DATA rowMask<>+32(SB)/4, $0
DATA rowMask<>+36(SB)/4, $0
DATA rowMask<>+40(SB)/4, $0
DATA rowMask<>+44(SB)/4, $0
DATA rowMask<>+48(SB)/4, $0
DATA rowMask<>+52(SB)/4, $0
DATA rowMask<>+56(SB)/4, $0
DATA rowMask<>+60(SB)/4, $0
GLOBL rowMask<>(SB), RODATA|NOPTR, $64

// KMASK(K) sets K to the low min(BX, 16) lanes (BX ≥ 1); clobbers DX, R14.
#define KMASK(K) \
	MOVQ $16, DX; \
	CMPQ BX, DX; \
	CMOVQLT BX, DX; \
	MOVL $1, R14; \
	SHLXL DX, R14, DX; \
	DECL DX; \
	KMOVW DX, K

// YMASK(Y) sets Y to the low min(BX, 8) lanes (BX ≥ 1); clobbers DX, R14.
#define YMASK(Y) \
	MOVQ $8, DX; \
	CMPQ BX, DX; \
	CMOVQLT BX, DX; \
	LEAQ rowMask<>+32(SB), R14; \
	SHLQ $2, DX; \
	SUBQ DX, R14; \
	VMOVUPS (R14), Y

// func colSumsAVX512(rows, cols int, x *float32, ldx int, dst *float32)
// dst[j] = ((0 + x[0][j]) + x[1][j]) + … : one add chain per column; blocks
// of four vectors run four chains side by side.
TEXT ·colSumsAVX512(SB), NOSPLIT, $0-40
	MOVQ rows+0(FP), R8
	MOVQ cols+8(FP), R9
	MOVQ x+16(FP), SI
	MOVQ ldx+24(FP), R10
	SHLQ $2, R10
	MOVQ dst+32(FP), DI
	XORQ R11, R11

c4block:
	MOVQ R9, BX
	SUBQ R11, BX
	CMPQ BX, $48
	JLE c1block
	SUBQ $48, BX
	KMASK(K4)
	VXORPS Z0, Z0, Z0
	VXORPS Z1, Z1, Z1
	VXORPS Z2, Z2, Z2
	VXORPS Z3, Z3, Z3
	LEAQ (SI)(R11*4), AX
	MOVQ R8, CX
	TESTQ CX, CX
	JZ c4store

c4row:
	VADDPS (AX), Z0, Z0
	VADDPS 64(AX), Z1, Z1
	VADDPS 128(AX), Z2, Z2
	VADDPS 192(AX), Z3, K4, Z3
	ADDQ R10, AX
	DECQ CX
	JNZ c4row

c4store:
	VMOVUPS Z0, (DI)(R11*4)
	VMOVUPS Z1, 64(DI)(R11*4)
	VMOVUPS Z2, 128(DI)(R11*4)
	VMOVUPS Z3, K4, 192(DI)(R11*4)
	ADDQ $64, R11
	JMP c4block

c1block:
	TESTQ BX, BX
	JLE cdone
	KMASK(K1)
	VXORPS Z0, Z0, Z0
	LEAQ (SI)(R11*4), AX
	MOVQ R8, CX
	TESTQ CX, CX
	JZ c1store

c1row:
	VADDPS (AX), Z0, K1, Z0
	ADDQ R10, AX
	DECQ CX
	JNZ c1row

c1store:
	VMOVUPS Z0, K1, (DI)(R11*4)
	ADDQ $16, R11
	MOVQ R9, BX
	SUBQ R11, BX
	JMP c1block

cdone:
	VZEROUPPER
	RET

// func colSumsAVX2(rows, cols int, x *float32, ldx int, dst *float32)
TEXT ·colSumsAVX2(SB), NOSPLIT, $0-40
	MOVQ rows+0(FP), R8
	MOVQ cols+8(FP), R9
	MOVQ x+16(FP), SI
	MOVQ ldx+24(FP), R10
	SHLQ $2, R10
	MOVQ dst+32(FP), DI
	XORQ R11, R11

d4block:
	MOVQ R9, BX
	SUBQ R11, BX
	CMPQ BX, $24
	JLE d1block
	SUBQ $24, BX
	YMASK(Y15)
	VXORPS Y0, Y0, Y0
	VXORPS Y1, Y1, Y1
	VXORPS Y2, Y2, Y2
	VXORPS Y3, Y3, Y3
	LEAQ (SI)(R11*4), AX
	MOVQ R8, CX
	TESTQ CX, CX
	JZ d4store

d4row:
	VADDPS (AX), Y0, Y0
	VADDPS 32(AX), Y1, Y1
	VADDPS 64(AX), Y2, Y2
	VMASKMOVPS 96(AX), Y15, Y4
	VADDPS Y4, Y3, Y3
	ADDQ R10, AX
	DECQ CX
	JNZ d4row

d4store:
	VMOVUPS Y0, (DI)(R11*4)
	VMOVUPS Y1, 32(DI)(R11*4)
	VMOVUPS Y2, 64(DI)(R11*4)
	LEAQ 96(DI)(R11*4), AX
	VMASKMOVPS Y3, Y15, (AX)
	ADDQ $32, R11
	JMP d4block

d1block:
	TESTQ BX, BX
	JLE ddone
	YMASK(Y15)
	VXORPS Y0, Y0, Y0
	LEAQ (SI)(R11*4), AX
	MOVQ R8, CX
	TESTQ CX, CX
	JZ d1store

d1row:
	VMASKMOVPS (AX), Y15, Y4
	VADDPS Y4, Y0, Y0
	ADDQ R10, AX
	DECQ CX
	JNZ d1row

d1store:
	LEAQ (DI)(R11*4), AX
	VMASKMOVPS Y0, Y15, (AX)
	ADDQ $8, R11
	MOVQ R9, BX
	SUBQ R11, BX
	JMP d1block

ddone:
	VZEROUPPER
	RET

// func addRowVectorAVX512(rows, cols int, v *float32, x *float32, ldx int)
// x[i][j] += v[j], row by row: whole 16-column chunks, then a masked tail
// (its mask computed once).
TEXT ·addRowVectorAVX512(SB), NOSPLIT, $0-40
	MOVQ rows+0(FP), R8
	MOVQ cols+8(FP), R9
	MOVQ v+16(FP), R12
	MOVQ x+24(FP), SI
	MOVQ ldx+32(FP), R10
	SHLQ $2, R10
	MOVQ R9, R13
	ANDQ $-16, R13        // columns in whole chunks
	MOVQ R9, BX
	SUBQ R13, BX          // tail columns, 0…15
	JZ arow
	KMASK(K1)

arow:
	XORQ R11, R11

acol:
	CMPQ R11, R13
	JGE atail
	VMOVUPS (SI)(R11*4), Z0
	VADDPS (R12)(R11*4), Z0, Z0
	VMOVUPS Z0, (SI)(R11*4)
	ADDQ $16, R11
	JMP acol

atail:
	CMPQ R11, R9
	JGE anext
	VMOVUPS.Z (SI)(R11*4), K1, Z0
	VADDPS.Z (R12)(R11*4), Z0, K1, Z0
	VMOVUPS Z0, K1, (SI)(R11*4)

anext:
	ADDQ R10, SI
	DECQ R8
	JNZ arow

	VZEROUPPER
	RET

// func addRowVectorAVX2(rows, cols int, v *float32, x *float32, ldx int)
TEXT ·addRowVectorAVX2(SB), NOSPLIT, $0-40
	MOVQ rows+0(FP), R8
	MOVQ cols+8(FP), R9
	MOVQ v+16(FP), R12
	MOVQ x+24(FP), SI
	MOVQ ldx+32(FP), R10
	SHLQ $2, R10
	TESTQ R8, R8
	JZ bdone

brow:
	XORQ R11, R11
	MOVQ R9, BX

bcol:
	CMPQ BX, $8
	JLT btail
	VMOVUPS (SI)(R11*4), Y0
	VADDPS (R12)(R11*4), Y0, Y0
	VMOVUPS Y0, (SI)(R11*4)
	ADDQ $8, R11
	SUBQ $8, BX
	JMP bcol

btail:
	TESTQ BX, BX
	JLE bnext
	YMASK(Y15)
	LEAQ (SI)(R11*4), AX
	LEAQ (R12)(R11*4), CX
	VMASKMOVPS (AX), Y15, Y0
	VMASKMOVPS (CX), Y15, Y1
	VADDPS Y1, Y0, Y0
	VMASKMOVPS Y0, Y15, (AX)

bnext:
	ADDQ R10, SI
	DECQ R8
	JNZ brow

bdone:
	VZEROUPPER
	RET

// func scaleRowsAVX512(rows, cols int, s *float32, src *float32, lds int, dst *float32, ldd int)
// dst[i][j] = s[i]·src[i][j].
TEXT ·scaleRowsAVX512(SB), NOSPLIT, $0-56
	MOVQ rows+0(FP), R8
	MOVQ cols+8(FP), R9
	MOVQ s+16(FP), R12
	MOVQ src+24(FP), SI
	MOVQ lds+32(FP), R10
	SHLQ $2, R10
	MOVQ dst+40(FP), DI
	MOVQ ldd+48(FP), R13
	SHLQ $2, R13
	TESTQ R8, R8
	JZ sdone

srow:
	VBROADCASTSS (R12), Z1
	XORQ R11, R11
	MOVQ R9, BX

scol:
	CMPQ BX, $16
	JLT stail
	VMULPS (SI)(R11*4), Z1, Z0
	VMOVUPS Z0, (DI)(R11*4)
	ADDQ $16, R11
	SUBQ $16, BX
	JMP scol

stail:
	TESTQ BX, BX
	JLE snext
	KMASK(K1)
	VMULPS.Z (SI)(R11*4), Z1, K1, Z0
	VMOVUPS Z0, K1, (DI)(R11*4)

snext:
	ADDQ $4, R12
	ADDQ R10, SI
	ADDQ R13, DI
	DECQ R8
	JNZ srow

sdone:
	VZEROUPPER
	RET

// func scaleRowsAVX2(rows, cols int, s *float32, src *float32, lds int, dst *float32, ldd int)
TEXT ·scaleRowsAVX2(SB), NOSPLIT, $0-56
	MOVQ rows+0(FP), R8
	MOVQ cols+8(FP), R9
	MOVQ s+16(FP), R12
	MOVQ src+24(FP), SI
	MOVQ lds+32(FP), R10
	SHLQ $2, R10
	MOVQ dst+40(FP), DI
	MOVQ ldd+48(FP), R13
	SHLQ $2, R13
	TESTQ R8, R8
	JZ tdone

trow:
	VBROADCASTSS (R12), Y1
	XORQ R11, R11
	MOVQ R9, BX

tcol:
	CMPQ BX, $8
	JLT ttail
	VMULPS (SI)(R11*4), Y1, Y0
	VMOVUPS Y0, (DI)(R11*4)
	ADDQ $8, R11
	SUBQ $8, BX
	JMP tcol

ttail:
	TESTQ BX, BX
	JLE tnext
	YMASK(Y15)
	LEAQ (SI)(R11*4), AX
	LEAQ (DI)(R11*4), CX
	VMASKMOVPS (AX), Y15, Y0
	VMULPS Y0, Y1, Y0
	VMASKMOVPS Y0, Y15, (CX)

tnext:
	ADDQ $4, R12
	ADDQ R10, SI
	ADDQ R13, DI
	DECQ R8
	JNZ trow

tdone:
	VZEROUPPER
	RET

// func nonFiniteBlockAVX512(x []float32) int
// Returns the start of the first 16-element block holding a NaN or ±Inf
// (exponent bits all ones), or -1.
TEXT ·nonFiniteBlockAVX512(SB), NOSPLIT, $0-32
	MOVQ x_base+0(FP), SI
	MOVQ x_len+8(FP), R9
	MOVL $0x7f800000, AX
	VPBROADCASTD AX, Z31
	XORQ R11, R11

nloop:
	MOVQ R9, BX
	SUBQ R11, BX
	JLE nnone
	KMASK(K1)
	VPANDD.Z (SI)(R11*4), Z31, K1, Z1
	VPCMPEQD Z31, Z1, K2
	KORTESTW K2, K2
	JNZ nfound
	ADDQ $16, R11
	JMP nloop

nfound:
	MOVQ R11, ret+24(FP)
	VZEROUPPER
	RET

nnone:
	MOVQ $-1, ret+24(FP)
	VZEROUPPER
	RET

// func nonFiniteBlockAVX2(x []float32) int
// As nonFiniteBlockAVX512 with 8-element blocks.
TEXT ·nonFiniteBlockAVX2(SB), NOSPLIT, $0-32
	MOVQ x_base+0(FP), SI
	MOVQ x_len+8(FP), R9
	MOVL $0x7f800000, AX
	VMOVD AX, X3
	VPBROADCASTD X3, Y3
	XORQ R11, R11

mloop:
	MOVQ R9, BX
	SUBQ R11, BX
	JLE mnone
	CMPQ BX, $8
	JLT mtail
	VPAND (SI)(R11*4), Y3, Y4
	VPCMPEQD Y3, Y4, Y4
	VMOVMSKPS Y4, AX
	TESTL AX, AX
	JNZ mfound
	ADDQ $8, R11
	JMP mloop

mtail:
	YMASK(Y15)
	LEAQ (SI)(R11*4), CX
	VMASKMOVPS (CX), Y15, Y4
	VPAND Y4, Y3, Y4
	VPCMPEQD Y3, Y4, Y4
	VMOVMSKPS Y4, AX
	TESTL AX, AX
	JNZ mfound

mnone:
	MOVQ $-1, ret+24(FP)
	VZEROUPPER
	RET

mfound:
	MOVQ R11, ret+24(FP)
	VZEROUPPER
	RET
