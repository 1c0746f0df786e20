//go:build !purego

#include "textflag.h"

// func int32sToFloatsAVX2(dst *float64, src *int32, n int)
//
// Sixteen values per step: four VCVTDQ2PD of four int32 (16 bytes) each into four float64 (32 bytes).
// Registers: DI dst, SI src, CX n, AX i.
TEXT ·int32sToFloatsAVX2(SB), NOSPLIT, $0-24
	MOVQ dst+0(FP), DI
	MOVQ src+8(FP), SI
	MOVQ n+16(FP), CX
	XORQ AX, AX

loop:
	CMPQ      AX, CX
	JGE       done
	VCVTDQ2PD 0(SI)(AX*4), Y0
	VCVTDQ2PD 16(SI)(AX*4), Y1
	VCVTDQ2PD 32(SI)(AX*4), Y2
	VCVTDQ2PD 48(SI)(AX*4), Y3
	VMOVUPD   Y0, 0(DI)(AX*8)
	VMOVUPD   Y1, 32(DI)(AX*8)
	VMOVUPD   Y2, 64(DI)(AX*8)
	VMOVUPD   Y3, 96(DI)(AX*8)
	ADDQ      $16, AX
	JMP       loop

done:
	VZEROUPPER
	RET
