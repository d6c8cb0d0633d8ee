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

// func zigguratAddKeptAVX512(vals *float32, skip *uint8, words int, dst *float32) int
//
// ZigguratAddKept: for words in groups of 8, the qword lanes (a word's two
// values) of words whose skip byte is 0 are compressed to the front of a
// ZMM (VPCOMPRESSQ, in order) and added to the next lanes of dst with one
// masked add each. Reads 8 words' vals and skip bytes per group, also past
// words (the caller's arrays have the slack).
TEXT ·zigguratAddKeptAVX512(SB), NOSPLIT, $0-40
	MOVQ vals+0(FP), SI
	MOVQ skip+8(FP), R11
	MOVQ words+16(FP), CX
	MOVQ dst+24(FP), DI
	XORQ AX, AX
	MOVQ $0x0101010101010101, R12
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
	LEAQ (DI)(DX*8), DI
	ADDQ DX, AX
	ADDQ $64, SI
	ADDQ $8, R11
	SUBQ $8, CX
	JG kloop

kdone:
	MOVQ AX, ret+32(FP)
	VZEROUPPER
	RET
