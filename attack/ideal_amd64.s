//go:build amd64 && !purego

#include "textflag.h"

// Kernels of the ideal mechanism's lanes (ideal_lanes.go), AVX2 + FMA.
// Each performs, lane by lane, exactly the floating-point operations of
// IdealMechanism.trial in the same order (no contraction into fused
// multiply-adds except inside the exp, which is math.Exp's own FMA path),
// so the scores are the scalar code's bits.

// func idealZiggurat(w *uint64, groups int, knwn *uint64, sigma float64, cand *float64, slow *uint64)
//
// For each of 8·groups words u (j = int32(u), i = u>>32 & 0x7F):
// cand = sigma·(float64(j)·float64(wn[i])), NormFloat64's fast-path value
// scaled as trial scales it, and bit n of the slow mask set when word n
// is off the fast path (|j| ≥ kn[i], unsigned). knwn[i] holds kn[i] in
// its low and wn[i]'s bits in its high half, so one load per word
// fetches both; eight scalar loads per 8 words take about half the time
// of one 4-element gather per 4 words (AMD Zen 3, alternating in one
// process), and a quarter of two 8-element gathers (one per table). The
// mask is written 64 bits at a time; groups is a multiple of 8.
TEXT ·idealZiggurat(SB), NOSPLIT, $0-48
	MOVQ w+0(FP), SI
	MOVQ groups+8(FP), DX
	MOVQ knwn+16(FP), R8
	VBROADCASTSD sigma+24(FP), Y12
	MOVQ cand+32(FP), DI
	MOVQ slow+40(FP), R11
	VMOVDQU zigPerm<>(SB), Y15
	VPBROADCASTD zigSign<>(SB), Y13
	XORQ R10, R10 // the mask being built
	XORQ CX, CX   // its next bit

zloop:
	// knwn[i] of words 0…3 into Y5, of words 4…7 into Y7 (i is the low
	// 7 bits of each word's byte 4).
	MOVBLZX 4(SI), AX
	MOVBLZX 12(SI), BX
	MOVBLZX 20(SI), R9
	MOVBLZX 28(SI), R12
	ANDL $0x7F, AX
	ANDL $0x7F, BX
	ANDL $0x7F, R9
	ANDL $0x7F, R12
	VMOVQ (R8)(AX*8), X5
	VPINSRQ $1, (R8)(BX*8), X5, X5
	VMOVQ (R8)(R9*8), X4
	VPINSRQ $1, (R8)(R12*8), X4, X4
	VINSERTI128 $1, X4, Y5, Y5
	MOVBLZX 36(SI), AX
	MOVBLZX 44(SI), BX
	MOVBLZX 52(SI), R9
	MOVBLZX 60(SI), R12
	ANDL $0x7F, AX
	ANDL $0x7F, BX
	ANDL $0x7F, R9
	ANDL $0x7F, R12
	VMOVQ (R8)(AX*8), X7
	VPINSRQ $1, (R8)(BX*8), X7, X7
	VMOVQ (R8)(R9*8), X4
	VPINSRQ $1, (R8)(R12*8), X4, X4
	VINSERTI128 $1, X4, Y7, Y7
	VPERMD (SI), Y15, Y0      // j0…j3 | hi0…hi3
	VPERMD 32(SI), Y15, Y1    // j4…j7 | hi4…hi7
	VPERM2I128 $0x20, Y1, Y0, Y2 // j0…j7
	VPERMD Y5, Y15, Y5        // kn0…kn3 | wn0…wn3
	VPERMD Y7, Y15, Y7        // kn4…kn7 | wn4…wn7
	VPERM2I128 $0x20, Y7, Y5, Y3 // kn0…kn7
	VPERM2I128 $0x31, Y7, Y5, Y7 // wn0…wn7
	VPABSD Y2, Y6             // |j| (MinInt32 stays 2³¹ unsigned)
	VPXOR Y13, Y6, Y6         // unsigned order as signed
	VPXOR Y13, Y3, Y5
	VPCMPGTD Y6, Y5, Y6       // kn[i] > |j|: fast
	VMOVMSKPS Y6, AX
	XORL $255, AX             // slow bits
	SHLQ CX, AX
	ORQ AX, R10
	ADDQ $8, CX
	CMPQ CX, $64
	JLT  zvalues
	MOVQ R10, (R11)
	ADDQ $8, R11
	XORQ R10, R10
	XORQ CX, CX

