//go:build unix

package outfile

import (
	"os"
	"syscall"
)

// keepOwner gives f the owner and group of the file fi describes, where allowed. os.Lstat's Sys() is a
// *syscall.Stat_t (asserting unix.Stat_t never held: the owner was never kept).
func keepOwner(f *os.File, fi os.FileInfo) {
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		_ = f.Chown(int(st.Uid), int(st.Gid))
	}
}
