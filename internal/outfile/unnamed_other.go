//go:build !linux

package outfile

import (
	"errors"
	"os"
)

// openUnnamed reports that files without a name (Linux's O_TMPFILE) are not available here: the file being
// written is a hidden named one (openNamed).
func openUnnamed(target, dir string) (f *os.File, path string, ok bool) { return nil, "", false }

// linkUnnamed is never called where openUnnamed opens nothing.
func linkUnnamed(path, tmp string) error { return errors.ErrUnsupported }
