//go:build amd64 && !purego

#include "textflag.h"

// Kernels of the Poisson game's stream (ideal_poisson.go), AVX2 + FMA.
// Each performs, lane by lane, exactly the operations of its Go form in
// ideal_poisson_kernels.go (every fused multiply-add there is one here,
// and nothing else is fused), so the scores are the same bits on every
// CPU.

// func poissonZiggurat(w *uint64, quads int, tab *[256][2]float64, sigma float64, cand *float64, slow *uint64)
//
// For each of the 4·quads 32-bit halves h of w (the low half of a word
// first; tab[h & 0xFF] = (zigK, zigW) as float64, j = int32(h) >> 8):
// cand = sigma·(float64(j)·zigW), and bit n of the slow mask set when
// half n is off the fast path (|j| ≥ zigK, compared exactly as float64).
// Two 16-byte loads, two inserts and two unpacks fetch four halves'
// entries: a gather is slower on AMD Zen 3, and 8-byte entries (zigK and
// float32 zigW in one word, four loads and shuffles per four halves) took
// 1.10× as long (median of 31 alternations in one process, quiet). The
// mask is written 64 bits at a time, and the last word however full.
TEXT ·poissonZiggurat(SB), NOSPLIT, $0-48
	MOVQ w+0(FP), SI
	MOVQ quads+8(FP), DX
	MOVQ tab+16(FP), R8
	VBROADCASTSD sigma+24(FP), Y12
	MOVQ cand+32(FP), DI
	MOVQ slow+40(FP), R11
	VMOVUPD poissonAbs<>(SB), Y13
	XORQ R10, R10 // the mask being built
	XORQ CX, CX   // its next bit

zloop:
	MOVBLZX 0(SI), AX
	MOVBLZX 4(SI), BX
	MOVBLZX 8(SI), R9
	MOVBLZX 12(SI), R12
	SHLL $4, AX
	SHLL $4, BX
	SHLL $4, R9
	SHLL $4, R12
	VMOVUPD (R8)(AX*1), X0
	VINSERTF128 $1, (R8)(R9*1), Y0, Y0 // k0 w0 | k2 w2
	VMOVUPD (R8)(BX*1), X1
	VINSERTF128 $1, (R8)(R12*1), Y1, Y1 // k1 w1 | k3 w3
	VUNPCKLPD Y1, Y0, Y2               // k0 k1 k2 k3
	VUNPCKHPD Y1, Y0, Y3               // w0 w1 w2 w3
	VMOVDQU (SI), X4
	VPSRAD $8, X4, X4                  // j
	VCVTDQ2PD X4, Y5
	VANDPD Y13, Y5, Y6                 // |j|
	VCMPPD $0x11, Y2, Y6, Y6           // |j| < k: fast
	VMULPD Y3, Y5, Y5
	VMULPD Y12, Y5, Y5                 // σ·z
	VMOVUPD Y5, (DI)
	VMOVMSKPD Y6, AX
	XORL $15, AX                       // slow bits
	SHLQ CX, AX
	ORQ  AX, R10
	ADDQ $4, CX
	CMPQ CX, $64
	JLT  znext
	MOVQ R10, (R11)
	ADDQ $8, R11
	XORQ R10, R10
	XORQ CX, CX

znext:
	ADDQ $16, SI
	ADDQ $32, DI
	DECQ DX
	JNZ  zloop
	TESTQ CX, CX
	JZ   zdone
	MOVQ R10, (R11)

zdone:
	VZEROUPPER
	RET

// poissonState's offsets.
#define ST_P 0
#define ST_W 64
#define ST_M 128
#define ST_E 192
#define ST_ZMIN 256
#define ST_ZMAX 288
#define ST_C 320
#define ST_C2 352
#define ST_NC 384
#define ST_Q 416
#define ST_OMQ 448

// HORNER4(off) is one Horner step, p = p·r + poissonA[off], in each of
// poissonExps4's four chains (r in Y0, Y3, Y6, Y9; p in Y2, Y5, Y8, Y11).
#define HORNER4(off) \
	VFMADD213PD poissonA<>+off(SB), Y0, Y2; \
	VFMADD213PD poissonA<>+off(SB), Y3, Y5; \
	VFMADD213PD poissonA<>+off(SB), Y6, Y8; \
	VFMADD213PD poissonA<>+off(SB), Y9, Y11

// func poissonExps4(ys *float64, groups int, st *poissonState, e *float64)
//
// Per step of 4·groups, as expPoly: z = y·2c − c (the block's range in
// st.zmin, st.zmax) and e = e^z. An exp is a chain of about 18 dependent
// operations; four groups per iteration with their instructions
// interleaved keep both FMA pipes busy. Chain k keeps z (then r) in
// Y(3k), y and then kd in Y(3k+1), k and then the polynomial in Y(3k+2);
// the range is in Y12 and Y13.
TEXT ·poissonExps4(SB), NOSPLIT, $0-32
	MOVQ ys+0(FP), DI
	MOVQ groups+8(FP), CX
	MOVQ st+16(FP), BX
	MOVQ e+24(FP), SI
	VMOVUPD ST_ZMIN(BX), Y12
	VMOVUPD ST_ZMAX(BX), Y13
	CMPQ CX, $4
	JLT  xone

