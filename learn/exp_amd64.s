//go:build amd64 && !purego

#include "textflag.h"

// The float64 constants of exp32 (kernels.go), each four times for a
// 256-bit memory operand.
DATA expConst<>+0(SB)/8, $0x3ff71547652b82fe // log2e
DATA expConst<>+8(SB)/8, $0x3ff71547652b82fe
DATA expConst<>+16(SB)/8, $0x3ff71547652b82fe
DATA expConst<>+24(SB)/8, $0x3ff71547652b82fe
DATA expConst<>+32(SB)/8, $0x3fe0000000000000 // half
DATA expConst<>+40(SB)/8, $0x3fe0000000000000
DATA expConst<>+48(SB)/8, $0x3fe0000000000000
DATA expConst<>+56(SB)/8, $0x3fe0000000000000
DATA expConst<>+64(SB)/8, $0x3fe62e42fefa39ef // ln2
DATA expConst<>+72(SB)/8, $0x3fe62e42fefa39ef
DATA expConst<>+80(SB)/8, $0x3fe62e42fefa39ef
DATA expConst<>+88(SB)/8, $0x3fe62e42fefa39ef
DATA expConst<>+96(SB)/8, $0x3ff0000000000000 // one
DATA expConst<>+104(SB)/8, $0x3ff0000000000000
DATA expConst<>+112(SB)/8, $0x3ff0000000000000
DATA expConst<>+120(SB)/8, $0x3ff0000000000000
DATA expConst<>+128(SB)/8, $0x3fc5555555555555 // c6
DATA expConst<>+136(SB)/8, $0x3fc5555555555555
DATA expConst<>+144(SB)/8, $0x3fc5555555555555
DATA expConst<>+152(SB)/8, $0x3fc5555555555555
DATA expConst<>+160(SB)/8, $0x3f81111111111111 // c120
DATA expConst<>+168(SB)/8, $0x3f81111111111111
DATA expConst<>+176(SB)/8, $0x3f81111111111111
DATA expConst<>+184(SB)/8, $0x3f81111111111111
DATA expConst<>+192(SB)/8, $0x3fa5555555555555 // c24
DATA expConst<>+200(SB)/8, $0x3fa5555555555555
DATA expConst<>+208(SB)/8, $0x3fa5555555555555
DATA expConst<>+216(SB)/8, $0x3fa5555555555555
DATA expConst<>+224(SB)/8, $0x3f2a01a01a01a01a // c5040
DATA expConst<>+232(SB)/8, $0x3f2a01a01a01a01a
DATA expConst<>+240(SB)/8, $0x3f2a01a01a01a01a
DATA expConst<>+248(SB)/8, $0x3f2a01a01a01a01a
DATA expConst<>+256(SB)/8, $0x3f56c16c16c16c17 // c720
DATA expConst<>+264(SB)/8, $0x3f56c16c16c16c17
DATA expConst<>+272(SB)/8, $0x3f56c16c16c16c17
DATA expConst<>+280(SB)/8, $0x3f56c16c16c16c17
DATA expConst<>+288(SB)/8, $0xc054000000000000 // lo
DATA expConst<>+296(SB)/8, $0xc054000000000000
DATA expConst<>+304(SB)/8, $0xc054000000000000
DATA expConst<>+312(SB)/8, $0xc054000000000000
DATA expConst<>+320(SB)/8, $0x4054000000000000 // hi
DATA expConst<>+328(SB)/8, $0x4054000000000000
DATA expConst<>+336(SB)/8, $0x4054000000000000
DATA expConst<>+344(SB)/8, $0x4054000000000000
DATA expConst<>+352(SB)/8, $1023 // exponent bias
DATA expConst<>+360(SB)/8, $1023
DATA expConst<>+368(SB)/8, $1023
DATA expConst<>+376(SB)/8, $1023
GLOBL expConst<>(SB), RODATA|NOPTR, $384

