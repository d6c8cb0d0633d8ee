//go:build amd64 && !purego

#include "textflag.h"

// The ChaCha quarter-round on rows A, B, C, D: 16 blocks at once, one per
// 32-bit lane.
#define QR(A, B, C, D) \
	VPADDD B, A, A; VPXORD A, D, D; VPROLD $16, D, D; \
	VPADDD D, C, C; VPXORD C, B, B; VPROLD $12, B, B; \
	VPADDD B, A, A; VPXORD A, D, D; VPROLD $8, D, D; \
	VPADDD D, C, C; VPXORD C, B, B; VPROLD $7, B, B

// STORE writes row R's four 128-bit lanes (blocks 4q…4q+3) to the four
// 256-byte groups of the output: group q holds, for rows 0…15, the row's
// word of blocks 4q…4q+3 (the interlacing of internal/chacha8rand).
#define STORE(R, off) \
	VEXTRACTI32X4 $0, R, (off)(BX); \
	VEXTRACTI32X4 $1, R, (256+off)(BX); \
	VEXTRACTI32X4 $2, R, (512+off)(BX); \
	VEXTRACTI32X4 $3, R, (768+off)(BX)

// func iterAVX512(seed *[4]uint64, out *[128]uint64)
TEXT ·iterAVX512(SB), NOSPLIT, $0-16
	MOVQ seed+0(FP), AX
	MOVQ out+8(FP), BX
	MOVL $0x61707865, DX
	VPBROADCASTD DX, Z0
	MOVL $0x3320646e, DX
	VPBROADCASTD DX, Z1
	MOVL $0x79622d32, DX
	VPBROADCASTD DX, Z2
	MOVL $0x6b206574, DX
	VPBROADCASTD DX, Z3
	VPBROADCASTD 0(AX), Z4
	VPBROADCASTD 4(AX), Z5
	VPBROADCASTD 8(AX), Z6
	VPBROADCASTD 12(AX), Z7
	VPBROADCASTD 16(AX), Z8
	VPBROADCASTD 20(AX), Z9
	VPBROADCASTD 24(AX), Z10
	VPBROADCASTD 28(AX), Z11
	VMOVDQU32 counters<>(SB), Z12
	VPXORD Z13, Z13, Z13
	VPXORD Z14, Z14, Z14
	VPXORD Z15, Z15, Z15
	VMOVDQA32 Z4, Z16
	VMOVDQA32 Z5, Z17
	VMOVDQA32 Z6, Z18
	VMOVDQA32 Z7, Z19
	VMOVDQA32 Z8, Z20
	VMOVDQA32 Z9, Z21
	VMOVDQA32 Z10, Z22
	VMOVDQA32 Z11, Z23

	MOVL $4, CX // 4 double rounds = 8 rounds

loop:
	QR(Z0, Z4, Z8, Z12)
	QR(Z1, Z5, Z9, Z13)
	QR(Z2, Z6, Z10, Z14)
	QR(Z3, Z7, Z11, Z15)
	QR(Z0, Z5, Z10, Z15)
	QR(Z1, Z6, Z11, Z12)
	QR(Z2, Z7, Z8, Z13)
	QR(Z3, Z4, Z9, Z14)
	DECL CX
	JNZ loop

	// Feed-forward: only the key rows (ChaCha8Rand drops the constant and
	// counter rows' additions).
	VPADDD Z16, Z4, Z4
	VPADDD Z17, Z5, Z5
	VPADDD Z18, Z6, Z6
	VPADDD Z19, Z7, Z7
	VPADDD Z20, Z8, Z8
	VPADDD Z21, Z9, Z9
	VPADDD Z22, Z10, Z10
	VPADDD Z23, Z11, Z11

	STORE(Z0, 0)
	STORE(Z1, 16)
	STORE(Z2, 32)
	STORE(Z3, 48)
	STORE(Z4, 64)
	STORE(Z5, 80)
	STORE(Z6, 96)
	STORE(Z7, 112)
	STORE(Z8, 128)
	STORE(Z9, 144)
	STORE(Z10, 160)
	STORE(Z11, 176)
	STORE(Z12, 192)
	STORE(Z13, 208)
	STORE(Z14, 224)
	STORE(Z15, 240)
	VZEROUPPER
	RET

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
