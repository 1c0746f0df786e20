//go:build duckdb_use_static_lib && linux && amd64

package main

import "testing"

// TestHostSlots: the extension copies as many slots as the host's version has (1.5.6: 546, 2.0: 548, a
// later DuckDB: 2.0's, as its table only grows) and refuses a DuckDB it cannot run in. The loads themselves
// are tested in real hosts (extension/itest, make test-integration).
func TestHostSlots(t *testing.T) {
	for _, c := range []struct {
		version string
		want    int
		err     string
	}{
		{"v1.5.6", 546, ""},
		{"v1.5.7-dev42", 546, ""},
		{"v2.0.0", 548, ""},
		{"v2.1.3", 548, ""},
		{"v1.5.5", 0, "DuckDB v1.5.5 is older than v1.5.6, the first DuckDB sqlnb runs in"},
		{"v0.0.1", 0, "DuckDB v0.0.1 is older than v1.5.6, the first DuckDB sqlnb runs in"},
		{"", 0, `cannot tell which DuckDB loads the extension: DuckDB version "": want vMAJOR.MINOR.PATCH; sqlnb runs in DuckDB v1.5.6 and later`},
		{"2.0", 0, `cannot tell which DuckDB loads the extension: DuckDB version "2.0": want vMAJOR.MINOR.PATCH; sqlnb runs in DuckDB v1.5.6 and later`},
	} {
		n, err := hostSlots(c.version)
		msg := ""
		if err != nil {
			msg = err.Error()
		}
		if n != c.want || msg != c.err {
			t.Errorf("hostSlots(%q) = %d, %q; want %d, %q", c.version, n, msg, c.want, c.err)
		}
	}
	// slots.h comes from a host of the primary line (make extension-slots): internal/duckdbline must say the
	// same length for it, or the newest functions would be stubs (shorter) or read past a table (longer).
	if n, _ := hostSlots("v2.0.0"); n != slotCount {
		t.Errorf("DuckDB v2.0.0: %d slots, slots.h has %d", n, slotCount)
	}
}
