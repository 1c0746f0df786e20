//go:build !purego

package sqlnb

// int32sToFloatsAVX2 converts n int32 (n a multiple of 16) at src to float64 at dst (VCVTDQ2PD).
//
//go:noescape
func int32sToFloatsAVX2(dst *float64, src *int32, n int)
