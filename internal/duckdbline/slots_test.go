package duckdbline

import "testing"

// TestExtensionSlots: the length of the C API function table per host version, measured with
// extension/gen's probe (1.5.6 in @duckdb/node-api 1.5.6-r.1, 2.0.0 in duckdb-go v2.20000.0); none before
// 1.5.6; a later release keeps at least 2.0's.
func TestExtensionSlots(t *testing.T) {
	for _, c := range []struct {
		version string
		want    int
	}{
		{"v1.2.0", 0}, {"v1.5.5", 0}, {"v1.5.6", 546}, {"v1.5.7-dev12", 546}, {"v1.6.0", 546},
		{"v2.0.0", 548}, {"v2.0.1", 548}, {"v2.1.0", 548}, {"v3.0.0", 548},
	} {
		l, err := Parse(c.version)
		if err != nil {
			t.Fatalf("Parse(%q): %v", c.version, err)
		}
		if got := l.ExtensionSlots(); got != c.want {
			t.Errorf("%s: %d slots, want %d", c.version, got, c.want)
		}
	}
}
