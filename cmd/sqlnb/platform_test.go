package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// TestPlatformHelpers: processGone and writable, which have one implementation per system (platform_unix.go,
// platform_windows.go), agree on what both can tell: this process is not gone, a child that exited and was
// waited for is; a new directory and a new file of this user's are writable.
func TestPlatformHelpers(t *testing.T) {
	if processGone(os.Getpid()) {
		t.Error("processGone(this process) = true")
	}
	child := exec.Command(os.Args[0], "-test.run=^$") // this test binary, running no test: exits at once
	if err := child.Run(); err != nil {
		t.Fatal(err)
	}
	if !processGone(child.Process.Pid) {
		t.Errorf("processGone(%d, exited and waited for) = false", child.Process.Pid)
	}
	dir := t.TempDir()
	file := filepath.Join(dir, "db.duckdb")
	if err := os.WriteFile(file, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{dir, file} {
		if !writable(p) {
			t.Errorf("writable(%s) = false", p)
		}
	}
}
