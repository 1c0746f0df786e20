//go:build !purego

package sqlnb

import "unsafe"

// countsAVX2 is countsComponent.addGo for two classes and rows 0..n-1 (n a multiple of 16), sixteen rows at a
// time, four per YMM vector (a lane each): cols holds the V count columns, w the two classes' weights column
// by column (w[2j], w[2j+1]), outA and outB the two classes' scores. Each lane does what addGo does for its
// row: from the score in out, score + x_j·w_jc for j in order, the product rounded before the add (no fused
// multiply-add), so the same bits.
//
//go:noescape
func countsAVX2(cols *unsafe.Pointer, V int, w *float64, outA, outB *float64, n int)
