//go:build !amd64 || purego

package kernel

func expShiftedAVX2(*float64, int, *float64, *float64, int) int {
	panic("sqlnb: no AVX2 kernel on this platform")
}

func posteriorsTwoAVX2(*float64, *float64, *float64, int) int {
	panic("sqlnb: no AVX2 kernel on this platform")
}

func expSumsAVX2(*float64, int, int, int, *float64, *float64) int {
	panic("sqlnb: no AVX2 kernel on this platform")
}

func scaleRowsAVX2(*float64, int, *float64, int) {
	panic("sqlnb: no AVX2 kernel on this platform")
}

func posteriorsAVX2(*float64, int, int, int, *float64, *float64, *float64, *float64) int {
	panic("sqlnb: no AVX2 kernel on this platform")
}