// func expBlocksAVX2(y, x *float32, n int) int
//
// exp32 on four floats at a time with AVX2, the same float64 operations in
// the same order (no FMA), so the same bits as the scalar code: x[j] is
// widened to float64 w, t = w·log2e, k = floor(t + 1/2),
// u = (t − k)·ln2, the degree-7 polynomial by exp32's Estrin scheme, times
// 2^k built in the exponent bits, rounded to float32. It stops before the
// first group of four holding a value outside [−80, 80] (or NaN), which
// the caller finishes with exp32, and returns how many elements it wrote.
TEXT ·expBlocksAVX2(SB), NOSPLIT, $0-32
	MOVQ y+0(FP), DI
	MOVQ x+8(FP), SI
	MOVQ n+16(FP), CX
	XORQ AX, AX

loop:
	LEAQ 4(AX), DX
	CMPQ DX, CX
	JGT  done
	VCVTPS2PD (SI)(AX*4), Y0
	VCMPPD $0x1D, expConst<>+288(SB), Y0, Y1 // w ≥ −80 (ordered: false for NaN)
	VCMPPD $0x12, expConst<>+320(SB), Y0, Y2 // w ≤ 80
	VANDPD Y2, Y1, Y1
	VMOVMSKPD Y1, DX
	CMPQ DX, $15
	JNE  done
	VMULPD expConst<>+0(SB), Y0, Y0 // t = w·log2e
	VADDPD expConst<>+32(SB), Y0, Y1 // t + 1/2
	VROUNDPD $1, Y1, Y1 // k = floor(t + 1/2)
	VSUBPD Y1, Y0, Y2 // t − k
	VMULPD expConst<>+64(SB), Y2, Y2 // u = (t − k)·ln2
	VMULPD Y2, Y2, Y3 // u²
	VMULPD expConst<>+128(SB), Y2, Y4 // u/6
	VADDPD expConst<>+32(SB), Y4, Y4 // 1/2 + u/6
	VMULPD Y4, Y3, Y4 // u²(1/2 + u/6)
	VADDPD expConst<>+96(SB), Y2, Y5 // 1 + u
	VADDPD Y4, Y5, Y5 // r0
	VMULPD expConst<>+160(SB), Y2, Y6 // u/120
	VADDPD expConst<>+192(SB), Y6, Y6 // 1/24 + u/120
	VMULPD expConst<>+224(SB), Y2, Y7 // u/5040
	VADDPD expConst<>+256(SB), Y7, Y7 // 1/720 + u/5040
	VMULPD Y7, Y3, Y7 // u²(1/720 + u/5040)
	VADDPD Y7, Y6, Y6 // r1
	VMULPD Y3, Y3, Y3 // u⁴
	VMULPD Y6, Y3, Y3 // u⁴·r1
	VADDPD Y3, Y5, Y5 // p = r0 + u⁴·r1
	VCVTTPD2DQY Y1, X1 // k as int32 (exact: |k| ≤ 116)
	VPMOVSXDQ X1, Y1
	VPADDQ expConst<>+352(SB), Y1, Y1 // k + 1023
	VPSLLQ $52, Y1, Y1 // 2^k
	VMULPD Y1, Y5, Y5
	VCVTPD2PSY Y5, X5
	VMOVUPS X5, (DI)(AX*4)
	ADDQ $4, AX
	JMP  loop

done:
	VZEROUPPER
	MOVQ AX, ret+24(FP)
	RET

