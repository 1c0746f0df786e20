//go:build !purego

#include "textflag.h"

// func allFiniteAVX2(x *float64, n int) bool
//
// Y0-Y3 accumulate the OR of x - x over sixteen values per step; the result is true when their OR is all
// zero bits (VPTEST). Registers: SI x, CX n, AX i.
TEXT ·allFiniteAVX2(SB), NOSPLIT, $0-17
	MOVQ   x+0(FP), SI
	MOVQ   n+8(FP), CX
	XORQ   AX, AX
	VXORPD Y0, Y0, Y0
	VXORPD Y1, Y1, Y1
	VXORPD Y2, Y2, Y2
	VXORPD Y3, Y3, Y3

loop:
	CMPQ    AX, CX
	JGE     done
	VMOVUPD 0(SI)(AX*8), Y4
	VMOVUPD 32(SI)(AX*8), Y5
	VMOVUPD 64(SI)(AX*8), Y6
	VMOVUPD 96(SI)(AX*8), Y7
	VSUBPD  Y4, Y4, Y4
	VSUBPD  Y5, Y5, Y5
	VSUBPD  Y6, Y6, Y6
	VSUBPD  Y7, Y7, Y7
	VORPD   Y4, Y0, Y0
	VORPD   Y5, Y1, Y1
	VORPD   Y6, Y2, Y2
	VORPD   Y7, Y3, Y3
	ADDQ    $16, AX
	JMP     loop

done:
	VORPD  Y1, Y0, Y0
	VORPD  Y3, Y2, Y2
	VORPD  Y2, Y0, Y0
	VPTEST Y0, Y0
	SETEQ  ret+16(FP)
	VZEROUPPER
	RET
