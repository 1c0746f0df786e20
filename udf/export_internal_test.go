package udf

// SetTestPanic makes the callback named "function:stage" panic (see fault); "" turns it off.
func SetTestPanic(s string) { testPanic = s }
