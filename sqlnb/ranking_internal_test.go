package sqlnb

import (
	"context"
	"database/sql"
	"math"
	"slices"
	"testing"
)

// TestRankingStreamAndFallback: readRanking gives the same metrics, curve points and reliability bins, bit
// for bit (in a session without preserve_insertion_order, which it restores), through package udf's result-chunk stream and through database/sql, per group (folds), with tied
// scores, NULL posteriors and labels outside the classes; the metrics equal a pairwise count (ties ½) and
// scikit-learn 1.2's average precision written out directly (Σ over thresholds of ΔRecall × Precision), the
// points and bins of group 0 equal plain-Go references (refCurve, refBins).
func TestRankingStreamAndFallback(t *testing.T) {
	ctx := context.Background()
	conn, plain := rankingConn(t, OpenUDF), rankingConn(t, nil)
	// 3 groups, 3 classes; posteriors rounded to 2 decimals (many ties), some NULL; yi NULL for ~1/50 rows.
	for _, c := range []*sql.Conn{conn, plain} {
		if _, err := c.ExecContext(ctx, `CREATE TEMPORARY TABLE nb_eval_scored AS
		SELECT (i % 3)::INTEGER AS g, CASE WHEN i % 50 = 7 THEN NULL ELSE 1 + (hash(i, 1) % 3) END::USMALLINT AS yi, NULL::VARCHAR AS yx,
		       round((hash(i, 2) % 100) / 100, 2) AS p1,
		       CASE WHEN i % 41 = 0 THEN NULL ELSE round((hash(i, 3) % 100) / 100, 2) END AS p2,
		       (hash(i, 4) % 1000) / 1000 AS p3
		FROM range(5000) r(i)`); err != nil {
			t.Fatal(err)
		}
		if _, err := c.ExecContext(ctx, "SET preserve_insertion_order = false"); err != nil {
			t.Fatal(err)
		}
	}
	classes := []string{"a", "b", "c"}
	// A session without preserve_insertion_order: readRanking needs it for its sorted table and gives it back.
	var eFast, eSlow Evaluation
	fast, err := readRanking(ctx, conn, &eFast, classes, true, true)
	if err != nil {
		t.Fatal(err)
	}
	var keep bool
	if err := conn.QueryRowContext(ctx, "SELECT current_setting('preserve_insertion_order')").Scan(&keep); err != nil || keep {
		t.Fatalf("preserve_insertion_order after readRanking: %v (%v), want false again", keep, err)
	}
	// The plain duckdb-go connection has no nb.NumberStreamConn: database/sql reads the rows.
	slow, err := readRanking(ctx, plain, &eSlow, classes, true, true)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(eFast.Curves, eSlow.Curves) || !slices.Equal(eFast.Calibration, eSlow.Calibration) {
		t.Errorf("curves or bins differ between the stream and database/sql")
	}
	type row struct {
		s   float64
		pos bool
	}
	data := map[int64][][]row{}
	rows, err := conn.QueryContext(ctx, "SELECT g, yi, p1, p2, p3 FROM nb_eval_scored")
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		var g int64
		var yi sql.NullInt64
		var p [3]sql.NullFloat64
		if err := rows.Scan(&g, &yi, &p[0], &p[1], &p[2]); err != nil {
			t.Fatal(err)
		}
		if data[g] == nil {
			data[g] = make([][]row, 3)
		}
		for c := range 3 {
			if p[c].Valid {
				data[g][c] = append(data[g][c], row{p[c].Float64, yi.Valid && yi.Int64 == int64(c+1)})
			}
		}
	}
	rows.Close()
	if len(fast) != 3 || len(slow) != 3 {
		t.Fatalf("groups: stream %d, database/sql %d; want 3", len(fast), len(slow))
	}
	for g, cs := range fast {
		if len(cs) != 3 {
			t.Fatalf("group %d: %d classes ranked, want 3", g, len(cs))
		}
		for c, got := range cs {
			other := slow[g][c]
			if got.n != other.n || got.np != other.np || math.Float64bits(got.rocAUC) != math.Float64bits(other.rocAUC) ||
				math.Float64bits(got.avgPrecision) != math.Float64bits(other.avgPrecision) {
				t.Errorf("group %d class %d: stream %+v, database/sql %+v", g, c, got, other)
			}
			// Reference: pairs and thresholds counted directly.
			rs := data[g][c]
			var np, nn, u2 float64
			for _, a := range rs {
				if a.pos {
					np++
				} else {
					nn++
				}
			}
			for _, a := range rs {
				if !a.pos {
					continue
				}
				for _, b := range rs {
					if b.pos {
						continue
					}
					switch {
					case a.s > b.s:
						u2 += 2
					case a.s == b.s:
						u2++
					}
				}
			}
			var ap float64
			for _, a := range rs {
				if !a.pos {
					continue
				}
				var tp, ge float64
				for _, b := range rs {
					if b.s >= a.s {
						ge++
						if b.pos {
							tp++
						}
					}
				}
				ap += tp / ge
			}
			wantAUC, wantAP := u2/(2*np*nn), ap/np
			if got.n != int64(len(rs)) || got.np != int64(np) || math.Abs(got.rocAUC-wantAUC) > 1e-15 || math.Abs(got.avgPrecision-wantAP) > 1e-13 {
				t.Errorf("group %d class %d: n %d np %d roc_auc %.17g average_precision %.17g; reference %d %v %.17g %.17g",
					g, c, got.n, got.np, got.rocAUC, got.avgPrecision, len(rs), np, wantAUC, wantAP)
			}
		}
	}
	// Group 0's curves and bins against the references, class by class (label order = class order here).
	for c, class := range classes {
		var s []float64
		var pos []bool
		for _, r := range data[0][c] {
			s, pos = append(s, r.s), append(pos, r.pos)
		}
		var gotPts []CurvePoint
		for _, p := range eFast.Curves {
			if p.Class == class {
				gotPts = append(gotPts, p)
			}
		}
		wantPts := refCurve(s, pos)
		if len(wantPts) > maxCurvePoints {
			t.Fatalf("class %s: %d thresholds; the test wants all of them kept", class, len(wantPts))
		}
		if len(gotPts) != len(wantPts) {
			t.Errorf("class %s: %d points, reference %d", class, len(gotPts), len(wantPts))
		}
		for i := range min(len(gotPts), len(wantPts)) {
			g, w := gotPts[i], wantPts[i]
			if g.FPR != w[0] || g.TPR != w[1] || g.Precision != w[2] {
				t.Errorf("class %s point %d: %+v, reference %v", class, i, g, w)
			}
		}
		var gotBins []CalibrationBin
		for _, b := range eFast.Calibration {
			if b.Class == class {
				gotBins = append(gotBins, b)
			}
		}
		wantBins := refBins(s, pos)
		if len(gotBins) != len(wantBins) {
			t.Fatalf("class %s: %d bins %+v, reference %d %+v", class, len(gotBins), gotBins, len(wantBins), wantBins)
		}
		for i, g := range gotBins {
			w := wantBins[i]
			if g.Bin != w.Bin || g.N != w.N || math.Abs(g.Predicted-w.Predicted) > 1e-14 || g.Observed != w.Observed {
				t.Errorf("class %s bin %d: %+v, reference %+v", class, i, g, w)
			}
		}
	}
}

