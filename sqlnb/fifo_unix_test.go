//go:build unix

package sqlnb_test

import "syscall"

func syscallMkfifo(path string) error { return syscall.Mkfifo(path, 0o644) }
