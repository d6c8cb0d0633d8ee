//go:build amd64 && !purego

#include "textflag.h"

// Kernels of the Poisson game's stream (ideal_poisson.go), AVX2 + FMA.
// Each performs, lane by lane, exactly the operations of its Go form in
// ideal_poisson_kernels.go (every fused multiply-add there is one here,
// and nothing else is fused), so the scores are the same bits on every
// CPU.

// func poissonZiggurat(w *uint64, groups int, tab *uint64, sigma float64, cand *float64, slow *uint64)
//
// For each of the 8·groups 32-bit halves h of w (the low half of a word
// first; tab[h & 0xFF] holds kn >> 7 in its low and wn·128's bits in its
// high half, j = int32(h) >> 7): cand = sigma·(float64(j)·float64(wn)),
// and bit n of the slow mask set when half n is off the fast path (|j| ≥
// kn >> 7). Eight scalar loads per 8 halves fetch the table entries (a
// gather is slower on AMD Zen 3). The mask is written 64 bits at a time;
// groups is a multiple of 8.
TEXT ·poissonZiggurat(SB), NOSPLIT, $0-48
	MOVQ w+0(FP), SI
	MOVQ groups+8(FP), DX
	MOVQ tab+16(FP), R8
	VBROADCASTSD sigma+24(FP), Y12
	MOVQ cand+32(FP), DI
	MOVQ slow+40(FP), R11
	VMOVDQU zigPerm<>(SB), Y15
	XORQ R10, R10 // the mask being built
	XORQ CX, CX   // its next bit

zloop:
	// tab entries of halves 0…3 into Y5, of halves 4…7 into Y7.
	MOVBLZX 0(SI), AX
	MOVBLZX 4(SI), BX
	MOVBLZX 8(SI), R9
	MOVBLZX 12(SI), R12
	VMOVQ (R8)(AX*8), X5
	VPINSRQ $1, (R8)(BX*8), X5, X5
	VMOVQ (R8)(R9*8), X4
	VPINSRQ $1, (R8)(R12*8), X4, X4
	VINSERTI128 $1, X4, Y5, Y5
	MOVBLZX 16(SI), AX
	MOVBLZX 20(SI), BX
	MOVBLZX 24(SI), R9
	MOVBLZX 28(SI), R12
	VMOVQ (R8)(AX*8), X7
	VPINSRQ $1, (R8)(BX*8), X7, X7
	VMOVQ (R8)(R9*8), X4
	VPINSRQ $1, (R8)(R12*8), X4, X4
	VINSERTI128 $1, X4, Y7, Y7
	VPERMD Y5, Y15, Y5           // kn0…kn3 | wn0…wn3
	VPERMD Y7, Y15, Y7           // kn4…kn7 | wn4…wn7
	VPERM2I128 $0x20, Y7, Y5, Y3 // kn0…kn7
	VPERM2I128 $0x31, Y7, Y5, Y7 // wn0…wn7
	VMOVDQU (SI), Y0             // h0…h7
	VPSRAD $8, Y0, Y2            // j
	VPABSD Y2, Y6                // |j| < 2²⁴
	VPCMPGTD Y6, Y3, Y6          // kn > |j|: fast
	VMOVMSKPS Y6, AX
	XORL $255, AX                // slow bits
	SHLQ CX, AX
	ORQ  AX, R10
	ADDQ $8, CX
	CMPQ CX, $64
	JLT  zvalues
	MOVQ R10, (R11)
	ADDQ $8, R11
	XORQ R10, R10
	XORQ CX, CX

zvalues:
	VCVTDQ2PD X2, Y8             // float64(j), halves 0…3
	VCVTPS2PD X7, Y9             // float64(wn)
	VMULPD Y9, Y8, Y8
	VMULPD Y12, Y8, Y8           // σ·z
	VMOVUPD Y8, (DI)
	VEXTRACTI128 $1, Y2, X2
	VEXTRACTF128 $1, Y7, X7
	VCVTDQ2PD X2, Y8             // halves 4…7
	VCVTPS2PD X7, Y9
	VMULPD Y9, Y8, Y8
	VMULPD Y12, Y8, Y8
	VMOVUPD Y8, 32(DI)
	ADDQ $32, SI
	ADDQ $64, DI
	DECQ DX
	JNZ  zloop
	VZEROUPPER
	RET

// poissonState's offsets.
#define ST_P 0
#define ST_W 32
#define ST_M 64
#define ST_E 96
#define ST_ZMIN 128
#define ST_ZMAX 160
#define ST_C 192
#define ST_C2 224
#define ST_NC 256
#define ST_Q 288
#define ST_OMQ 320

