//go:build unix

package shell

import (
	"os"
	"syscall"
)

// interruptSelf sends this process SIGINT, as Ctrl-C in its terminal does.
var interruptSelf = func() error { return syscall.Kill(os.Getpid(), syscall.SIGINT) }
