//go:build amd64 && !purego

#include "textflag.h"

// func zigguratAVX512(w *uint64, groups int, kTab *uint32, wTab *float32, scale float32, dst *float32) int
//
// ZigguratFast over groups·8 words: the 16 halves of 8 words are the 16
// dword lanes of one ZMM, in draw order (little-endian: low half first).
// A group whose lanes are all on the fast path is added to dst whole;
// otherwise only the words before the first slow one are, and the count of
// words consumed so far is returned.
//
// The tables (128 entries each) are held in registers, Z16–Z23 and
// Z24–Z31, and looked up with two-table permutes (32 entries each) merged
// on bits 5 and 6 of the layer: gathers cost 2× more here (Sapphire Rapids,
// BenchmarkZigguratFast).

// LOOKUP sets dst = table[i] for the 8 registers T0…T7 of a table, with
// Z1 = i, K5 = bit 5 of i, K6 = bit 6; clobbers Z11–Z14.
#define LOOKUP(T0, T1, T2, T3, T4, T5, T6, T7, dst) \
	VMOVDQA32 Z1, Z11; VPERMI2D T1, T0, Z11; \
	VMOVDQA32 Z1, Z12; VPERMI2D T3, T2, Z12; \
	VMOVDQA32 Z1, Z13; VPERMI2D T5, T4, Z13; \
	VMOVDQA32 Z1, Z14; VPERMI2D T7, T6, Z14; \
	VMOVDQA32 Z12, K5, Z11; \
	VMOVDQA32 Z14, K5, Z13; \
	VMOVDQA32 Z11, dst; \
	VMOVDQA32 Z13, K6, dst

TEXT ·zigguratAVX512(SB), NOSPLIT, $0-56
	MOVQ w+0(FP), SI
	MOVQ groups+8(FP), CX
	MOVQ kTab+16(FP), R8
	MOVQ wTab+24(FP), R9
	VBROADCASTSS scale+32(FP), Z7
	MOVQ dst+40(FP), DI
	MOVL $0x7F, DX
	VPBROADCASTD DX, Z6
	MOVL $32, DX
	VPBROADCASTD DX, Z9
	MOVL $64, DX
	VPBROADCASTD DX, Z10
	VMOVDQU32 0(R8), Z16
	VMOVDQU32 64(R8), Z17
	VMOVDQU32 128(R8), Z18
	VMOVDQU32 192(R8), Z19
	VMOVDQU32 256(R8), Z20
	VMOVDQU32 320(R8), Z21
	VMOVDQU32 384(R8), Z22
	VMOVDQU32 448(R8), Z23
	VMOVDQU32 0(R9), Z24
	VMOVDQU32 64(R9), Z25
	VMOVDQU32 128(R9), Z26
	VMOVDQU32 192(R9), Z27
	VMOVDQU32 256(R9), Z28
	VMOVDQU32 320(R9), Z29
	VMOVDQU32 384(R9), Z30
	VMOVDQU32 448(R9), Z31
	XORQ AX, AX
	TESTQ CX, CX
	JZ done

loop:
	VMOVDQU32 (SI), Z0
	VPANDD Z6, Z0, Z1        // layer i
	VPSRAD $7, Z0, Z2        // abscissa j
	VPABSD Z2, Z3
	VPTESTMD Z9, Z1, K5
	VPTESTMD Z10, Z1, K6
	LOOKUP(Z16, Z17, Z18, Z19, Z20, Z21, Z22, Z23, Z4)
	VPCMPUD $1, Z4, Z3, K2   // |j| < kTab[i]
	LOOKUP(Z24, Z25, Z26, Z27, Z28, Z29, Z30, Z31, Z5)
	VCVTDQ2PS Z2, Z2
	VMULPS Z5, Z2, Z2        // x = j·wTab[i]
	VMULPS Z7, Z2, Z2        // scale·x, rounded
	KMOVW K2, DX
	CMPL DX, $0xFFFF
	JNE partial
	VADDPS (DI), Z2, Z2
	VMOVUPS Z2, (DI)
	ADDQ $64, SI
	ADDQ $64, DI
	ADDQ $8, AX
	DECQ CX
	JNZ loop

