package bench

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/sqlnb/sqlnb/sqlnb"
	"github.com/sqlnb/sqlnb/udf"
)

// BenchmarkStore trains a model whose categorical feature has BENCH_VALUES (default 2M) distinct values on
// BENCH_STORE_ROWS (default 5M) rows of 3 classes in a database file — about 5M statistics rows — and prints
// the phases next to floors from the same run: the bare GROUPING SETS scan of the same counts (what
// training must compute) and a bare INSERT … SELECT of as many rows into a table of the same shape (what
// storing them must write).
func BenchmarkStore(b *testing.B) {
	n, values := 5_000_000, 2_000_000
	if s := os.Getenv("BENCH_STORE_ROWS"); s != "" {
		n, _ = strconv.Atoi(s)
	}
	if s := os.Getenv("BENCH_VALUES"); s != "" {
		values, _ = strconv.Atoi(s)
	}
	ctx := context.Background()
	db, err := udf.Open(filepath.Join(b.TempDir(), "store.duckdb"))
	if err != nil {
		b.Fatal(err)
	}
	defer db.Close()
	for _, s := range []string{"SET threads = 2", fmt.Sprintf(`CREATE TABLE t AS SELECT (i %% 3)::VARCHAR AS y, sin(i) AS x,
		('v' || (i %% %d))::VARCHAR AS big FROM range(%d) r(i)`, values, n),
		`CREATE TABLE floor_rows (model VARCHAR, feature VARCHAR, class VARCHAR, value VARCHAR, count BIGINT, weight DOUBLE)`} {
		if _, err := db.ExecContext(ctx, s); err != nil {
			b.Fatal(err)
		}
	}
	var statRows int64
	scan := best(b, func() error {
		return db.QueryRowContext(ctx, `SELECT count(*) FROM (SELECT y, big, count(*) FROM t GROUP BY GROUPING SETS ((y), (y, big)))`).Scan(&statRows)
	})
	insert := best(b, func() error {
		_, err := db.ExecContext(ctx, fmt.Sprintf(`DELETE FROM floor_rows; INSERT INTO floor_rows SELECT 'm', 'big', (i %% 3)::VARCHAR,
			'v' || (i %% %d), i, i * 1.5 FROM range(%d) r(i)`, values, statRows))
		return err
	})
	var res *sqlnb.TrainResult
	train := best(b, func() error {
		var err error
		res, err = sqlnb.Train(ctx, db.DB, sqlnb.TrainSpec{Model: "m", Source: "t", Label: "y"})
		return err
	})
	save := best(b, func() error { return sqlnb.Save(ctx, db.DB, res.Model) })
	var m *sqlnb.Model
	load := best(b, func() error {
		var err error
		m, err = sqlnb.Load(ctx, db.DB, "m")
		return err
	})
	compile := best(b, func() error { _, err := sqlnb.Compile(m); return err })
	first := best(b, func() error {
		db.Forget()
		var s string
		return db.QueryRowContext(ctx, `SELECT nb_predict('m', {'x': 0.5, 'big': 'v17'})`).Scan(&s)
	})
	sec := func(d time.Duration) string { return strconv.FormatFloat(d.Seconds(), 'f', 2, 64) }
	fmt.Printf("\nStore: %d rows, %d distinct values, %d statistics rows, 2 threads, best of %d (seconds)\n", n, values, statRows, repeats)
	fmt.Println("| GROUPING SETS scan | INSERT … SELECT | train | save | save/insert | save/scan | load | compile | first nb_predict |")
	fmt.Println("|---|---|---|---|---|---|---|---|---|")
	fmt.Printf("| %s | %s | %s | %s | %.2f | %.2f | %s | %s | %s |\n", sec(scan), sec(insert), sec(train), sec(save),
		save.Seconds()/insert.Seconds(), save.Seconds()/scan.Seconds(), sec(load), sec(compile), sec(first))
	b.ReportMetric(save.Seconds()/insert.Seconds(), "save/insert")
}
