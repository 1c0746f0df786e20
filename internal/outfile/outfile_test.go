package outfile

import (
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"
)

// openers are the ways the file being written is opened: openFile (unnamed through O_TMPFILE on Linux, where
// the file system supports it) and openNamed alone, the fallback elsewhere (macOS, Windows), run here on
// every system.
var openers = []struct {
	name string
	open func(target, dir string) (*File, error)
}{
	{"default", openFile},
	{"named", openNamed},
}

// TestCommitAbort: until Commit the target keeps its old content; Commit replaces it, Abort leaves it, and
// neither leaves another file in the directory, whichever way the file being written was opened. The named
// fallback's file is a hidden one beside the target while it is written.
func TestCommitAbort(t *testing.T) {
	for _, tc := range openers {
		for _, end := range []string{"commit", "abort"} {
			t.Run(tc.name+"/"+end, func(t *testing.T) {
				dir := t.TempDir()
				path := filepath.Join(dir, "out.csv")
				if err := os.WriteFile(path, []byte("old\n"), 0o644); err != nil {
					t.Fatal(err)
				}
				o, err := create(path, tc.open)
				if err != nil {
					t.Fatal(err)
				}
				if _, err := o.Writer().WriteString("new\n"); err != nil {
					t.Fatal(err)
				}
				if b, _ := os.ReadFile(path); string(b) != "old\n" {
					t.Errorf("before Commit: content %q, want the old one", b)
				}
				if tmp := filepath.Base(o.Path()); !o.unnamed {
					if got := entries(t, dir); !strings.HasPrefix(tmp, ".out.csv.sqlnb-") || !slices.Equal(got, []string{tmp, "out.csv"}) {
						t.Errorf("while writing, the directory holds %q (writing to %s), want out.csv and a hidden .out.csv.sqlnb-*", got, tmp)
					}
				}
				want := "old\n"
				if end == "commit" {
					want = "new\n"
					if err := o.Commit(); err != nil {
						t.Fatal(err)
					}
				} else {
					o.Abort()
				}
				if b, _ := os.ReadFile(path); string(b) != want {
					t.Errorf("content %q, want %q", b, want)
				}
				if got := entries(t, dir); !slices.Equal(got, []string{"out.csv"}) {
					t.Errorf("the directory holds %q, want only out.csv", got)
				}
			})
		}
	}
}

// TestUnnamedOnLinux: on Linux the default opener's file has no name (O_TMPFILE, on tmpfs or ext4; the
// named fallback is tested through openNamed above); elsewhere it is the named fallback.
func TestUnnamedOnLinux(t *testing.T) {
	dir := t.TempDir()
	o, err := openFile(filepath.Join(dir, "out.csv"), dir)
	if err != nil {
		t.Fatal(err)
	}
	defer o.Abort()
	switch {
	case runtime.GOOS != "linux" && o.unnamed:
		t.Errorf("on %s the file being written is unnamed (%s): O_TMPFILE is Linux's", runtime.GOOS, o.Path())
	case runtime.GOOS == "linux" && !o.unnamed:
		t.Skipf("the file system of %s has no O_TMPFILE: the named fallback is in use", dir)
	}
}

// entries lists the names in dir, sorted.
func entries(t *testing.T, dir string) []string {
	t.Helper()
	es, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range es {
		names = append(names, e.Name())
	}
	return names
}
