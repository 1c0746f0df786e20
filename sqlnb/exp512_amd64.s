//go:build !purego

#include "textflag.h"

// posteriorsAVX512 (exp_amd64.go) is Posteriors eight rows at a time for 3 ≤ K ≤ posteriorsWide classes, a
// lane per row: expSumsAVX2's maximum, exponentials (Tang's method, as the EXP macro of exp_amd64.s) and
// class-order sums, then scaleRows' 1/Σ and products, each lane through the same IEEE operations in the same
// order as the Go code, so the same bits. The group's exponentials wait in scratch (class-major, a ZMM vector
// a class) until the sum is known; the scaled values are transposed eight classes at a time into rows and
// stored with a mask (the last K mod 8 classes): no strided stores, and no second pass over dst. A group with
// a lane outside the fast range is left to the Go code before anything of it is written.
//
// A lane's table entry and tail are one 16-byte load from expPair at an offset moved to a general register:
// two VGATHERQPD per class took ~42% of the kernel's time on the AMD EPYC (Zen 5) measured, these loads
// about half as much (BenchmarkPosteriors k10 ~66 → ~90 M rows/s); spilling the offsets to memory and
// reading them back was slower than either (the 64-byte store does not forward to 8-byte loads).
//
// Registers: Z15..Z12 expReduce's constants, Z11 1/6, Z10 0.5, Z7 1/120, Z6 1/24, Z5 expFastMin, Z4
// expUnderflow, Z16 the offset mask (127·16), Z17 zero, Z22 one; Z8 the rows' maximum, Z9 their sum (then
// 1/sum); Z0..Z3 and Z18..Z21 the exponential's temporaries (then the transposition's), Z24..Z31 eight
// classes' values. K2 the mask of the last block's classes, K3..K6 scratch.
// SI &jll[i], BX 8n, CX 8K, DI &dst[i·K], AX i, DX classes left, R11 &jll[c·n + i], R12 the scratch
// (&scratch[c·8]), R14 &expPair, R8 and R10 offsets (then 3·8K), R13 and R9 row addresses.

// TRANSPOSE8 turns the eight class vectors in Z24..Z31 (lane r: row r) into eight rows of eight classes:
// row r in Z0, Z2, Z18, Z20 (r = 0..3, in the order Z0 row 0, Z18 row 1, Z2 row 2, Z20 row 3) and Z1, Z19, Z3,
// Z21 (rows 4..7 likewise).
#define TRANSPOSE8 \
	VUNPCKLPD  Z25, Z24, Z0  /* a0_0 a1_0 | a0_2 a1_2 | a0_4 a1_4 | a0_6 a1_6 */; \
	VUNPCKHPD  Z25, Z24, Z1  /* a0_1 a1_1 | … */; \
	VUNPCKLPD  Z27, Z26, Z2; \
	VUNPCKHPD  Z27, Z26, Z3; \
	VUNPCKLPD  Z29, Z28, Z18; \
	VUNPCKHPD  Z29, Z28, Z19; \
	VUNPCKLPD  Z31, Z30, Z20; \
	VUNPCKHPD  Z31, Z30, Z21; \
	VSHUFF64X2 $0x88, Z2, Z0, Z24 /* a0_0 a1_0 | a0_4 a1_4 | a2_0 a3_0 | a2_4 a3_4 */; \
	VSHUFF64X2 $0xDD, Z2, Z0, Z25 /* the same for columns 2 and 6 */; \
	VSHUFF64X2 $0x88, Z3, Z1, Z26 /* columns 1 and 5 */; \
	VSHUFF64X2 $0xDD, Z3, Z1, Z27 /* columns 3 and 7 */; \
	VSHUFF64X2 $0x88, Z20, Z18, Z28 /* classes 4..7: columns 0 and 4 */; \
	VSHUFF64X2 $0xDD, Z20, Z18, Z29; \
	VSHUFF64X2 $0x88, Z21, Z19, Z30; \
	VSHUFF64X2 $0xDD, Z21, Z19, Z31; \
	VSHUFF64X2 $0x88, Z28, Z24, Z0  /* row 0 */; \
	VSHUFF64X2 $0xDD, Z28, Z24, Z1  /* row 4 */; \
	VSHUFF64X2 $0x88, Z29, Z25, Z2  /* row 2 */; \
	VSHUFF64X2 $0xDD, Z29, Z25, Z3  /* row 6 */; \
	VSHUFF64X2 $0x88, Z30, Z26, Z18 /* row 1 */; \
	VSHUFF64X2 $0xDD, Z30, Z26, Z19 /* row 5 */; \
	VSHUFF64X2 $0x88, Z31, Z27, Z20 /* row 3 */; \
	VSHUFF64X2 $0xDD, Z31, Z27, Z21 /* row 7 */

