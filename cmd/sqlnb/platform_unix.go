//go:build unix

// This file uses the standard library and x/sys only: .ci/vet-platforms.sh vets it alone for macOS, where
// the rest of the package needs cgo.

package main

import (
	"errors"
	"syscall"

	"golang.org/x/sys/unix"
)

// processGone reports whether no process has the given PID (kill(pid, 0) fails with ESRCH). A process of
// another user is not reported gone (EPERM); one in another PID namespace is: this one has no such PID.
func processGone(pid int) bool {
	return errors.Is(syscall.Kill(pid, 0), syscall.ESRCH)
}

// writable reports whether this user may write the file or directory at path (access(2) with W_OK).
func writable(path string) bool {
	return unix.Access(path, unix.W_OK) == nil
}
