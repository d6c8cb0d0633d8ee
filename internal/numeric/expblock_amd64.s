#include "textflag.h"

// expFMA is math.Exp's amd64 assembly (src/math/exp_amd64.s, its AVX+FMA
// path) four lanes at a time: the same constants, the same operations in
// the same order, so every lane rounds as the scalar function does for
// arguments whose result is a normal number (the caller keeps |x| ≤ 700
// and recomputes anything else with math.Exp).

DATA expLOG2E<>+0(SB)/8, $1.4426950408889634073599246810018920
GLOBL expLOG2E<>(SB), RODATA, $8
DATA expLN2U<>+0(SB)/8, $0.69314718055966295651160180568695068359375
GLOBL expLN2U<>(SB), RODATA, $8
DATA expLN2L<>+0(SB)/8, $0.28235290563031577122588448175013436025525412068e-12
GLOBL expLN2L<>(SB), RODATA, $8
DATA expC<>+0(SB)/8, $0.5
DATA expC<>+8(SB)/8, $1.0
DATA expC<>+16(SB)/8, $2.0
DATA expC<>+24(SB)/8, $1.6666666666666666667e-1
DATA expC<>+32(SB)/8, $4.1666666666666666667e-2
DATA expC<>+40(SB)/8, $8.3333333333333333333e-3
DATA expC<>+48(SB)/8, $1.3888888888888888889e-3
DATA expC<>+56(SB)/8, $1.9841269841269841270e-4
DATA expC<>+64(SB)/8, $2.4801587301587301587e-5
DATA expC<>+72(SB)/8, $0.0625
GLOBL expC<>(SB), RODATA, $80
DATA expBias<>+0(SB)/8, $1023
GLOBL expBias<>(SB), RODATA, $8

// func expFMA(dst, src *float64, n int)
// n is a multiple of 4.
TEXT ·expFMA(SB), NOSPLIT, $0-24
	MOVQ dst+0(FP), DI
	MOVQ src+8(FP), SI
	MOVQ n+16(FP), CX
	VBROADCASTSD expLOG2E<>(SB), Y8
	VBROADCASTSD expLN2U<>(SB), Y9
	VBROADCASTSD expLN2L<>(SB), Y10
	VBROADCASTSD expC<>+72(SB), Y11
	VBROADCASTSD expC<>+64(SB), Y12
	VBROADCASTSD expC<>+16(SB), Y13
	VBROADCASTSD expC<>+8(SB), Y14
	VPBROADCASTQ expBias<>(SB), Y15
loop:
	CMPQ CX, $0
	JLE  done
	VMOVUPD (SI), Y0
	VMULPD  Y8, Y0, Y1            // x·log2e
	VCVTPD2DQY Y1, X2             // k, rounded to nearest as CVTSD2SL
	VCVTDQ2PD X2, Y1
	VFNMADD231PD Y9, Y1, Y0       // x − k·ln2 (upper)
	VFNMADD231PD Y10, Y1, Y0      // − k·ln2 (lower)
	VMULPD  Y11, Y0, Y0           // /16
	VMOVAPD Y12, Y3
	VBROADCASTSD expC<>+56(SB), Y4
	VFMADD213PD Y4, Y0, Y3
	VBROADCASTSD expC<>+48(SB), Y4
	VFMADD213PD Y4, Y0, Y3
	VBROADCASTSD expC<>+40(SB), Y4
	VFMADD213PD Y4, Y0, Y3
	VBROADCASTSD expC<>+32(SB), Y4
	VFMADD213PD Y4, Y0, Y3
	VBROADCASTSD expC<>+24(SB), Y4
	VFMADD213PD Y4, Y0, Y3
	VBROADCASTSD expC<>+0(SB), Y4
	VFMADD213PD Y4, Y0, Y3
	VFMADD213PD Y14, Y0, Y3
	VMULPD  Y3, Y0, Y0
	VADDPD  Y13, Y0, Y3           // squaring four times: e^{r/16} → e^r
	VMULPD  Y3, Y0, Y0
	VADDPD  Y13, Y0, Y3
	VMULPD  Y3, Y0, Y0
	VADDPD  Y13, Y0, Y3
	VMULPD  Y3, Y0, Y0
	VADDPD  Y13, Y0, Y3
	VFMADD213PD Y14, Y3, Y0
	VPMOVSXDQ X2, Y4              // 2^k
	VPADDQ  Y15, Y4, Y4
	VPSLLQ  $52, Y4, Y4
	VMULPD  Y4, Y0, Y0
	VMOVUPD Y0, (DI)
	ADDQ $32, SI
	ADDQ $32, DI
	SUBQ $4, CX
	JMP  loop
done:
	VZEROUPPER
	RET
