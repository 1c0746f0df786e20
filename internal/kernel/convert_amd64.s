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
// t = x + 2⁵¹ must be in [0, 2⁵²) for each lane (t's top twelve bits zero), else stop; then the bits of
// 1.5·2⁵² plus x are the double 1.5·2⁵² + x, and subtracting 1.5·2⁵² leaves x exactly. Sixteen values per
// step while sixteen are left (one test of the four vectors' t ORed together), then four; a step with a
// value out of range is redone four at a time, and the kernel stops at the group of four that holds it.
// Registers: DI dst, SI src, CX n, AX i, DX n rounded down to sixteen; Y1 2⁵¹, Y2 the bits of 1.5·2⁵², Y4
// the top twelve bits.
TEXT ·int64sToFloatsAVX2(SB), NOSPLIT, $0-32
	MOVQ         dst+0(FP), DI
	MOVQ         src+8(FP), SI
	MOVQ         n+16(FP), CX
	MOVQ         CX, DX
	ANDQ         $-16, DX
	XORQ         AX, AX
	MOVQ         $0x0008000000000000, BX
	MOVQ         BX, X1
	VPBROADCASTQ X1, Y1
	MOVQ         $0x4338000000000000, BX
	MOVQ         BX, X2
	VPBROADCASTQ X2, Y2
	MOVQ         $0xfff0000000000000, BX
	MOVQ         BX, X4
	VPBROADCASTQ X4, Y4

loop16:
	CMPQ    AX, DX
	JGE     loop64
	VMOVDQU 0(SI)(AX*8), Y0
	VMOVDQU 32(SI)(AX*8), Y5
	VMOVDQU 64(SI)(AX*8), Y6
	VMOVDQU 96(SI)(AX*8), Y7
	VPADDQ  Y1, Y0, Y8
	VPADDQ  Y1, Y5, Y9
	VPADDQ  Y1, Y6, Y10
	VPADDQ  Y1, Y7, Y11
	VPOR    Y8, Y9, Y8
	VPOR    Y10, Y11, Y10
	VPOR    Y8, Y10, Y8
	VPTEST  Y4, Y8
	JNZ     loop64
	VPADDQ  Y2, Y0, Y0
	VPADDQ  Y2, Y5, Y5
	VPADDQ  Y2, Y6, Y6
	VPADDQ  Y2, Y7, Y7
	VSUBPD  Y2, Y0, Y0
	VSUBPD  Y2, Y5, Y5
	VSUBPD  Y2, Y6, Y6
	VSUBPD  Y2, Y7, Y7
	VMOVUPD Y0, 0(DI)(AX*8)
	VMOVUPD Y5, 32(DI)(AX*8)
	VMOVUPD Y6, 64(DI)(AX*8)
	VMOVUPD Y7, 96(DI)(AX*8)
	ADDQ    $16, AX
	JMP     loop16

loop64:
	CMPQ    AX, CX
	JGE     done64
	VMOVDQU 0(SI)(AX*8), Y0
	VPADDQ  Y1, Y0, Y3
	VPTEST  Y4, Y3
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