// MOVE_EXP moves the binary exponents of the products in Y15 into Y12:
// e += exponent − 1023, m = its mantissa in [1, 2) (renormalize).
#define MOVE_EXP \
	VPSRLQ $52, Y15, Y1; \
	VPADDQ Y1, Y12, Y12; \
	VPSUBQ poissonBias<>(SB), Y12, Y12; \
	VPAND poissonMant<>(SB), Y15, Y15; \
	VPOR poissonOne<>(SB), Y15, Y15

// func poissonFactors4(ys *float64, groups int, st *poissonState, f *float64)
//
// Per step of 4·groups, as poissonScoreGo: z = y·2c − c (the block's
// range in st.zmin, st.zmax) and the likelihood ratio f = q·expPoly(z) +
// (1 − q), with expPoly's polynomial in Horner's form. An exp is a chain
// of about 17 dependent operations; four groups per iteration with their
// instructions interleaved keep both FMA pipes busy. Chain k keeps z
// (then r) in Y(3k), kd in Y(3k+1), k and then the polynomial in
// Y(3k+2); −c is in Y12, 1 − q in Y13, the range in Y14 and Y15.
#define HORNER(a) \
	VFMADD213PD a, Y0, Y2; \
	VFMADD213PD a, Y3, Y5; \
	VFMADD213PD a, Y6, Y8; \
	VFMADD213PD a, Y9, Y11

TEXT ·poissonFactors4(SB), NOSPLIT, $0-32
	MOVQ ys+0(FP), DI
	MOVQ groups+8(FP), CX
	MOVQ st+16(FP), BX
	MOVQ f+24(FP), SI
	VMOVUPD ST_NC(BX), Y12
	VMOVUPD ST_OMQ(BX), Y13
	VMOVUPD ST_ZMIN(BX), Y14
	VMOVUPD ST_ZMAX(BX), Y15
	CMPQ CX, $4
	JLT  fone

fquad:
	VMOVUPD 0(DI), Y0
	VMOVUPD 32(DI), Y3
	VMOVUPD 64(DI), Y6
	VMOVUPD 96(DI), Y9
	VFMADD132PD ST_C2(BX), Y12, Y0 // z = y·2c + (−c)
	VFMADD132PD ST_C2(BX), Y12, Y3
	VFMADD132PD ST_C2(BX), Y12, Y6
	VFMADD132PD ST_C2(BX), Y12, Y9
	VMINPD Y0, Y14, Y14
	VMINPD Y3, Y14, Y14
	VMINPD Y6, Y14, Y14
	VMINPD Y9, Y14, Y14
	VMAXPD Y0, Y15, Y15
	VMAXPD Y3, Y15, Y15
	VMAXPD Y6, Y15, Y15
	VMAXPD Y9, Y15, Y15
	VMOVUPD poissonRnd<>(SB), Y1
	VMOVUPD Y1, Y4
	VMOVUPD Y1, Y7
	VMOVUPD Y1, Y10
	VFMADD231PD poissonLog2e<>(SB), Y0, Y1 // kd = z·log₂e + 1.5·2⁵²
	VFMADD231PD poissonLog2e<>(SB), Y3, Y4
	VFMADD231PD poissonLog2e<>(SB), Y6, Y7
	VFMADD231PD poissonLog2e<>(SB), Y9, Y10
	VSUBPD poissonRnd<>(SB), Y1, Y2 // k
	VSUBPD poissonRnd<>(SB), Y4, Y5
	VSUBPD poissonRnd<>(SB), Y7, Y8
	VSUBPD poissonRnd<>(SB), Y10, Y11
	VFMADD231PD poissonNLn2Hi<>(SB), Y2, Y0
	VFMADD231PD poissonNLn2Hi<>(SB), Y5, Y3
	VFMADD231PD poissonNLn2Hi<>(SB), Y8, Y6
	VFMADD231PD poissonNLn2Hi<>(SB), Y11, Y9
	VFMADD231PD poissonNLn2Lo<>(SB), Y2, Y0 // r = z − k·ln 2
	VFMADD231PD poissonNLn2Lo<>(SB), Y5, Y3
	VFMADD231PD poissonNLn2Lo<>(SB), Y8, Y6
	VFMADD231PD poissonNLn2Lo<>(SB), Y11, Y9
	VMOVUPD poissonA<>+384(SB), Y2
	VMOVUPD Y2, Y5
	VMOVUPD Y2, Y8
	VMOVUPD Y2, Y11
	HORNER(poissonA<>+352(SB))
	HORNER(poissonA<>+320(SB))
	HORNER(poissonA<>+288(SB))
	HORNER(poissonA<>+256(SB))
	HORNER(poissonA<>+224(SB))
	HORNER(poissonA<>+192(SB))
	HORNER(poissonA<>+160(SB))
	HORNER(poissonA<>+128(SB))
	HORNER(poissonA<>+96(SB))
	HORNER(poissonA<>+64(SB))
	HORNER(poissonA<>+32(SB))
	HORNER(poissonA<>+0(SB))
	VPSLLQ $52, Y1, Y1
	VPSLLQ $52, Y4, Y4
	VPSLLQ $52, Y7, Y7
	VPSLLQ $52, Y10, Y10
	VPADDQ Y1, Y2, Y2 // e^z = p·2^k
	VPADDQ Y4, Y5, Y5
	VPADDQ Y7, Y8, Y8
	VPADDQ Y10, Y11, Y11
	VFMADD132PD ST_Q(BX), Y13, Y2 // e^z·q + (1 − q)
	VFMADD132PD ST_Q(BX), Y13, Y5
	VFMADD132PD ST_Q(BX), Y13, Y8
	VFMADD132PD ST_Q(BX), Y13, Y11
	VMOVUPD Y2, 0(SI)
	VMOVUPD Y5, 32(SI)
	VMOVUPD Y8, 64(SI)
	VMOVUPD Y11, 96(SI)
	ADDQ $128, DI
	ADDQ $128, SI
	SUBQ $4, CX
	CMPQ CX, $4
	JGE  fquad