// EXP8 computes exp32 of the eight float64 in Z0 into Y5 (float32), the
// operations of expBlocksAVX2 on eight lanes (AVX512F; constants broadcast
// from expConst's first copies). Clobbers Z1–Z7.
#define EXP8 \
	VMULPD.BCST expConst<>+0(SB), Z0, Z0 \
	VADDPD.BCST expConst<>+32(SB), Z0, Z1 \
	VRNDSCALEPD $1, Z1, Z1 \
	VSUBPD Z1, Z0, Z2 \
	VMULPD.BCST expConst<>+64(SB), Z2, Z2 \
	VMULPD Z2, Z2, Z3 \
	VMULPD.BCST expConst<>+128(SB), Z2, Z4 \
	VADDPD.BCST expConst<>+32(SB), Z4, Z4 \
	VMULPD Z4, Z3, Z4 \
	VADDPD.BCST expConst<>+96(SB), Z2, Z5 \
	VADDPD Z4, Z5, Z5 \
	VMULPD.BCST expConst<>+160(SB), Z2, Z6 \
	VADDPD.BCST expConst<>+192(SB), Z6, Z6 \
	VMULPD.BCST expConst<>+224(SB), Z2, Z7 \
	VADDPD.BCST expConst<>+256(SB), Z7, Z7 \
	VMULPD Z7, Z3, Z7 \
	VADDPD Z7, Z6, Z6 \
	VMULPD Z3, Z3, Z3 \
	VMULPD Z6, Z3, Z3 \
	VADDPD Z3, Z5, Z5 \
	VCVTTPD2DQ Z1, Y1 \
	VPMOVSXDQ Y1, Z1 \
	VPADDQ.BCST expConst<>+352(SB), Z1, Z1 \
	VPSLLQ $52, Z1, Z1 \
	VMULPD Z1, Z5, Z5 \
	VCVTPD2PS Z5, Y5

// INRANGE8 jumps to done unless all eight float64 in Z0 are in [−80, 80].
#define INRANGE8 \
	VCMPPD.BCST $0x1D, expConst<>+288(SB), Z0, K1 \
	VCMPPD.BCST $0x12, expConst<>+320(SB), Z0, K2 \
	KANDW K2, K1, K1 \
	KMOVW K1, DX \
	CMPQ DX, $0xff \
	JNE done

// func expBlocksAVX512(y, x *float32, n int) int
//
// expBlocksAVX2 eight at a time: the same operations, so the same bits as
// exp32. It stops before the first group of eight holding a value outside
// [−80, 80] (or NaN) and returns how many elements it wrote.
TEXT ·expBlocksAVX512(SB), NOSPLIT, $0-32
	MOVQ y+0(FP), DI
	MOVQ x+8(FP), SI
	MOVQ n+16(FP), CX
	XORQ AX, AX

loop:
	LEAQ 8(AX), DX
	CMPQ DX, CX
	JGT  done
	VCVTPS2PD (SI)(AX*4), Z0
	INRANGE8
	EXP8
	VMOVUPS Y5, (DI)(AX*4)
	ADDQ $8, AX
	JMP  loop

done:
	VZEROUPPER
	MOVQ AX, ret+24(FP)
	RET

// func eluBlocksAVX512(y, x *float32, n int) int
//
// The ELU, y = max(v, 0) + (exp32(min(v, 0)) − 1), eight at a time in one
// pass: min(v, 0) and max(v, 0) by the sign bit (negPart, posPart), the
// exponential as in expBlocksAVX512, then the same two float32 operations
// as eluForward, so the same bits. It stops before the first group of
// eight whose min(v, 0) is below −80 (or NaN) and returns how many
// elements it wrote.
TEXT ·eluBlocksAVX512(SB), NOSPLIT, $0-32
	MOVQ y+0(FP), DI
	MOVQ x+8(FP), SI
	MOVQ n+16(FP), CX
	XORQ AX, AX
	MOVL $0x3f800000, DX
	VPBROADCASTD DX, Y10 // float32 1

loop:
	LEAQ 8(AX), DX
	CMPQ DX, CX
	JGT  done
	VMOVUPS (SI)(AX*4), Y8
	VPSRAD $31, Y8, Y9
	VPANDN Y8, Y9, Y11 // posPart: v &^ sign mask
	VPAND Y8, Y9, Y9 // negPart: v & sign mask
	VCVTPS2PD Y9, Z0
	INRANGE8
	EXP8
	VSUBPS Y10, Y5, Y5 // exp − 1
	VADDPS Y5, Y11, Y5 // posPart + (exp − 1)
	VMOVUPS Y5, (DI)(AX*4)
	ADDQ $8, AX
	JMP  loop

