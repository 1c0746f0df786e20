//go:build !purego

#include "textflag.h"

// The exponential of exp.go (expReduce, expRebuild) four lanes at a time, for expShiftedAVX2,
// posteriorsTwoAVX2, expSumsAVX2 and posteriorsAVX2. Each lane goes through exactly the Go code's IEEE
// operations in the same order: the products and sums Go rounds on their own rounded on their own (VMULPD,
// VADDPD, VSUBPD, VMAXPD for max), each math.FMA one VFMADD/VFMSUB/VFNMADD (a single rounding, as math.FMA),
// and 2^(k+64) built on 64-bit integer lanes, so that every result has the scalar code's bits. EXP takes
// every x ≤ 0; a group of four with a lane above 0 or NaN is left to the Go code (math.Exp): the kernels
// return where they stopped.
//
// Registers: Y7 1.0, R12 &expVec (the other constants, 32 bytes each: expVec's order, read as operands);
// EXPRANGE and EXP use Y0..Y5, Y12..Y14 and R10, Y6 holds expClamp; Y8..Y11 are left to the kernels.

// EXPCONSTS loads the constants.
#define EXPCONSTS \
	LEAQ    ·expVec(SB), R12; \
	VMOVUPD 448(R12), Y7 /* 1 */; \
	VMOVUPD 480(R12), Y6 /* expClamp */

// EXPRANGE sets R10's low four bits for the lanes of x (Y0) that EXP computes: x ≤ 0 (as expNonPositive
// tests it: false for NaN); clobbers Y5.
#define EXPRANGE \
	VXORPD    Y5, Y5, Y5; \
	VCMPPD    $2, Y5, Y0, Y5 /* x ≤ 0 (LE_OS) */; \
	VMOVMSKPD Y5, R10

// EXP sets Y1 = e^x for x ≤ 0 in Y0, as expRebuild(expReduce(x)), the same operations
// (Estrin's scheme: Y12 collects P, Y13 and Y14 the pairs); clobbers Y0..Y5 and Y12..Y14. expVec holds
// c2 … c11 at 128, 160, … 416.
#define EXP \
	VMAXPD       Y0, Y6, Y0 /* max(x, expClamp), x if NaN */; \
	VMOVUPD      32(R12), Y1; \
	VFMADD231PD  0(R12), Y0, Y1 /* z = x·(1/ln2) + 1.5·2⁵²: k in its low bits */; \
	VSUBPD       32(R12), Y1, Y2 /* kd = z − 1.5·2⁵² */; \
	VFNMADD231PD 64(R12), Y2, Y0 /* rh = x − kd·hi */; \
	VMULPD       96(R12), Y2, Y2 /* kl = kd·lo */; \
	VSUBPD       Y2, Y0, Y3 /* r = rh − kl */; \
	VADDPD       Y7, Y0, Y5 /* h = 1 + rh */; \
	VSUBPD       Y5, Y7, Y4 /* 1 − h */; \
	VADDPD       Y0, Y4, Y4 /* e = (1 − h) + rh */; \
	VSUBPD       Y2, Y4, Y0 /* e − kl */; \
	VMULPD       Y3, Y3, Y4 /* r² */; \
	VMULPD       Y4, Y4, Y2 /* r⁴ */; \
	VMOVUPD      160(R12), Y12; \
	VFMADD213PD  128(R12), Y3, Y12 /* q0 = c3·r + c2 */; \
	VMOVUPD      224(R12), Y13; \
	VFMADD213PD  192(R12), Y3, Y13 /* q1 = c5·r + c4 */; \
	VFMADD231PD  Y13, Y4, Y12 /* s0 = q1·r² + q0 */; \
	VMOVUPD      288(R12), Y13; \
	VFMADD213PD  256(R12), Y3, Y13 /* q2 = c7·r + c6 */; \
	VMOVUPD      352(R12), Y14; \
	VFMADD213PD  320(R12), Y3, Y14 /* q3 = c9·r + c8 */; \
	VFMADD231PD  Y14, Y4, Y13 /* s1 = q3·r² + q2 */; \
	VMOVUPD      416(R12), Y14; \
	VFMADD213PD  384(R12), Y3, Y14 /* q4 = c11·r + c10 */; \
	VFMADD231PD  Y14, Y2, Y13 /* q4·r⁴ + s1 */; \
	VFMADD231PD  Y13, Y2, Y12 /* P = (q4·r⁴ + s1)·r⁴ + s0 */; \
	VFMADD213PD  Y0, Y4, Y12 /* r²·P + (e − kl) */; \
	VADDPD       Y12, Y5, Y3 /* p = h + (r²·P + (e − kl)) */; \
	VPSLLQ       $52, Y1, Y1 /* k<<52 */; \
	VPADDQ       576(R12), Y1, Y1 /* 2^(k+64) */; \
	VMULPD       Y1, Y3, Y1 /* p · 2^(k+64) */; \
	VMULPD       512(R12), Y1, Y1 /* · 2⁻⁶⁴ */