done:
	MOVQ AX, ret+48(FP)
	VZEROUPPER
	RET

partial:
	// q = index of the first word with a slow half; lanes < 2q are added.
	NOTL DX
	BSFL DX, DX
	SHRL $1, DX
	LEAL (DX)(DX*1), BX
	MOVL $1, R10
	SHLXL BX, R10, R10
	DECL R10
	KMOVW R10, K4
	VMOVUPS.Z (DI), K4, Z8
	VADDPS Z8, Z2, Z2
	VMOVUPS Z2, K4, (DI)
	ADDQ DX, AX
	JMP done

// func zigguratScanAVX512(w *uint64, groups int, kTab *uint32, wTab *float32, scale float32, vals *float32, slow *uint8)
//
// ZigguratScan over groups·8 words: every group's 16 lanes of scale·x go
// to vals (lane 2n, 2n+1 for word n, whatever the path), and byte g of slow
// gets bit n set when word 8g+n has a half off the fast path.
TEXT ·zigguratScanAVX512(SB), NOSPLIT, $0-56
	MOVQ w+0(FP), SI
	MOVQ groups+8(FP), CX
	MOVQ kTab+16(FP), R8
	MOVQ wTab+24(FP), R9
	VBROADCASTSS scale+32(FP), Z7
	MOVQ vals+40(FP), DI
	MOVQ slow+48(FP), R11
	MOVL $0x7F, DX
	VPBROADCASTD DX, Z6
	MOVL $32, DX
	VPBROADCASTD DX, Z9
	MOVL $64, DX
	VPBROADCASTD DX, Z10
	MOVL $0x5555, R12
	VMOVDQU32 0(R8), Z16
	VMOVDQU32 64(R8), Z17
	VMOVDQU32 128(R8), Z18
	VMOVDQU32 192(R8), Z19
	VMOVDQU32 256(R8), Z20
	VMOVDQU32 320(R8), Z21
	VMOVDQU32 384(R8), Z22
	VMOVDQU32 448(R8), Z23
	VMOVDQU32 0(R9), Z24
	VMOVDQU32 64(R9), Z25
	VMOVDQU32 128(R9), Z26
	VMOVDQU32 192(R9), Z27
	VMOVDQU32 256(R9), Z28
	VMOVDQU32 320(R9), Z29
	VMOVDQU32 384(R9), Z30
	VMOVDQU32 448(R9), Z31
	TESTQ CX, CX
	JZ sdone

sloop:
	VMOVDQU32 (SI), Z0
	VPANDD Z6, Z0, Z1        // layer i
	VPSRAD $7, Z0, Z2        // abscissa j
	VPABSD Z2, Z3
	VPTESTMD Z9, Z1, K5
	VPTESTMD Z10, Z1, K6
	LOOKUP(Z16, Z17, Z18, Z19, Z20, Z21, Z22, Z23, Z4)
	VPCMPUD $5, Z4, Z3, K2   // |j| >= kTab[i]: slow half
	LOOKUP(Z24, Z25, Z26, Z27, Z28, Z29, Z30, Z31, Z5)
	VCVTDQ2PS Z2, Z2
	VMULPS Z5, Z2, Z2        // x = j·wTab[i]
	VMULPS Z7, Z2, Z2        // scale·x, rounded
	VMOVUPS Z2, (DI)
	KMOVW K2, DX
	MOVL DX, BX
	SHRL $1, BX
	ORL BX, DX               // bit 2n: either half of word n is slow
	PEXTL R12, DX, DX
	MOVB DX, (R11)
	ADDQ $64, SI
	ADDQ $64, DI
	INCQ R11
	DECQ CX
	JNZ sloop

sdone:
	VZEROUPPER
	RET

