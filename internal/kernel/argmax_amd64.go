//go:build !purego

package kernel

// argmaxAVX2 is Argmax for rows 0..rows-1 (rows a multiple of 16) of class-major jll (n rows per class),
// sixteen rows at a time, four per YMM vector (argmax_amd64.s): the same classes as the Go loop.
//
//go:noescape
func argmaxAVX2(jll *float64, n, K int, dst *int32, top *float64, rows int)
