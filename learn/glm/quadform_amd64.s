//go:build amd64 && !purego

#include "textflag.h"

// func quadFormFMA(b *float64, strideBytes int, kc *int32, kv *float64, nk int, index *int32, vals *float64, nq int, masks *float64) float64
//
// quadFormGo in AVX2, the same arithmetic: Y0–Y3 are the four chains of
// a row, Y4 the four-lane total. nk > 0, and every kc[k]'s quadruple is
// among index[:nq].
TEXT ·quadFormFMA(SB), NOSPLIT, $0-80
	MOVQ   b+0(FP), DI
	MOVQ   strideBytes+8(FP), R9
	MOVQ   kc+16(FP), SI
	MOVQ   kv+24(FP), DX
	MOVQ   nk+32(FP), CX
	MOVQ   index+40(FP), R10
	MOVQ   vals+48(FP), R11
	MOVQ   nq+56(FP), R12
	VXORPD Y4, Y4, Y4
	XORQ   BX, BX // the quadruple of the current row

kloop:
	MOVLQSX (SI), AX // c = kc[k]
	MOVQ    AX, R8
	SARQ    $2, R8

skip:
	MOVLQSX (R10)(BX*4), R14
	CMPQ    R14, R8
	JGE     found
	INCQ    BX
	JMP     skip

found:
	MOVQ  AX, R15
	ANDQ  $3, R15
	SHLQ  $5, R15
	ADDQ  masks+64(FP), R15 // the mask of c mod 4
	IMULQ R9, AX
	ADDQ  DI, AX  // row c of B
	VXORPD Y0, Y0, Y0
	VXORPD Y1, Y1, Y1
	VXORPD Y2, Y2, Y2
	VXORPD Y3, Y3, Y3
	SHLQ  $5, R14
	MOVQ  BX, R8
	SHLQ  $5, R8
	VMOVUPD     (R11)(R8*1), Y5
	VMULPD      (R15), Y5, Y5
	VFMADD231PD (AX)(R14*1), Y5, Y0
	LEAQ        32(R11)(R8*1), R15 // the values of quadruple q
	LEAQ        1(BX), R8          // q

q4:
	LEAQ        4(R8), R14
	CMPQ        R14, R12
	JGT         qtail
	MOVLQSX     0(R10)(R8*4), R14
	SHLQ        $5, R14
	VMOVUPD     0(R15), Y5
	VFMADD231PD (AX)(R14*1), Y5, Y1
	MOVLQSX     4(R10)(R8*4), R14
	SHLQ        $5, R14
	VMOVUPD     32(R15), Y6
	VFMADD231PD (AX)(R14*1), Y6, Y2
	MOVLQSX     8(R10)(R8*4), R14
	SHLQ        $5, R14
	VMOVUPD     64(R15), Y7
	VFMADD231PD (AX)(R14*1), Y7, Y3
	MOVLQSX     12(R10)(R8*4), R14
	SHLQ        $5, R14
	VMOVUPD     96(R15), Y8
	VFMADD231PD (AX)(R14*1), Y8, Y0
	ADDQ        $4, R8
	ADDQ        $128, R15
	JMP         q4

qtail: // at most three left: chains 1, 2, 3
	MOVQ        R12, R13
	SUBQ        R8, R13
	JZ          rowdone
	MOVLQSX     0(R10)(R8*4), R14
	SHLQ        $5, R14
	VMOVUPD     0(R15), Y5
	VFMADD231PD (AX)(R14*1), Y5, Y1
	DECQ        R13
	JZ          rowdone
	MOVLQSX     4(R10)(R8*4), R14
	SHLQ        $5, R14
	VMOVUPD     32(R15), Y6
	VFMADD231PD (AX)(R14*1), Y6, Y2
	DECQ        R13
	JZ          rowdone
	MOVLQSX     8(R10)(R8*4), R14
	SHLQ        $5, R14
	VMOVUPD     64(R15), Y7
	VFMADD231PD (AX)(R14*1), Y7, Y3

rowdone:
	VADDPD       Y1, Y0, Y0
	VADDPD       Y3, Y2, Y2
	VADDPD       Y2, Y0, Y0
	VBROADCASTSD (DX), Y9
	VFMADD231PD  Y0, Y9, Y4
	ADDQ         $4, SI
	ADDQ         $8, DX
	DECQ         CX
	JNZ          kloop

	VEXTRACTF128 $1, Y4, X5
	VHADDPD      X4, X4, X4
	VHADDPD      X5, X5, X5
	VADDSD       X5, X4, X4
	VMOVSD       X4, ret+72(FP)
	VZEROUPPER
	RET
