//go:build amd64 && !purego

#include "textflag.h"

DATA maxpoolIota<>+0(SB)/4, $0
DATA maxpoolIota<>+4(SB)/4, $1
DATA maxpoolIota<>+8(SB)/4, $2
DATA maxpoolIota<>+12(SB)/4, $3
DATA maxpoolIota<>+16(SB)/4, $4
DATA maxpoolIota<>+20(SB)/4, $5
DATA maxpoolIota<>+24(SB)/4, $6
DATA maxpoolIota<>+28(SB)/4, $7
GLOBL maxpoolIota<>(SB), RODATA, $32

// POOL2_CONSTANTS sets, from c in R9 and rowStride in R10 (elements):
// Y15 the lane numbers 0..7, AX c in bytes, BX the row stride in bytes,
// and as int32 lanes Y14 c, Y13 rowStride and Y12 rowStride + c (the
// offsets of a window's other three inputs from its first).
#define POOL2_CONSTANTS \
	VMOVDQU maxpoolIota<>(SB), Y15 \
	MOVQ R9, AX \
	SHLQ $2, AX \
	MOVQ R10, BX \
	SHLQ $2, BX \
	VMOVD R9, X14 \
	VPBROADCASTD X14, Y14 \
	VMOVD R10, X13 \
	VPBROADCASTD X13, Y13 \
	VPADDD Y13, Y14, Y12

// func maxPool2RowAVX2(x *float32, y *float32, arg *int32, outW, c, rowStride, base int)
// One output row of 2×2 stride-2 max pooling over HWC input, c a multiple
// of 8: for each window, best = x00; then x01, x10, x11 in turn replace it
// when strictly greater (VCMPPS GT_OQ: false for NaN, as Go's >), the
// input offset following the same selects.
TEXT ·maxPool2RowAVX2(SB), NOSPLIT, $0-56
	MOVQ x+0(FP), SI
	MOVQ y+8(FP), DI
	MOVQ arg+16(FP), DX
	MOVQ outW+24(FP), R8
	MOVQ c+32(FP), R9
	MOVQ rowStride+40(FP), R10
	MOVQ base+48(FP), R11
	POOL2_CONSTANTS
window:
	TESTQ R8, R8
	JEQ   done
	XORQ CX, CX              // channel offset (elements)
chan:
	CMPQ CX, R9
	JGE  nextwin
	LEAQ (SI)(CX*4), R12     // &x00[c]
	MOVQ R11, R13
	ADDQ CX, R13
	VMOVD R13, X5
	VPBROADCASTD X5, Y5
	VPADDD Y15, Y5, Y5       // offsets of x00: base + c + lane
	VMOVUPS (R12), Y0        // best = x00
	VMOVDQA Y5, Y1           // at
	VMOVUPS (R12)(AX*1), Y2  // x01
	VCMPPS $0x1e, Y0, Y2, Y3 // x01 > best
	VBLENDVPS Y3, Y2, Y0, Y0
	VPADDD Y14, Y5, Y4
	VBLENDVPS Y3, Y4, Y1, Y1
	ADDQ BX, R12
	VMOVUPS (R12), Y2        // x10
	VCMPPS $0x1e, Y0, Y2, Y3
	VBLENDVPS Y3, Y2, Y0, Y0
	VPADDD Y13, Y5, Y4
	VBLENDVPS Y3, Y4, Y1, Y1
	VMOVUPS (R12)(AX*1), Y2  // x11
	VCMPPS $0x1e, Y0, Y2, Y3
	VBLENDVPS Y3, Y2, Y0, Y0
	VPADDD Y12, Y5, Y4
	VBLENDVPS Y3, Y4, Y1, Y1
	VMOVUPS Y0, (DI)(CX*4)
	VMOVDQU Y1, (DX)(CX*4)
	ADDQ $8, CX
	JMP  chan
nextwin:
	LEAQ (SI)(AX*2), SI      // next window: 2c floats on
	ADDQ AX, DI              // next output: c floats on
	ADDQ AX, DX
	MOVQ R9, R13
	SHLQ $1, R13
	ADDQ R13, R11            // base += 2c
	DECQ R8
	JMP  window
done:
	VZEROUPPER
	RET

// func maxPool2BackReLURowAVX2(dx, pooled, grad *float32, arg *int32, outW, c, rowStride, base int)
// The backward pass of one output row of 2×2 stride-2 max pooling through
// the ReLU whose output is the pool's input (see backwardThroughReLU), c
// a multiple of 8: each of a window's four inputs receives +0 + g where
// its offset is the window's argmax, else +0, the first masked by the
// bits of the ReLU's output there (−int32(bits) >> 31, arithmetic) —
// which is the window's pooled value, so the ReLU's output is not read.
// Every input of the row's windows is written, so dx needs no clearing
// there.
TEXT ·maxPool2BackReLURowAVX2(SB), NOSPLIT, $0-64
	MOVQ dx+0(FP), DI
	MOVQ pooled+8(FP), SI
	MOVQ grad+16(FP), R14
	MOVQ arg+24(FP), DX
	MOVQ outW+32(FP), R8
	MOVQ c+40(FP), R9
	MOVQ rowStride+48(FP), R10
	MOVQ base+56(FP), R11
	POOL2_CONSTANTS
	VPXOR Y11, Y11, Y11      // +0
bwindow:
	TESTQ R8, R8
	JEQ   bdone
	VMOVD R11, X10
	VPBROADCASTD X10, Y10
	VPADDD Y15, Y10, Y10     // base + lane
	XORQ CX, CX              // channel offset (elements)
bchan:
	CMPQ CX, R9
	JGE  bnextwin
	VMOVD CX, X5
	VPBROADCASTD X5, Y5
	VPADDD Y10, Y5, Y5       // offsets of x00: base + c + lane
	VMOVUPS (R14)(CX*4), Y0
	VADDPS Y0, Y11, Y0       // +0 + g
	VMOVDQU (SI)(CX*4), Y3   // the pooled value: the ReLU's output at the argmax
	VPSUBD Y3, Y11, Y3
	VPSRAD $31, Y3, Y3
	VPAND Y3, Y0, Y0         // masked as the ReLU's backward pass masks
	VMOVDQU (DX)(CX*4), Y1   // argmax
	LEAQ (DI)(CX*4), R13     // &dx00[c]
	VPCMPEQD Y5, Y1, Y2      // x00
	VPAND Y0, Y2, Y2
	VMOVDQU Y2, (R13)
	VPADDD Y14, Y5, Y4       // x01
	VPCMPEQD Y4, Y1, Y2
	VPAND Y0, Y2, Y2
	VMOVDQU Y2, (R13)(AX*1)
	ADDQ BX, R13
	VPADDD Y13, Y5, Y4       // x10
	VPCMPEQD Y4, Y1, Y2
	VPAND Y0, Y2, Y2
	VMOVDQU Y2, (R13)
	VPADDD Y12, Y5, Y4       // x11
	VPCMPEQD Y4, Y1, Y2
	VPAND Y0, Y2, Y2
	VMOVDQU Y2, (R13)(AX*1)
	ADDQ $8, CX
	JMP  bchan
bnextwin:
	LEAQ (DI)(AX*2), DI      // next window: 2c floats on
	ADDQ AX, SI              // next output: c floats on
	ADDQ AX, DX
	ADDQ AX, R14
	MOVQ R9, R13
	SHLQ $1, R13
	ADDQ R13, R11            // base += 2c
	DECQ R8
	JMP  bwindow
bdone:
	VZEROUPPER
	RET
