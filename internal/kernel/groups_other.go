//go:build !amd64 || purego

package kernel

import "unsafe"

// useAVX2 is false: scoreRows runs scoreRowsGo, and the exponentials the Go loops (exp.go, scorer.go).
var UseAVX2 = false

func ScoreRowsAVX2(*float64, uintptr, *unsafe.Pointer, int, int, *int32, int, *float64, *bool) {
	panic("sqlnb: no AVX2 kernel on this platform")
}
