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

// func packA6Blocks(dst *float32, src *float32, srcStride, blocks int)
//
// For b < blocks, writes the 6×8 block src[r·srcStride + 8b + c] (r < 6,
// c < 8) to dst[(8b + c)·6 + r]: six rows of A as a 6-row panel, eight
// columns at a time (the 8×8 network of transpose8x8Blocks without its last
// two rows). Every second block it prefetches a line of each of the next
// six rows at the same column, so the next tile's rows are in cache by the
// time the caller packs them: each row's run is too short (kc floats) for
// the hardware prefetcher to follow. blocks ≥ 1.
TEXT ·packA6Blocks(SB), NOSPLIT, $0-32
	MOVQ dst+0(FP), DI
	MOVQ src+8(FP), SI
	MOVQ srcStride+16(FP), R8
	SHLQ $2, R8
	LEAQ (R8)(R8*2), R9  // 3 rows
	MOVQ blocks+24(FP), CX
	LEAQ (SI)(R9*2), R10 // the next tile's first row
	XORQ R11, R11        // block counter

a6loop:
	LEAQ (SI)(R9*1), R12
	VMOVUPS (SI), Y0
	VMOVUPS (SI)(R8*1), Y1
	VMOVUPS (SI)(R8*2), Y2
	VMOVUPS (R12), Y3
	VMOVUPS (R12)(R8*1), Y4
	VMOVUPS (R12)(R8*2), Y5

	TESTQ $1, R11
	JNZ   a6noprefetch
	LEAQ  (R10)(R9*1), R13
	PREFETCHT0 (R10)
	PREFETCHT0 (R10)(R8*1)
	PREFETCHT0 (R10)(R8*2)
	PREFETCHT0 (R13)
	PREFETCHT0 (R13)(R8*1)
	PREFETCHT0 (R13)(R8*2)
	ADDQ  $64, R10

a6noprefetch:
	VUNPCKLPS Y1, Y0, Y8   // a0 b0 a1 b1 | a4 b4 a5 b5
	VUNPCKHPS Y1, Y0, Y9   // a2 b2 a3 b3 | a6 b6 a7 b7
	VUNPCKLPS Y3, Y2, Y10
	VUNPCKHPS Y3, Y2, Y11
	VUNPCKLPS Y5, Y4, Y12  // e0 f0 e1 f1 | e4 f4 e5 f5
	VUNPCKHPS Y5, Y4, Y13  // e2 f2 e3 f3 | e6 f6 e7 f7

	VSHUFPS $0x44, Y10, Y8, Y0 // a0 b0 c0 d0 | a4 b4 c4 d4
	VSHUFPS $0xEE, Y10, Y8, Y1
	VSHUFPS $0x44, Y11, Y9, Y2
	VSHUFPS $0xEE, Y11, Y9, Y3

	VMOVUPS X0, (DI)
	VMOVLPS X12, 16(DI)
	VMOVUPS X1, 24(DI)
	VMOVHPS X12, 40(DI)
	VMOVUPS X2, 48(DI)
	VMOVLPS X13, 64(DI)
	VMOVUPS X3, 72(DI)
	VMOVHPS X13, 88(DI)

	VEXTRACTF128 $1, Y0, X0
	VEXTRACTF128 $1, Y1, X1
	VEXTRACTF128 $1, Y2, X2
	VEXTRACTF128 $1, Y3, X3
	VEXTRACTF128 $1, Y12, X12
	VEXTRACTF128 $1, Y13, X13
	VMOVUPS X0, 96(DI)
	VMOVLPS X12, 112(DI)
	VMOVUPS X1, 120(DI)
	VMOVHPS X12, 136(DI)
	VMOVUPS X2, 144(DI)
	VMOVLPS X13, 160(DI)
	VMOVUPS X3, 168(DI)
	VMOVHPS X13, 184(DI)

	ADDQ $32, SI
	ADDQ $192, DI
	INCQ R11
	CMPQ R11, CX
	JLT  a6loop
	VZEROUPPER
	RET
