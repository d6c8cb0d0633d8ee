//go:build amd64 && !purego

#include "textflag.h"

// Level-1 kernels. Dot keeps 64 partial sums (lane l holds elements i with
// i mod 64 = l, accumulated by FMA in ascending i) and folds them pairwise
// (l += 32, 16, 8, 4, 2, 1); the AVX2 and AVX-512 versions follow exactly
// that order, so they return identical bits. Tails use masked loads that
// read nothing past the slices.

DATA l1Mask<>+0(SB)/4, $-1
DATA l1Mask<>+4(SB)/4, $-1
DATA l1Mask<>+8(SB)/4, $-1
DATA l1Mask<>+12(SB)/4, $-1
DATA l1Mask<>+16(SB)/4, $-1
DATA l1Mask<>+20(SB)/4, $-1
DATA l1Mask<>+24(SB)/4, $-1
DATA l1Mask<>+28(SB)/4, $-1
DATA l1Mask<>+32(SB)/4, $0
DATA l1Mask<>+36(SB)/4, $0
DATA l1Mask<>+40(SB)/4, $0
DATA l1Mask<>+44(SB)/4, $0
DATA l1Mask<>+48(SB)/4, $0
DATA l1Mask<>+52(SB)/4, $0
DATA l1Mask<>+56(SB)/4, $0
DATA l1Mask<>+60(SB)/4, $0
GLOBL l1Mask<>(SB), RODATA|NOPTR, $64

// MASK16 sets K1 to the low min(CX, 16) lanes (CX ≥ 1); clobbers AX, BX.
// SHLX is BMI2, present on every AVX-512 CPU (checked at dispatch anyway).
#define MASK16 \
	MOVQ  $16, BX; \
	CMPQ  CX, BX; \
	CMOVQLT CX, BX; \
	MOVL  $1, AX; \
	SHLXL BX, AX, AX; \
	DECL  AX; \
	KMOVW AX, K1

// MASK8 sets Y15 to the low min(CX, 8) lanes (CX ≥ 1) from the table of eight
// -1 followed by eight 0; clobbers AX, BX.
#define MASK8 \
	MOVQ $8, BX; \
	CMPQ CX, BX; \
	CMOVQLT CX, BX; \
	LEAQ l1Mask<>+32(SB), AX; \
	SHLQ $2, BX; \
	SUBQ BX, AX; \
	VMOVUPS (AX), Y15


// func dotAVX512(x, y []float32) float32
TEXT ·dotAVX512(SB), NOSPLIT, $0-52
	MOVQ x_base+0(FP), SI
	MOVQ x_len+8(FP), CX
	MOVQ y_base+24(FP), DI
	VXORPS Z0, Z0, Z0
	VXORPS Z1, Z1, Z1
	VXORPS Z2, Z2, Z2
	VXORPS Z3, Z3, Z3
	CMPQ CX, $64
	JLT dtail

dloop:
	VMOVUPS (SI), Z4
	VMOVUPS 64(SI), Z5
	VMOVUPS 128(SI), Z6
	VMOVUPS 192(SI), Z7
	VFMADD231PS (DI), Z4, Z0
	VFMADD231PS 64(DI), Z5, Z1
	VFMADD231PS 128(DI), Z6, Z2
	VFMADD231PS 192(DI), Z7, Z3
	ADDQ $256, SI
	ADDQ $256, DI
	SUBQ $64, CX
	CMPQ CX, $64
	JGE dloop

dtail:
	// Remaining 0..63 elements: 16-lane chunk q goes to accumulator q.
	TESTQ CX, CX
	JZ dreduce
	MASK16
	VMOVUPS.Z (SI), K1, Z4
	VMOVUPS.Z (DI), K1, Z5
	VFMADD231PS Z5, Z4, Z0
	SUBQ $16, CX
	JLE dreduce
	MASK16
	VMOVUPS.Z 64(SI), K1, Z4
	VMOVUPS.Z 64(DI), K1, Z5
	VFMADD231PS Z5, Z4, Z1
	SUBQ $16, CX
	JLE dreduce
	MASK16
	VMOVUPS.Z 128(SI), K1, Z4
	VMOVUPS.Z 128(DI), K1, Z5
	VFMADD231PS Z5, Z4, Z2
	SUBQ $16, CX
	JLE dreduce
	MASK16
	VMOVUPS.Z 192(SI), K1, Z4
	VMOVUPS.Z 192(DI), K1, Z5
	VFMADD231PS Z5, Z4, Z3

dreduce:
	VADDPS Z2, Z0, Z0
	VADDPS Z3, Z1, Z1
	VADDPS Z1, Z0, Z0
	VEXTRACTF32X8 $1, Z0, Y1
	VADDPS Y1, Y0, Y0
	VEXTRACTF128 $1, Y0, X1
	VADDPS X1, X0, X0
	VMOVHLPS X0, X0, X1
	VADDPS X1, X0, X0
	VMOVSHDUP X0, X1
	VADDSS X1, X0, X0
	VMOVSS X0, ret+48(FP)
	VZEROUPPER
	RET


