//go:build amd64 && !purego

#include "textflag.h"

// func transpose8x8Blocks(dst *float32, dstStride int, src *float32, srcStride int, jBlocks, pBlocks int)
//
// For every jb < jBlocks and pb < pBlocks, transposes the 8×8 block
//   src[(8jb+r)·srcStride + 8pb+c]  →  dst[(8pb+c)·dstStride + 8jb+r]
// with the classic unpack / shuffle / 128-bit-permute network (AVX).
// Strides are in elements.
TEXT ·transpose8x8Blocks(SB), NOSPLIT, $0-48
	MOVQ dst+0(FP), DI
	MOVQ dstStride+8(FP), DX
	SHLQ $2, DX
	LEAQ (DX)(DX*2), R13
	MOVQ src+16(FP), SI
	MOVQ srcStride+24(FP), R8
	SHLQ $2, R8
	LEAQ (R8)(R8*2), R9
	MOVQ jBlocks+32(FP), BX
	TESTQ BX, BX
	JZ done

jloop:
	MOVQ pBlocks+40(FP), CX
	TESTQ CX, CX
	JZ jnext
	MOVQ SI, R10
	MOVQ DI, R12

ploop:
	LEAQ (R10)(R8*4), R11
	VMOVUPS (R10), Y0
	VMOVUPS (R10)(R8*1), Y1
	VMOVUPS (R10)(R8*2), Y2
	VMOVUPS (R10)(R9*1), Y3
	VMOVUPS (R11), Y4
	VMOVUPS (R11)(R8*1), Y5
	VMOVUPS (R11)(R8*2), Y6
	VMOVUPS (R11)(R9*1), Y7

	VUNPCKLPS Y1, Y0, Y8
	VUNPCKHPS Y1, Y0, Y9
	VUNPCKLPS Y3, Y2, Y10
	VUNPCKHPS Y3, Y2, Y11
	VUNPCKLPS Y5, Y4, Y12
	VUNPCKHPS Y5, Y4, Y13
	VUNPCKLPS Y7, Y6, Y14
	VUNPCKHPS Y7, Y6, Y15

	VSHUFPS $0x44, Y10, Y8, Y0
	VSHUFPS $0xEE, Y10, Y8, Y1
	VSHUFPS $0x44, Y11, Y9, Y2
	VSHUFPS $0xEE, Y11, Y9, Y3
	VSHUFPS $0x44, Y14, Y12, Y4
	VSHUFPS $0xEE, Y14, Y12, Y5
	VSHUFPS $0x44, Y15, Y13, Y6
	VSHUFPS $0xEE, Y15, Y13, Y7

	VPERM2F128 $0x20, Y4, Y0, Y8
	VPERM2F128 $0x20, Y5, Y1, Y9
	VPERM2F128 $0x20, Y6, Y2, Y10
	VPERM2F128 $0x20, Y7, Y3, Y11
	VPERM2F128 $0x31, Y4, Y0, Y12
	VPERM2F128 $0x31, Y5, Y1, Y13
	VPERM2F128 $0x31, Y6, Y2, Y14
	VPERM2F128 $0x31, Y7, Y3, Y15

	LEAQ (R12)(DX*4), R14
	VMOVUPS Y8, (R12)
	VMOVUPS Y9, (R12)(DX*1)
	VMOVUPS Y10, (R12)(DX*2)
	VMOVUPS Y11, (R12)(R13*1)
	VMOVUPS Y12, (R14)
	VMOVUPS Y13, (R14)(DX*1)
	VMOVUPS Y14, (R14)(DX*2)
	VMOVUPS Y15, (R14)(R13*1)

	ADDQ $32, R10
	LEAQ (R12)(DX*8), R12
	DECQ CX
	JNZ ploop

jnext:
	LEAQ (SI)(R8*8), SI
	ADDQ $32, DI
	DECQ BX
	JNZ jloop

done:
	VZEROUPPER
	RET

// func packBRows(dst *float32, src *float32, srcStride, kc, panels, vecs int)
//
// For p < kc and q < panels copies the vecs·8 floats src[p·srcStride +
// q·vecs·8 …] to dst[(q·kc + p)·vecs·8 …]: whole B panels of vecs vectors
// per row, one source row at a time. vecs is 2 or 4; kc, panels ≥ 1.
TEXT ·packBRows(SB), NOSPLIT, $0-48
	MOVQ dst+0(FP), DI
	MOVQ src+8(FP), SI
	MOVQ srcStride+16(FP), R8
	SHLQ $2, R8
	MOVQ kc+24(FP), CX
	MOVQ panels+32(FP), DX
	MOVQ vecs+40(FP), R9
	SHLQ $5, R9          // bytes per panel row
	MOVQ CX, R10
	IMULQ R9, R10        // bytes per panel

prow:
	MOVQ SI, AX
	MOVQ DI, BX
	MOVQ DX, R11
	CMPQ R9, $64
	JNE  pfour

ptwo:
	VMOVUPS (AX), Y0
	VMOVUPS 32(AX), Y1
	VMOVUPS Y0, (BX)
	VMOVUPS Y1, 32(BX)
	ADDQ $64, AX
	ADDQ R10, BX
	DECQ R11
	JNZ  ptwo
	JMP  pnext

pfour:
	VMOVUPS (AX), Y0
	VMOVUPS 32(AX), Y1
	VMOVUPS 64(AX), Y2
	VMOVUPS 96(AX), Y3
	VMOVUPS Y0, (BX)
	VMOVUPS Y1, 32(BX)
	VMOVUPS Y2, 64(BX)
	VMOVUPS Y3, 96(BX)
	ADDQ $128, AX
	ADDQ R10, BX
	DECQ R11
	JNZ  pfour

pnext:
	ADDQ R8, SI
	ADDQ R9, DI
	DECQ CX
	JNZ  prow
	VZEROUPPER
	RET