fone:
	TESTQ CX, CX
	JZ   fdone
	VMOVUPD 0(DI), Y0
	VFMADD132PD ST_C2(BX), Y12, Y0
	VMINPD Y0, Y14, Y14
	VMAXPD Y0, Y15, Y15
	VMOVUPD poissonRnd<>(SB), Y1
	VFMADD231PD poissonLog2e<>(SB), Y0, Y1
	VSUBPD poissonRnd<>(SB), Y1, Y2
	VFMADD231PD poissonNLn2Hi<>(SB), Y2, Y0
	VFMADD231PD poissonNLn2Lo<>(SB), Y2, Y0
	VMOVUPD poissonA<>+384(SB), Y2
	VFMADD213PD poissonA<>+352(SB), Y0, Y2
	VFMADD213PD poissonA<>+320(SB), Y0, Y2
	VFMADD213PD poissonA<>+288(SB), Y0, Y2
	VFMADD213PD poissonA<>+256(SB), Y0, Y2
	VFMADD213PD poissonA<>+224(SB), Y0, Y2
	VFMADD213PD poissonA<>+192(SB), Y0, Y2
	VFMADD213PD poissonA<>+160(SB), Y0, Y2
	VFMADD213PD poissonA<>+128(SB), Y0, Y2
	VFMADD213PD poissonA<>+96(SB), Y0, Y2
	VFMADD213PD poissonA<>+64(SB), Y0, Y2
	VFMADD213PD poissonA<>+32(SB), Y0, Y2
	VFMADD213PD poissonA<>+0(SB), Y0, Y2
	VPSLLQ $52, Y1, Y1
	VPADDQ Y1, Y2, Y2
	VFMADD132PD ST_Q(BX), Y13, Y2
	VMOVUPD Y2, 0(SI)
	ADDQ $32, DI
	ADDQ $32, SI
	DECQ CX
	JMP  fone

fdone:
	VMOVUPD Y14, ST_ZMIN(BX)
	VMOVUPD Y15, ST_ZMAX(BX)
	VZEROUPPER
	RET

// func poissonProducts4(ys, f *float64, groups int, st *poissonState)
//
// Per group of four steps, as poissonScoreGo: p += y; d := y − 1;
// w −= (d·c)·d; m *= f; the products' exponents moved into st.e every 8
// groups and after the last (groups ≥ 1).
TEXT ·poissonProducts4(SB), NOSPLIT, $0-32
	MOVQ ys+0(FP), DI
	MOVQ f+8(FP), SI
	MOVQ groups+16(FP), CX
	MOVQ st+24(FP), BX
	VMOVUPD ST_P(BX), Y13
	VMOVUPD ST_W(BX), Y14
	VMOVUPD ST_M(BX), Y15
	VMOVDQU ST_E(BX), Y12
	VMOVUPD ST_C(BX), Y11
	VMOVUPD poissonOne<>(SB), Y10
	MOVQ $8, DX // groups to the next exponent move

