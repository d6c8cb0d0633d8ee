//go:build amd64 && !purego

#include "textflag.h"

// ChaCha8Rand's iteration in AVX2: 8 blocks at once, one per 32-bit lane
// of the 16 state rows, in two passes (counters 0…7, then 8…15). The 16
// rows fill the 16 Y registers, so one row lives in memory while the
// quarter-rounds need a temporary (as internal/chacha8rand's SSE2 code
// does with X registers); the rotates by 16 and 8 are byte shuffles, those
// by 12 and 7 two shifts and an OR.

#define ROT16(R) VPSHUFB rol16<>(SB), R, R
#define ROT8(R) VPSHUFB rol8<>(SB), R, R
#define ROT(N, R, T) VPSLLD $(N), R, T; VPSRLD $(32-(N)), R, R; VPOR T, R, R

// QR is the ChaCha quarter-round on rows A, B, C, D; T is a free register.
#define QR(A, B, C, D, T) \
	VPADDD B, A, A; VPXOR A, D, D; ROT16(D); \
	VPADDD D, C, C; VPXOR C, B, B; ROT(12, B, T); \
	VPADDD B, A, A; VPXOR A, D, D; ROT8(D); \
	VPADDD D, C, C; VPXOR C, B, B; ROT(7, B, T)

// STORE writes row R's two 128-bit lanes (blocks 4q…4q+3 of the pass) to
// the two 256-byte groups of the pass at BX: group q holds, for rows
// 0…15, the row's word of its four blocks (internal/chacha8rand's
// interlacing).
#define STORE(Y, X, row) \
	VMOVDQU X, (16*row)(BX); \
	VEXTRACTI128 $1, Y, (256+16*row)(BX)

// func iterAVX2(seed *[4]uint64, out *[128]uint64)
// Two passes of 8 blocks: DX points at the pass's counters, BX at its
// 512 output bytes; (SP) is the spill slot of a row, 32(SP) a second one.
TEXT ·iterAVX2(SB), NOSPLIT, $64-16
	MOVQ seed+0(FP), AX
	MOVQ out+8(FP), BX
	LEAQ counters<>+0(SB), DX
	MOVL $2, R8

pass:
	VPBROADCASTD sigma<>+0(SB), Y0
	VPBROADCASTD sigma<>+4(SB), Y1
	VPBROADCASTD sigma<>+8(SB), Y2
	VPBROADCASTD sigma<>+12(SB), Y3
	VPBROADCASTD 0(AX), Y4
	VPBROADCASTD 4(AX), Y5
	VPBROADCASTD 8(AX), Y6
	VPBROADCASTD 12(AX), Y7
	VPBROADCASTD 16(AX), Y8
	VPBROADCASTD 20(AX), Y9
	VPBROADCASTD 24(AX), Y10
	VPBROADCASTD 28(AX), Y11
	VMOVDQU (DX), Y12
	VPXOR Y13, Y13, Y13
	VPXOR Y14, Y14, Y14
	VMOVDQU Y14, (SP) // row 15 starts at 0, in memory
	MOVL $4, CX // 4 double rounds = 8 rounds

loop:
	QR(Y0, Y4, Y8, Y12, Y15)
	VMOVDQU Y4, 32(SP) // spill row 4; Y4 is the temporary
	QR(Y1, Y5, Y9, Y13, Y15)
	VMOVDQU (SP), Y15  // row 15 back
	QR(Y2, Y6, Y10, Y14, Y4)
	QR(Y3, Y7, Y11, Y15, Y4)
	QR(Y0, Y5, Y10, Y15, Y4)
	VMOVDQU Y15, (SP)  // spill row 15; Y15 is the temporary
	QR(Y1, Y6, Y11, Y12, Y4)
	VMOVDQU 32(SP), Y4 // row 4 back
	QR(Y2, Y7, Y8, Y13, Y15)
	QR(Y3, Y4, Y9, Y14, Y15)
	DECL CX
	JNZ  loop

	// The constant and counter rows as they are; row 15 from memory.
	STORE(Y0, X0, 0)
	STORE(Y1, X1, 1)
	STORE(Y2, X2, 2)
	STORE(Y3, X3, 3)
	STORE(Y12, X12, 12)
	STORE(Y13, X13, 13)
	STORE(Y14, X14, 14)
	VMOVDQU (SP), Y15
	STORE(Y15, X15, 15)

	// Feed-forward of the key rows only (ChaCha8Rand drops the others).
	VPBROADCASTD 0(AX), Y0
	VPADDD Y0, Y4, Y4
	VPBROADCASTD 4(AX), Y0
	VPADDD Y0, Y5, Y5
	VPBROADCASTD 8(AX), Y0
	VPADDD Y0, Y6, Y6
	VPBROADCASTD 12(AX), Y0
	VPADDD Y0, Y7, Y7
	VPBROADCASTD 16(AX), Y0
	VPADDD Y0, Y8, Y8
	VPBROADCASTD 20(AX), Y0
	VPADDD Y0, Y9, Y9
	VPBROADCASTD 24(AX), Y0
	VPADDD Y0, Y10, Y10
	VPBROADCASTD 28(AX), Y0
	VPADDD Y0, Y11, Y11
	STORE(Y4, X4, 4)
	STORE(Y5, X5, 5)
	STORE(Y6, X6, 6)
	STORE(Y7, X7, 7)
	STORE(Y8, X8, 8)
	STORE(Y9, X9, 9)
	STORE(Y10, X10, 10)
	STORE(Y11, X11, 11)

	ADDQ $512, BX
	ADDQ $32, DX
	DECL R8
	JNZ  pass
	VZEROUPPER
	RET

DATA sigma<>+0(SB)/4, $0x61707865
DATA sigma<>+4(SB)/4, $0x3320646e
DATA sigma<>+8(SB)/4, $0x79622d32
DATA sigma<>+12(SB)/4, $0x6b206574
GLOBL sigma<>(SB), RODATA|NOPTR, $16

DATA counters<>+0(SB)/4, $0
DATA counters<>+4(SB)/4, $1
DATA counters<>+8(SB)/4, $2
DATA counters<>+12(SB)/4, $3
DATA counters<>+16(SB)/4, $4
DATA counters<>+20(SB)/4, $5
DATA counters<>+24(SB)/4, $6
DATA counters<>+28(SB)/4, $7
DATA counters<>+32(SB)/4, $8
DATA counters<>+36(SB)/4, $9
DATA counters<>+40(SB)/4, $10
DATA counters<>+44(SB)/4, $11
DATA counters<>+48(SB)/4, $12
DATA counters<>+52(SB)/4, $13
DATA counters<>+56(SB)/4, $14
DATA counters<>+60(SB)/4, $15
GLOBL counters<>(SB), RODATA|NOPTR, $64

// Byte shuffles that rotate each 32-bit lane left by 16 and by 8.
DATA rol16<>+0(SB)/8, $0x0504070601000302
DATA rol16<>+8(SB)/8, $0x0D0C0F0E09080B0A
DATA rol16<>+16(SB)/8, $0x0504070601000302
DATA rol16<>+24(SB)/8, $0x0D0C0F0E09080B0A
GLOBL rol16<>(SB), RODATA|NOPTR, $32
DATA rol8<>+0(SB)/8, $0x0605040702010003
DATA rol8<>+8(SB)/8, $0x0E0D0C0F0A09080B
DATA rol8<>+16(SB)/8, $0x0605040702010003
DATA rol8<>+24(SB)/8, $0x0E0D0C0F0A09080B
GLOBL rol8<>(SB), RODATA|NOPTR, $32
