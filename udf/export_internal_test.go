package udf

// SetTestPanic makes the callback named "function:stage" panic (see fault); "" turns it off.
func SetTestPanic(s string) { testPanic = s }

// SetBeforeLoad sets the function db's binds run before loading a version they have not cached (nil: none).
func SetBeforeLoad(db *DB, f func()) {
	db.reg.mu.Lock()
	db.reg.beforeLoad = f
	db.reg.mu.Unlock()
}
