package sqlnb

// allFinite reports whether every element of x is finite (x - x is 0: not NaN or ±Inf), sixteen at a time
// with AVX2 where the CPU has it: fixup's first look at each class's scores, most often all finite.
func allFinite(x []float64) bool {
	i := 0
	if useAVX2 && len(x) >= 16 {
		i = len(x) &^ 15
		if !allFiniteAVX2(&x[0], i) {
			return false
		}
	}
	for _, v := range x[i:] {
		if v-v != 0 {
			return false
		}
	}
	return true
}

// fill sets every element of x to v by doubling copies (copy is vectorised, a store loop is not).
func fill(x []float64, v float64) {
	if len(x) == 0 {
		return
	}
	x[0] = v
	for done := 1; done < len(x); done *= 2 {
		copy(x[done:], x[:done])
	}
}
