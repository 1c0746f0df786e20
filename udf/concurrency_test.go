package udf_test

import (
	"context"
	"fmt"
	"math"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/sqlnb/sqlnb/sqlnb"
	"github.com/sqlnb/sqlnb/udf"
)

// TestConcurrentScoringSeesWholeModels: four connections score while one retrains the model alternately on
// two datasets with opposite predictions (and different row counts) and another alternates α with nb_set.
// Every query's two calls (nb_predict_proba and nb_joint_log_likelihood) must equal one whole model's
// results — one training, one α, the same for both calls; the statistics are never reverted by nb_set (no
// lost update); no DuckDB conflict error reaches anyone.
func TestConcurrentScoringSeesWholeModels(t *testing.T) {
	db, err := openFile(t)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	ctx := context.Background()
	// d1: x small and c = 'u' mean a; d2: the opposite. d2 has one row more.
	mustExec(t, db, `CREATE TABLE d1 AS SELECT CASE WHEN i % 2 = 0 THEN 'a' ELSE 'b' END AS y,
		CASE WHEN i % 2 = 0 THEN 1.0 ELSE 5.0 END + sin(i) AS x, CASE WHEN (i % 2 = 0) = (i % 5 <> 0) THEN 'u' ELSE 'v' END AS c FROM range(300) r(i)`)
	mustExec(t, db, `CREATE TABLE d2 AS SELECT CASE WHEN i % 2 = 0 THEN 'b' ELSE 'a' END AS y,
		CASE WHEN i % 2 = 0 THEN 1.5 ELSE 4.0 END + cos(i) AS x, CASE WHEN (i % 2 = 0) = (i % 3 <> 0) THEN 'v' ELSE 'u' END AS c FROM range(301) r(i)`)
	probe := `{'x': 2.0, 'c': 'u'}`
	type result struct{ proba, jll string }
	var want []result
	for _, d := range []string{"d1", "d2"} {
		for _, alpha := range []string{"1", "2"} {
			name := "ref_" + d + "_" + alpha
			mustExec(t, db, fmt.Sprintf(`CALL nb_train('%s', '%s', 'y', alpha := %s)`, name, d, alpha))
			r := queryStrings(t, db, fmt.Sprintf(`SELECT nb_predict_proba('%s', %s)::VARCHAR, nb_joint_log_likelihood('%s', %s)::VARCHAR`, name, probe, name, probe))
			want = append(want, result{r[0][0], r[0][1]})
		}
	}
	mustExec(t, db, `CALL nb_train('m', 'd1', 'y')`)
	matches := func(got result) bool {
		for _, w := range want {
			if sameMaps(got.proba, w.proba) && sameMaps(got.jll, w.jll) {
				return true
			}
		}
		return false
	}
	// Everything runs for 3 s and until each side has done enough to overlap (on a loaded machine a
	// retrain can take longer), for 60 s at most.
	var nQueries, nTrains, nSets atomic.Int64
	start := time.Now()
	running := func() bool {
		if time.Since(start) > 60*time.Second {
			return false
		}
		return time.Since(start) < 3*time.Second || nQueries.Load() < 100 || nTrains.Load() < 5 || nSets.Load() < 5
	}
	var wg sync.WaitGroup
	var mu sync.Mutex
	var failures []string
	fail := func(format string, args ...any) {
		mu.Lock()
		defer mu.Unlock()
		if len(failures) < 10 {
			failures = append(failures, fmt.Sprintf(format, args...))
		}
	}
	queries := make([]int, 4)
	for g := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			conn, err := db.Conn(ctx)
			if err != nil {
				fail("conn: %v", err)
				return
			}
			defer conn.Close()
			for running() {
				var got result
				err := conn.QueryRowContext(ctx, `SELECT nb_predict_proba('m', `+probe+`)::VARCHAR, nb_joint_log_likelihood('m', `+probe+`)::VARCHAR`).Scan(&got.proba, &got.jll)
				if err != nil {
					fail("query: %v", err)
					return
				}
				if !matches(got) {
					fail("a mixture of models: proba %s, jll %s", got.proba, got.jll)
				}
				queries[g]++
				nQueries.Add(1)
			}
		}()
	}
	wg.Add(2)
	trains, sets := 0, 0
	go func() {
		defer wg.Done()
		for i := 0; running(); i++ {
			d, rows := "d1", int64(300)
			if i%2 == 1 {
				d, rows = "d2", 301
			}
			if _, err := sqlnb.Train(ctx, db.DB, sqlnb.TrainSpec{Model: "m", Source: d, Label: "y"}); err != nil {
				fail("retrain: %v", err)
				return
			}
			trains++
			nTrains.Add(1)
			time.Sleep(20 * time.Millisecond) // nb_set runs meanwhile
			m, err := sqlnb.Load(ctx, db.DB, "m")
			if err != nil {
				fail("load: %v", err)
				return
			}
			if m.Rows != rows {
				fail("lost update: after training on %s (%d rows) the model has %d rows", d, rows, m.Rows)
			}
		}
	}()
	go func() {
		defer wg.Done()
		for i := 0; running(); i++ {
			m, err := sqlnb.Load(ctx, db.DB, "m")
			if err != nil {
				fail("load: %v", err)
				return
			}
			p := m.Params
			p = p.With("alpha", float64(1+i%2))
			if _, err := sqlnb.SetParams(ctx, db.DB, "m", p, nil); err != nil {
				fail("nb_set: %v", err)
				return
			}
			sets++
			nSets.Add(1)
		}
	}()
	wg.Wait()
	for _, f := range failures {
		t.Error(f)
	}
	total := 0
	for _, q := range queries {
		total += q
	}
	t.Logf("%d queries on 4 connections, %d retrains, %d parameter changes", total, trains, sets)
	if total < 100 || trains < 5 || sets < 5 {
		t.Errorf("too little concurrency: %d queries, %d retrains, %d sets", total, trains, sets)
	}
}