// JLLARGS loads the arguments expSumsAVX2 and posteriorsAVX2 share (jll, n, K, rows, dst first, in that
// order): SI jll, BX 8n, CX 8K, DI dst.
#define JLLARGS \
	MOVQ jll+0(FP), SI; \
	MOVQ n+8(FP), BX; \
	SHLQ $3, BX; \
	MOVQ K+16(FP), CX; \
	SHLQ $3, CX; \
	MOVQ dst+32(FP), DI

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
	VORPD     544(R12), Y0, Y0   // e = −|d|
	EXPRANGE
	VMOVUPD   (SI)(AX*8), Y1
	VMAXPD    (DX)(AX*8), Y1, Y1 // max(b0, b1)
	VCMPPD    $4, 608(R12), Y1, Y1 // ≠ +∞ (NEQ_UQ): a +∞ score's row goes to the Go code, which gives NaN
	VMOVMSKPD Y1, R13
	ANDQ      R13, R10
	CMPQ      R10, $15
	JNE       done2
	EXP
	VMOVUPD   Y7, Y2             // 1
	VADDPD    Y1, Y2, Y3         // 1 + e
	VDIVPD    Y3, Y2, Y3         // inv = 1/(1 + e)
	VMULPD    Y3, Y1, Y4         // e·inv
	VMOVUPD   (DX)(AX*8), Y2
	VSUBPD    (SI)(AX*8), Y2, Y2 // d again
	VXORPD    Y5, Y5, Y5
	VCMPPD    $1, Y2, Y5, Y2     // 0 < d: class 1 has the larger score
	VBLENDVPD Y2, Y4, Y3, Y5     // class 0
	VBLENDVPD Y2, Y3, Y4, Y8     // class 1
	VUNPCKLPD Y8, Y5, Y0         // rows i, i+2
	VUNPCKHPD Y8, Y5, Y1         // rows i+1, i+3
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
	JLLARGS
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

// TRANSPOSE4 sets Y4, Y5, Y12, Y13 to the rows of the 4×4 block whose columns are Y0..Y3 (row r: lane r
// of Y0, Y1, Y2, Y3); clobbers Y0..Y3.
#define TRANSPOSE4 \
	VUNPCKLPD  Y1, Y0, Y4 /* Y0[0] Y1[0] Y0[2] Y1[2] */; \
	VUNPCKHPD  Y1, Y0, Y5 /* Y0[1] Y1[1] Y0[3] Y1[3] */; \
	VUNPCKLPD  Y3, Y2, Y0; \
	VUNPCKHPD  Y3, Y2, Y1; \
	VPERM2F128 $0x20, Y0, Y4, Y2 /* row 0 */; \
	VPERM2F128 $0x20, Y1, Y5, Y3 /* row 1 */; \
	VPERM2F128 $0x31, Y0, Y4, Y12 /* row 2 */; \
	VPERM2F128 $0x31, Y1, Y5, Y13 /* row 3 */; \
	VMOVAPD    Y2, Y4; \
	VMOVAPD    Y3, Y5

