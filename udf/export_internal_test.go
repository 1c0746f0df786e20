package udf

// SetTestPanic makes the callback named "function:stage" panic (see fault); "" turns it off.
func SetTestPanic(s string) { testPanic = s }

// SetBeforeLoad sets the function db's binds run before loading a version they have not cached (nil: none).
func SetBeforeLoad(db *DB, f func()) {
	db.reg.mu.Lock()
	db.reg.beforeLoad = f
	db.reg.mu.Unlock()
}

// CachedVersions returns the generations of model name that db's cache holds, one entry per version held.
func CachedVersions(db *DB, name string) []string {
	db.reg.mu.Lock()
	defer db.reg.mu.Unlock()
	var out []string
	for _, v := range db.reg.versions[name] {
		out = append(out, v.scorer.Model.Generation)
	}
	return out
}
