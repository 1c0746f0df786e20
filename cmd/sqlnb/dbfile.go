package main

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"strings"
	"unicode/utf8"
)

// duckdbMagic is what a DuckDB database file holds at byte 8 (its main header).
var duckdbMagic = []byte("DUCK")

// checkDB checks the database named by dsn before it is opened: an existing file must be a DuckDB database
// (DuckDB would open a CSV or parquet file as an empty in-memory database), and when mustExist is set (the
// commands that only read models) the file must exist, so a mistyped --db is an error, not a new empty
// database. ":memory:" always passes.
func checkDB(dsn string, mustExist bool) error {
	path, _, _ := strings.Cut(dsn, "?")
	if path == "" || strings.HasPrefix(path, ":memory:") {
		return nil
	}
	f, err := os.Open(path)
	if errors.Is(err, fs.ErrNotExist) {
		if mustExist {
			return fmt.Errorf("database %q does not exist: give the database that holds the models with --db (default %s), "+
				"or train a model into it first (sqlnb train --db %s ...)", path, defaultDB, path)
		}
		return nil
	}
	if err != nil {
		return fmt.Errorf("database %q: %w", path, err)
	}
	defer f.Close()
	if st, err := f.Stat(); err == nil && st.IsDir() {
		return fmt.Errorf("database %q is a directory: --db names a DuckDB database file", path)
	}
	head := make([]byte, 512)
	n, err := io.ReadFull(f, head)
	if err != nil && !errors.Is(err, io.ErrUnexpectedEOF) && !errors.Is(err, io.EOF) {
		return fmt.Errorf("database %q: %w", path, err)
	}
	head = head[:n]
	if len(head) >= 12 && bytes.Equal(head[8:12], duckdbMagic) {
		return nil
	}
	return fmt.Errorf("%q is not a DuckDB database (%s): --db names the database that stores the models "+
		"(default %s); data files are read with --from", path, describeFile(head), defaultDB)
}

// describeFile says what a file that is not a DuckDB database looks like, from its first bytes.
func describeFile(head []byte) string {
	switch {
	case len(head) == 0:
		return "it is empty"
	case bytes.HasPrefix(head, []byte("PAR1")):
		return "it is a parquet file"
	case bytes.HasPrefix(head, []byte("SQLite format 3")):
		return "it is a SQLite database"
	case bytes.HasPrefix(head, []byte{0x1f, 0x8b}):
		return "it is gzip-compressed"
	case utf8.Valid(head[:max(0, len(head)-4)]) && !bytes.ContainsRune(head, 0):
		if line, _, _ := bytes.Cut(head, []byte("\n")); bytes.ContainsAny(line, ",\t;") {
			return "it is a text file, CSV-like"
		}
		return "it is a text file"
	}
	return "its header is not DuckDB's"
}

// dbExists reports whether dsn names an existing file (":memory:" does not).
func dbExists(dsn string) bool {
	path, _, _ := strings.Cut(dsn, "?")
	if path == "" || strings.HasPrefix(path, ":memory:") {
		return false
	}
	_, err := os.Stat(path)
	return err == nil
}
