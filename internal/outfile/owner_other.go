//go:build !unix

package outfile

import "os"

// keepOwner does nothing where files have no Unix owner (Windows): the replaced file keeps its permissions
// only.
func keepOwner(*os.File, os.FileInfo) {}
