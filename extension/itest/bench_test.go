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
// @duckdb/node-api 1.5.6 and in a Go program on duckdb-go 2.0 (extension/host), next to the same functions
// registered by the sqlnb library (this process: the DuckDB of the tests' module file, 2.0 by default,
// through duckdb-go) and to each host's bare scan and GROUP BY of the same file, in one run. BENCH_ROWS
// overrides the 10M rows. Every query: best of 5 (training in the binary and node-api: best of 3).
func BenchmarkExtension(b *testing.B) {
	n := 10_000_000
	if s := os.Getenv("BENCH_ROWS"); s != "" {
		n, _ = strconv.Atoi(s)
	}
	ext := os.Getenv("SQLNB_EXT")
	nodeDir := os.Getenv("SQLNB_NODE_DIR")
	if ext == "" || nodeDir == "" {
		b.Fatal("SQLNB_EXT and SQLNB_NODE_DIR are not set: run make bench-extension")
	}
	goHost20 := goHost(b, "go.mod")
	fmt.Printf("\n%d rows, 2 threads, best of 5 (M rows/s); binary = the functions sqlnb registers through duckdb-go (this process), "+
		"extension = LOADed in the host named\n", n)
	fmt.Println("| (m,k) | host | scan | nb_predict | predict/scan | ext/binary | GROUP BY | train | train/GROUP BY | peak RSS |")
	fmt.Println("|---|---|---|---|---|---|---|---|---|---|")
	for _, mk := range [][2]int{{4, 2}, {20, 10}} {
		m, k := mk[0], mk[1]
		b.Run(fmt.Sprintf("m%d_k%d", m, k), func(b *testing.B) {
			for b.Loop() {
				benchOne(b, n, m, k, ext, nodeDir, goHost20)
			}
		})
	}
}

func benchOne(b *testing.B, n, m, k int, ext, nodeDir, goHost20 string) {
	ctx := context.Background()
	path := newDB(b, "bench.duckdb") // node-api 1.5.6 opens it too
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
		for range 5 {
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
	var binVersion string
	if err := db.QueryRowContext(ctx, "SELECT version()").Scan(&binVersion); err != nil {
		b.Fatal(err)
	}
	db.Close()
	var ru syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &ru)

	queries, _ := json.Marshal([]map[string]any{{"sql": scan, "repeats": 5}, {"sql": predict, "repeats": 5}, {"sql": groupBy, "repeats": 5},
		{"sql": "SELECT * FROM nb_train('bench_ext', 'd', 'y')", "repeats": 3}})
	script, _ := filepath.Abs("testdata/bench.cjs")
	// Bounded: a hang is a failure, not a stuck run.
	run, cancel := context.WithTimeout(ctx, 30*time.Minute)
	defer cancel()
	out, err := exec.CommandContext(run, "node", script, nodeDir, path, ext, string(queries)).Output()
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
	fmt.Printf("| (%d,%d) | binary (DuckDB %s) | %.1f | %.1f | %.2f | | %.1f | %.1f | %.2f | %d MiB |\n", m, k, binVersion,
		rate(ms(tScan)), rate(ms(tPredict)), ms(tScan)/ms(tPredict), rate(ms(tGroup)), rate(ms(tTrain)), ms(tTrain)/ms(tGroup), ru.Maxrss/1024)
	row := func(host string, eScan, ePredict, eGroup, eTrain float64, rssKiB int64) {
		fmt.Printf("| (%d,%d) | extension in %s | %.1f | %.1f | %.2f | %.2f | %.1f | %.1f | %.2f | %d MiB |\n", m, k, host,
			rate(eScan), rate(ePredict), eScan/ePredict, ms(tPredict)/ePredict, rate(eGroup), rate(eTrain), eTrain/eGroup, rssKiB/1024)
	}
	row("node-api 1.5.6", res.MS[0], res.MS[1], res.MS[2], res.MS[3], res.MaxRSSKiB)
	b.ReportMetric(ms(tPredict)/res.MS[1], "ext-node/binary")
	b.ReportMetric(res.MS[3]/res.MS[2], "ext-node-train/groupby")

	// The Go host on DuckDB 2.0: the same statements, each best of 5.
	cmd := exec.CommandContext(run, goHost20, "-repeat", "5", path, "SET threads = 2", "SET preserve_insertion_order = false", "LOAD '"+ext+"'",
		scan, predict, groupBy, "SELECT * FROM nb_train('bench_go', 'd', 'y')")
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err = cmd.Output()
	if err != nil {
		b.Fatalf("Go host: %v\n%s\n%.2000s", err, stderr.String(), out)
	}
	var goMS []float64
	for _, h := range programHeader.FindAllStringSubmatch(string(out), -1) {
		v, _ := strconv.ParseFloat(h[1], 64)
		goMS = append(goMS, v)
	}
	if len(goMS) != 7 || strings.Contains(string(out), "\nerror: ") {
		b.Fatalf("Go host output: %.2000s", out)
	}
	var rss int64
	fmt.Sscanf(stderr.String(), "peak_rss_kib %d", &rss)
	row("Go on duckdb-go 2.0", goMS[3], goMS[4], goMS[5], goMS[6], rss)
	b.ReportMetric(ms(tPredict)/goMS[4], "ext-go20/binary")
	b.ReportMetric(goMS[6]/goMS[5], "ext-go20-train/groupby")
}