done:
	VZEROUPPER
	MOVQ AX, ret+24(FP)
	RET

// The constants of the standard library's math.Log on amd64
// ($GOROOT/src/math/log_amd64.s), as float64 bit patterns.
DATA logConst<>+0(SB)/8, $0x000FFFFFFFFFFFFF // mantissa mask
DATA logConst<>+8(SB)/8, $0x3FE0000000000000 // 0.5
DATA logConst<>+16(SB)/8, $0x7FF // exponent mask
DATA logConst<>+24(SB)/8, $0x3FE // exponent bias − 1
DATA logConst<>+32(SB)/8, $0x3fe6a09e667f3bcd // HSqrt2 = 7.07106781186547524401e-01
DATA logConst<>+40(SB)/8, $0x3FF0000000000000 // 1
DATA logConst<>+48(SB)/8, $0x4000000000000000 // 2
DATA logConst<>+56(SB)/8, $0x3FC2F112DF3E5244 // L7
DATA logConst<>+64(SB)/8, $0x3FC7466496CB03DE // L5
DATA logConst<>+72(SB)/8, $0x3FD2492494229359 // L3
DATA logConst<>+80(SB)/8, $0x3FE5555555555593 // L1
DATA logConst<>+88(SB)/8, $0x3FC39A09D078C69F // L6
DATA logConst<>+96(SB)/8, $0x3FCC71C51D8E78AF // L4
DATA logConst<>+104(SB)/8, $0x3FD999999997FA04 // L2
DATA logConst<>+112(SB)/8, $0x3dea39ef35793c76 // Ln2Lo
DATA logConst<>+120(SB)/8, $0x3fe62e42fee00000 // Ln2Hi
DATA logConst<>+128(SB)/8, $0x0010000000000000 // smallest normal
DATA logConst<>+136(SB)/8, $0x7FF0000000000000 // +Inf
GLOBL logConst<>(SB), RODATA|NOPTR, $144

// LOG8 sets Z1 to math.Log of the eight positive normal float64 in Z0:
// the operations of the standard library's amd64 archLog
// ($GOROOT/src/math/log_amd64.s) in its order, lane by lane (no FMA), so
// the same bits. Clobbers Z0–Z7 and K3.
#define LOG8 \
	VPANDQ.BCST logConst<>+0(SB), Z0, Z2 \
	VPORQ.BCST logConst<>+8(SB), Z2, Z2 \
	VPSRLQ $52, Z0, Z1 \
	VPANDQ.BCST logConst<>+16(SB), Z1, Z1 \
	VPSUBQ.BCST logConst<>+24(SB), Z1, Z1 \
	VPMOVQD Z1, Y1 \
	VCVTDQ2PD Y1, Z1 \
	VCMPPD.BCST $0x1A, logConst<>+32(SB), Z2, K3 \
	VBROADCASTSD logConst<>+40(SB), Z7 \
	VXORPD Z3, Z3, Z3 \
	VMOVAPD Z7, K3, Z3 \
	VSUBPD Z3, Z1, Z1 \
	VADDPD Z7, Z3, Z3 \
	VMULPD Z3, Z2, Z2 \
	VSUBPD Z7, Z2, Z2 \
	VADDPD.BCST logConst<>+48(SB), Z2, Z0 \
	VDIVPD Z0, Z2, Z3 \
	VMULPD Z3, Z3, Z4 \
	VMULPD Z4, Z4, Z5 \
	VMULPD.BCST logConst<>+56(SB), Z5, Z6 \
	VADDPD.BCST logConst<>+64(SB), Z6, Z6 \
	VMULPD Z5, Z6, Z6 \
	VADDPD.BCST logConst<>+72(SB), Z6, Z6 \
	VMULPD Z5, Z6, Z6 \
	VADDPD.BCST logConst<>+80(SB), Z6, Z6 \
	VMULPD Z6, Z4, Z4 \
	VMULPD.BCST logConst<>+88(SB), Z5, Z6 \
	VADDPD.BCST logConst<>+96(SB), Z6, Z6 \
	VMULPD Z5, Z6, Z6 \
	VADDPD.BCST logConst<>+104(SB), Z6, Z6 \
	VMULPD Z6, Z5, Z5 \
	VADDPD Z5, Z4, Z4 \
	VMULPD.BCST logConst<>+8(SB), Z2, Z0 \
	VMULPD Z2, Z0, Z0 \
	VADDPD Z0, Z4, Z4 \
	VMULPD Z4, Z3, Z3 \
	VMULPD.BCST logConst<>+112(SB), Z1, Z4 \
	VADDPD Z4, Z3, Z3 \
	VSUBPD Z3, Z0, Z0 \
	VSUBPD Z2, Z0, Z0 \
	VMULPD.BCST logConst<>+120(SB), Z1, Z1 \
	VSUBPD Z0, Z1, Z1

