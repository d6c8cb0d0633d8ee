//go:build amd64 && !purego

#include "textflag.h"

// func zigguratAVX512(w *uint64, groups int, kTab *uint32, wTab *float32, scale float32, dst *float32) int
//
// ZigguratFast over groups·8 words: the 16 halves of 8 words are the 16
// dword lanes of one ZMM, in draw order (little-endian: low half first).
// A group whose lanes are all on the fast path is added to dst whole;
// otherwise only the words before the first slow one are, and the count of
// words consumed so far is returned.
TEXT ·zigguratAVX512(SB), NOSPLIT, $0-56
	MOVQ w+0(FP), SI
	MOVQ groups+8(FP), CX
	MOVQ kTab+16(FP), R8
	MOVQ wTab+24(FP), R9
	VBROADCASTSS scale+32(FP), Z7
	MOVQ dst+40(FP), DI
	MOVL $0x7F, DX
	VPBROADCASTD DX, Z6
	XORQ AX, AX
	TESTQ CX, CX
	JZ done

loop:
	VMOVDQU32 (SI), Z0
	VPANDD Z6, Z0, Z1        // layer i
	VPSRAD $7, Z0, Z2        // abscissa j
	VPABSD Z2, Z3
	KXNORW K1, K1, K1
	VPGATHERDD (R8)(Z1*4), K1, Z4
	VPCMPUD $1, Z4, Z3, K2   // |j| < kTab[i]
	KXNORW K3, K3, K3
	VGATHERDPS (R9)(Z1*4), K3, Z5
	VCVTDQ2PS Z2, Z2
	VMULPS Z5, Z2, Z2        // x = j·wTab[i]
	VMULPS Z7, Z2, Z2        // scale·x, rounded
	KMOVW K2, DX
	CMPL DX, $0xFFFF
	JNE partial
	VADDPS (DI), Z2, Z2
	VMOVUPS Z2, (DI)
	ADDQ $64, SI
	ADDQ $64, DI
	ADDQ $8, AX
	DECQ CX
	JNZ loop

done:
	MOVQ AX, ret+48(FP)
	VZEROUPPER
	RET

partial:
	// q = index of the first word with a slow half; lanes < 2q are added.
	NOTL DX
	BSFL DX, DX
	SHRL $1, DX
	LEAL (DX)(DX*1), BX
	MOVL $1, R10
	SHLXL BX, R10, R10
	DECL R10
	KMOVW R10, K4
	VMOVUPS.Z (DI), K4, Z8
	VADDPS Z8, Z2, Z2
	VMOVUPS Z2, K4, (DI)
	ADDQ DX, AX
	JMP done