// func dotAVX2(x, y []float32) float32
TEXT ·dotAVX2(SB), NOSPLIT, $0-52
	MOVQ x_base+0(FP), SI
	MOVQ x_len+8(FP), CX
	MOVQ y_base+24(FP), DI
	VXORPS Y0, Y0, Y0
	VXORPS Y1, Y1, Y1
	VXORPS Y2, Y2, Y2
	VXORPS Y3, Y3, Y3
	VXORPS Y4, Y4, Y4
	VXORPS Y5, Y5, Y5
	VXORPS Y6, Y6, Y6
	VXORPS Y7, Y7, Y7
	CMPQ CX, $64
	JLT atail

aloop:
	VMOVUPS (SI), Y8
	VMOVUPS 32(SI), Y9
	VMOVUPS 64(SI), Y10
	VMOVUPS 96(SI), Y11
	VFMADD231PS (DI), Y8, Y0
	VFMADD231PS 32(DI), Y9, Y1
	VFMADD231PS 64(DI), Y10, Y2
	VFMADD231PS 96(DI), Y11, Y3
	VMOVUPS 128(SI), Y8
	VMOVUPS 160(SI), Y9
	VMOVUPS 192(SI), Y10
	VMOVUPS 224(SI), Y11
	VFMADD231PS 128(DI), Y8, Y4
	VFMADD231PS 160(DI), Y9, Y5
	VFMADD231PS 192(DI), Y10, Y6
	VFMADD231PS 224(DI), Y11, Y7
	ADDQ $256, SI
	ADDQ $256, DI
	SUBQ $64, CX
	CMPQ CX, $64
	JGE aloop

atail:
	// Remaining 0..63 elements: 8-lane chunk q goes to accumulator q.
	TESTQ CX, CX
	JZ areduce
	MASK8
	VMASKMOVPS (SI), Y15, Y8
	VMASKMOVPS (DI), Y15, Y9
	VFMADD231PS Y9, Y8, Y0
	SUBQ $8, CX
	JLE areduce
	MASK8
	VMASKMOVPS 32(SI), Y15, Y8
	VMASKMOVPS 32(DI), Y15, Y9
	VFMADD231PS Y9, Y8, Y1
	SUBQ $8, CX
	JLE areduce
	MASK8
	VMASKMOVPS 64(SI), Y15, Y8
	VMASKMOVPS 64(DI), Y15, Y9
	VFMADD231PS Y9, Y8, Y2
	SUBQ $8, CX
	JLE areduce
	MASK8
	VMASKMOVPS 96(SI), Y15, Y8
	VMASKMOVPS 96(DI), Y15, Y9
	VFMADD231PS Y9, Y8, Y3
	SUBQ $8, CX
	JLE areduce
	MASK8
	VMASKMOVPS 128(SI), Y15, Y8
	VMASKMOVPS 128(DI), Y15, Y9
	VFMADD231PS Y9, Y8, Y4
	SUBQ $8, CX
	JLE areduce
	MASK8
	VMASKMOVPS 160(SI), Y15, Y8
	VMASKMOVPS 160(DI), Y15, Y9
	VFMADD231PS Y9, Y8, Y5
	SUBQ $8, CX
	JLE areduce
	MASK8
	VMASKMOVPS 192(SI), Y15, Y8
	VMASKMOVPS 192(DI), Y15, Y9
	VFMADD231PS Y9, Y8, Y6
	SUBQ $8, CX
	JLE areduce
	MASK8
	VMASKMOVPS 224(SI), Y15, Y8
	VMASKMOVPS 224(DI), Y15, Y9
	VFMADD231PS Y9, Y8, Y7

areduce:
	VADDPS Y4, Y0, Y0
	VADDPS Y5, Y1, Y1
	VADDPS Y6, Y2, Y2
	VADDPS Y7, Y3, Y3
	VADDPS Y2, Y0, Y0
	VADDPS Y3, Y1, Y1
	VADDPS Y1, Y0, Y0
	VEXTRACTF128 $1, Y0, X1
	VADDPS X1, X0, X0
	VMOVHLPS X0, X0, X1
	VADDPS X1, X0, X0
	VMOVSHDUP X0, X1
	VADDSS X1, X0, X0
	VMOVSS X0, ret+48(FP)
	VZEROUPPER
	RET


// func axpyAVX512(alpha float32, x, y []float32)
TEXT ·axpyAVX512(SB), NOSPLIT, $0-56
	VBROADCASTSS alpha+0(FP), Z0
	MOVQ x_base+8(FP), SI
	MOVQ x_len+16(FP), CX
	MOVQ y_base+32(FP), DI
	CMPQ CX, $64
	JLT xtail

xloop:
	VMOVUPS (DI), Z1
	VMOVUPS 64(DI), Z2
	VMOVUPS 128(DI), Z3
	VMOVUPS 192(DI), Z4
	VFMADD231PS (SI), Z0, Z1
	VFMADD231PS 64(SI), Z0, Z2
	VFMADD231PS 128(SI), Z0, Z3
	VFMADD231PS 192(SI), Z0, Z4
	VMOVUPS Z1, (DI)
	VMOVUPS Z2, 64(DI)
	VMOVUPS Z3, 128(DI)
	VMOVUPS Z4, 192(DI)
	ADDQ $256, SI
	ADDQ $256, DI
	SUBQ $64, CX
	CMPQ CX, $64
	JGE xloop

