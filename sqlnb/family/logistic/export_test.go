package logistic

// SetSampleRows makes logistic regression fits keep n rows for their Hessian (so that a small source is
// fitted as a large one is: sub-sampled); the returned function restores the default.
func SetSampleRows(n int) func() {
	old := lrSampleRows
	lrSampleRows = n
	return func() { lrSampleRows = old }
}
