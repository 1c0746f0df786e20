package main

import (
	"errors"
	"os"

	"golang.org/x/sys/windows"
)

// processGone reports whether no process has the given PID: Windows refuses to open one that does not exist
// with ERROR_INVALID_PARAMETER. Any other failure (a process sqlnb may not open) is not reported gone.
func processGone(pid int) bool {
	h, err := windows.OpenProcess(windows.PROCESS_QUERY_LIMITED_INFORMATION, false, uint32(pid))
	if err == nil {
		_ = windows.CloseHandle(h)
		return false
	}
	return errors.Is(err, windows.ERROR_INVALID_PARAMETER)
}

// writable reports whether the file at path may be written as far as its read-only attribute tells (Go
// shows it as the missing write bits); a directory's read-only attribute does not stop writes in it, and
// access control lists are not read: DuckDB reports what they refuse.
func writable(path string) bool {
	fi, err := os.Stat(path)
	return err != nil || fi.IsDir() || fi.Mode().Perm()&0o200 != 0
}
