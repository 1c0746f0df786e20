//go:build integration

package itest

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/sqlnb/sqlnb/sqlnb"
	"github.com/sqlnb/sqlnb/udf"
)

// BenchmarkExtension (make bench-extension): nb_predict and training from SQL through the extension in
// @duckdb/node-api 1.5.6, next to the same functions registered by the sqlnb library (this process, DuckDB
// 1.5.6 through duckdb-go) and to each host's bare scan and GROUP BY of the same file, in one run.
// BENCH_ROWS overrides the 5M rows.
func BenchmarkExtension(b *testing.B) {
	n := 5_000_000
	if s := os.Getenv("BENCH_ROWS"); s != "" {
		n, _ = strconv.Atoi(s)
	}
	ext := os.Getenv("SQLNB_EXT")
	nodeDir := os.Getenv("SQLNB_NODE_DIR")
	if ext == "" || nodeDir == "" {
		b.Fatal("SQLNB_EXT and SQLNB_NODE_DIR are not set: run make bench-extension")
	}
	fmt.Printf("\n%d rows, 2 threads, best of 3 (M rows/s); binary = the functions sqlnb registers through duckdb-go, extension = LOADed in node-api\n", n)
	fmt.Println("| (m,k) | host | scan | nb_predict | predict/scan | ext/binary | GROUP BY | train | train/GROUP BY | peak RSS |")
	fmt.Println("|---|---|---|---|---|---|---|---|---|---|")
	for _, mk := range [][2]int{{4, 2}, {20, 10}} {
		m, k := mk[0], mk[1]
		b.Run(fmt.Sprintf("m%d_k%d", m, k), func(b *testing.B) {
			for b.Loop() {
				benchOne(b, n, m, k, ext, nodeDir)
			}
		})
	}
}

func benchOne(b *testing.B, n, m, k int, ext, nodeDir string) {
	ctx := context.Background()
	path := filepath.Join(b.TempDir(), "bench.duckdb")
	db, err := udf.Open(path)
	if err != nil {
		b.Fatal(err)
	}
	col := func(f func(j int) string, sep string) string {
		parts := make([]string, m)
		for j := range parts {
			parts[j] = f(j)
		}
		return strings.Join(parts, sep)
	}
	gen := fmt.Sprintf(`CREATE TABLE d AS SELECT 'c' || (i %% %d) AS y, %s FROM range(%d) r(i)`, k,
		col(func(j int) string { return fmt.Sprintf("random() + (i %% %d) * %g AS x%d", k, 0.05*float64(j%3+1), j) }, ", "), n)
	groupBy := "SELECT y, count(*), " + col(func(j int) string { return fmt.Sprintf("count(x%d), avg(x%d), var_pop(x%d)", j, j, j) }, ", ") + " FROM d GROUP BY y"
	scan := "SELECT sum(" + col(func(j int) string { return fmt.Sprintf("x%d", j) }, " + ") + ") FROM d"
	predict := "SELECT count(nb_predict('bench', " + col(func(j int) string { return fmt.Sprintf("x%d", j) }, ", ") + ")) FROM d"
	for _, s := range []string{"SET threads = 2", "SET preserve_insertion_order = false", gen} {
		if _, err := db.ExecContext(ctx, s); err != nil {
			b.Fatal(err)
		}
	}
	timeQuery := func(q string) time.Duration {
		d := time.Duration(math.MaxInt64)
		for range 3 {
			start := time.Now()
			rows, err := db.QueryContext(ctx, q)
			if err != nil {
				b.Fatal(err)
			}
			for rows.Next() {
			}
			rows.Close()
			d = min(d, time.Since(start))
		}
		return d
	}
	tGroup := timeQuery(groupBy)
	tTrain := time.Duration(math.MaxInt64)
	for range 3 {
		start := time.Now()
		if _, err := sqlnb.Train(ctx, db, sqlnb.TrainSpec{Model: "bench", Source: "d", Label: "y"}); err != nil {
			b.Fatal(err)
		}
		tTrain = min(tTrain, time.Since(start))
	}
	tScan, tPredict := timeQuery(scan), timeQuery(predict)
	db.Close()
	var ru syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &ru)

	queries, _ := json.Marshal([]map[string]any{{"sql": scan}, {"sql": predict}, {"sql": groupBy},
		{"sql": "SELECT * FROM nb_train('bench_ext', 'd', 'y')"}})
	script, _ := filepath.Abs("testdata/bench.cjs")
	out, err := exec.Command("node", script, nodeDir, path, ext, string(queries)).Output()
	if err != nil {
		b.Fatalf("node: %v\n%s", err, out)
	}
	var res struct {
		MS        []float64 `json:"ms"`
		MaxRSSKiB int64     `json:"maxRSSKiB"`
	}
	if err := json.Unmarshal(out, &res); err != nil || len(res.MS) != 4 {
		b.Fatalf("node output %q: %v", out, err)
	}
	ms := func(d time.Duration) float64 { return float64(d) / 1e6 }
	rate := func(msec float64) float64 { return float64(n) / msec / 1e3 }
	eScan, ePredict, eGroup, eTrain := res.MS[0], res.MS[1], res.MS[2], res.MS[3]
	fmt.Printf("| (%d,%d) | binary | %.1f | %.1f | %.2f | | %.1f | %.1f | %.2f | %d MiB |\n", m, k,
		rate(ms(tScan)), rate(ms(tPredict)), ms(tScan)/ms(tPredict), rate(ms(tGroup)), rate(ms(tTrain)), ms(tTrain)/ms(tGroup), ru.Maxrss/1024)
	fmt.Printf("| (%d,%d) | extension | %.1f | %.1f | %.2f | %.2f | %.1f | %.1f | %.2f | %d MiB |\n", m, k,
		rate(eScan), rate(ePredict), eScan/ePredict, ms(tPredict)/ePredict, rate(eGroup), rate(eTrain), eTrain/eGroup, res.MaxRSSKiB/1024)
	b.ReportMetric(ms(tPredict)/ePredict, "ext/binary")
	b.ReportMetric(eTrain/eGroup, "ext-train/groupby")
}