// TestBindRaceSeesOneVersion: a version committed while a statement's first call loads the version it
// sees (a cache miss) must not split the statement: the first call used to bind the newer version it loaded
// while the second, whose snapshot does not see that one, bound the cached version before it — proba of one
// α, joint log-likelihood of the other (found by TestConcurrentScoringSeesWholeModels on a loaded machine).
// Here the commit is made to happen exactly then.
func TestBindRaceSeesOneVersion(t *testing.T) {
	db, err := openFile(t)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	ctx := context.Background()
	mustExec(t, db, `CREATE TABLE d AS SELECT CASE WHEN i % 2 = 0 THEN 'a' ELSE 'b' END AS y,
		CASE WHEN (i % 2 = 0) = (i % 5 <> 0) THEN 'u' ELSE 'v' END AS c FROM range(300) r(i)`)
	setAlpha := func(alpha float64) {
		m, err := sqlnb.Load(ctx, db.DB, "m")
		if err != nil {
			t.Fatal(err)
		}
		p := m.Params
		p = p.With("alpha", alpha)
		if _, err := sqlnb.SetParams(ctx, db.DB, "m", p, nil); err != nil {
			t.Fatal(err)
		}
	}
	probe := `SELECT nb_predict_proba('m', {'c': 'v'})::VARCHAR, nb_joint_log_likelihood('m', {'c': 'v'})::VARCHAR`
	var want [][]string
	for _, alpha := range []string{"1", "3"} {
		mustExec(t, db, `CALL nb_train('ref', 'd', 'y', alpha := `+alpha+`)`)
		want = append(want, queryStrings(t, db, strings.ReplaceAll(probe, "'m'", "'ref'"))[0])
	}
	mustExec(t, db, `CALL nb_train('m', 'd', 'y', alpha := 2)`)
	queryStrings(t, db, probe) // the model is cached (hot): an outgoing version is kept from now on
	setAlpha(1)                // a version this process has not loaded
	fired := false
	udf.SetBeforeLoad(db, func() {
		if !fired {
			fired = true
			setAlpha(3) // committed between the first call's choice and its load
		}
	})
	defer udf.SetBeforeLoad(db, nil)
	got := queryStrings(t, db, probe)[0]
	if !fired {
		t.Fatal("the first call did not load a version: the test no longer reaches the race")
	}
	ok := false
	for _, w := range want {
		ok = ok || sameMaps(got[0], w[0]) && sameMaps(got[1], w[1])
	}
	if !ok {
		t.Errorf("one statement scored with two versions: proba %s, jll %s (α = 1: %v; α = 3: %v)", got[0], got[1], want[0], want[1])
	}
}

// sameMaps compares two MAP texts {k=v, ...} number by number (relative 1e-12).
func sameMaps(a, b string) bool {
	pa, pb := strings.Split(strings.Trim(a, "{}"), ", "), strings.Split(strings.Trim(b, "{}"), ", ")
	if len(pa) != len(pb) {
		return false
	}
	for i := range pa {
		ka, va, _ := strings.Cut(pa[i], "=")
		kb, vb, _ := strings.Cut(pb[i], "=")
		x, _ := strconv.ParseFloat(va, 64)
		y, _ := strconv.ParseFloat(vb, 64)
		if ka != kb || math.Abs(x-y) > 1e-12*math.Max(1, math.Abs(y)) {
			return false
		}
	}
	return true
}

// openFile opens a database file in a temporary directory (several connections share one database).
func openFile(t *testing.T) (*udf.DB, error) {
	t.Helper()
	return udf.Open(filepath.Join(t.TempDir(), "c.duckdb"))
}