xquad:
	VMOVUPD 0(DI), Y1 // y
	VMOVUPD 32(DI), Y4
	VMOVUPD 64(DI), Y7
	VMOVUPD 96(DI), Y10
	VMOVUPD ST_NC(BX), Y0
	VMOVUPD ST_NC(BX), Y3
	VMOVUPD ST_NC(BX), Y6
	VMOVUPD ST_NC(BX), Y9
	VFMADD231PD ST_C2(BX), Y1, Y0 // z = y·2c + (−c)
	VFMADD231PD ST_C2(BX), Y4, Y3
	VFMADD231PD ST_C2(BX), Y7, Y6
	VFMADD231PD ST_C2(BX), Y10, Y9
	VMINPD Y0, Y12, Y12
	VMINPD Y3, Y12, Y12
	VMINPD Y6, Y12, Y12
	VMINPD Y9, Y12, Y12
	VMAXPD Y0, Y13, Y13
	VMAXPD Y3, Y13, Y13
	VMAXPD Y6, Y13, Y13
	VMAXPD Y9, Y13, Y13
	VMOVUPD poissonRnd<>(SB), Y1
	VMOVUPD poissonRnd<>(SB), Y4
	VMOVUPD poissonRnd<>(SB), Y7
	VMOVUPD poissonRnd<>(SB), Y10
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
	VMOVUPD poissonA<>+384(SB), Y5
	VMOVUPD poissonA<>+384(SB), Y8
	VMOVUPD poissonA<>+384(SB), Y11
	HORNER4(352) // Horner
	HORNER4(320)
	HORNER4(288)
	HORNER4(256)
	HORNER4(224)
	HORNER4(192)
	HORNER4(160)
	HORNER4(128)
	HORNER4(96)
	HORNER4(64)
	HORNER4(32)
	HORNER4(0)
	VPSLLQ $52, Y1, Y1
	VPSLLQ $52, Y4, Y4
	VPSLLQ $52, Y7, Y7
	VPSLLQ $52, Y10, Y10
	VPADDQ Y1, Y2, Y2 // e^z = p·2^k
	VPADDQ Y4, Y5, Y5
	VPADDQ Y7, Y8, Y8
	VPADDQ Y10, Y11, Y11
	VMOVUPD Y2, 0(SI)
	VMOVUPD Y5, 32(SI)
	VMOVUPD Y8, 64(SI)
	VMOVUPD Y11, 96(SI)
	ADDQ $128, DI
	ADDQ $128, SI
	SUBQ $4, CX
	CMPQ CX, $4
	JGE  xquad

xone:
	TESTQ CX, CX
	JZ   xdone
	VMOVUPD 0(DI), Y1 // y
	VMOVUPD ST_NC(BX), Y0
	VFMADD231PD ST_C2(BX), Y1, Y0 // z = y·2c + (−c)
	VMINPD Y0, Y12, Y12
	VMAXPD Y0, Y13, Y13
	VMOVUPD poissonRnd<>(SB), Y1
	VFMADD231PD poissonLog2e<>(SB), Y0, Y1 // kd = z·log₂e + 1.5·2⁵²
	VSUBPD poissonRnd<>(SB), Y1, Y2 // k
	VFMADD231PD poissonNLn2Hi<>(SB), Y2, Y0
	VFMADD231PD poissonNLn2Lo<>(SB), Y2, Y0 // r = z − k·ln 2
	VMOVUPD poissonA<>+384(SB), Y2
	VFMADD213PD poissonA<>+352(SB), Y0, Y2 // Horner
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
	VPADDQ Y1, Y2, Y2 // e^z = p·2^k
	VMOVUPD Y2, 0(SI)
	ADDQ $32, DI
	ADDQ $32, SI
	DECQ CX
	JMP  xone

xdone:
	VMOVUPD Y12, ST_ZMIN(BX)
	VMOVUPD Y13, ST_ZMAX(BX)
	VZEROUPPER
	RET

// MOVE_EXP(m, off) moves the binary exponents of the products in m into
// st.e at off: e += exponent − 1023, m = its mantissa in [1, 2)
// (renormalize).
#define MOVE_EXP(m, off) \
	VPSRLQ $52, m, Y14; \
	VPADDQ off(BX), Y14, Y14; \
	VPSUBQ poissonBias<>(SB), Y14, Y14; \
	VMOVDQU Y14, off(BX); \
	VPAND poissonMant<>(SB), m, m; \
	VPOR poissonOne<>(SB), m, m

