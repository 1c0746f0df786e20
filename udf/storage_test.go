package udf_test

import (
	"compress/gzip"
	"database/sql"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sqlnb/sqlnb/udf"
)

// storageVersion returns the storage format DuckDB reports for the database of db (tags of
// duckdb_databases(): "v1.5.0+", "v2.0.0+").
func storageVersion(t *testing.T, db interface {
	QueryRow(string, ...any) *sql.Row
}) string {
	t.Helper()
	var v string
	if err := db.QueryRow(`SELECT tags['storage_version'] FROM duckdb_databases() WHERE database_name = current_database()`).Scan(&v); err != nil {
		t.Fatal(err)
	}
	return v
}

// TestStorageFormats: a database file sqlnb creates is in storage format v1.5.0, which DuckDB 1.5 and 2.0
// both read (2.0's own default, v2.0.0, is unreadable by 1.5; the node-api 1.5.6 integration tests open a
// file the 2.0 build wrote), unless the DSN names another; a file a plain DuckDB of this line created opens
// in sqlnb, trains and scores, and keeps its format; testdata/storage/duckdb20.duckdb.gz, written by DuckDB
// 2.0 in its own format, opens on the 2.0 line and is refused on 1.5 with what to do.
func TestStorageFormats(t *testing.T) {
	dir := t.TempDir()
	votes, _ := filepath.Abs("../testdata/housevotes84/train.csv")
	use := func(path string) {
		t.Helper()
		db, err := udf.Open(path)
		if err != nil {
			t.Fatal(err)
		}
		defer db.Close()
		mustExec(t, db, `CREATE OR REPLACE TABLE v AS SELECT * FROM read_csv(?)`, votes)
		mustExec(t, db, `CALL nb_train('votes', 'v', 'party')`)
		if got := one(t, db, `SELECT count(*) FILTER (WHERE nb_predict('votes', t) = party) > 300 FROM v t`); got != "true" {
			t.Errorf("%s: the model is not right on its training rows", path)
		}
	}

	made := filepath.Join(dir, "sqlnb.duckdb")
	use(made)
	plain, err := sql.Open("duckdb", made)
	if err != nil {
		t.Fatal(err)
	}
	if v := storageVersion(t, plain); v != "v1.5.0+" {
		t.Errorf("a file sqlnb created: storage %s, want v1.5.0+", v)
	}
	plain.Close()

	// A file the line's DuckDB made with its default format.
	own := filepath.Join(dir, "plain.duckdb")
	plain, err = sql.Open("duckdb", own)
	if err != nil {
		t.Fatal(err)
	}
	before := storageVersion(t, plain)
	plain.Close()
	use(own)
	plain, _ = sql.Open("duckdb", own)
	if after := storageVersion(t, plain); after != before {
		t.Errorf("a file DuckDB %s made: storage %s before sqlnb used it, %s after", udf.DuckDBLine(), before, after)
	}
	plain.Close()

	// DuckDB 2.0's own format, written by 2.0.
	v20 := filepath.Join(dir, "duckdb20.duckdb")
	gunzip(t, "../testdata/storage/duckdb20.duckdb.gz", v20)
	db, err := udf.Open(v20)
	if !udf.DuckDBLine().AtLeast(2, 0, 0) {
		if err == nil || !strings.Contains(err.Error(), "cannot read the file's storage format") || !strings.Contains(err.Error(), "COPY FROM DATABASE") {
			t.Errorf("DuckDB %s opening a 2.0 file: %v; want DuckDB's error and what to do", udf.DuckDBLine(), err)
		}
		if err == nil {
			db.Close()
		}
		return
	}
	if err != nil {
		t.Fatal(err)
	}
	mustExec(t, db, `CALL nb_train('votes', 'votes', 'party')`)
	if got := one(t, db, `SELECT count(*) FILTER (WHERE nb_predict('votes', t) = party) > 300 FROM votes t`); got != "true" {
		t.Errorf("2.0 file: the model is not right on its training rows")
	}
	db.Close()
	plain, _ = sql.Open("duckdb", v20)
	if v := storageVersion(t, plain); v != "v2.0.0+" {
		t.Errorf("2.0 file after training: storage %s, want it kept at v2.0.0+", v)
	}
	plain.Close()
}

// gunzip writes the gzip file src uncompressed to dst.
func gunzip(t *testing.T, src, dst string) {
	t.Helper()
	f, err := os.Open(src)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	z, err := gzip.NewReader(f)
	if err != nil {
		t.Fatal(err)
	}
	out, err := os.Create(dst)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := io.Copy(out, z); err != nil {
		t.Fatal(err)
	}
	if err := out.Close(); err != nil {
		t.Fatal(err)
	}
}