// TestConcurrentWritersOfEveryKind: four connections score while another retrains, sets α, appends,
// forgets and merges into the model in turn. The two calls of each query — nb_predict_proba and
// nb_joint_log_likelihood — must come from one version: the posteriors are the softmax of the joint
// log-likelihoods (seed 004's log-sum-exp), which two versions do not give; no query fails.
func TestConcurrentWritersOfEveryKind(t *testing.T) {
	db, err := openFile(t)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	ctx := context.Background()
	mustExec(t, db, `CREATE TABLE d1 AS SELECT CASE WHEN i % 2 = 0 THEN 'a' ELSE 'b' END AS y,
		CASE WHEN i % 2 = 0 THEN 1.0 ELSE 5.0 END + sin(i) AS x, CASE WHEN (i % 2 = 0) = (i % 5 <> 0) THEN 'u' ELSE 'v' END AS c FROM range(300) r(i)`)
	mustExec(t, db, `CREATE TABLE d2 AS SELECT CASE WHEN i % 2 = 0 THEN 'b' ELSE 'a' END AS y,
		CASE WHEN i % 2 = 0 THEN 1.5 ELSE 4.0 END + cos(i) AS x, CASE WHEN (i % 2 = 0) = (i % 3 <> 0) THEN 'v' ELSE 'u' END AS c FROM range(301) r(i)`)
	mustExec(t, db, `CREATE TABLE few AS SELECT * FROM d2 LIMIT 40`)
	mustExec(t, db, `CALL nb_train('part', 'few', 'y')`)
	mustExec(t, db, `CALL nb_train('m', 'd1', 'y')`)
	writes := []string{ // merge needs part's α (1)
		`CALL nb_train('m', 'd2', 'y')`, `CALL nb_set('m', alpha := 2)`, `CALL nb_train('m', 'few', 'y', append := true)`,
		`CALL nb_forget('m', 'few', 'y')`, `CALL nb_set('m', alpha := 1)`, `CALL nb_merge('m', ['m', 'part'], replace := true)`,
		`CALL nb_train('m', 'd1', 'y')`,
	}
	probe := `SELECT nb_predict_proba('m', {'x': 2.0, 'c': 'u'})::VARCHAR, nb_joint_log_likelihood('m', {'x': 2.0, 'c': 'u'})::VARCHAR`
	start := time.Now()
	var nQueries, nWrites atomic.Int64
	running := func() bool {
		if time.Since(start) > 60*time.Second {
			return false
		}
		return time.Since(start) < 3*time.Second || nQueries.Load() < 100 || nWrites.Load() < int64(2*len(writes))
	}
	var wg sync.WaitGroup
	var mu sync.Mutex
	var failures []string
	fail := func(format string, args ...any) {
		mu.Lock()
		defer mu.Unlock()
		if len(failures) < 10 {
			failures = append(failures, fmt.Sprintf(format, args...))
		}
	}
	for range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			conn, err := db.Conn(ctx)
			if err != nil {
				fail("conn: %v", err)
				return
			}
			defer conn.Close()
			for running() {
				var proba, jll string
				if err := conn.QueryRowContext(ctx, probe).Scan(&proba, &jll); err != nil {
					fail("query: %v", err)
					return
				}
				if !softmaxOf(proba, jll) {
					fail("a mixture of versions: proba %s, jll %s", proba, jll)
				}
				nQueries.Add(1)
			}
		}()
	}
	wg.Add(1)
	go func() {
		defer wg.Done()
		for i := 0; running(); i++ {
			if _, err := db.ExecContext(ctx, writes[i%len(writes)]); err != nil {
				fail("%s: %v", writes[i%len(writes)], err)
				return
			}
			nWrites.Add(1)
		}
	}()
	wg.Wait()
	for _, f := range failures {
		t.Error(f)
	}
	t.Logf("%d queries on 4 connections, %d writes", nQueries.Load(), nWrites.Load())
	if nQueries.Load() < 100 || nWrites.Load() < int64(2*len(writes)) {
		t.Errorf("too little concurrency: %d queries, %d writes", nQueries.Load(), nWrites.Load())
	}
}

// softmaxOf reports whether the MAP text proba is the softmax of the MAP text jll (relative 1e-12).
func softmaxOf(proba, jll string) bool {
	parse := func(s string) (keys []string, vals []float64) {
		for _, kv := range strings.Split(strings.Trim(s, "{}"), ", ") {
			k, v, _ := strings.Cut(kv, "=")
			x, _ := strconv.ParseFloat(v, 64)
			keys, vals = append(keys, k), append(vals, x)
		}
		return keys, vals
	}
	pk, p := parse(proba)
	jk, j := parse(jll)
	if len(pk) != len(jk) {
		return false
	}
	mx := math.Inf(-1)
	for _, x := range j {
		mx = math.Max(mx, x)
	}
	sum := 0.0
	for _, x := range j {
		sum += math.Exp(x - mx)
	}
	for i := range p {
		want := math.Exp(j[i]-mx) / sum
		if pk[i] != jk[i] || math.Abs(p[i]-want) > 1e-12*math.Max(1, want) {
			return false
		}
	}
	return true
}
