//go:build !purego

package kernel

import "unsafe"

// countsAVX2 is countsComponent.addGo for rows 0..n-1 (n a multiple of 16), sixteen rows and two classes at a
// time, four rows per YMM vector (a lane each): cols holds the V count columns; out the K classes' scores,
// class c's at out + c·classStride bytes; w the weights by pairs of classes (c, c+1), or (K-1, K-1) for an
// odd last class, the pair of class c at w + (c/2)·pairStride bytes, column by column (w_jc, w_j,c+1). Each
// lane does what addGo does for its row: from the score in out, score = x_j·w_jc + score for j in order by a
// fused multiply-add (VFMADD231PD, one rounding, as math.FMA), so the same bits.
//
//go:noescape
func CountsAVX2(cols *unsafe.Pointer, V int, w *float64, pairStride uintptr, out *float64, classStride uintptr, K, n int)
