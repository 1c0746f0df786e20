//go:build !amd64 || purego

package sqlnb

import "unsafe"

func countsAVX2(*unsafe.Pointer, int, *float64, uintptr, *float64, uintptr, int, int) {
	panic("sqlnb: no AVX2 kernel on this platform")
}
