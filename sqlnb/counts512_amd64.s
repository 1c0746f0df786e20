//go:build !purego

#include "textflag.h"

// func countsAVX512(cols *unsafe.Pointer, V int, w *float64, pairStride uintptr, out *float64, classStride uintptr, K, n int)
//
// countsAVX2 (counts_amd64.s) with thirty-two rows a block, eight rows per ZMM vector: per pair of classes
// (A, B), Z0-Z3 class A's scores, Z4-Z7 class B's; per count column Z8-Z11 the column's thirty-two values,
// Z12 and Z13 the pair's weights broadcast; score = score + x·w (VMULPD then VADDPD, rounded twice, as
// addGo). Registers as in countsAVX2.
TEXT ·countsAVX512(SB), NOSPLIT, $0-64
	MOVQ cols+0(FP), DI
	MOVQ V+8(FP), SI
	MOVQ w+16(FP), DX
	MOVQ K+48(FP), BX
	MOVQ n+56(FP), CX
	SHLQ $3, CX
	XORQ R10, R10

block:
	CMPQ R10, CX
	JGE  done
	XORQ R14, R14

pair:
	CMPQ  R14, BX
	JGE   nextblock
	MOVQ  R14, R8
	IMULQ classStride+40(FP), R8
	ADDQ  out+32(FP), R8
	LEAQ  1(R14), R9
	CMPQ  R9, BX
	JLT   second
	MOVQ  R14, R9

second:
	IMULQ   classStride+40(FP), R9
	ADDQ    out+32(FP), R9
	MOVQ    R14, R12
	SHRQ    $1, R12
	IMULQ   pairStride+24(FP), R12
	ADDQ    DX, R12
	VMOVUPD 0(R8)(R10*1), Z0
	VMOVUPD 64(R8)(R10*1), Z1
	VMOVUPD 128(R8)(R10*1), Z2
	VMOVUPD 192(R8)(R10*1), Z3
	VMOVUPD 0(R9)(R10*1), Z4
	VMOVUPD 64(R9)(R10*1), Z5
	VMOVUPD 128(R9)(R10*1), Z6
	VMOVUPD 192(R9)(R10*1), Z7
	MOVQ    DI, R11
	MOVQ    SI, R13

column:
	TESTQ        R13, R13
	JEQ          store
	MOVQ         (R11), AX
	VMOVUPD      0(AX)(R10*1), Z8
	VMOVUPD      64(AX)(R10*1), Z9
	VMOVUPD      128(AX)(R10*1), Z10
	VMOVUPD      192(AX)(R10*1), Z11
	VBROADCASTSD 0(R12), Z12
	VBROADCASTSD 8(R12), Z13
	VMULPD       Z12, Z8, Z14
	VADDPD       Z14, Z0, Z0
	VMULPD       Z13, Z8, Z15
	VADDPD       Z15, Z4, Z4
	VMULPD       Z12, Z9, Z16
	VADDPD       Z16, Z1, Z1
	VMULPD       Z13, Z9, Z17
	VADDPD       Z17, Z5, Z5
	VMULPD       Z12, Z10, Z18
	VADDPD       Z18, Z2, Z2
	VMULPD       Z13, Z10, Z19
	VADDPD       Z19, Z6, Z6
	VMULPD       Z12, Z11, Z20
	VADDPD       Z20, Z3, Z3
	VMULPD       Z13, Z11, Z21
	VADDPD       Z21, Z7, Z7
	ADDQ         $8, R11
	ADDQ         $16, R12
	DECQ         R13
	JMP          column

store:
	VMOVUPD Z0, 0(R8)(R10*1)
	VMOVUPD Z1, 64(R8)(R10*1)
	VMOVUPD Z2, 128(R8)(R10*1)
	VMOVUPD Z3, 192(R8)(R10*1)
	VMOVUPD Z4, 0(R9)(R10*1)
	VMOVUPD Z5, 64(R9)(R10*1)
	VMOVUPD Z6, 128(R9)(R10*1)
	VMOVUPD Z7, 192(R9)(R10*1)
	ADDQ    $2, R14
	JMP     pair

nextblock:
	ADDQ $256, R10
	JMP  block

done:
	VZEROUPPER
	RET
