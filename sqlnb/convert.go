package sqlnb

// Int32sToFloats writes float64(src[i]) to dst[i] for every i < len(src) (exact: every int32 is a float64),
// sixteen at a time with AVX2 where the CPU has it: the reading of an INTEGER column into Batch.Num, which
// costs as much as the count-column kernel when done one value at a time. len(dst) ≥ len(src).
func Int32sToFloats(dst []float64, src []int32) {
	dst = dst[:len(src)]
	i := 0
	if useAVX2 && len(src) >= 16 {
		i = len(src) &^ 15
		int32sToFloatsAVX2(&dst[0], &src[0], i)
	}
	for ; i < len(src); i++ {
		dst[i] = float64(src[i])
	}
}
