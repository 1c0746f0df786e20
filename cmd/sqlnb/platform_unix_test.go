//go:build unix

package main

import (
	"os"
	"syscall"
)

// mkfifo makes a FIFO (a named pipe) at path.
func mkfifo(path string) error { return syscall.Mkfifo(path, 0o644) }

// interruptSelf sends this process SIGINT, as Ctrl-C in its terminal does.
var interruptSelf = func() error { return syscall.Kill(os.Getpid(), syscall.SIGINT) }
