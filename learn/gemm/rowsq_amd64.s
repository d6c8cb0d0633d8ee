//go:build amd64 && !purego

#include "textflag.h"

DATA rowsqIota<>+0(SB)/4, $0
DATA rowsqIota<>+4(SB)/4, $1
DATA rowsqIota<>+8(SB)/4, $2
DATA rowsqIota<>+12(SB)/4, $3
DATA rowsqIota<>+16(SB)/4, $4
DATA rowsqIota<>+20(SB)/4, $5
DATA rowsqIota<>+24(SB)/4, $6
DATA rowsqIota<>+28(SB)/4, $7
DATA rowsqIota<>+32(SB)/4, $8
DATA rowsqIota<>+36(SB)/4, $9
DATA rowsqIota<>+40(SB)/4, $10
DATA rowsqIota<>+44(SB)/4, $11
DATA rowsqIota<>+48(SB)/4, $12
DATA rowsqIota<>+52(SB)/4, $13
DATA rowsqIota<>+56(SB)/4, $14
DATA rowsqIota<>+60(SB)/4, $15
GLOBL rowsqIota<>(SB), RODATA|NOPTR, $64

// GATHERSQ loads column j of the block's 16 rows (x[r·ldx + j], r < 16)
// into Zj squared, or leaves Zj zero when j ≥ cols (CX).
#define GATHERSQ(j, zj) \
	CMPQ CX, $j; \
	JLE  sum; \
	KXNORW K1, K1, K1; \
	VGATHERDPS (4*j)(SI)(Z31*4), K1, zj; \
	VMULPS zj, zj, zj

// func rowSumSquaresNarrowAVX512(rows, cols int, x *float32, ldx int, dst *float32)
//
// dst[i] = SumSquares(x[i·ldx : i·ldx+cols]) for rows a multiple of 16 and
// 1 ≤ cols ≤ 15, sixteen rows at a time: lane r of Zj holds row r's
// column j squared (gathered), and the rows' sums are formed by the fold
// Dot uses on one vector — lane l += lane l+8, then 4, 2, 1, the lanes at
// or past cols being +0 — as vertical additions of those registers:
// Z0..7 += Z8..15, Z0..3 += Z4..7, Z0,1 += Z2,3, Z0 += Z1. The same
// additions of the same values (Dot's other accumulators only add +0 to
// squares, which changes nothing), so the same bits as SumSquares, without
// a call and a horizontal reduction per row (for the narrow
// rows of Hayes et al.'s 784-10-10).
TEXT ·rowSumSquaresNarrowAVX512(SB), NOSPLIT, $0-40
	MOVQ rows+0(FP), DX
	MOVQ cols+8(FP), CX
	MOVQ x+16(FP), SI
	MOVQ ldx+24(FP), R8
	MOVQ dst+32(FP), DI
	VPBROADCASTD R8, Z31
	VPMULLD rowsqIota<>(SB), Z31, Z31 // row offsets r·ldx
	SHLQ $6, R8 // 16 rows, in bytes

block:
	VXORPS Z0, Z0, Z0
	VXORPS Z1, Z1, Z1
	VXORPS Z2, Z2, Z2
	VXORPS Z3, Z3, Z3
	VXORPS Z4, Z4, Z4
	VXORPS Z5, Z5, Z5
	VXORPS Z6, Z6, Z6
	VXORPS Z7, Z7, Z7
	VXORPS Z8, Z8, Z8
	VXORPS Z9, Z9, Z9
	VXORPS Z10, Z10, Z10
	VXORPS Z11, Z11, Z11
	VXORPS Z12, Z12, Z12
	VXORPS Z13, Z13, Z13
	VXORPS Z14, Z14, Z14
	GATHERSQ(0, Z0)
	GATHERSQ(1, Z1)
	GATHERSQ(2, Z2)
	GATHERSQ(3, Z3)
	GATHERSQ(4, Z4)
	GATHERSQ(5, Z5)
	GATHERSQ(6, Z6)
	GATHERSQ(7, Z7)
	GATHERSQ(8, Z8)
	GATHERSQ(9, Z9)
	GATHERSQ(10, Z10)
	GATHERSQ(11, Z11)
	GATHERSQ(12, Z12)
	GATHERSQ(13, Z13)
	GATHERSQ(14, Z14)

sum:
	VADDPS Z8, Z0, Z0
	VADDPS Z9, Z1, Z1
	VADDPS Z10, Z2, Z2
	VADDPS Z11, Z3, Z3
	VADDPS Z12, Z4, Z4
	VADDPS Z13, Z5, Z5
	VADDPS Z14, Z6, Z6
	VADDPS Z4, Z0, Z0
	VADDPS Z5, Z1, Z1
	VADDPS Z6, Z2, Z2
	VADDPS Z7, Z3, Z3
	VADDPS Z2, Z0, Z0
	VADDPS Z3, Z1, Z1
	VADDPS Z1, Z0, Z0
	VMOVUPS Z0, (DI)
	ADDQ R8, SI
	ADDQ $64, DI
	SUBQ $16, DX
	JNZ  block
	VZEROUPPER
	RET
