//go:build !amd64 || purego

package kernel

func argmaxAVX2(*float64, int, int, *int32, *float64, int) {
	panic("sqlnb: no AVX2 kernel on this platform")
}