// refCurve lists (fpr, tpr, precision) at every distinct score, descending, counting the rows at or above it.
func refCurve(s []float64, pos []bool) [][3]float64 {
	var np, nn float64
	for _, p := range pos {
		if p {
			np++
		} else {
			nn++
		}
	}
	if np == 0 {
		return nil
	}
	th := slices.Clone(s)
	slices.Sort(th)
	th = slices.Compact(th)
	var out [][3]float64
	for i := len(th) - 1; i >= 0; i-- {
		var tp, ge float64
		for j := range s {
			if s[j] >= th[i] {
				ge++
				if pos[j] {
					tp++
				}
			}
		}
		out = append(out, [3]float64{(ge - tp) / max(nn, 1), tp / max(np, 1), tp / ge})
	}
	return out
}

// refBins is scikit-learn 1.2's calibration_curve(strategy='quantile', n_bins=10) written out: edges by
// numpy.percentile's linear interpolation, bin = numpy.searchsorted(edges, s) (edges below s), empty bins
// left out.
func refBins(s []float64, pos []bool) []CalibrationBin {
	x := slices.Clone(s)
	slices.Sort(x)
	n := len(x)
	var edges []float64
	for _, q := range calibrationQuantiles {
		h := float64(n-1) * q
		lo, hi := x[int(math.Floor(h))], x[int(math.Ceil(h))]
		e := lo
		if d := h - math.Floor(h); d != 0 {
			e = lo + (hi-lo)*d
		}
		edges = append(edges, e)
	}
	var cnt, hit [10]int64
	var sum [10]float64
	for i, v := range s {
		b := 0
		for _, e := range edges {
			if e < v {
				b++
			}
		}
		cnt[b]++
		sum[b] += v
		if pos[i] {
			hit[b]++
		}
	}
	var out []CalibrationBin
	for b := range cnt {
		if cnt[b] > 0 {
			out = append(out, CalibrationBin{Bin: b, Predicted: sum[b] / float64(cnt[b]), Observed: float64(hit[b]) / float64(cnt[b]), N: cnt[b]})
		}
	}
	return out
}