// func log8AVX512(x *[8]float64) bool
//
// x[i] = math.Log(x[i]) for eight positive normal float64 at once with
// AVX-512: the float64 operations of the standard library's amd64 archLog,
// in its order, lane by lane (no FMA), so the same bits. It returns false,
// leaving x unchanged, when a lane is not a positive normal finite number
// (zero, negative, subnormal, ±Inf, NaN): archLog's special cases are the
// caller's.
TEXT ·log8AVX512(SB), NOSPLIT, $0-9
	MOVQ x+0(FP), SI
	VMOVUPD (SI), Z0
	VCMPPD.BCST $0x1D, logConst<>+128(SB), Z0, K1 // x ≥ smallest normal (false for NaN)
	VCMPPD.BCST $0x11, logConst<>+136(SB), Z0, K2 // x < +Inf
	KANDW K2, K1, K1
	KMOVW K1, AX
	CMPQ AX, $0xff
	JNE special
	LOG8
	VMOVUPD Z1, (SI)
	VZEROUPPER
	MOVB $1, ret+8(FP)
	RET

special:
	VZEROUPPER
	MOVB $0, ret+8(FP)
	RET

// Row offsets r·10 (r < 16) for gathering the columns of sixteen rows of
// ten logits, and float32 constants.
DATA smxIdx<>+0(SB)/4, $0
DATA smxIdx<>+4(SB)/4, $10
DATA smxIdx<>+8(SB)/4, $20
DATA smxIdx<>+12(SB)/4, $30
DATA smxIdx<>+16(SB)/4, $40
DATA smxIdx<>+20(SB)/4, $50
DATA smxIdx<>+24(SB)/4, $60
DATA smxIdx<>+28(SB)/4, $70
DATA smxIdx<>+32(SB)/4, $80
DATA smxIdx<>+36(SB)/4, $90
DATA smxIdx<>+40(SB)/4, $100
DATA smxIdx<>+44(SB)/4, $110
DATA smxIdx<>+48(SB)/4, $120
DATA smxIdx<>+52(SB)/4, $130
DATA smxIdx<>+56(SB)/4, $140
DATA smxIdx<>+60(SB)/4, $150
DATA smxIdx<>+64(SB)/4, $0xc2a00000 // −80
DATA smxIdx<>+68(SB)/4, $0x42a00000 // 80
DATA smxIdx<>+72(SB)/4, $0x3f800000 // 1
GLOBL smxIdx<>(SB), RODATA|NOPTR, $76

// GATHER10 loads column j of the sixteen rows into zj.
#define GATHER10(j, zj) \
	KXNORW K1, K1, K1; \
	VGATHERDPS (4*j)(SI)(Z31*4), K1, zj

