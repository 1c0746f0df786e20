package main

import "errors"

// mkfifo fails: FIFOs are Unix's.
func mkfifo(string) error { return errors.ErrUnsupported }

// interruptSelf is nil: Windows sends Ctrl-C to every process of a console, not to one.
var interruptSelf func() error
