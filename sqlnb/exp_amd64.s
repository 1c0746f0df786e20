//go:build !purego

#include "textflag.h"

// Tang's exponential (exp.go: expReduce, expRebuild) four lanes at a time, for expShiftedAVX2,
// posteriorsTwoAVX2 and expSumsAVX2. Each lane goes through exactly expShiftedGo's IEEE operations in the
// same order, each rounded on its own (VMULPD, VADDPD, VSUBPD, VDIVPD; never an FMA), the table entries read
// by lane and k<<45 added on 64-bit integer lanes, so that every result has the scalar code's bits. A group
// of four with a lane outside the fast range (above 0, NaN, or in [expUnderflow, expFastMin)) is left to the
// Go code: the kernels return where they stopped.
//
// Registers: Y15..Y12 the constants of expReduce, Y7 the offset mask, R12 &expVec (the other constants,
// 32 bytes each: expVec's order), R14 &expPair; EXPRANGE and EXP use Y0..Y6, R8..R10 and R13; Y8..Y11 are
// left to the kernels (X15 and R14 may be clobbered: the Go code restores them after a call to assembly).

// EXPCONSTS loads the constants.
#define EXPCONSTS \
	LEAQ    ·expVec(SB), R12; \
	VMOVUPD 0(R12), Y15 /* 128/ln2 */; \
	VMOVUPD 32(R12), Y14 /* 1.5·2⁵² */; \
	VMOVUPD 64(R12), Y13 /* ln2/128, high part */; \
	VMOVUPD 96(R12), Y12 /* ln2/128, low part */; \
	VMOVDQU 384(R12), Y7 /* 127·16 */; \
	LEAQ    ·expPair(SB), R14

// EXPRANGE sets R10's low four bits for the lanes of x (Y0) that the kernel computes: expFastMin ≤ x ≤ 0
// (the fast path, as expShiftedGo tests it: false for NaN), or x < expUnderflow (e^x is 0, as expSlow
// returns); Y6 is the mask of the latter.
#define EXPRANGE \
	VXORPD    Y5, Y5, Y5; \
	VCMPPD    $2, Y5, Y0, Y5 /* x ≤ 0 (LE_OS) */; \
	VCMPPD    $13, 256(R12), Y0, Y6 /* x ≥ expFastMin (GE_OS) */; \
	VANDPD    Y6, Y5, Y5; \
	VCMPPD    $1, 288(R12), Y0, Y6 /* x < expUnderflow (LT_OS) */; \
	VORPD     Y6, Y5, Y5; \
	VMOVMSKPD Y5, R10

