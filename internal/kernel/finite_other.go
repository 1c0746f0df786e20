//go:build !amd64 || purego

package kernel

func allFiniteAVX2(*float64, int) bool {
	panic("sqlnb: no AVX2 kernel on this platform")
}
