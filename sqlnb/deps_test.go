package sqlnb_test

import (
	"os/exec"
	"strings"
	"testing"
)

func importsOf(t *testing.T) []string {
	t.Helper()
	out, err := exec.Command("go", "list", "-deps", ".").Output()
	if err != nil {
		t.Skipf("go list unavailable: %v", err)
	}
	return strings.Fields(string(out))
}