ploop:
	VMOVUPD (DI), Y0
	VADDPD Y0, Y13, Y13      // p += y
	VSUBPD Y10, Y0, Y1       // d = y − 1
	VMULPD Y11, Y1, Y2       // d·c
	VFNMADD231PD Y1, Y2, Y14 // w −= (d·c)·d
	VMULPD (SI), Y15, Y15    // m *= f
	ADDQ $32, DI
	ADDQ $32, SI
	DECQ DX
	JNZ  pnext
	MOVE_EXP
	MOVQ $8, DX

pnext:
	DECQ CX
	JNZ  ploop
	CMPQ DX, $8
	JEQ  pdone
	MOVE_EXP

pdone:
	VMOVUPD Y13, ST_P(BX)
	VMOVUPD Y14, ST_W(BX)
	VMOVUPD Y15, ST_M(BX)
	VMOVDQU Y12, ST_E(BX)
	VZEROUPPER
	RET

// func poissonSums4(ys *float64, groups int, st *poissonState)
//
// poissonScore4's sums alone: p += y; w −= (d·c)·d with d = y − 1.
TEXT ·poissonSums4(SB), NOSPLIT, $0-24
	MOVQ ys+0(FP), DI
	MOVQ groups+8(FP), CX
	MOVQ st+16(FP), BX
	VMOVUPD ST_P(BX), Y13
	VMOVUPD ST_W(BX), Y14
	VMOVUPD ST_C(BX), Y12
	VMOVUPD poissonOne<>(SB), Y9

wloop:
	VMOVUPD (DI), Y0
	VADDPD Y0, Y13, Y13
	VSUBPD Y9, Y0, Y1
	VMULPD Y12, Y1, Y2
	VFNMADD231PD Y1, Y2, Y14
	ADDQ $32, DI
	DECQ CX
	JNZ  wloop
	VMOVUPD Y13, ST_P(BX)
	VMOVUPD Y14, ST_W(BX)
	VZEROUPPER
	RET

// VPERMD indices: the low dwords of four words, then their high dwords.
DATA zigPerm<>+0(SB)/4, $0
DATA zigPerm<>+4(SB)/4, $2
DATA zigPerm<>+8(SB)/4, $4
DATA zigPerm<>+12(SB)/4, $6
DATA zigPerm<>+16(SB)/4, $1
DATA zigPerm<>+20(SB)/4, $3
DATA zigPerm<>+24(SB)/4, $5
DATA zigPerm<>+28(SB)/4, $7
GLOBL zigPerm<>(SB), RODATA|NOPTR, $32

// Four copies of each constant, for memory operands.
#define C4(name, off, v) \
	DATA name+(off)(SB)/8, v; \
	DATA name+(off+8)(SB)/8, v; \
	DATA name+(off+16)(SB)/8, v; \
	DATA name+(off+24)(SB)/8, v

C4(poissonOne<>, 0, $1.0)
GLOBL poissonOne<>(SB), RODATA|NOPTR, $32
C4(poissonRnd<>, 0, $6755399441055744.0)
GLOBL poissonRnd<>(SB), RODATA|NOPTR, $32
C4(poissonLog2e<>, 0, $1.4426950408889634)
GLOBL poissonLog2e<>(SB), RODATA|NOPTR, $32
C4(poissonNLn2Hi<>, 0, $-0.6931471805599453)
GLOBL poissonNLn2Hi<>(SB), RODATA|NOPTR, $32
C4(poissonNLn2Lo<>, 0, $-2.3190468138462996e-17)
GLOBL poissonNLn2Lo<>(SB), RODATA|NOPTR, $32
C4(poissonBias<>, 0, $1023)
GLOBL poissonBias<>(SB), RODATA|NOPTR, $32
C4(poissonMant<>, 0, $0x000fffffffffffff)
GLOBL poissonMant<>(SB), RODATA|NOPTR, $32
// 1/k! for k = 0…12 (poissonTaylor).
C4(poissonA<>, 0, $1.0)
C4(poissonA<>, 32, $1.0)
C4(poissonA<>, 64, $0.5)
C4(poissonA<>, 96, $0.16666666666666666)
C4(poissonA<>, 128, $0.041666666666666664)
C4(poissonA<>, 160, $0.008333333333333333)
C4(poissonA<>, 192, $0.001388888888888889)
C4(poissonA<>, 224, $0.0001984126984126984)
C4(poissonA<>, 256, $2.48015873015873e-05)
C4(poissonA<>, 288, $2.7557319223985893e-06)
C4(poissonA<>, 320, $2.755731922398589e-07)
C4(poissonA<>, 352, $2.505210838544172e-08)
C4(poissonA<>, 384, $2.08767569878681e-09)
GLOBL poissonA<>(SB), RODATA|NOPTR, $416