// STEP(p, w, m) scores one group of four steps into the residues' p, w
// and m: p += y; d := y − 1; w −= (d·c)·d; m *= q·e + (1 − q).
#define STEP(p, w, m, yoff) \
	VMOVUPD yoff(DI), Y10; \
	VADDPD Y10, p, p; \
	VSUBPD Y7, Y10, Y11; \
	VMULPD Y6, Y11, Y12; \
	VFNMADD231PD Y11, Y12, w; \
	VMOVUPD yoff(SI), Y13; \
	VFMADD213PD Y9, Y8, Y13; \
	VMULPD Y13, m, m

// func poissonProducts4(ys, e *float64, groups int, st *poissonState)
//
// Per group g of four steps, as poissonScoreGo, into the residues of
// vector g mod 2 (residues 0…3, then 4…7): the sums, and the products of
// the likelihood ratios q·e + (1 − q), whose exponents move into st.e
// every 8 groups and after the last (groups ≥ 1). Two vectors of
// residues let consecutive groups' chains (a multiply and an FMA of
// 3–5 cycles each) overlap.
TEXT ·poissonProducts4(SB), NOSPLIT, $0-32
	MOVQ ys+0(FP), DI
	MOVQ e+8(FP), SI
	MOVQ groups+16(FP), CX
	MOVQ st+24(FP), BX
	VMOVUPD ST_P(BX), Y0
	VMOVUPD ST_W(BX), Y1
	VMOVUPD ST_M(BX), Y2
	VMOVUPD ST_P+32(BX), Y3
	VMOVUPD ST_W+32(BX), Y4
	VMOVUPD ST_M+32(BX), Y5
	VMOVUPD ST_C(BX), Y6
	VMOVUPD poissonOne<>(SB), Y7
	VMOVUPD ST_Q(BX), Y8
	VMOVUPD ST_OMQ(BX), Y9
	MOVQ $4, DX // pairs of groups to the next exponent move

ppair:
	CMPQ CX, $2
	JLT  plast
	STEP(Y0, Y1, Y2, 0)
	STEP(Y3, Y4, Y5, 32)
	ADDQ $64, DI
	ADDQ $64, SI
	SUBQ $2, CX
	DECQ DX
	JNZ  ppair
	MOVE_EXP(Y2, ST_E)
	MOVE_EXP(Y5, ST_E+32)
	MOVQ $4, DX
	JMP  ppair

plast:
	TESTQ CX, CX
	JZ   pend
	STEP(Y0, Y1, Y2, 0)

pend:
	MOVE_EXP(Y2, ST_E)
	MOVE_EXP(Y5, ST_E+32)
	VMOVUPD Y0, ST_P(BX)
	VMOVUPD Y1, ST_W(BX)
	VMOVUPD Y2, ST_M(BX)
	VMOVUPD Y3, ST_P+32(BX)
	VMOVUPD Y4, ST_W+32(BX)
	VMOVUPD Y5, ST_M+32(BX)
	VZEROUPPER
	RET

// SUMS(p, w) is STEP without the product.
#define SUMS(p, w, yoff) \
	VMOVUPD yoff(DI), Y10; \
	VADDPD Y10, p, p; \
	VSUBPD Y7, Y10, Y11; \
	VMULPD Y6, Y11, Y12; \
	VFNMADD231PD Y11, Y12, w

// func poissonSums4(ys *float64, groups int, st *poissonState)
//
// poissonProducts4's sums alone.
TEXT ·poissonSums4(SB), NOSPLIT, $0-24
	MOVQ ys+0(FP), DI
	MOVQ groups+8(FP), CX
	MOVQ st+16(FP), BX
	VMOVUPD ST_P(BX), Y0
	VMOVUPD ST_W(BX), Y1
	VMOVUPD ST_P+32(BX), Y3
	VMOVUPD ST_W+32(BX), Y4
	VMOVUPD ST_C(BX), Y6
	VMOVUPD poissonOne<>(SB), Y7

wpair:
	CMPQ CX, $2
	JLT  wlast
	SUMS(Y0, Y1, 0)
	SUMS(Y3, Y4, 32)
	ADDQ $64, DI
	SUBQ $2, CX
	JMP  wpair

wlast:
	TESTQ CX, CX
	JZ   wend
	SUMS(Y0, Y1, 0)

wend:
	VMOVUPD Y0, ST_P(BX)
	VMOVUPD Y1, ST_W(BX)
	VMOVUPD Y3, ST_P+32(BX)
	VMOVUPD Y4, ST_W+32(BX)
	VZEROUPPER
	RET

// Four copies of each constant, for memory operands.
#define C4(name, off, v) \
	DATA name+(off)(SB)/8, v; \
	DATA name+(off+8)(SB)/8, v; \
	DATA name+(off+16)(SB)/8, v; \
	DATA name+(off+24)(SB)/8, v

C4(poissonOne<>, 0, $1.0)
GLOBL poissonOne<>(SB), RODATA|NOPTR, $32
C4(poissonAbs<>, 0, $0x7fffffffffffffff)
GLOBL poissonAbs<>(SB), RODATA|NOPTR, $32
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
