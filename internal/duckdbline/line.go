// Package duckdbline is the one place where sqlnb tells DuckDB's release lines apart. sqlnb builds against
// DuckDB 2.0 (go.mod) or 1.5.6 (go.duckdb15.mod), and its loadable extension runs in hosts of either line,
// so every difference is decided at run time from the version the DuckDB library in the process reports
// (duckdb_library_version, "v2.0.0"), never from the build: the extension built with 2.0's bindings serves a
// 1.5.6 host as that host.
//
// What differs, and how sqlnb handles it:
//   - DECIMAL → DOUBLE/FLOAT casts: 1.5 divides in parts (not always the nearest value), 2.0 rounds
//     correctly. sqlnb converts a DECIMAL argument as the host's own CAST does (DecimalCastNearest), so a
//     category compares as SQL compares.
//   - Storage: 2.0 writes new database files in its format (storage version 69), which 1.5 cannot read.
//     sqlnb creates files readable by both unless told otherwise (DefaultStorageVersion).
//   - The C API function table: 546 slots in 1.5.6, 548 in 2.0 (ExtensionSlots): the loadable extension
//     copies as many as the host that loads it has.
//   - Text of nested values (CAST(list AS VARCHAR)): 2.0 also quotes a string or BLOB inside a LIST,
//     STRUCT or MAP when it holds a backslash (NestedQuotesBackslash); sqlnb's CLI writes values as DuckDB
//     does.
//   - Backticks: 2.0 reads `name` as a quoted identifier, 1.5 reads ` as an operator character
//     (BacktickNames; package sqltext lexes by it).
//   - Lambdas: 2.0 refuses the arrow (x -> ...) in new SQL; sqlnb writes lambda x: ..., which both read
//     (no switch needed).
package duckdbline

import (
	"fmt"
	"strconv"
	"strings"
)

// Line is a DuckDB release: major.minor.patch.
type Line struct{ Major, Minor, Patch int }

// Parse reads a version as DuckDB reports it ("v2.0.0", "v1.5.6", "v1.5.7-dev123").
func Parse(version string) (Line, error) {
	v := strings.TrimPrefix(strings.TrimSpace(version), "v")
	if i := strings.IndexAny(v, "-+ "); i >= 0 {
		v = v[:i]
	}
	parts := strings.Split(v, ".")
	if len(parts) != 3 {
		return Line{}, fmt.Errorf("DuckDB version %q: want vMAJOR.MINOR.PATCH", version)
	}
	var n [3]int
	for i, p := range parts {
		x, err := strconv.Atoi(p)
		if err != nil || x < 0 {
			return Line{}, fmt.Errorf("DuckDB version %q: want vMAJOR.MINOR.PATCH", version)
		}
		n[i] = x
	}
	return Line{n[0], n[1], n[2]}, nil
}

// String returns the version as DuckDB writes it.
func (l Line) String() string { return fmt.Sprintf("v%d.%d.%d", l.Major, l.Minor, l.Patch) }

// AtLeast reports whether l is major.minor.patch or later.
func (l Line) AtLeast(major, minor, patch int) bool {
	if l.Major != major {
		return l.Major > major
	}
	if l.Minor != minor {
		return l.Minor > minor
	}
	return l.Patch >= patch
}

// DecimalCastNearest reports whether the line's CAST of a DECIMAL to DOUBLE or FLOAT gives the nearest value
// (2.0); 1.5 converts the integer and fractional parts on their own and adds them.
func (l Line) DecimalCastNearest() bool { return l.AtLeast(2, 0, 0) }

// NestedQuotesBackslash reports whether the line's VARCHAR cast of a LIST, STRUCT or MAP quotes an element's
// text that holds a backslash (2.0: ['a\\b']; 1.5: [a\b]).
func (l Line) NestedQuotesBackslash() bool { return l.AtLeast(2, 0, 0) }

// BacktickNames reports whether the line's parser reads `name` as a quoted identifier, as it reads "name"
// (2.0); 1.5 takes ` for an operator character.
func (l Line) BacktickNames() bool { return l.AtLeast(2, 0, 0) }

// DefaultStorageVersion is the storage_compatibility_version sqlnb gives the database files it creates:
// v1.5.0, which 1.5 and 2.0 both read and write (2.0 keeps such a file in that format). A file already in
// 2.0's format stays in it.
const DefaultStorageVersion = "v1.5.0"

// ExtensionSlots is how many functions the host's C API function table (duckdb_ext_api_v1, asked for as
// v1.5.6) holds: what the loadable extension may copy from it. The table only grows between releases. It is
// 0 before v1.5.6, which has no such table: the extension refuses to load there.
func (l Line) ExtensionSlots() int {
	switch {
	case l.AtLeast(2, 0, 0):
		return 548
	case l.AtLeast(1, 5, 6):
		return 546
	}
	return 0
}