// func posteriorsAVX512(jll *float64, n, K, rows int, dst, scratch *float64) int
TEXT ·posteriorsAVX512(SB), NOSPLIT, $0-56
	MOVQ         jll+0(FP), SI
	MOVQ         n+8(FP), BX
	SHLQ         $3, BX
	MOVQ         K+16(FP), CX
	SHLQ         $3, CX
	LEAQ         (CX)(CX*2), R8
	MOVQ         dst+32(FP), DI
	LEAQ         ·expVec(SB), R12
	VBROADCASTSD 0(R12), Z15
	VBROADCASTSD 32(R12), Z14
	VBROADCASTSD 64(R12), Z13
	VBROADCASTSD 96(R12), Z12
	VBROADCASTSD 128(R12), Z11
	VBROADCASTSD 160(R12), Z10
	VBROADCASTSD 192(R12), Z7
	VBROADCASTSD 224(R12), Z6
	VBROADCASTSD 256(R12), Z5
	VBROADCASTSD 288(R12), Z4
	VBROADCASTSD 320(R12), Z22 /* 1 */
	VPBROADCASTQ 384(R12), Z16
	VPXORQ       Z17, Z17, Z17
	LEAQ         ·expPair(SB), R14
	// K2: the classes of the last block of eight (all eight when K is a multiple of 8)
	MOVQ         K+16(FP), R9
	DECQ         R9
	ANDQ         $7, R9
	INCQ         R9
	MOVQ         $1, R10
	SHLXQ        R9, R10, R10
	DECQ         R10
	KMOVW        R10, K2
	XORQ         AX, AX

group:
	LEAQ    8(AX), R11
	CMPQ    R11, rows+24(FP)
	JGT     done
	VMOVUPD (SI), Z8
	LEAQ    (SI)(BX*1), R11
	MOVQ    K+16(FP), DX
	DECQ    DX

max:
	VMAXPD (R11), Z8, Z8 // max(B, b), as expSumsAVX2
	ADDQ   BX, R11
	DECQ   DX
	JNE    max
	VPXORQ Z9, Z9, Z9
	MOVQ   SI, R11
	MOVQ   scratch+40(FP), R12
	LEAQ   1024(R12), R9
	MOVQ   K+16(FP), DX

