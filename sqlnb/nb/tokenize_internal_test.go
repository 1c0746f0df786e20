package nb

import "testing"

// TestCasingPlanes: no character outside casingPlanes is cased or case-ignorable, so the SQL pattern's
// classes, written over those planes only, hold every such character Go's tables know.
func TestCasingPlanes(t *testing.T) {
	for r := rune(0); r <= 0x10FFFF; r++ {
		inside := false
		for _, p := range casingPlanes {
			inside = inside || r >= p[0] && r <= p[1]
		}
		if !inside && (cased(r) || caseIgnorable(r)) {
			t.Fatalf("U+%04X is cased or case-ignorable but outside casingPlanes", r)
		}
	}
}