// SMXEXP replaces the sixteen float32 in zj (yj: its low half) by exp32 of them (two EXP8,
// lanes 0–7 and 8–15) and adds them, widened, to the float64 row sums
// Z8 (rows 0–7) and Z9 (rows 8–15), in column order.
#define SMXEXP(zj, yj) \
	VCVTPS2PD yj, Z0; \
	EXP8; \
	VCVTPS2PD Y5, Z0; \
	VADDPD Z0, Z8, Z8; \
	VMOVAPS Y5, Y12; \
	VEXTRACTF64X4 $1, zj, Y0; \
	VCVTPS2PD Y0, Z0; \
	EXP8; \
	VCVTPS2PD Y5, Z0; \
	VADDPD Z0, Z9, Z9; \
	VINSERTF64X4 $1, Y5, Z12, zj

// SMXOUT scales column j by the rows' 1/sum (Z10), subtracts 1 where the
// label is j, and scatters it into the rows of e.
#define SMXOUT(j, zj) \
	VMULPS Z10, zj, zj; \
	MOVL $j, AX; \
	VPBROADCASTD AX, Z13; \
	VPCMPEQD Z13, Z30, K2; \
	VSUBPS.BCST smxIdx<>+72(SB), zj, K2, zj; \
	KXNORW K1, K1, K1; \
	VSCATTERDPS zj, K1, (4*j)(DI)(Z31*4)

// func softmaxDelta16AVX512(z, e *float32, y *int32, loss *float64) bool
//
// softmaxCEDelta's work on sixteen rows of ten logits, the rows in the
// lanes (columns gathered, results scattered): the row maximum m; e =
// z − m; e = exp32(e) (the operations of expBlocksAVX512); sum = Σ
// float64(e_j) in column order from e_0; e_j *= float32(1/sum); e_y −= 1;
// loss = float64(m) + log(sum) − float64(z_y) with LOG8 (math.Log's
// bits). VMAXPS is not Go's max on NaN and signed zeros: a NaN or an
// infinite logit makes some z − m NaN or outside [−80, 80], and then the
// kernel writes nothing and returns false (the caller runs its loops on
// the block); a maximum of −0 instead of +0 changes no bit of e or of the
// loss (z − (±0) and exp32(±0) = 1 agree, and ±0 + log(sum) too).
TEXT ·softmaxDelta16AVX512(SB), NOSPLIT, $0-33
	MOVQ z+0(FP), SI
	MOVQ e+8(FP), DI
	MOVQ y+16(FP), DX
	VMOVDQU32 smxIdx<>(SB), Z31
	GATHER10(0, Z16)
	GATHER10(1, Z17)
	GATHER10(2, Z18)
	GATHER10(3, Z19)
	GATHER10(4, Z20)
	GATHER10(5, Z21)
	GATHER10(6, Z22)
	GATHER10(7, Z23)
	GATHER10(8, Z24)
	GATHER10(9, Z25)
	// m = max(max(max(z0, z1), max(z2, z3)), max(max(z4, z5), max(z6, z7))), max(z8, z9)) (rowMax's tree)
	VMAXPS Z17, Z16, Z0
	VMAXPS Z19, Z18, Z1
	VMAXPS Z1, Z0, Z0
	VMAXPS Z21, Z20, Z1
	VMAXPS Z23, Z22, Z2
	VMAXPS Z2, Z1, Z1
	VMAXPS Z1, Z0, Z0
	VMAXPS Z25, Z24, Z1
	VMAXPS Z1, Z0, Z26 // m
	// e = z − m, all in [−80, 80] (ordered: false for NaN), else give up.
	MOVL $0xffff, BX
	KMOVW BX, K3