class:
	VMOVUPD    (R11), Z0
	VSUBPD     Z8, Z0, Z0          // x = b_c − B
	VCMPPD     $2, Z17, Z0, K3     // x ≤ 0 (LE_OS)
	VCMPPD     $13, Z5, Z0, K3, K3 // and x ≥ expFastMin (GE_OS)
	VCMPPD     $1, Z4, Z0, K4      // or x < expUnderflow (LT_OS)
	KORW       K3, K4, K3
	KMOVW      K3, R10
	CMPB       R10, $0xff
	JNE        done
	VCMPPD     $13, Z4, Z0, K6     // x ≥ expUnderflow: the lanes computed (the others are 0)
	VMULPD     Z15, Z0, Z1         // x·128/ln2
	VADDPD     Z14, Z1, Z1         // z: k in its low bits
	VSUBPD     Z14, Z1, Z2         // kd
	VMULPD     Z13, Z2, Z3         // kd·hi
	VSUBPD     Z3, Z0, Z3          // x − kd·hi
	VMULPD     Z12, Z2, Z2         // kd·lo
	VSUBPD     Z2, Z3, Z18         // r
	VPSLLQ     $4, Z1, Z2
	VPANDQ     Z16, Z2, Z2         // 16j
	VMOVQ      X2, R8              // the lanes' offsets, one by one
	VPEXTRQ    $1, X2, R10
	VMOVDQU64  (R14)(R8*1), X19    // lane 0: entry, tail
	VMOVDQU64  (R14)(R10*1), X20   // lane 1
	VEXTRACTI32X4 $1, Z2, X3
	VMOVQ      X3, R8
	VPEXTRQ    $1, X3, R10
	VINSERTI32X4 $1, (R14)(R8*1), Z19, Z19  // lane 2
	VINSERTI32X4 $1, (R14)(R10*1), Z20, Z20 // lane 3
	VEXTRACTI32X4 $2, Z2, X3
	VMOVQ      X3, R8
	VPEXTRQ    $1, X3, R10
	VINSERTI32X4 $2, (R14)(R8*1), Z19, Z19  // lane 4
	VINSERTI32X4 $2, (R14)(R10*1), Z20, Z20 // lane 5
	VEXTRACTI32X4 $3, Z2, X3
	VMOVQ      X3, R8
	VPEXTRQ    $1, X3, R10
	VINSERTI32X4 $3, (R14)(R8*1), Z19, Z19  // lane 6
	VINSERTI32X4 $3, (R14)(R10*1), Z20, Z20 // lane 7
	VUNPCKHPD  Z20, Z19, Z2        // expTail[j]
	VUNPCKLPD  Z20, Z19, Z19       // expTable[j]
	VPSLLQ     $45, Z1, Z1
	VPADDQ     Z1, Z19, Z3         // scale = expTable[j] + k<<45
	VADDPD     Z18, Z2, Z1         // tail + r
	VMULPD     Z18, Z18, Z2        // r2
	VMULPD     Z11, Z18, Z21       // r·(1/6)
	VADDPD     Z10, Z21, Z21       // 0.5 + r·(1/6)
	VMULPD     Z21, Z2, Z21        // r2·(…)
	VADDPD     Z21, Z1, Z1         // (tail + r) + r2·(…)
	VMULPD     Z7, Z18, Z0         // r·(1/120)
	VADDPD     Z6, Z0, Z0          // 1/24 + r·(1/120)
	VMULPD     Z2, Z2, Z2          // r2·r2
	VMULPD     Z0, Z2, Z0          // (r2·r2)·(…)
	VADDPD     Z0, Z1, Z1          // p
	VMULPD     Z1, Z3, Z1          // scale·p
	VADDPD.Z   Z1, Z3, K6, Z1      // scale + scale·p; 0 below expUnderflow
	VMOVUPD    Z1, (R12)
	VADDPD     Z1, Z9, Z9          // S += e, in class order
	ADDQ       BX, R11
	ADDQ       $64, R12
	DECQ       DX
	JNE        class
	VDIVPD     Z9, Z22, Z9         // inv = 1/S
	MOVQ       scratch+40(FP), R12
	MOVQ       DI, R13
	LEAQ       (CX)(CX*2), R8
	MOVQ       K+16(FP), DX

block:
	VMULPD     0(R12), Z9, Z24     // e·inv (scaleRows' product; no NaN here, so the operands' order is moot)
	VMULPD     64(R12), Z9, Z25
	VMULPD     128(R12), Z9, Z26
	VMULPD     192(R12), Z9, Z27
	VMULPD     256(R12), Z9, Z28
	VMULPD     320(R12), Z9, Z29
	VMULPD     384(R12), Z9, Z30
	VMULPD     448(R12), Z9, Z31
	TRANSPOSE8
	KXNORW     K5, K5, K5
	CMPQ       DX, $8
	JGT        store
	KMOVW      K2, K5

store:
	LEAQ       (R13)(CX*4), R9
	VMOVUPD    Z0, K5, (R13)
	VMOVUPD    Z18, K5, (R13)(CX*1)
	VMOVUPD    Z2, K5, (R13)(CX*2)
	VMOVUPD    Z20, K5, (R13)(R8*1)
	VMOVUPD    Z1, K5, (R9)
	VMOVUPD    Z19, K5, (R9)(CX*1)
	VMOVUPD    Z3, K5, (R9)(CX*2)
	VMOVUPD    Z21, K5, (R9)(R8*1)
	ADDQ       $512, R12
	ADDQ       $64, R13
	SUBQ       $8, DX
	JGT        block
	LEAQ       (DI)(CX*8), DI
	ADDQ       $64, SI
	ADDQ       $8, AX
	JMP        group

done:
	MOVQ AX, ret+48(FP)
	VZEROUPPER
	RET
