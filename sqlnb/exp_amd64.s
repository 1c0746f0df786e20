//go:build !purego

#include "textflag.h"

// Tang's exponential (exp.go: expReduce, expRebuild) four lanes at a time, for expShiftedAVX2 and
// posteriorsTwoAVX2. Each lane goes through exactly expShiftedGo's IEEE operations in the same order, each
// rounded on its own (VMULPD, VADDPD, VSUBPD, VDIVPD; never an FMA), the table lookups by VPGATHERQQ and
// k<<45 added on 64-bit integer lanes, so that every result has the scalar code's bits. A group of four with
// a lane outside the fast range (above 0, NaN, or in [expUnderflow, expFastMin)) is left to the Go code: the
// kernels return where they stopped.
//
// Registers: Y15..Y8 the constants (EXPCONSTS), Y7 the mask 127 (j = k mod 128), Y0..Y6 scratch; R12
// &expVec, R8 and R9 the tables.

// EXPCONSTS broadcasts expVec's constants and the mask 127.
#define EXPCONSTS \
	LEAQ         ·expVec(SB), R12; \
	VBROADCASTSD 0(R12), Y15 /* 128/ln2 */; \
	VBROADCASTSD 8(R12), Y14 /* 1.5·2⁵² */; \
	VBROADCASTSD 16(R12), Y13 /* ln2/128, high part */; \
	VBROADCASTSD 24(R12), Y12 /* ln2/128, low part */; \
	VBROADCASTSD 32(R12), Y11 /* 1/6 */; \
	VBROADCASTSD 40(R12), Y10 /* 1/2 */; \
	VBROADCASTSD 48(R12), Y9 /* 1/120 */; \
	VBROADCASTSD 56(R12), Y8 /* 1/24 */; \
	MOVQ         $127, R8; \
	VMOVQ        R8, X7; \
	VPBROADCASTQ X7, Y7; \
	LEAQ         ·expTable(SB), R8; \
	LEAQ         ·expTail(SB), R9

// EXPRANGE sets R10's low four bits for the lanes of x (Y0) that the kernel computes: expFastMin ≤ x ≤ 0
// (the fast path, as expShiftedGo tests it: false for NaN), or x < expUnderflow (e^x is 0, as expSlow
// returns); Y6 is the mask of the latter.
#define EXPRANGE \
	VXORPD       Y5, Y5, Y5; \
	VCMPPD       $2, Y5, Y0, Y5 /* x ≤ 0 (LE_OS) */; \
	VBROADCASTSD 64(R12), Y6; \
	VCMPPD       $2, Y0, Y6, Y6 /* expFastMin ≤ x */; \
	VANDPD       Y6, Y5, Y5; \
	VBROADCASTSD 72(R12), Y6; \
	VCMPPD       $1, Y6, Y0, Y6 /* x < expUnderflow (LT_OS) */; \
	VORPD        Y6, Y5, Y5; \
	VMOVMSKPD    Y5, R10

// EXP sets Y1 = e^x for x in Y0 (lanes of Y6 set: 0), as expRebuild(expReduce(x)); clobbers Y0..Y5.
#define EXP \
	VMULPD     Y15, Y0, Y1 /* x·128/ln2 */; \
	VADDPD     Y14, Y1, Y1 /* z = x·128/ln2 + 1.5·2⁵²: k in its low bits */; \
	VSUBPD     Y14, Y1, Y2 /* kd = z − 1.5·2⁵² */; \
	VMULPD     Y13, Y2, Y3 /* kd·hi */; \
	VSUBPD     Y3, Y0, Y3 /* x − kd·hi */; \
	VMULPD     Y12, Y2, Y2 /* kd·lo */; \
	VSUBPD     Y2, Y3, Y4 /* r = (x − kd·hi) − kd·lo */; \
	VPAND      Y7, Y1, Y2 /* j = k mod 128 */; \
	VPCMPEQQ   Y5, Y5, Y5; \
	VPGATHERQQ Y5, (R8)(Y2*8), Y3 /* expTable[j] */; \
	VPSLLQ     $45, Y1, Y1; \
	VPADDQ     Y1, Y3, Y3 /* scale = expTable[j] + k<<45 */; \
	VPCMPEQQ   Y5, Y5, Y5; \
	VPGATHERQQ Y5, (R9)(Y2*8), Y1 /* expTail[j] */; \
	VADDPD     Y4, Y1, Y1 /* tail + r */; \
	VMULPD     Y4, Y4, Y2 /* r2 = r·r */; \
	VMULPD     Y11, Y4, Y5 /* r·(1/6) */; \
	VADDPD     Y10, Y5, Y5 /* 0.5 + r·(1/6) */; \
	VMULPD     Y5, Y2, Y5 /* r2·(0.5 + r·(1/6)) */; \
	VADDPD     Y5, Y1, Y1 /* (tail + r) + r2·(…) */; \
	VMULPD     Y9, Y4, Y0 /* r·(1/120) */; \
	VADDPD     Y8, Y0, Y0 /* 1/24 + r·(1/120) */; \
	VMULPD     Y2, Y2, Y2 /* r2·r2 */; \
	VMULPD     Y0, Y2, Y0 /* (r2·r2)·(1/24 + r·(1/120)) */; \
	VADDPD     Y0, Y1, Y1 /* p */; \
	VMULPD     Y1, Y3, Y1 /* scale·p */; \
	VADDPD     Y1, Y3, Y1 /* scale + scale·p */; \
	VANDNPD    Y1, Y6, Y1 /* 0 below expUnderflow */

