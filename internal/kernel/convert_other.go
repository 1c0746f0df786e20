//go:build !amd64 || purego

package kernel

func int32sToFloatsAVX2(*float64, *int32, int) {
	panic("sqlnb: no AVX2 kernel on this platform")
}

func int64sToFloatsAVX2(*float64, *int64, int) int {
	panic("sqlnb: no AVX2 kernel on this platform")
}