// EXP sets Y1 = e^x for x in Y0 (lanes of Y6 set: 0), as expRebuild(expReduce(x)); clobbers Y0..Y5, R8..R10
// and R13. A lane's table entry and tail are one 16-byte load from expPair.
#define EXP \
	VMULPD       Y15, Y0, Y1 /* x·128/ln2 */; \
	VADDPD       Y14, Y1, Y1 /* z = x·128/ln2 + 1.5·2⁵²: k in its low bits */; \
	VSUBPD       Y14, Y1, Y2 /* kd = z − 1.5·2⁵² */; \
	VMULPD       Y13, Y2, Y3 /* kd·hi */; \
	VSUBPD       Y3, Y0, Y3 /* x − kd·hi */; \
	VMULPD       Y12, Y2, Y2 /* kd·lo */; \
	VSUBPD       Y2, Y3, Y4 /* r = (x − kd·hi) − kd·lo */; \
	VPSLLQ       $4, Y1, Y2; \
	VPAND        Y7, Y2, Y2 /* 16j, j = k mod 128: where each lane's entry starts in expPair */; \
	VMOVQ        X2, R8; \
	VPEXTRQ      $1, X2, R9; \
	VEXTRACTI128 $1, Y2, X2; \
	VMOVQ        X2, R10; \
	VPEXTRQ      $1, X2, R13; \
	VMOVDQU      (R14)(R8*1), X3; \
	VINSERTI128  $1, (R14)(R10*1), Y3, Y3 /* lanes 0 and 2: entry, tail */; \
	VMOVDQU      (R14)(R9*1), X5; \
	VINSERTI128  $1, (R14)(R13*1), Y5, Y5 /* lanes 1 and 3 */; \
	VPUNPCKLQDQ  Y5, Y3, Y2 /* expTable[j] */; \
	VPUNPCKHQDQ  Y5, Y3, Y0 /* expTail[j] */; \
	VPSLLQ       $45, Y1, Y1; \
	VPADDQ       Y1, Y2, Y3 /* scale = expTable[j] + k<<45 */; \
	VADDPD       Y4, Y0, Y1 /* tail + r */; \
	VMULPD       Y4, Y4, Y2 /* r2 = r·r */; \
	VMULPD       128(R12), Y4, Y5 /* r·(1/6) */; \
	VADDPD       160(R12), Y5, Y5 /* 0.5 + r·(1/6) */; \
	VMULPD       Y5, Y2, Y5 /* r2·(0.5 + r·(1/6)) */; \
	VADDPD       Y5, Y1, Y1 /* (tail + r) + r2·(…) */; \
	VMULPD       192(R12), Y4, Y0 /* r·(1/120) */; \
	VADDPD       224(R12), Y0, Y0 /* 1/24 + r·(1/120) */; \
	VMULPD       Y2, Y2, Y2 /* r2·r2 */; \
	VMULPD       Y0, Y2, Y0 /* (r2·r2)·(1/24 + r·(1/120)) */; \
	VADDPD       Y0, Y1, Y1 /* p */; \
	VMULPD       Y1, Y3, Y1 /* scale·p */; \
	VADDPD       Y1, Y3, Y1 /* scale + scale·p */; \
	VANDNPD      Y1, Y6, Y1 /* 0 below expUnderflow */

// STORE4 writes the lanes of Y1 to (DI), (DI)(CX), (DI)(2CX), (DI)(3CX); clobbers X2 and R10.
#define STORE4 \
	VMOVSD       X1, (DI); \
	VMOVHPD      X1, (DI)(CX*1); \
	LEAQ         (DI)(CX*2), R10; \
	VEXTRACTF128 $1, Y1, X2; \
	VMOVSD       X2, (R10); \
	VMOVHPD      X2, (R10)(CX*1)

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
	STORE4
	LEAQ    (DI)(CX*4), DI
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
	LEAQ      4(AX), R11
	CMPQ      R11, BX
	JGT       done2
	VMOVUPD   (DX)(AX*8), Y0
	VSUBPD    (SI)(AX*8), Y0, Y0 // d
	VORPD     352(R12), Y0, Y0   // e = −|d|
	EXPRANGE
	CMPQ      R10, $15
	JNE       done2
	EXP
	VMOVUPD   320(R12), Y2       // 1
	VADDPD    Y1, Y2, Y3         // 1 + e
	VDIVPD    Y3, Y2, Y3         // inv = 1/(1 + e)
	VMULPD    Y3, Y1, Y4         // e·inv
	VMOVUPD   (DX)(AX*8), Y2
	VSUBPD    (SI)(AX*8), Y2, Y2 // d again
	VXORPD    Y5, Y5, Y5
	VCMPPD    $1, Y2, Y5, Y2     // 0 < d: class 1 has the larger score
	VBLENDVPD Y2, Y4, Y3, Y5     // class 0
	VBLENDVPD Y2, Y3, Y4, Y6     // class 1
	VUNPCKLPD Y6, Y5, Y0         // rows i, i+2
	VUNPCKHPD Y6, Y5, Y1         // rows i+1, i+3
	VMOVUPD   X0, (DI)
	VMOVUPD   X1, 16(DI)
	VEXTRACTF128 $1, Y0, 32(DI)
	VEXTRACTF128 $1, Y1, 48(DI)
	ADDQ      $64, DI
	MOVQ      R11, AX
	JMP       loop2

done2:
	MOVQ AX, ret+32(FP)
	VZEROUPPER
	RET

