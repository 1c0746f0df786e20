//go:build !purego

#include "textflag.h"

// func argmaxAVX2(jll *float64, n, K int, dst *int32, top *float64, rows int)
//
// Argmax for rows 0..rows-1 (rows a multiple of 16) of class-major jll with n rows per class: sixteen rows
// at a time, four per YMM vector. Per vector: Y0-Y3 the running maximum t, Y4-Y7 the best class d (as
// float64), Y8 the class c (as float64), Y9 ones; per class c ≥ 1 and vector: v = the class's scores,
// g = v > t (ordered: false when either is NaN), d = g ? c : d, m = VMAXPD(v, t) (t when either is NaN),
// t = v is NaN ? v : m — so a NaN score stops the search as Go's max(v, t) does (the sign of a zero t may
// differ from max's: t is scratch). Then d is converted to int32 and stored with t.
//
// Registers: SI jll, BX 8n (bytes per class), DX K, DI dst, R8 top, CX 8·rows, R10 8i (the block's first
// row), R11 the class's scores of the block, R12 classes left; Y10-Y12 scratch.
TEXT ·argmaxAVX2(SB), NOSPLIT, $0-48
	MOVQ jll+0(FP), SI
	MOVQ n+8(FP), BX
	SHLQ $3, BX
	MOVQ K+16(FP), DX
	MOVQ dst+24(FP), DI
	MOVQ top+32(FP), R8
	MOVQ rows+40(FP), CX
	SHLQ $3, CX
	MOVQ $0x3ff0000000000000, AX
	MOVQ AX, X9
	VBROADCASTSD X9, Y9
	XORQ R10, R10

block:
	CMPQ R10, CX
	JGE  done
	VMOVUPD 0(SI)(R10*1), Y0
	VMOVUPD 32(SI)(R10*1), Y1
	VMOVUPD 64(SI)(R10*1), Y2
	VMOVUPD 96(SI)(R10*1), Y3
	VXORPD Y4, Y4, Y4
	VXORPD Y5, Y5, Y5
	VXORPD Y6, Y6, Y6
	VXORPD Y7, Y7, Y7
	VXORPD Y8, Y8, Y8
	LEAQ   (SI)(R10*1), R11
	MOVQ   DX, R12

class:
	DECQ   R12
	JLE    store
	ADDQ   BX, R11
	VADDPD Y9, Y8, Y8
	VMOVUPD 0(R11), Y10
	VCMPPD $0x1e, Y0, Y10, Y11
	VBLENDVPD Y11, Y8, Y4, Y4
	VMAXPD Y0, Y10, Y12
	VCMPPD $3, Y10, Y10, Y11
	VBLENDVPD Y11, Y10, Y12, Y0
	VMOVUPD 32(R11), Y10
	VCMPPD $0x1e, Y1, Y10, Y11
	VBLENDVPD Y11, Y8, Y5, Y5
	VMAXPD Y1, Y10, Y12
	VCMPPD $3, Y10, Y10, Y11
	VBLENDVPD Y11, Y10, Y12, Y1
	VMOVUPD 64(R11), Y10
	VCMPPD $0x1e, Y2, Y10, Y11
	VBLENDVPD Y11, Y8, Y6, Y6
	VMAXPD Y2, Y10, Y12
	VCMPPD $3, Y10, Y10, Y11
	VBLENDVPD Y11, Y10, Y12, Y2
	VMOVUPD 96(R11), Y10
	VCMPPD $0x1e, Y3, Y10, Y11
	VBLENDVPD Y11, Y8, Y7, Y7
	VMAXPD Y3, Y10, Y12
	VCMPPD $3, Y10, Y10, Y11
	VBLENDVPD Y11, Y10, Y12, Y3
	JMP class

store:
	MOVQ R10, AX
	SHRQ $1, AX
	VCVTTPD2DQY Y4, X10
	VMOVDQU X10, 0(DI)(AX*1)
	VCVTTPD2DQY Y5, X11
	VMOVDQU X11, 16(DI)(AX*1)
	VCVTTPD2DQY Y6, X10
	VMOVDQU X10, 32(DI)(AX*1)
	VCVTTPD2DQY Y7, X11
	VMOVDQU X11, 48(DI)(AX*1)
	VMOVUPD Y0, 0(R8)(R10*1)
	VMOVUPD Y1, 32(R8)(R10*1)
	VMOVUPD Y2, 64(R8)(R10*1)
	VMOVUPD Y3, 96(R8)(R10*1)
	ADDQ $128, R10
	JMP  block

done:
	VZEROUPPER
	RET
