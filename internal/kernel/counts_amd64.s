//go:build !purego

#include "textflag.h"

// func countsAVX2(cols *unsafe.Pointer, V int, w *float64, pairStride uintptr, out *float64, classStride uintptr, K, n int)
//
// Per block of sixteen rows, per pair of classes (A, B) = (c, c+1), or (K-1, K-1) for an odd last class:
// Y0-Y3 the block's scores of class A, Y4-Y7 of class B (loaded from out); per count column j: Y8-Y11 the
// column's sixteen values, Y12 and Y13 the pair's two weights broadcast; score = x·w + score (VFMADD231PD:
// rounded once, as addGo's math.FMA); then the scores are stored back. The rows are the outer loop, so a
// block's count values stay in the L1 cache across the pairs.
//
// Registers: DI cols, SI V, DX w, BX K, CX 8n, R10 8i (the block's first row), R14 class c, R8 and R9 the
// pair's score columns (&out[c·n], &out[d·n]), R11 &cols[j], R12 the pair's weights of column j, R13 columns
// left, AX the column read.
TEXT ·CountsAVX2(SB), NOSPLIT, $0-64
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
	IMULQ classStride+40(FP), R9
	ADDQ  out+32(FP), R9
	MOVQ  R14, R12
	SHRQ  $1, R12
	IMULQ pairStride+24(FP), R12
	ADDQ  DX, R12
	VMOVUPD 0(R8)(R10*1), Y0
	VMOVUPD 32(R8)(R10*1), Y1
	VMOVUPD 64(R8)(R10*1), Y2
	VMOVUPD 96(R8)(R10*1), Y3
	VMOVUPD 0(R9)(R10*1), Y4
	VMOVUPD 32(R9)(R10*1), Y5
	VMOVUPD 64(R9)(R10*1), Y6
	VMOVUPD 96(R9)(R10*1), Y7
	MOVQ DI, R11
	MOVQ SI, R13

column:
	TESTQ R13, R13
	JEQ   store
	MOVQ  (R11), AX
	VMOVUPD 0(AX)(R10*1), Y8
	VMOVUPD 32(AX)(R10*1), Y9
	VMOVUPD 64(AX)(R10*1), Y10
	VMOVUPD 96(AX)(R10*1), Y11
	VBROADCASTSD 0(R12), Y12
	VBROADCASTSD 8(R12), Y13
	VFMADD231PD Y12, Y8, Y0
	VFMADD231PD Y13, Y8, Y4
	VFMADD231PD Y12, Y9, Y1
	VFMADD231PD Y13, Y9, Y5
	VFMADD231PD Y12, Y10, Y2
	VFMADD231PD Y13, Y10, Y6
	VFMADD231PD Y12, Y11, Y3
	VFMADD231PD Y13, Y11, Y7
	ADDQ $8, R11
	ADDQ $16, R12
	DECQ R13
	JMP  column

store:
	VMOVUPD Y0, 0(R8)(R10*1)
	VMOVUPD Y1, 32(R8)(R10*1)
	VMOVUPD Y2, 64(R8)(R10*1)
	VMOVUPD Y3, 96(R8)(R10*1)
	VMOVUPD Y4, 0(R9)(R10*1)
	VMOVUPD Y5, 32(R9)(R10*1)
	VMOVUPD Y6, 64(R9)(R10*1)
	VMOVUPD Y7, 96(R9)(R10*1)
	ADDQ $2, R14
	JMP  pair

nextblock:
	ADDQ $128, R10
	JMP  block

done:
	VZEROUPPER
	RET