// TestCurveThinning: with more distinct posteriors than maxCurvePoints, between half of maxCurvePoints and
// maxCurvePoints + 1 points are kept, each a reference point (refCurve) in the same order, the last one
// (every row at or above it: (1, 1)) always; a class whose posteriors are all equal has that one point.
func TestCurveThinning(t *testing.T) {
	ctx := context.Background()
	conn := rankingConn(t, OpenUDF)
	if _, err := conn.ExecContext(ctx, `CREATE TEMPORARY TABLE nb_eval_scored AS
		SELECT (1 + hash(i, 1) % 2)::USMALLINT AS yi, NULL::VARCHAR AS yx, (hash(i, 2) % 1000003) / 1000003 AS p1, 0.5 AS p2
		FROM range(4500) r(i)`); err != nil {
		t.Fatal(err)
	}
	var e Evaluation
	if _, err := readRanking(ctx, conn, &e, []string{"a", "b"}, false, true); err != nil {
		t.Fatal(err)
	}
	rows, err := conn.QueryContext(ctx, "SELECT p1, yi = 1 FROM nb_eval_scored")
	if err != nil {
		t.Fatal(err)
	}
	var s []float64
	var pos []bool
	for rows.Next() {
		var v float64
		var p bool
		if err := rows.Scan(&v, &p); err != nil {
			t.Fatal(err)
		}
		s, pos = append(s, v), append(pos, p)
	}
	rows.Close()
	ref := refCurve(s, pos)
	var got []CurvePoint
	for _, p := range e.Curves {
		if p.Class == "a" {
			got = append(got, p)
		}
	}
	if len(ref) <= maxCurvePoints || len(got) > maxCurvePoints+1 || len(got) < maxCurvePoints/2 {
		t.Fatalf("%d thresholds, %d points kept", len(ref), len(got))
	}
	j := 0
	for _, p := range got {
		for j < len(ref) && (ref[j][0] != p.FPR || ref[j][1] != p.TPR || ref[j][2] != p.Precision) {
			j++
		}
		if j == len(ref) {
			t.Fatalf("point %+v is not a reference point in order", p)
		}
	}
	if last := got[len(got)-1]; last.FPR != 1 || last.TPR != 1 {
		t.Errorf("last point %+v, want (1, 1)", last)
	}
	// Class b: one threshold (every posterior 0.5): one point, (1, 1); one bin.
	var b []CurvePoint
	for _, p := range e.Curves {
		if p.Class == "b" {
			b = append(b, p)
		}
	}
	if len(b) != 1 || b[0].FPR != 1 || b[0].TPR != 1 {
		t.Errorf("class b points %+v, want one at (1, 1)", b)
	}
}

// rankingConn is a connection to a new in-memory DuckDB database, closed when the test ends: opened by
// open (package udf's, with its fast paths: OpenUDF), or by duckdb-go's driver when open is nil.
func rankingConn(t *testing.T, open func(string) (*sql.DB, error)) *sql.Conn {
	t.Helper()
	if open == nil {
		open = func(dsn string) (*sql.DB, error) { return sql.Open("duckdb", dsn) }
	}
	db, err := open("")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	conn, err := db.Conn(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	return conn
}