// func expSumsAVX2(jll *float64, n, K, rows int, dst, sum *float64) int
//
// Per group of four rows at i (jll points at row 0 of class 0, the classes n apart): B = max_c b_c by
// VMAXPD, then per class c: e = e^(b_c − B) to dst[(i..i+3)·K + c] and S += e (from 0, in class order, as
// rowSum); S to sum[i..i+3]. B is Go's max (expShiftedBlock) but in two cases, where the results are still
// the same: a NaN score (VMAXPD may drop it, but that class's b − B is NaN and the group goes to the Go
// code), and a B of zero, whose sign may differ (b − B then differs only for b = ±0: ±0, whose e^x is 1
// either way). SI &jll[i], DI &dst[i·K] (moved on by 8 per class within a group), BX 8n, CX 8K, AX i, DX
// classes left, R11 &jll[c·n + i]; Y8 B, Y9 S.
TEXT ·expSumsAVX2(SB), NOSPLIT, $0-56
	MOVQ jll+0(FP), SI
	MOVQ n+8(FP), BX
	SHLQ $3, BX
	MOVQ K+16(FP), CX
	SHLQ $3, CX
	MOVQ dst+32(FP), DI
	EXPCONSTS
	XORQ AX, AX

group:
	LEAQ    4(AX), R11
	CMPQ    R11, rows+24(FP)
	JGT     done3
	VMOVUPD (SI), Y8
	LEAQ    (SI)(BX*1), R11
	MOVQ    K+16(FP), DX
	DECQ    DX

max:
	TESTQ     DX, DX
	JEQ       exps
	VMAXPD    (R11), Y8, Y8      // max(B, b), b when they are equal or one is NaN
	ADDQ      BX, R11
	DECQ      DX
	JMP       max

exps:
	VXORPD Y9, Y9, Y9
	MOVQ   SI, R11
	MOVQ   K+16(FP), DX

class:
	VMOVUPD (R11), Y0
	VSUBPD  Y8, Y0, Y0           // b_c − B
	EXPRANGE
	CMPQ    R10, $15
	JNE     done3
	EXP
	STORE4
	VADDPD  Y1, Y9, Y9           // S += e
	ADDQ    BX, R11
	ADDQ    $8, DI
	DECQ    DX
	JNE     class
	SUBQ    CX, DI               // back to class 0
	MOVQ    sum+40(FP), R10
	VMOVUPD Y9, (R10)(AX*8)
	LEAQ    (DI)(CX*4), DI
	ADDQ    $32, SI
	ADDQ    $4, AX
	JMP     group

done3:
	MOVQ AX, ret+48(FP)
	VZEROUPPER
	RET

// func scaleRowsAVX2(dst *float64, K int, sum *float64, n int)
//
// For each row i < n: inv = 1/sum[i] (VDIVSD), then dst[i·K + c] *= inv for c < K, four at a time (VMULPD by
// inv broadcast) and the last K mod 4 one at a time (VMULSD): Posteriors' scaling, the same operations with
// the same operand order (which of two NaNs a product returns depends on it).
// DI &dst[i·K + c], BX K, SI &sum[i], CX rows left, DX classes left, X7 1.0, Y0 inv.
TEXT ·scaleRowsAVX2(SB), NOSPLIT, $0-32
	MOVQ dst+0(FP), DI
	MOVQ K+8(FP), BX
	MOVQ sum+16(FP), SI
	MOVQ n+24(FP), CX
	MOVQ $0x3FF0000000000000, AX
	MOVQ AX, X7

scalerow:
	TESTQ        CX, CX
	JEQ          scaledone
	VDIVSD       (SI), X7, X0        // 1/sum[i]
	VBROADCASTSD X0, Y0
	MOVQ         BX, DX

scalequad:
	CMPQ    DX, $4
	JLT     scaleone
	VMOVUPD (DI), Y1
	VMULPD  Y0, Y1, Y1           // row·inv: the row's value first, as Go's x *= inv (which NaN comes out)
	VMOVUPD Y1, (DI)
	ADDQ    $32, DI
	SUBQ    $4, DX
	JMP     scalequad

scaleone:
	TESTQ  DX, DX
	JEQ    scalenext
	VMOVSD (DI), X1
	VMULSD X0, X1, X1
	VMOVSD X1, (DI)
	ADDQ   $8, DI
	DECQ   DX
	JMP    scaleone

scalenext:
	ADDQ $8, SI
	DECQ CX
	JMP  scalerow

scaledone:
	VZEROUPPER
	RET
