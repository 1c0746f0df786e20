// Package outfile writes files whole or not at all, keeping what is at the path: a symbolic link keeps
// pointing where it did (its file gets the content), a file keeps its permissions and owner, and a directory,
// device, FIFO or socket at the path is refused rather than replaced. The CLI's outputs (predict --output,
// export --sql, models export) and eval's plots go through it.
package outfile

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
)

// File is a file written in full or not at all: DuckDB's COPY (or Go) writes to Path, and Commit
// puts the finished file at the target path in one rename. Until then the target keeps its old content, if
// any. On Linux the file being written has no name (O_TMPFILE): if the command is killed, it vanishes with
// the process and nothing partial is left; where O_TMPFILE is not supported, it is a hidden file in the
// target's directory, removed on failure.
type File struct {
	target, dir string
	f           *os.File
	path        string
	unnamed     bool
}

// The target is the file a symbolic link at the given path points to (the link stays, its file gets the
// content), and a file that is there keeps its permissions (and owner, where allowed). A path that names
// something other than a regular file (a directory, a device such as /dev/null, a FIFO) is refused: a rename
// would replace it.
func Create(target string) (*File, error) {
	return create(target, openFile)
}

// create is Create with the function that opens the file being written: openFile, or openNamed alone (the
// fallback where the system has no unnamed files, which the tests run on Linux too).
func create(target string, open func(target, dir string) (*File, error)) (*File, error) {
	target, mode, err := outputTarget(target)
	if err != nil {
		return nil, err
	}
	dir := filepath.Dir(target)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	o, err := open(target, dir)
	if err != nil {
		return nil, err
	}
	if mode != nil {
		// The owner first: a chown may clear set-id bits that the chmod then restores.
		keepOwner(o.f, mode)
		_ = o.f.Chmod(mode.Mode().Perm())
	}
	return o, nil
}

// outputTarget resolves the symbolic links of path (a dangling one to the path it names) and returns the
// file there, if any: refused unless it is a regular file.
func outputTarget(path string) (string, os.FileInfo, error) {
	target := path
	for range 40 {
		fi, err := os.Lstat(target)
		if errors.Is(err, os.ErrNotExist) {
			return target, nil, nil
		}
		if err != nil {
			return "", nil, fmt.Errorf("write %s: %w", path, err)
		}
		switch {
		case fi.Mode()&os.ModeSymlink != 0:
			link, err := os.Readlink(target)
			if err != nil {
				return "", nil, fmt.Errorf("write %s: %w", path, err)
			}
			if !filepath.IsAbs(link) {
				link = filepath.Join(filepath.Dir(target), link)
			}
			target = link
			continue
		case !fi.Mode().IsRegular():
			kind := "not a regular file"
			switch t := fi.Mode().Type(); {
			case t&os.ModeDir != 0:
				kind = "a directory"
			case t&os.ModeDevice != 0:
				kind = "a device"
			case t&os.ModeNamedPipe != 0:
				kind = "a FIFO"
			case t&os.ModeSocket != 0:
				kind = "a socket"
			}
			return "", nil, fmt.Errorf("write %s: it is %s, which the file sqlnb writes would replace: give the path of a regular file", path, kind)
		case IsDuckDB(target):
			return "", nil, fmt.Errorf("write %s: it is a DuckDB database, which the file sqlnb writes would replace (with every table "+
				"and model in it): give another path", path)
		}
		return target, fi, nil
	}
	return "", nil, fmt.Errorf("write %s: too many levels of symbolic links", path)
}

// IsDuckDB reports whether the file at path starts as a DuckDB database file does ("DUCK" at byte 8): no
// file sqlnb writes replaces one.
func IsDuckDB(path string) bool {
	f, err := os.Open(path)
	if err != nil {
		return false
	}
	defer f.Close()
	var head [12]byte
	n, _ := io.ReadFull(f, head[:])
	return n == len(head) && string(head[8:]) == "DUCK"
}

// openFile opens the file to write target's content to in dir: an unnamed one where the system has them
// (openUnnamed: Linux's O_TMPFILE), else a hidden named one (openNamed).
func openFile(target, dir string) (*File, error) {
	if f, path, ok := openUnnamed(target, dir); ok {
		return &File{target: target, dir: dir, f: f, path: path, unnamed: true}, nil
	}
	return openNamed(target, dir)
}

// openNamed creates the file to write target's content to as a hidden file in dir, renamed to target by
// Commit and removed by Abort.
func openNamed(target, dir string) (*File, error) {
	f, err := os.CreateTemp(dir, "."+filepath.Base(target)+".sqlnb-*")
	if err != nil {
		return nil, fmt.Errorf("write %s: %w", target, err)
	}
	return &File{target: target, dir: dir, f: f, path: f.Name()}, nil
}

// Writer is the file to write the content to (for Go writers; DuckDB's COPY writes to Path).
func (o *File) Writer() *os.File { return o.f }

// Path is where to write the file's content.
func (o *File) Path() string { return o.path }

// Commit makes the written content the target file.
func (o *File) Commit() error {
	defer o.f.Close()
	if err := o.f.Sync(); err != nil {
		o.Abort()
		return fmt.Errorf("write %s: %w", o.target, err)
	}
	if !o.unnamed {
		// Closed before the rename: Windows does not rename a file that is open.
		o.f.Close()
		if err := os.Rename(o.path, o.target); err != nil {
			o.Abort()
			return fmt.Errorf("write %s: %w", o.target, err)
		}
		return syncDir(o.dir)
	}
	var b [8]byte
	_, _ = rand.Read(b[:])
	tmp := filepath.Join(o.dir, "."+filepath.Base(o.target)+".sqlnb-"+hex.EncodeToString(b[:]))
	if err := linkUnnamed(o.path, tmp); err != nil {
		return fmt.Errorf("write %s: %w", o.target, err)
	}
	if err := os.Rename(tmp, o.target); err != nil {
		_ = os.Remove(tmp)
		return fmt.Errorf("write %s: %w", o.target, err)
	}
	return syncDir(o.dir)
}

// Abort drops the written content; the target is untouched.
func (o *File) Abort() {
	o.f.Close()
	if !o.unnamed {
		_ = os.Remove(o.path)
	}
}

func syncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return nil
	}
	defer d.Close()
	if err := d.Sync(); err != nil && !errors.Is(err, os.ErrInvalid) {
		return nil // some file systems cannot sync a directory; the rename happened
	}
	return nil
}

// WriteFile writes data to path through a File.
func WriteFile(path string, data []byte) error {
	o, err := Create(path)
	if err != nil {
		return err
	}
	if _, err := o.f.Write(data); err != nil {
		o.Abort()
		return fmt.Errorf("write %s: %w", path, err)
	}
	return o.Commit()
}
