package outfile

import (
	"fmt"
	"os"

	"golang.org/x/sys/unix"
)

// openUnnamed opens a file without a name in dir (O_TMPFILE), where the file system supports it: if the
// process is killed, it vanishes with it. Its path is the process's link to the descriptor in /proc.
func openUnnamed(target, dir string) (f *os.File, path string, ok bool) {
	fd, err := unix.Open(dir, unix.O_TMPFILE|unix.O_RDWR|unix.O_CLOEXEC, 0o644)
	if err != nil {
		return nil, "", false
	}
	return os.NewFile(uintptr(fd), target), fmt.Sprintf("/proc/self/fd/%d", fd), true
}

// linkUnnamed gives the unnamed file at path (/proc/self/fd/N) the name tmp.
func linkUnnamed(path, tmp string) error {
	return unix.Linkat(unix.AT_FDCWD, path, unix.AT_FDCWD, tmp, unix.AT_SYMLINK_FOLLOW)
}