zvalues:
	VCVTDQ2PD X2, Y8          // float64(j), words 0…3
	VCVTPS2PD X7, Y9          // float64(wn[i])
	VMULPD Y9, Y8, Y8
	VMULPD Y12, Y8, Y8        // σ·z
	VMOVUPD Y8, (DI)
	VEXTRACTI128 $1, Y2, X2
	VEXTRACTF128 $1, Y7, X7
	VCVTDQ2PD X2, Y8          // words 4…7
	VCVTPS2PD X7, Y9
	VMULPD Y9, Y8, Y8
	VMULPD Y12, Y8, Y8
	VMOVUPD Y8, 32(DI)
	ADDQ $64, SI
	ADDQ $64, DI
	DECQ DX
	JNZ  zloop
	VZEROUPPER
	RET

// func idealExp4(ys *float64, n int, c float64, e *float64, ok *uint8)
//
// The exps of the LLR for steps [0, n) of four lanes (ys interleaved:
// step k of lane l at ys[4k+l]): e[4k+l] = exp(z) of z = (2y − 1)·c, with
// math.Exp's FMA path (as internal/numeric's expFMA), and ok[k] = 15 when
// every lane's z is in [−700, 30] (bit l for lane l; NaN is not). The
// steps are independent: the out-of-order core overlaps their exps, and
// four steps per iteration with their instructions interleaved let it
// overlap more (the simulator took 0.96 of its CPU with two per
// iteration; two with one, the kernel alone 0.83–0.85 of its thread
// CPU; AMD Zen 3).
// The four chains of idealExp4's main loop: chain q keeps r (its
// argument, then its result) in Y(4q), k in Y(4q+1) (X(4q+3) as
// integers), the polynomial in Y(4q+2). Each macro applies one
// instruction, with a first operand m (a memory operand or an
// immediate) where it has one, to the four chains.
#define Q_RR(op) op Y0, Y0, Y0; op Y4, Y4, Y4; op Y8, Y8, Y8; op Y12, Y12, Y12
#define Q_MR(op, m) op m, Y0, Y0; op m, Y4, Y4; op m, Y8, Y8; op m, Y12, Y12
#define Q_MK(op, m) op m, Y0, Y1; op m, Y4, Y5; op m, Y8, Y9; op m, Y12, Y13
#define Q_MP(op, m) op m, Y0, Y2; op m, Y4, Y6; op m, Y8, Y10; op m, Y12, Y14
#define Q_KR(op, m) op m, Y1, Y0; op m, Y5, Y4; op m, Y9, Y8; op m, Y13, Y12
#define Q_PR(op) op Y2, Y0, Y0; op Y6, Y4, Y4; op Y10, Y8, Y8; op Y14, Y12, Y12
#define Q_PFMA(m) VFMADD213PD m, Y2, Y0; VFMADD213PD m, Y6, Y4; VFMADD213PD m, Y10, Y8; VFMADD213PD m, Y14, Y12
#define Q_KK(op, m) op m, Y1, Y1; op m, Y5, Y5; op m, Y9, Y9; op m, Y13, Y13
#define Q_CMP(imm, m, k0, k1, k2, k3) VCMPPD imm, m, Y0, k0; VCMPPD imm, m, Y4, k1; VCMPPD imm, m, Y8, k2; VCMPPD imm, m, Y12, k3

TEXT ·idealExp4(SB), NOSPLIT, $32-40
	MOVQ ys+0(FP), DI
	MOVQ n+8(FP), SI
	VBROADCASTSD c+16(FP), Y12
	VMOVUPD Y12, cv-32(SP)
	MOVQ e+24(FP), R8
	MOVQ ok+32(FP), R9
	VBROADCASTSD idealOne<>(SB), Y9
	TESTQ SI, SI
	JLE  edone
	CMPQ SI, $4
	JLT  eone

	// Four steps per iteration, their instructions interleaved: each exp
	// is a chain of some 25 dependent operations (about 70 cycles), and
	// four chains side by side keep both FMA pipes busy where two left
	// them waiting. Every register holds a chain's value, so 1 and c are
	// memory operands here.