// STORELANES writes the four lanes of a YMM register y (x its low half) to (R13), (R13)(CX), … three CX on,
// and leaves R13 four CX on; clobbers X2.
#define STORELANES(y, x) \
	VMOVSD       x, (R13); \
	VMOVHPD      x, (R13)(CX*1); \
	LEAQ         (R13)(CX*2), R13; \
	VEXTRACTF128 $1, y, X2; \
	VMOVSD       X2, (R13); \
	VMOVHPD      X2, (R13)(CX*1); \
	LEAQ         (R13)(CX*2), R13

// func posteriorsAVX2(jll *float64, n, K, rows int, dst, scratch, mx, sum *float64) int
//
// Posteriors (expSumsGo, then scaleRows) eight rows at a time, two groups of four lanes, with the same IEEE
// operations per row in the same order, so the same bits. Per group of eight rows at i (jll points at row 0
// of class 0, the classes n apart):
//   - the scores are copied to scratch (class-major, eight a class: the exponentials then read lines that
//     stay in the L1 cache, where the K rows of jll, 8n bytes apart, share a cache set) and B = max_c b_c
//     is taken by VMAXPD, as expSumsAVX2 does;
//   - per class c: e = e^(b_c − B) in place, and S += e (from 0, in class order, as rowSum);
//   - inv = 1/S (VDIVPD, as scaleRows' 1/sum), and each row's posteriors e·inv (the value first, as Go's
//     x *= inv) go to dst[row·K + c]: four classes of four rows at a time transposed in registers (a
//     32-byte store a row), the last K mod 4 classes a value at a time.
// The differences b_c − B are ≤ 0 but where one is NaN (a NaN score, or B infinite): its e, and so S, is
// NaN then (EXP passes NaN on), and such a group is left, with dst untouched, to the Go code (which gives
// math.Exp's NaN): the kernel returns the rows it wrote, a multiple of eight. scratch holds 8K values.
// With dst nil (LogEvidences) each group's B and S go to mx[i..i+7] and sum[i..i+7] instead, and there is no
// division.
// SI &jll[i], BX 8n, CX 8K, DI &dst[i·K], R8 scratch, AX i, DX classes left, R9 and R11 pointers within a
// group, R13 a row address; Y8, Y9 B; Y10, Y11 S, then inv (rows i..i+3, i+4..i+7).
TEXT ·posteriorsAVX2(SB), NOSPLIT, $0-72
	JLLARGS
	MOVQ scratch+40(FP), R8
	EXPCONSTS
	XORQ AX, AX

pgroup:
	LEAQ    8(AX), R13
	CMPQ    R13, rows+24(FP)
	JGT     pdone
	VMOVUPD (SI), Y8
	VMOVUPD 32(SI), Y9
	VMOVUPD Y8, (R8)
	VMOVUPD Y9, 32(R8)
	LEAQ    (SI)(BX*1), R9
	LEAQ    64(R8), R11
	MOVQ    K+16(FP), DX
	DECQ    DX

pmax:
	TESTQ   DX, DX
	JEQ     pexps
	VMOVUPD (R9), Y0
	VMOVUPD 32(R9), Y1
	VMOVUPD Y0, (R11)
	VMOVUPD Y1, 32(R11)
	VMAXPD  Y0, Y8, Y8           // max(B, b), b when they are equal or one is NaN
	VMAXPD  Y1, Y9, Y9
	ADDQ    BX, R9
	ADDQ    $64, R11
	DECQ    DX
	JMP     pmax

pexps:
	VXORPD Y10, Y10, Y10
	VXORPD Y11, Y11, Y11
	MOVQ   R8, R11
	MOVQ   K+16(FP), DX

