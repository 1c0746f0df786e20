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

// func int64sToFloatsAVX2(dst *float64, src *int64, n int) int
//
// Four values per step: t = x + 2⁵¹ must be in [0, 2⁵²) for each lane (t >> 52 zero, as unsigned), else
// stop; then the bits of 1.5·2⁵² plus x are the double 1.5·2⁵² + x, and subtracting 1.5·2⁵² leaves x exactly.
// Registers: DI dst, SI src, CX n, AX i; Y1 2⁵¹, Y2 the bits of 1.5·2⁵².
TEXT ·int64sToFloatsAVX2(SB), NOSPLIT, $0-32
	MOVQ         dst+0(FP), DI
	MOVQ         src+8(FP), SI
	MOVQ         n+16(FP), CX
	XORQ         AX, AX
	MOVQ         $0x0008000000000000, BX
	MOVQ         BX, X1
	VPBROADCASTQ X1, Y1
	MOVQ         $0x4338000000000000, BX
	MOVQ         BX, X2
	VPBROADCASTQ X2, Y2

loop64:
	CMPQ    AX, CX
	JGE     done64
	VMOVDQU 0(SI)(AX*8), Y0
	VPADDQ  Y1, Y0, Y3
	VPSRLQ  $52, Y3, Y3
	VPTEST  Y3, Y3
	JNZ     done64
	VPADDQ  Y2, Y0, Y0
	VSUBPD  Y2, Y0, Y0
	VMOVUPD Y0, 0(DI)(AX*8)
	ADDQ    $4, AX
	JMP     loop64

done64:
	MOVQ AX, ret+24(FP)
	VZEROUPPER
	RET
