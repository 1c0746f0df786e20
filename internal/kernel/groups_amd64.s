//go:build !purego

#include "textflag.h"

// func scoreRowsAVX2(table *float64, entry uintptr, cols *unsafe.Pointer, F, K int, model *int32, n int, out *float64, bad *bool)
//
// scoreRowsGo four classes at a time, a lane each. Row i reads e = table + model[i]·entry (base scores of
// the K classes, then per input the K means and the K 1/(2 var)); per four classes c..c+3: v = base; per
// block of four inputs v -= (((x0-m0)²h0 + (x1-m1)²h1) + (x2-m2)²h2) + (x3-m3)²h3, then v -= (x-m)²h for
// the rest; lane j of v goes to out[(c+j)·n+i] for the classes that exist (the lanes past the last class
// read the values that follow, and are dropped). bad[i] = 1 when a class's score is not finite.
//
// Registers: SI model, DI n, CX 8K (bytes from an input's means to its 1/(2 var)), R11 i, R12 the four
// classes' base scores, R9 their means of the input read, R13 &out[c·n+i], R8 classes left, AX the input
// column pointer read, BX inputs left, R10 lanes not finite, DX scratch; Y0 v, Y1-Y4 terms.
TEXT ·ScoreRowsAVX2(SB), NOSPLIT, $0-72
	MOVQ model+40(FP), SI
	MOVQ n+48(FP), DI
	MOVQ K+32(FP), CX
	SHLQ $3, CX
	XORQ R11, R11

row:
	CMPQ    R11, DI
	JGE     done
	MOVLQSX (SI)(R11*4), R12
	IMULQ   entry+8(FP), R12
	ADDQ    table+0(FP), R12
	MOVQ    out+56(FP), R13
	LEAQ    (R13)(R11*8), R13
	MOVQ    K+32(FP), R8
	XORQ    R10, R10

classes:
	VMOVUPD (R12), Y0
	LEAQ    (R12)(CX*1), R9
	MOVQ    cols+16(FP), AX
	MOVQ    F+24(FP), BX

block:
	CMPQ BX, $4
	JLT  rest
	MOVQ 0(AX), DX
	VBROADCASTSD (DX)(R11*8), Y1
	VSUBPD (R9), Y1, Y1
	VMULPD Y1, Y1, Y1
	VMULPD (R9)(CX*1), Y1, Y1
	LEAQ   (R9)(CX*2), R9
	MOVQ   8(AX), DX
	VBROADCASTSD (DX)(R11*8), Y2
	VSUBPD (R9), Y2, Y2
	VMULPD Y2, Y2, Y2
	VMULPD (R9)(CX*1), Y2, Y2
	LEAQ   (R9)(CX*2), R9
	MOVQ   16(AX), DX
	VBROADCASTSD (DX)(R11*8), Y3
	VSUBPD (R9), Y3, Y3
	VMULPD Y3, Y3, Y3
	VMULPD (R9)(CX*1), Y3, Y3
	LEAQ   (R9)(CX*2), R9
	MOVQ   24(AX), DX
	VBROADCASTSD (DX)(R11*8), Y4
	VSUBPD (R9), Y4, Y4
	VMULPD Y4, Y4, Y4
	VMULPD (R9)(CX*1), Y4, Y4
	LEAQ   (R9)(CX*2), R9
	VADDPD Y2, Y1, Y1
	VADDPD Y3, Y1, Y1
	VADDPD Y4, Y1, Y1
	VSUBPD Y1, Y0, Y0
	ADDQ   $32, AX
	SUBQ   $4, BX
	JMP    block

rest:
	TESTQ BX, BX
	JEQ   store
	MOVQ  (AX), DX
	VBROADCASTSD (DX)(R11*8), Y1
	VSUBPD (R9), Y1, Y1
	VMULPD Y1, Y1, Y1
	VMULPD (R9)(CX*1), Y1, Y1
	VSUBPD Y1, Y0, Y0
	LEAQ   (R9)(CX*2), R9
	ADDQ   $8, AX
	DECQ   BX
	JMP    rest

store:
	VSUBPD    Y0, Y0, Y1
	VCMPPD    $3, Y1, Y1, Y1
	VMOVMSKPD Y1, BX
	VMOVSD    X0, (R13)
	CMPQ      R8, $2
	JLT       lanes1
	VMOVHPD   X0, (R13)(DI*8)
	CMPQ      R8, $3
	JLT       lanes2
	VEXTRACTF128 $1, Y0, X1
	LEAQ      (R13)(DI*8), DX
	LEAQ      (DX)(DI*8), DX
	VMOVSD    X1, (DX)
	CMPQ      R8, $4
	JLT       lanes3
	VMOVHPD   X1, (DX)(DI*8)
	ORQ       BX, R10
	SUBQ      $4, R8
	JEQ       rowdone
	ADDQ      $32, R12
	MOVQ      DI, DX
	SHLQ      $5, DX
	ADDQ      DX, R13
	JMP       classes

lanes1:
	ANDQ $1, BX
	JMP  last

lanes2:
	ANDQ $3, BX
	JMP  last

lanes3:
	ANDQ $7, BX

last:
	ORQ BX, R10

rowdone:
	TESTQ R10, R10
	JEQ   nextrow
	MOVQ  bad+64(FP), DX
	MOVB  $1, (DX)(R11*1)

nextrow:
	INCQ R11
	JMP  row

done:
	VZEROUPPER
	RET
