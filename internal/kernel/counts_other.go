//go:build !amd64 || purego

package kernel

import "unsafe"

func CountsAVX2(*unsafe.Pointer, int, *float64, uintptr, *float64, uintptr, int, int) {
	panic("sqlnb: no AVX2 kernel on this platform")
}
