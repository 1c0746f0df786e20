//go:build unix

package outfile

import (
	"os"
	"path/filepath"
	"syscall"
	"testing"
)

// TestReplaceKeepsModeAndOwner: a file replaced through Create and Commit keeps its permissions and owner
// (a review found the owner never kept: the type assertion on the file's stat always failed), whichever way
// the file being written was opened. As root the file is given to nobody (65534:65534); otherwise to another
// of the user's groups, where there is one.
func TestReplaceKeepsModeAndOwner(t *testing.T) {
	for _, tc := range openers {
		t.Run(tc.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "out.csv")
			if err := os.WriteFile(path, []byte("old\n"), 0o640); err != nil {
				t.Fatal(err)
			}
			uid, gid := os.Geteuid(), os.Getegid()
			if uid == 0 {
				uid, gid = 65534, 65534
			} else if groups, _ := os.Getgroups(); len(groups) > 0 {
				for _, g := range groups {
					if g != gid {
						gid = g
						break
					}
				}
			}
			if err := os.Chown(path, uid, gid); err != nil {
				t.Fatal(err)
			}
			o, err := create(path, tc.open)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := o.Writer().WriteString("new\n"); err != nil {
				t.Fatal(err)
			}
			if err := o.Commit(); err != nil {
				t.Fatal(err)
			}
			fi, err := os.Stat(path)
			if err != nil {
				t.Fatal(err)
			}
			st := fi.Sys().(*syscall.Stat_t)
			if fi.Mode().Perm() != 0o640 || int(st.Uid) != uid || int(st.Gid) != gid {
				t.Errorf("after replacing: mode %v owner %d:%d, want -rw-r----- %d:%d", fi.Mode().Perm(), st.Uid, st.Gid, uid, gid)
			}
			if b, _ := os.ReadFile(path); string(b) != "new\n" {
				t.Errorf("content %q", b)
			}
		})
	}
}
