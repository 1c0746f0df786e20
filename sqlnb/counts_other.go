//go:build !amd64 || purego

package sqlnb

import "unsafe"

func countsAVX2(*unsafe.Pointer, int, *float64, *float64, *float64, int) {
	panic("sqlnb: no AVX2 kernel on this platform")
}
