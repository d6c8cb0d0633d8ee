//go:build amd64 && !purego

#include "textflag.h"

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
	// f1, k := frexp(x)
	VPANDQ.BCST logConst<>+0(SB), Z0, Z2
	VPORQ.BCST logConst<>+8(SB), Z2, Z2 // f1
	VPSRLQ $52, Z0, Z1
	VPANDQ.BCST logConst<>+16(SB), Z1, Z1
	VPSUBQ.BCST logConst<>+24(SB), Z1, Z1
	VPMOVQD Z1, Y1
	VCVTDQ2PD Y1, Z1 // k
	// archLog's CMPSD NLT: HSqrt2 !< f1, i.e. f1 ≤ HSqrt2: k −= 1, f1 *= 2
	VCMPPD.BCST $0x1A, logConst<>+32(SB), Z2, K3 // NGT: f1 ≤ HSqrt2 (f1 is never NaN)
	VBROADCASTSD logConst<>+40(SB), Z7 // 1
	VXORPD Z3, Z3, Z3
	VMOVAPD Z7, K3, Z3 // 0 or 1
	VSUBPD Z3, Z1, Z1 // k
	VADDPD Z7, Z3, Z3 // 1 or 2
	VMULPD Z3, Z2, Z2 // f1
	VSUBPD Z7, Z2, Z2 // f = f1 − 1
	// s = f/(2 + f)
	VADDPD.BCST logConst<>+48(SB), Z2, Z0
	VDIVPD Z0, Z2, Z3 // s
	VMULPD Z3, Z3, Z4 // s2
	VMULPD Z4, Z4, Z5 // s4
	// t1 = s2·(L1 + s4·(L3 + s4·(L5 + s4·L7)))
	VMULPD.BCST logConst<>+56(SB), Z5, Z6
	VADDPD.BCST logConst<>+64(SB), Z6, Z6
	VMULPD Z5, Z6, Z6
	VADDPD.BCST logConst<>+72(SB), Z6, Z6
	VMULPD Z5, Z6, Z6
	VADDPD.BCST logConst<>+80(SB), Z6, Z6
	VMULPD Z6, Z4, Z4 // t1
	// t2 = s4·(L2 + s4·(L4 + s4·L6))
	VMULPD.BCST logConst<>+88(SB), Z5, Z6
	VADDPD.BCST logConst<>+96(SB), Z6, Z6
	VMULPD Z5, Z6, Z6
	VADDPD.BCST logConst<>+104(SB), Z6, Z6
	VMULPD Z6, Z5, Z5 // t2
	VADDPD Z5, Z4, Z4 // R = t1 + t2
	// hfsq = 0.5·f·f
	VMULPD.BCST logConst<>+8(SB), Z2, Z0
	VMULPD Z2, Z0, Z0 // hfsq
	// k·Ln2Hi − ((hfsq − (s·(hfsq + R) + k·Ln2Lo)) − f)
	VADDPD Z0, Z4, Z4 // hfsq + R
	VMULPD Z4, Z3, Z3 // s·(hfsq + R)
	VMULPD.BCST logConst<>+112(SB), Z1, Z4 // k·Ln2Lo
	VADDPD Z4, Z3, Z3
	VSUBPD Z3, Z0, Z0 // hfsq − (…)
	VSUBPD Z2, Z0, Z0 // (…) − f
	VMULPD.BCST logConst<>+120(SB), Z1, Z1 // k·Ln2Hi
	VSUBPD Z0, Z1, Z1
	VMOVUPD Z1, (SI)
	VZEROUPPER
	MOVB $1, ret+8(FP)
	RET

special:
	VZEROUPPER
	MOVB $0, ret+8(FP)
	RET
