package bench

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/sqlnb/sqlnb/udf"
)

// BenchmarkBind times a statement that binds a scoring function on one row: the per-query cost of finding
// the version the caller's snapshot sees (a catalog lookup through the caller's client context, and the
// newest version's generation read on the lookup connection), against the same statement without the
// function. Reported per statement, best of 3 rounds of 2,000.
func BenchmarkBind(b *testing.B) {
	ctx := context.Background()
	db, err := udf.Open("")
	if err != nil {
		b.Fatal(err)
	}
	defer db.Close()
	for _, s := range []string{`CREATE TABLE d AS SELECT CASE WHEN i % 2 = 0 THEN 'a' ELSE 'b' END AS y, (i % 2) + sin(i) AS x FROM range(1000) r(i)`,
		`CALL nb_train('m', 'd', 'y')`} {
		if _, err := db.ExecContext(ctx, s); err != nil {
			b.Fatal(err)
		}
	}
	conn, err := db.Conn(ctx)
	if err != nil {
		b.Fatal(err)
	}
	defer conn.Close()
	per := func(q string) time.Duration {
		bestD := time.Duration(1 << 62)
		for range 3 {
			start := time.Now()
			for range 2000 {
				var s string
				if err := conn.QueryRowContext(ctx, q).Scan(&s); err != nil {
					b.Fatal(err)
				}
			}
			bestD = min(bestD, time.Since(start)/2000)
		}
		return bestD
	}
	for b.Loop() {
		plain := per(`SELECT 'a'`)
		bind := per(`SELECT nb_predict('m', {'x': 1.0})`)
		fmt.Printf("\nstatement without a scoring function %v, with nb_predict on one row %v (bind and score: +%v)\n", plain, bind, bind-plain)
		b.ReportMetric(float64(bind.Microseconds()), "µs/statement")
	}
}