pclass:
	VMOVUPD (R11), Y0
	VSUBPD  Y8, Y0, Y0           // b_c − B, rows i..i+3: ≤ 0, or NaN
	EXP
	VMOVUPD Y1, (R11)
	VADDPD  Y1, Y10, Y10         // S += e
	VMOVUPD 32(R11), Y0
	VSUBPD  Y9, Y0, Y0           // rows i+4..i+7
	EXP
	VMOVUPD Y1, 32(R11)
	VADDPD  Y1, Y11, Y11
	ADDQ    $64, R11
	DECQ    DX
	JNE     pclass
	VCMPPD    $3, Y11, Y10, Y0   // a NaN sum (UNORD_Q): some b_c − B was NaN
	VMOVMSKPD Y0, R10
	TESTQ     R10, R10
	JNE       pdone
	TESTQ     DI, DI
	JNE       pscale
	MOVQ      mx+48(FP), R10     // dst nil: B and S
	VMOVUPD   Y8, (R10)(AX*8)
	VMOVUPD   Y9, 32(R10)(AX*8)
	MOVQ      sum+56(FP), R10
	VMOVUPD   Y10, (R10)(AX*8)
	VMOVUPD   Y11, 32(R10)(AX*8)
	ADDQ      $64, SI            // DI stays nil
	ADDQ      $8, AX
	JMP       pgroup

pscale:
	VDIVPD  Y10, Y7, Y10         // inv = 1/S
	VDIVPD  Y11, Y7, Y11
	MOVQ    R8, R11
	MOVQ    DI, R9
	MOVQ    K+16(FP), DX

pquad:
	CMPQ         DX, $4
	JLT          pone
	VMOVUPD      (R11), Y0        // classes c..c+3, rows i..i+3
	VMOVUPD      64(R11), Y1
	VMOVUPD      128(R11), Y2
	VMOVUPD      192(R11), Y3
	VMULPD       Y10, Y0, Y0      // e·inv
	VMULPD       Y10, Y1, Y1
	VMULPD       Y10, Y2, Y2
	VMULPD       Y10, Y3, Y3
	TRANSPOSE4
	VMOVUPD      Y4, (R9)
	VMOVUPD      Y5, (R9)(CX*1)
	LEAQ         (R9)(CX*2), R13
	VMOVUPD      Y12, (R13)
	VMOVUPD      Y13, (R13)(CX*1)
	VMOVUPD      32(R11), Y0      // rows i+4..i+7
	VMOVUPD      96(R11), Y1
	VMOVUPD      160(R11), Y2
	VMOVUPD      224(R11), Y3
	VMULPD       Y11, Y0, Y0
	VMULPD       Y11, Y1, Y1
	VMULPD       Y11, Y2, Y2
	VMULPD       Y11, Y3, Y3
	TRANSPOSE4
	LEAQ         (R13)(CX*2), R13
	VMOVUPD      Y4, (R13)
	VMOVUPD      Y5, (R13)(CX*1)
	LEAQ         (R13)(CX*2), R13
	VMOVUPD      Y12, (R13)
	VMOVUPD      Y13, (R13)(CX*1)
	ADDQ         $256, R11
	ADDQ         $32, R9
	SUBQ         $4, DX
	JMP          pquad

pone:
	TESTQ        DX, DX
	JEQ          pnext
	VMOVUPD      (R11), Y0
	VMULPD       Y10, Y0, Y0
	VMOVUPD      32(R11), Y1
	VMULPD       Y11, Y1, Y1
	MOVQ         R9, R13
	STORELANES(Y0, X0)
	STORELANES(Y1, X1)
	ADDQ         $64, R11
	ADDQ         $8, R9
	DECQ         DX
	JMP          pone

pnext:
	ADDQ $64, SI
	LEAQ (DI)(CX*8), DI
	ADDQ $8, AX
	JMP  pgroup

pdone:
	MOVQ AX, ret+64(FP)
	VZEROUPPER
	RET
