package bench

import (
	"context"
	"fmt"
	"os"
	"testing"
	"time"

	"github.com/sqlnb/sqlnb/sqlnb"
	"github.com/sqlnb/sqlnb/udf"
)

// BenchmarkCounts scores a multinomial model of 20 count columns (INTEGER, or BENCH_COUNT_TYPE: BIGINT is
// what DuckDB's CSV reader gives bench-compare's table) and 10 classes on an in-memory
// table of BENCH_ROWS rows (default 10M) generated as bench-compare's MultinomialNB data, the row passed as
// a struct: nb_predict and nb_predict_proba next to the bare scan sum(n01 + … + n20), each the best of 3
// runs' time and the least of 3 runs' CPU time (all threads; steadier on a shared machine).
func BenchmarkCounts(b *testing.B) {
	n := rows()
	typ := os.Getenv("BENCH_COUNT_TYPE")
	if typ == "" {
		typ = "INTEGER"
	}
	ctx := context.Background()
	db, err := udf.Open("")
	if err != nil {
		b.Fatal(err)
	}
	defer db.Close()
	gen := fmt.Sprintf(`CREATE TABLE d AS SELECT 'c' || c AS y, %s FROM (SELECT i, i %% 10 AS c FROM range(%d) r(i))`,
		cols(20, func(j int) string {
			return fmt.Sprintf("floor(-ln(1 - random()) * (1 + (c + %d) %% 5))::%s AS n%02d", j, typ, j)
		}, ", "), n)
	for _, s := range []string{"SET threads = 2", "SET preserve_insertion_order = false", gen} {
		if _, err := db.ExecContext(ctx, s); err != nil {
			b.Fatal(err)
		}
	}
	if _, err := sqlnb.Train(ctx, db, sqlnb.TrainSpec{Model: "m", Source: "d", Label: "y", Kind: sqlnb.Multinomial}); err != nil {
		b.Fatal(err)
	}
	scan := "SELECT sum(" + cols(20, func(j int) string { return fmt.Sprintf("n%02d", j) }, " + ") + ") FROM d"
	for b.Loop() {
		tScan, cScan := bestCPU(b, drain(db, scan))
		tPredict, cPredict := bestCPU(b, drain(db, "SELECT count(nb_predict('m', t)) FROM d t"))
		tProba, cProba := bestCPU(b, drain(db, "SELECT count(nb_predict_proba('m', t)) FROM d t"))
		fmt.Printf("\n%d rows × 20 %s count columns × 10 classes, 2 threads, best of %d (seconds; CPU seconds)\n", n, typ, repeats)
		fmt.Println("| scan sum(n01+…+n20) | nb_predict | nb_predict_proba | predict/scan | proba/scan | scan CPU | nb_predict CPU | nb_predict_proba CPU |")
		fmt.Println("|---|---|---|---|---|---|---|---|")
		s := func(d time.Duration) float64 { return d.Seconds() }
		fmt.Printf("| %.3f | %.3f | %.3f | %.2f | %.2f | %.3f | %.3f | %.3f |\n", s(tScan), s(tPredict), s(tProba), s(tPredict)/s(tScan), s(tProba)/s(tScan),
			s(cScan), s(cPredict), s(cProba))
		b.ReportMetric(s(tPredict), "predict-s")
		b.ReportMetric(s(tProba), "proba-s")
	}
}