equad:
	VMOVUPD 0(DI), Y0
	VMOVUPD 32(DI), Y4
	VMOVUPD 64(DI), Y8
	VMOVUPD 96(DI), Y12
	Q_RR(VADDPD)                      // 2y
	Q_MR(VSUBPD, idealC<>+32(SB))     // − 1
	Q_MR(VMULPD, cv-32(SP))           // z
	Q_CMP($0x1D, idealLo<>(SB), Y1, Y5, Y9, Y13) // z ≥ −700
	Q_CMP($0x12, idealHi<>(SB), Y2, Y6, Y10, Y14) // z ≤ 30
	VANDPD Y2, Y1, Y1
	VANDPD Y6, Y5, Y5
	VANDPD Y10, Y9, Y9
	VANDPD Y14, Y13, Y13
	VMOVMSKPD Y1, AX
	VMOVMSKPD Y5, BX
	VMOVMSKPD Y9, CX
	VMOVMSKPD Y13, DX
	MOVB AX, 0(R9)
	MOVB BX, 1(R9)
	MOVB CX, 2(R9)
	MOVB DX, 3(R9)
	Q_MK(VMULPD, idealLog2e<>(SB))
	VCVTPD2DQY Y1, X3                 // k
	VCVTPD2DQY Y5, X7
	VCVTPD2DQY Y9, X11
	VCVTPD2DQY Y13, X15
	VCVTDQ2PD X3, Y1
	VCVTDQ2PD X7, Y5
	VCVTDQ2PD X11, Y9
	VCVTDQ2PD X15, Y13
	Q_KR(VFNMADD231PD, idealLn2u<>(SB)) // z − k·ln2 (upper)
	Q_KR(VFNMADD231PD, idealLn2l<>(SB)) // − k·ln2 (lower)
	Q_MR(VMULPD, idealC<>+288(SB))      // /16
	VMOVUPD idealC<>+256(SB), Y2
	VMOVUPD idealC<>+256(SB), Y6
	VMOVUPD idealC<>+256(SB), Y10
	VMOVUPD idealC<>+256(SB), Y14
	Q_MP(VFMADD213PD, idealC<>+224(SB))
	Q_MP(VFMADD213PD, idealC<>+192(SB))
	Q_MP(VFMADD213PD, idealC<>+160(SB))
	Q_MP(VFMADD213PD, idealC<>+128(SB))
	Q_MP(VFMADD213PD, idealC<>+96(SB))
	Q_MP(VFMADD213PD, idealC<>+0(SB))
	Q_MP(VFMADD213PD, idealC<>+32(SB))
	Q_PR(VMULPD)
	Q_MP(VADDPD, idealC<>+64(SB))        // squaring four times: e^{r/16} → e^r
	Q_PR(VMULPD)
	Q_MP(VADDPD, idealC<>+64(SB))
	Q_PR(VMULPD)
	Q_MP(VADDPD, idealC<>+64(SB))
	Q_PR(VMULPD)
	Q_MP(VADDPD, idealC<>+64(SB))
	Q_PFMA(idealC<>+32(SB))
	VPMOVSXDQ X3, Y1                    // 2^k
	VPMOVSXDQ X7, Y5
	VPMOVSXDQ X11, Y9
	VPMOVSXDQ X15, Y13
	Q_KK(VPADDQ, idealBias<>(SB))
	Q_KK(VPSLLQ, $52)
	VMULPD Y1, Y0, Y2
	VMULPD Y5, Y4, Y6
	VMULPD Y9, Y8, Y10
	VMULPD Y13, Y12, Y14
	VMOVUPD Y2, 0(R8)
	VMOVUPD Y6, 32(R8)
	VMOVUPD Y10, 64(R8)
	VMOVUPD Y14, 96(R8)
	ADDQ $128, DI
	ADDQ $128, R8
	ADDQ $4, R9
	SUBQ $4, SI
	CMPQ SI, $4
	JGE  equad

	VBROADCASTSD c+16(FP), Y12
	VBROADCASTSD idealOne<>(SB), Y9

etail:
	// The remaining zero to three steps one at a time.
	TESTQ SI, SI
	JZ   edone

