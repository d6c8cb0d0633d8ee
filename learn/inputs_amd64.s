//go:build amd64 && !purego

#include "textflag.h"

// float32(1/255) and 255.
DATA decodeConst<>+0(SB)/4, $0x3b808081
DATA decodeConst<>+4(SB)/4, $0x437f0000
GLOBL decodeConst<>(SB), RODATA|NOPTR, $8

// DECODE512(off, k, q, e) decodes the 16 codes at off(SI) into off*4(DI):
// k = float(code), q = k·r, e = k − 255·q (exact with the FMA), q += e·r.
#define DECODE512(off, k, q, e) \
	VPMOVZXBD off(SI), k \
	VCVTDQ2PS k, k \
	VMULPS Z30, k, q \
	VMOVAPS k, e \
	VFNMADD231PS Z31, q, e \
	VFMADD231PS Z30, e, q \
	VMOVUPS q, (off*4)(DI)

// func decodeAVX512(dst *float32, src *uint8, n int)
TEXT ·decodeAVX512(SB), NOSPLIT, $0-24
	MOVQ dst+0(FP), DI
	MOVQ src+8(FP), SI
	MOVQ n+16(FP), CX
	VBROADCASTSS decodeConst<>+0(SB), Z30
	VBROADCASTSS decodeConst<>+4(SB), Z31

loop64:
	CMPQ CX, $64
	JLT  loop16
	DECODE512(0, Z0, Z1, Z2)
	DECODE512(16, Z3, Z4, Z5)
	DECODE512(32, Z6, Z7, Z8)
	DECODE512(48, Z9, Z10, Z11)
	ADDQ $64, SI
	ADDQ $256, DI
	SUBQ $64, CX
	JMP  loop64

loop16:
	CMPQ CX, $16
	JLT  done
	DECODE512(0, Z0, Z1, Z2)
	ADDQ $16, SI
	ADDQ $64, DI
	SUBQ $16, CX
	JMP  loop16

done:
	VZEROUPPER
	RET

#define DECODE256(off, k, q, e) \
	VPMOVZXBD off(SI), k \
	VCVTDQ2PS k, k \
	VMULPS Y14, k, q \
	VMOVAPS k, e \
	VFNMADD231PS Y15, q, e \
	VFMADD231PS Y14, e, q \
	VMOVUPS q, (off*4)(DI)

// func decodeAVX2(dst *float32, src *uint8, n int)
TEXT ·decodeAVX2(SB), NOSPLIT, $0-24
	MOVQ dst+0(FP), DI
	MOVQ src+8(FP), SI
	MOVQ n+16(FP), CX
	VBROADCASTSS decodeConst<>+0(SB), Y14
	VBROADCASTSS decodeConst<>+4(SB), Y15

loop32:
	CMPQ CX, $32
	JLT  loop8
	DECODE256(0, Y0, Y1, Y2)
	DECODE256(8, Y3, Y4, Y5)
	DECODE256(16, Y6, Y7, Y8)
	DECODE256(24, Y9, Y10, Y11)
	ADDQ $32, SI
	ADDQ $128, DI
	SUBQ $32, CX
	JMP  loop32

loop8:
	CMPQ CX, $8
	JLT  done2
	DECODE256(0, Y0, Y1, Y2)
	ADDQ $8, SI
	ADDQ $32, DI
	SUBQ $8, CX
	JMP  loop8

done2:
	VZEROUPPER
	RET

// func prefetchCodes(p *uint8, n int)
TEXT ·prefetchCodes(SB), NOSPLIT, $0-16
	MOVQ p+0(FP), SI
	MOVQ n+8(FP), CX
	LEAQ (SI)(CX*1), CX

pf:
	PREFETCHT0 (SI)
	ADDQ $64, SI
	CMPQ SI, CX
	JLT  pf
	RET
