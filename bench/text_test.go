package bench

import (
	"context"
	"fmt"
	"os"
	"strconv"
	"testing"
	"time"

	"github.com/sqlnb/sqlnb/sqlnb"
	"github.com/sqlnb/sqlnb/sqlnb/nb"
	"github.com/sqlnb/sqlnb/udf"
)

// BenchmarkText trains and scores a text model on synthetic documents (BENCH_DOCS, default 1M, of 100
// tokens from a 10⁵-term vocabulary, two classes) and prints training tokens/s and scoring documents/s
// next to floors from the same run: the bare tokenize + GROUP BY count query (the work training must do)
// and a bare scan of the text column.
func BenchmarkText(b *testing.B) {
	docs := 1_000_000
	if s := os.Getenv("BENCH_DOCS"); s != "" {
		docs, _ = strconv.Atoi(s)
	}
	ctx := context.Background()
	db, err := udf.Open("")
	if err != nil {
		b.Fatal(err)
	}
	defer db.Close()
	gen := `CREATE TABLE docs AS
		SELECT (i % 2)::VARCHAR AS y, array_to_string([('w' || ((hash(i * 131 + j) % 100000 + (i % 2) * (j % 3) * 17) % 100000)) FOR j IN range(100)], ' ') AS body
		FROM range(` + strconv.Itoa(docs) + `) r(i)`
	for _, s := range []string{"SET threads = 2", "SET preserve_insertion_order = false", gen} {
		if _, err := db.ExecContext(ctx, s); err != nil {
			b.Fatal(err)
		}
	}
	tokens := float64(docs) * 100
	floorGroup := "SELECT count(*) FROM (SELECT term, count(*) FROM (SELECT unnest(" + nb.TokenizeSQL("body") + ") AS term FROM docs) GROUP BY term)"
	scan := "SELECT sum(length(body)) FROM docs"
	score := "SELECT count(nb_predict('text', body)) FROM docs"
	for b.Loop() {
		tGroup := best(b, drain(db, floorGroup))
		tTrain := best(b, func() error {
			_, err := sqlnb.Train(ctx, db, sqlnb.TrainSpec{Model: "text", Source: "docs", Label: "y", Kind: sqlnb.Text})
			return err
		})
		tScan := best(b, drain(db, scan))
		tScore := best(b, drain(db, score))
		fmt.Printf("\n%d documents × 100 tokens, 10⁵-term vocabulary, 2 threads, best of %d\n", docs, repeats)
		fmt.Println("| tokenize+GROUP BY (M tokens/s) | train (M tokens/s) | train time× | scan (k docs/s) | tokenize+GROUP BY (k docs/s) | nb_predict (k docs/s) | score/tokenize floor | score/scan |")
		fmt.Println("|---|---|---|---|---|---|---|---|")
		rate := func(n float64, d time.Duration, unit float64) float64 { return n / d.Seconds() / unit }
		fmt.Printf("| %.1f | %.1f | %.2f | %.0f | %.0f | %.0f | %.2f | %.3f |\n", rate(tokens, tGroup, 1e6), rate(tokens, tTrain, 1e6),
			tTrain.Seconds()/tGroup.Seconds(), rate(float64(docs), tScan, 1e3), rate(float64(docs), tGroup, 1e3), rate(float64(docs), tScore, 1e3),
			tGroup.Seconds()/tScore.Seconds(), tScan.Seconds()/tScore.Seconds())
		b.ReportMetric(tGroup.Seconds()/tScore.Seconds(), "score/tokenize")
	}
}