xtail:
	TESTQ CX, CX
	JLE xdone
	MASK16
	VMOVUPS.Z (DI), K1, Z1
	VMOVUPS.Z (SI), K1, Z2
	VFMADD231PS Z2, Z0, Z1
	VMOVUPS Z1, K1, (DI)
	ADDQ $64, SI
	ADDQ $64, DI
	SUBQ $16, CX
	JMP xtail

xdone:
	VZEROUPPER
	RET

// func axpyAVX2(alpha float32, x, y []float32)
TEXT ·axpyAVX2(SB), NOSPLIT, $0-56
	VBROADCASTSS alpha+0(FP), Y0
	MOVQ x_base+8(FP), SI
	MOVQ x_len+16(FP), CX
	MOVQ y_base+32(FP), DI
	CMPQ CX, $32
	JLT ytail8

yloop:
	VMOVUPS (DI), Y1
	VMOVUPS 32(DI), Y2
	VMOVUPS 64(DI), Y3
	VMOVUPS 96(DI), Y4
	VFMADD231PS (SI), Y0, Y1
	VFMADD231PS 32(SI), Y0, Y2
	VFMADD231PS 64(SI), Y0, Y3
	VFMADD231PS 96(SI), Y0, Y4
	VMOVUPS Y1, (DI)
	VMOVUPS Y2, 32(DI)
	VMOVUPS Y3, 64(DI)
	VMOVUPS Y4, 96(DI)
	ADDQ $128, SI
	ADDQ $128, DI
	SUBQ $32, CX
	CMPQ CX, $32
	JGE yloop

	// Whole vectors unmasked: VMASKMOVPS is microcoded on AMD, and a
	// masked store is not forwarded to the next load of the same vector,
	// which stalls callers whose vectors overlap from call to call
	// (col2im's runs).
ytail8:
	CMPQ CX, $8
	JLT ytail
	VMOVUPS (DI), Y1
	VFMADD231PS (SI), Y0, Y1
	VMOVUPS Y1, (DI)
	ADDQ $32, SI
	ADDQ $32, DI
	SUBQ $8, CX
	JMP ytail8

ytail:
	TESTQ CX, CX
	JLE ydone
	MASK8
	VMASKMOVPS (DI), Y15, Y1
	VMASKMOVPS (SI), Y15, Y2
	VFMADD231PS Y2, Y0, Y1
	VMASKMOVPS Y1, Y15, (DI)

ydone:
	VZEROUPPER
	RET

// func scalAVX512(alpha float32, x []float32)
TEXT ·scalAVX512(SB), NOSPLIT, $0-32
	VBROADCASTSS alpha+0(FP), Z0
	MOVQ x_base+8(FP), DI
	MOVQ x_len+16(FP), CX
	CMPQ CX, $64
	JLT stail

sloop:
	VMULPS (DI), Z0, Z1
	VMULPS 64(DI), Z0, Z2
	VMULPS 128(DI), Z0, Z3
	VMULPS 192(DI), Z0, Z4
	VMOVUPS Z1, (DI)
	VMOVUPS Z2, 64(DI)
	VMOVUPS Z3, 128(DI)
	VMOVUPS Z4, 192(DI)
	ADDQ $256, DI
	SUBQ $64, CX
	CMPQ CX, $64
	JGE sloop

stail:
	TESTQ CX, CX
	JLE sdone
	MASK16
	VMOVUPS.Z (DI), K1, Z1
	VMULPS Z1, Z0, Z1
	VMOVUPS Z1, K1, (DI)
	ADDQ $64, DI
	SUBQ $16, CX
	JMP stail

sdone:
	VZEROUPPER
	RET

// func scalAVX2(alpha float32, x []float32)
TEXT ·scalAVX2(SB), NOSPLIT, $0-32
	VBROADCASTSS alpha+0(FP), Y0
	MOVQ x_base+8(FP), DI
	MOVQ x_len+16(FP), CX
	CMPQ CX, $32
	JLT ttail

tloop:
	VMULPS (DI), Y0, Y1
	VMULPS 32(DI), Y0, Y2
	VMULPS 64(DI), Y0, Y3
	VMULPS 96(DI), Y0, Y4
	VMOVUPS Y1, (DI)
	VMOVUPS Y2, 32(DI)
	VMOVUPS Y3, 64(DI)
	VMOVUPS Y4, 96(DI)
	ADDQ $128, DI
	SUBQ $32, CX
	CMPQ CX, $32
	JGE tloop

ttail:
	TESTQ CX, CX
	JLE tdone
	MASK8
	VMASKMOVPS (DI), Y15, Y1
	VMULPS Y1, Y0, Y1
	VMASKMOVPS Y1, Y15, (DI)
	ADDQ $32, DI
	SUBQ $8, CX
	JMP ttail

tdone:
	VZEROUPPER
	RET