eone:
	VMOVUPD (DI), Y0          // y
	VADDPD Y0, Y0, Y3         // 2y
	VSUBPD Y9, Y3, Y3
	VMULPD Y12, Y3, Y3        // z
	VCMPPD $0x1D, idealLo<>(SB), Y3, Y4 // z ≥ −700
	VCMPPD $0x12, idealHi<>(SB), Y3, Y5 // z ≤ 30
	VANDPD Y5, Y4, Y4
	VMOVMSKPD Y4, AX
	MOVB AX, (R9)

	// exp(z), as math.Exp's amd64 FMA path.
	VMULPD idealLog2e<>(SB), Y3, Y4
	VCVTPD2DQY Y4, X6         // k
	VCVTDQ2PD X6, Y4
	VFNMADD231PD idealLn2u<>(SB), Y4, Y3 // z − k·ln2 (upper)
	VFNMADD231PD idealLn2l<>(SB), Y4, Y3 // − k·ln2 (lower)
	VMULPD idealC<>+288(SB), Y3, Y3      // /16
	VMOVUPD idealC<>+256(SB), Y5
	VFMADD213PD idealC<>+224(SB), Y3, Y5
	VFMADD213PD idealC<>+192(SB), Y3, Y5
	VFMADD213PD idealC<>+160(SB), Y3, Y5
	VFMADD213PD idealC<>+128(SB), Y3, Y5
	VFMADD213PD idealC<>+96(SB), Y3, Y5
	VFMADD213PD idealC<>+0(SB), Y3, Y5
	VFMADD213PD Y9, Y3, Y5
	VMULPD Y5, Y3, Y3
	VADDPD idealC<>+64(SB), Y3, Y5 // squaring four times: e^{r/16} → e^r
	VMULPD Y5, Y3, Y3
	VADDPD idealC<>+64(SB), Y3, Y5
	VMULPD Y5, Y3, Y3
	VADDPD idealC<>+64(SB), Y3, Y5
	VMULPD Y5, Y3, Y3
	VADDPD idealC<>+64(SB), Y3, Y5
	VFMADD213PD Y9, Y5, Y3
	VPMOVSXDQ X6, Y4          // 2^k
	VPADDQ idealBias<>(SB), Y4, Y4
	VPSLLQ $52, Y4, Y4
	VMULPD Y4, Y3, Y5
	VMOVUPD Y5, (R8)

	ADDQ $32, DI
	ADDQ $32, R8
	INCQ R9
	DECQ SI
	JNZ  eone

edone:
	VZEROUPPER
	RET

// func idealScore4(ys, e *float64, ok *uint8, n int, st *idealState4) (done int, fold bool)
//
// Scores steps [0, n) of four lanes into st, with the exps from
// idealExp4: per step and lane, as trial does,
//
//	p += y;  d := y − 1;  w −= d·d·c;  prod *= (1 − q) + q·e
//
// It stops before a step whose ok is not 15 (the caller does that step:
// largeStepLLR above 30, math.Exp below −700), returning the steps done
// and fold = false; and after a step where some lane's prod left
// [1e-150, 1e150], returning fold = true (the caller folds it into the
// lane's log).
TEXT ·idealScore4(SB), NOSPLIT, $0-49
	MOVQ ys+0(FP), DI
	MOVQ e+8(FP), R8
	MOVQ ok+16(FP), R9
	MOVQ n+24(FP), SI
	MOVQ st+32(FP), BX
	VMOVUPD 0(BX), Y13        // p
	VMOVUPD 32(BX), Y14       // w
	VMOVUPD 64(BX), Y15       // prod
	VBROADCASTSD 96(BX), Y12  // c = 1/(2σ_d²)
	VBROADCASTSD 104(BX), Y11 // q
	VBROADCASTSD 112(BX), Y10 // 1 − q
	VBROADCASTSD idealOne<>(SB), Y9
	VMOVUPD idealBig<>(SB), Y8
	VMOVUPD idealSmall<>(SB), Y7
	XORQ CX, CX
	XORL DX, DX
	TESTQ SI, SI
	JLE  sdone

sloop:
	CMPB (R9)(CX*1), $15
	JNE  sdone                // this step is the caller's
	VMOVUPD (DI), Y0          // y
	VADDPD Y0, Y13, Y13       // p += y
	VSUBPD Y9, Y0, Y2         // d = y − 1
	VMULPD Y2, Y2, Y2
	VMULPD Y12, Y2, Y2
	VSUBPD Y2, Y14, Y14       // w −= d·d·c
	VMULPD (R8), Y11, Y5      // q·e^z
	VADDPD Y10, Y5, Y5        // (1 − q) + q·e^z
	VMULPD Y5, Y15, Y15       // prod
	INCQ CX
	ADDQ $32, DI
	ADDQ $32, R8
	VCMPPD $0x1E, Y8, Y15, Y4 // prod > 1e150
	VCMPPD $0x11, Y7, Y15, Y5 // prod < 1e-150
	VORPD Y5, Y4, Y4
	VPTEST Y4, Y4
	JNZ  sfold
	CMPQ CX, SI
	JLT  sloop
	JMP  sdone

sfold:
	MOVL $1, DX

sdone:
	VMOVUPD Y13, 0(BX)
	VMOVUPD Y14, 32(BX)
	VMOVUPD Y15, 64(BX)
	MOVQ CX, done+40(FP)
	MOVB DX, fold+48(FP)
	VZEROUPPER
	RET

