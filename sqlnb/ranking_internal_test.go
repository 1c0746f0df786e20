package sqlnb

import (
	"context"
	"database/sql"
	"math"
	"testing"
)

// TestRankingStreamAndFallback: readRanking gives the same metrics, bit for bit, through package udf's
// result-chunk stream and through database/sql, per group (folds), with tied scores, NULL posteriors and
// labels outside the classes; and both equal a pairwise count (ties ½) and scikit-learn 1.2's average
// precision written out directly (Σ over thresholds of ΔRecall × Precision).
func TestRankingStreamAndFallback(t *testing.T) {
	if numberStream == nil {
		t.Fatal("package udf's number stream is not installed (the test binary imports udf through the external tests)")
	}
	ctx := context.Background()
	db, err := sql.Open("duckdb", "")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	conn, err := db.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	// 3 groups, 3 classes; posteriors rounded to 2 decimals (many ties), some NULL; yi NULL for ~1/50 rows.
	if _, err := conn.ExecContext(ctx, `CREATE TEMPORARY TABLE nb_eval_scored AS
		SELECT (i % 3)::INTEGER AS g, CASE WHEN i % 50 = 7 THEN NULL ELSE 1 + (hash(i, 1) % 3) END::USMALLINT AS yi, NULL::VARCHAR AS yx,
		       round((hash(i, 2) % 100) / 100, 2) AS p1,
		       CASE WHEN i % 41 = 0 THEN NULL ELSE round((hash(i, 3) % 100) / 100, 2) END AS p2,
		       (hash(i, 4) % 1000) / 1000 AS p3
		FROM range(5000) r(i)`); err != nil {
		t.Fatal(err)
	}
	classes := []string{"a", "b", "c"}
	fast, err := readRanking(ctx, conn, classes, true)
	if err != nil {
		t.Fatal(err)
	}
	saved := numberStream
	numberStream = nil
	slow, err := readRanking(ctx, conn, classes, true)
	numberStream = saved
	if err != nil {
		t.Fatal(err)
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
}