// func expShiftedAVX2(dst *float64, stride int, src, shift *float64, n int) int
//
// Per group of four at i: x = src[i..i+3] − shift[i..i+3], e^x to dst[i·stride], …, dst[(i+3)·stride].
// DI &dst[i·stride], CX stride in bytes, SI src, DX shift, BX n, AX i.
TEXT ·expShiftedAVX2(SB), NOSPLIT, $0-48
	MOVQ dst+0(FP), DI
	MOVQ stride+8(FP), CX
	SHLQ $3, CX
	MOVQ src+16(FP), SI
	MOVQ shift+24(FP), DX
	MOVQ n+32(FP), BX
	EXPCONSTS
	XORQ AX, AX

loop:
	LEAQ    4(AX), R11
	CMPQ    R11, BX
	JGT     done
	VMOVUPD (SI)(AX*8), Y0
	VSUBPD  (DX)(AX*8), Y0, Y0
	EXPRANGE
	CMPQ    R10, $15
	JNE     done
	EXP
	VMOVSD  X1, (DI)
	VMOVHPD X1, (DI)(CX*1)
	LEAQ    (DI)(CX*2), DI
	VEXTRACTF128 $1, Y1, X2
	VMOVSD  X2, (DI)
	VMOVHPD X2, (DI)(CX*1)
	LEAQ    (DI)(CX*2), DI
	MOVQ    R11, AX
	JMP     loop

done:
	MOVQ AX, ret+40(FP)
	VZEROUPPER
	RET

// func posteriorsTwoAVX2(b0, b1, dst *float64, n int) int
//
// Per group of four rows at i: d = b1 − b0, e = e^(−|d|) (the sign bit set), inv = 1/(1 + e); row i's
// class 0 gets e·inv and class 1 inv if 0 < d, else class 0 inv and class 1 e·inv, written as the pairs
// dst[2i], dst[2i+1], … . SI b0, DX b1, DI &dst[2i], BX n, AX i.
TEXT ·posteriorsTwoAVX2(SB), NOSPLIT, $0-40
	MOVQ b0+0(FP), SI
	MOVQ b1+8(FP), DX
	MOVQ dst+16(FP), DI
	MOVQ n+24(FP), BX
	EXPCONSTS
	XORQ AX, AX

loop2:
	LEAQ    4(AX), R11
	CMPQ    R11, BX
	JGT     done2
	VMOVUPD (DX)(AX*8), Y0
	VSUBPD  (SI)(AX*8), Y0, Y0   // d
	VBROADCASTSD 88(R12), Y1
	VORPD   Y1, Y0, Y0           // e = −|d|
	EXPRANGE
	CMPQ    R10, $15
	JNE     done2
	EXP
	VBROADCASTSD 80(R12), Y2
	VADDPD  Y1, Y2, Y3           // 1 + e
	VDIVPD  Y3, Y2, Y3           // inv = 1/(1 + e)
	VMULPD  Y3, Y1, Y4           // e·inv
	VMOVUPD (DX)(AX*8), Y2
	VSUBPD  (SI)(AX*8), Y2, Y2   // d again
	VXORPD  Y5, Y5, Y5
	VCMPPD  $1, Y2, Y5, Y2       // 0 < d: class 1 has the larger score
	VBLENDVPD Y2, Y4, Y3, Y5     // class 0
	VBLENDVPD Y2, Y3, Y4, Y6     // class 1
	VUNPCKLPD Y6, Y5, Y0         // rows i, i+2
	VUNPCKHPD Y6, Y5, Y1         // rows i+1, i+3
	VMOVUPD X0, (DI)
	VMOVUPD X1, 16(DI)
	VEXTRACTF128 $1, Y0, 32(DI)
	VEXTRACTF128 $1, Y1, 48(DI)
	ADDQ    $64, DI
	MOVQ    R11, AX
	JMP     loop2

done2:
	MOVQ AX, ret+32(FP)
	VZEROUPPER
	RET