// func idealSums4(ys *float64, n int, st *idealState4)
//
// idealScore4 without the LLR: p += y; w −= (y − 1)²·c.
TEXT ·idealSums4(SB), NOSPLIT, $0-24
	MOVQ ys+0(FP), DI
	MOVQ n+8(FP), SI
	MOVQ st+16(FP), BX
	VMOVUPD 0(BX), Y13
	VMOVUPD 32(BX), Y14
	VBROADCASTSD 96(BX), Y12
	VBROADCASTSD idealOne<>(SB), Y9
	CMPQ SI, $0
	JLE  wdone

wloop:
	VMOVUPD (DI), Y0
	VADDPD Y0, Y13, Y13
	VSUBPD Y9, Y0, Y2
	VMULPD Y2, Y2, Y2
	VMULPD Y12, Y2, Y2
	VSUBPD Y2, Y14, Y14
	ADDQ $32, DI
	DECQ SI
	JNZ  wloop

wdone:
	VMOVUPD Y13, 0(BX)
	VMOVUPD Y14, 32(BX)
	VZEROUPPER
	RET

// func idealScatter4(dst *float64, src *float64, n int)
//
// dst[4i] = src[i] for i < n rounded up to a multiple of 4 (n ≥ 1): a run
// of one lane's values into the interleaved block, four at a time, up to
// 3 past the run (see copyStrided).
TEXT ·idealScatter4(SB), NOSPLIT, $0-24
	MOVQ dst+0(FP), DI
	MOVQ src+8(FP), SI
	MOVQ n+16(FP), CX

cloop:
	VMOVUPD (SI), Y0
	VEXTRACTF128 $1, Y0, X1
	VMOVSD X0, 0(DI)
	VMOVHPD X0, 32(DI)
	VMOVSD X1, 64(DI)
	VMOVHPD X1, 96(DI)
	ADDQ $32, SI
	ADDQ $128, DI
	SUBQ $4, CX
	JG   cloop
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
DATA zigSign<>+0(SB)/4, $0x80000000
GLOBL zigSign<>(SB), RODATA|NOPTR, $4

DATA idealOne<>+0(SB)/8, $1.0
GLOBL idealOne<>(SB), RODATA|NOPTR, $8

// Four copies of each constant, for memory operands.
#define C4(name, off, v) \
	DATA name+(off)(SB)/8, v; \
	DATA name+(off+8)(SB)/8, v; \
	DATA name+(off+16)(SB)/8, v; \
	DATA name+(off+24)(SB)/8, v

C4(idealLo<>, 0, $-700.0)
GLOBL idealLo<>(SB), RODATA|NOPTR, $32
C4(idealHi<>, 0, $30.0)
GLOBL idealHi<>(SB), RODATA|NOPTR, $32
C4(idealBig<>, 0, $1e150)
GLOBL idealBig<>(SB), RODATA|NOPTR, $32
C4(idealSmall<>, 0, $1e-150)
GLOBL idealSmall<>(SB), RODATA|NOPTR, $32

// math.Exp's constants (src/math/exp_amd64.s), as internal/numeric's
// expFMA uses them.
C4(idealLog2e<>, 0, $1.4426950408889634073599246810018920)
GLOBL idealLog2e<>(SB), RODATA|NOPTR, $32
C4(idealLn2u<>, 0, $0.69314718055966295651160180568695068359375)
GLOBL idealLn2u<>(SB), RODATA|NOPTR, $32
C4(idealLn2l<>, 0, $0.28235290563031577122588448175013436025525412068e-12)
GLOBL idealLn2l<>(SB), RODATA|NOPTR, $32
C4(idealC<>, 0, $0.5)
C4(idealC<>, 32, $1.0)
C4(idealC<>, 64, $2.0)
C4(idealC<>, 96, $1.6666666666666666667e-1)
C4(idealC<>, 128, $4.1666666666666666667e-2)
C4(idealC<>, 160, $8.3333333333333333333e-3)
C4(idealC<>, 192, $1.3888888888888888889e-3)
C4(idealC<>, 224, $1.9841269841269841270e-4)
C4(idealC<>, 256, $2.4801587301587301587e-5)
C4(idealC<>, 288, $0.0625)
GLOBL idealC<>(SB), RODATA|NOPTR, $320
C4(idealBias<>, 0, $1023)
GLOBL idealBias<>(SB), RODATA|NOPTR, $32
