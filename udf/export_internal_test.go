package udf

// SetTestPanic makes the callback named "function:stage" panic (see fault); "" turns it off.
func SetTestPanic(s string) { testPanic = s }

// SetTestBeforeLoad sets the function scorerFor runs before loading a version it has not cached (nil: none).
func SetTestBeforeLoad(f func()) { testBeforeLoad = f }