#define SMXSUB(zj) \
	VSUBPS Z26, zj, zj; \
	VCMPPS.BCST $0x1D, smxIdx<>+64(SB), zj, K1; \
	VCMPPS.BCST $0x12, smxIdx<>+68(SB), zj, K2; \
	KANDW K1, K3, K3; \
	KANDW K2, K3, K3
	SMXSUB(Z16)
	SMXSUB(Z17)
	SMXSUB(Z18)
	SMXSUB(Z19)
	SMXSUB(Z20)
	SMXSUB(Z21)
	SMXSUB(Z22)
	SMXSUB(Z23)
	SMXSUB(Z24)
	SMXSUB(Z25)
	KMOVW K3, BX
	CMPQ BX, $0xffff
	JNE giveup
	VXORPD Z8, Z8, Z8
	VXORPD Z9, Z9, Z9
	SMXEXP(Z16, Y16)
	SMXEXP(Z17, Y17)
	SMXEXP(Z18, Y18)
	SMXEXP(Z19, Y19)
	SMXEXP(Z20, Y20)
	SMXEXP(Z21, Y21)
	SMXEXP(Z22, Y22)
	SMXEXP(Z23, Y23)
	SMXEXP(Z24, Y24)
	SMXEXP(Z25, Y25)
	// 1/sum in float64, rounded to float32: Z10 = [rows 0–7, rows 8–15].
	VBROADCASTSD expConst<>+96(SB), Z0
	VDIVPD Z8, Z0, Z1
	VDIVPD Z9, Z0, Z2
	VCVTPD2PS Z1, Y10
	VCVTPD2PS Z2, Y2
	VINSERTF64X4 $1, Y2, Z10, Z10
	VMOVDQU32 (DX), Z30 // labels
	SMXOUT(0, Z16)
	SMXOUT(1, Z17)
	SMXOUT(2, Z18)
	SMXOUT(3, Z19)
	SMXOUT(4, Z20)
	SMXOUT(5, Z21)
	SMXOUT(6, Z22)
	SMXOUT(7, Z23)
	SMXOUT(8, Z24)
	SMXOUT(9, Z25)
	// loss = float64(m) + log(sum) − float64(z_y), rows 0–7 then 8–15.
	// The sums are in [1, 10] (the maximum's exponential is exactly 1),
	// positive normal numbers as LOG8 needs.
	VPADDD Z30, Z31, Z29 // r·10 + y
	KXNORW K1, K1, K1
	VGATHERDPS (SI)(Z29*4), K1, Z28 // z_y
	MOVQ loss+24(FP), AX
	VMOVAPD Z8, Z0
	LOG8
	VCVTPS2PD Y26, Z2
	VADDPD Z1, Z2, Z2
	VCVTPS2PD Y28, Z3
	VSUBPD Z3, Z2, Z2
	VMOVUPD Z2, (AX)
	VMOVAPD Z9, Z0
	LOG8
	VEXTRACTF64X4 $1, Z26, Y2
	VCVTPS2PD Y2, Z2
	VADDPD Z1, Z2, Z2
	VEXTRACTF64X4 $1, Z28, Y3
	VCVTPS2PD Y3, Z3
	VSUBPD Z3, Z2, Z2
	VMOVUPD Z2, 64(AX)
	VZEROUPPER
	MOVB $1, ret+32(FP)
	RET

giveup:
	VZEROUPPER
	MOVB $0, ret+32(FP)
	RET

// func eluGradAVX512(d, gr, y *float32, n int) int
//
// The ELU's backward pass, d = gr·(negPart(y) + 1), sixteen at a time: the
// sign-bit negPart of activation.go, then the same two float32 operations,
// so the same bits. It does the largest multiple of 16 not above n and
// returns it.
TEXT ·eluGradAVX512(SB), NOSPLIT, $0-40
	MOVQ d+0(FP), DI
	MOVQ gr+8(FP), SI
	MOVQ y+16(FP), DX
	MOVQ n+24(FP), CX
	ANDQ $-16, CX
	XORQ AX, AX
	VBROADCASTSS smxIdx<>+72(SB), Z2 // 1

gloop:
	CMPQ AX, CX
	JGE  gdone
	VMOVUPS (DX)(AX*4), Z0
	VPSRAD $31, Z0, Z1
	VPANDD Z0, Z1, Z0 // negPart(y)
	VADDPS Z2, Z0, Z0
	VMULPS (SI)(AX*4), Z0, Z0 // g·(…): the product commutes
	VMOVUPS Z0, (DI)(AX*4)
	ADDQ $16, AX
	JMP  gloop

gdone:
	VZEROUPPER
	MOVQ CX, ret+32(FP)
	RET