// func zigguratAddKeptAVX512(vals *float32, skip *uint8, words int, dst *float32) (n int, bad bool)
//
// ZigguratAddKept: for words in groups of 8, the qword lanes (a word's two
// values) of words whose skip byte is 0 are compressed to the front of a
// ZMM (VPCOMPRESSQ, in order) and added to the next lanes of dst with one
// masked add each. Reads 8 words' vals and skip bytes per group, also past
// words (the caller's arrays have the slack). bad: a sum stored is NaN or
// ±Inf (exponent bits all ones), collected in K4.
TEXT ·zigguratAddKeptAVX512(SB), NOSPLIT, $0-41
	MOVQ vals+0(FP), SI
	MOVQ skip+8(FP), R11
	MOVQ words+16(FP), CX
	MOVQ dst+24(FP), DI
	XORQ AX, AX
	MOVQ $0x0101010101010101, R12
	MOVL $0x7f800000, DX
	VPBROADCASTD DX, Z31
	KXORW K4, K4, K4
	TESTQ CX, CX
	JLE kdone

kloop:
	MOVQ (R11), BX
	PEXTQ R12, BX, BX        // bit n: word n is skipped
	NOTL BX
	MOVL $8, DX
	CMPQ CX, DX
	CMOVQLT CX, DX           // words in this group
	MOVL $1, R10
	SHLXL DX, R10, R10
	DECL R10
	ANDL R10, BX             // bit n: word n is kept
	KMOVW BX, K1
	POPCNTL BX, DX           // kept words
	VMOVUPS (SI), Z0
	VPCOMPRESSQ.Z Z0, K1, Z1
	LEAL (DX)(DX*1), BX
	MOVL $1, R10
	SHLXL BX, R10, R10
	DECL R10
	KMOVW R10, K2
	VMOVUPS.Z (DI), K2, Z2
	VADDPS Z1, Z2, Z2
	VMOVUPS Z2, K2, (DI)
	VPANDD Z31, Z2, Z3
	VPCMPEQD Z31, Z3, K2, K3 // stored lanes only
	KORW K3, K4, K4
	LEAQ (DI)(DX*8), DI
	ADDQ DX, AX
	ADDQ $64, SI
	ADDQ $8, R11
	SUBQ $8, CX
	JG kloop

kdone:
	MOVQ AX, n+32(FP)
	KORTESTW K4, K4
	SETNE bad+40(FP)
	VZEROUPPER
	RET

// func zigguratWedgeAVX512(x *float64, u *uint64, f *float64, d *float64, groups int, c *float64, acc *uint8, xs *float32)
//
// ZigguratWedge over groups of 8 lanes (float64): lane l accepts when
// y = f[l] + unit(u[l])·d[l] < expNeg(−x[l]²/2), every operation the one
// learn's scalar code does, in its order, rounded the same way (no FMA):
// unit(u) = float64(u>>11 + 1)·2⁻⁵³ and expNeg's range reduction and
// Estrin polynomial (learn/normal.go). c holds the constants in this
// order: −½, log₂e, ½, ln 2, 1, 1/2, 1/6, 1/24, 1/120, 1/720, 1/5040,
// 1/40320, 1/362880, 1/3628800, 2⁻⁵³, and (as an int64) 1023. Byte g of
// acc gets bit n set when lane 8g+n accepts, and xs[l] = float32(x[l]).
TEXT ·zigguratWedgeAVX512(SB), NOSPLIT, $0-64
	MOVQ x+0(FP), SI
	MOVQ u+8(FP), R8
	MOVQ f+16(FP), R9
	MOVQ d+24(FP), R10
	MOVQ groups+32(FP), CX
	MOVQ c+40(FP), AX
	MOVQ acc+48(FP), DI
	MOVQ xs+56(FP), R11
	VBROADCASTSD 0(AX), Z16   // −½
	VBROADCASTSD 8(AX), Z17   // log₂e
	VBROADCASTSD 16(AX), Z18  // ½
	VBROADCASTSD 24(AX), Z19  // ln 2
	VBROADCASTSD 32(AX), Z20  // 1
	VBROADCASTSD 40(AX), Z21  // 1/2
	VBROADCASTSD 48(AX), Z22  // 1/6
	VBROADCASTSD 56(AX), Z23  // 1/24
	VBROADCASTSD 64(AX), Z24  // 1/120
	VBROADCASTSD 72(AX), Z25  // 1/720
	VBROADCASTSD 80(AX), Z26  // 1/5040
	VBROADCASTSD 88(AX), Z27  // 1/40320
	VBROADCASTSD 96(AX), Z28  // 1/362880
	VBROADCASTSD 104(AX), Z29 // 1/3628800
	VBROADCASTSD 112(AX), Z30 // 2⁻⁵³
	VPBROADCASTQ 120(AX), Z31 // 1023
	MOVQ $1, DX
	VPBROADCASTQ DX, Z15      // 1 (int64)
	TESTQ CX, CX
	JZ wdone

