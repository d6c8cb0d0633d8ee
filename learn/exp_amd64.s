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