wloop:
	// y = f + unit·d
	VMOVDQU64 (R8), Z1
	VPSRLQ $11, Z1, Z1
	VPADDQ Z15, Z1, Z1
	VCVTQQ2PD Z1, Z1
	VMULPD Z30, Z1, Z1        // unit, exact
	VMULPD (R10), Z1, Z1
	VADDPD (R9), Z1, Z14      // y
	// t = (−½·x)·x
	VMOVUPD (SI), Z0
	VCVTPD2PS Z0, Y13
	VMOVUPS Y13, (R11)        // float32(x)
	VMULPD Z16, Z0, Z2
	VMULPD Z0, Z2, Z2         // t
	// expNeg(t)
	VMULPD Z17, Z2, Z3        // v = t·log₂e
	VADDPD Z18, Z3, Z4
	VRNDSCALEPD $9, Z4, Z4    // n = floor(v + ½)
	VSUBPD Z4, Z3, Z3
	VMULPD Z19, Z3, Z3        // u = (v − n)·ln 2
	VMULPD Z3, Z3, Z5         // u2
	VMULPD Z5, Z5, Z6         // u4
	VADDPD Z20, Z3, Z7        // q0 = 1 + u
	VMULPD Z22, Z3, Z8
	VADDPD Z21, Z8, Z8        // q1 = 1/2 + u·(1/6)
	VMULPD Z24, Z3, Z9
	VADDPD Z23, Z9, Z9        // q2 = 1/24 + u·(1/120)
	VMULPD Z26, Z3, Z10
	VADDPD Z25, Z10, Z10      // q3 = 1/720 + u·(1/5040)
	VMULPD Z28, Z3, Z11
	VADDPD Z27, Z11, Z11      // q4 = 1/40320 + u·(1/362880)
	VMULPD Z8, Z5, Z8
	VADDPD Z8, Z7, Z7         // r0 = q0 + u2·q1
	VMULPD Z10, Z5, Z10
	VADDPD Z10, Z9, Z9        // r1 = q2 + u2·q3
	VMULPD Z29, Z5, Z12
	VADDPD Z12, Z11, Z11      // r2 = q4 + u2·(1/3628800)
	VMULPD Z11, Z6, Z11
	VADDPD Z11, Z9, Z9        // r1 + u4·r2
	VMULPD Z9, Z6, Z9
	VADDPD Z9, Z7, Z7         // p = r0 + u4·(r1 + u4·r2)
	VCVTTPD2QQ Z4, Z4
	VPADDQ Z31, Z4, Z4
	VPSLLQ $52, Z4, Z4        // 2ⁿ
	VMULPD Z4, Z7, Z7         // e = p·2ⁿ
	VCMPPD $0x11, Z7, Z14, K1 // y < e (ordered, quiet)
	KMOVB K1, (DI)
	ADDQ $64, SI
	ADDQ $64, R8
	ADDQ $64, R9
	ADDQ $64, R10
	ADDQ $32, R11
	INCQ DI
	DECQ CX
	JNZ wloop

wdone:
	VZEROUPPER
	RET
