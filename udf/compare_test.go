package udf_test

import (
	"context"
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
	"testing"

	"github.com/sqlnb/sqlnb/queries"
	"github.com/sqlnb/sqlnb/sqlnb"
)

// TestCompareMatchesDirectEvaluation: a point of a learning curve (kind, size) has the accuracy and
// log-loss of the model trained directly on the first size rows of the training pool and evaluated with
// nb_eval on the held-out rows (the split reproduced in SQL: hash(t, seed) as compare_split draws it).
func TestCompareMatchesDirectEvaluation(t *testing.T) {
	ctx := context.Background()
	db := mustOpenDB(t)
	mustExec(t, db, fmt.Sprintf(`CREATE TABLE wine AS SELECT * EXCLUDE (id) FROM read_csv(%s)`, queries.Literal(fixture("wine.csv"))))
	conn, err := db.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	spec := sqlnb.CompareSpec{Train: sqlnb.TrainSpec{Source: "wine", Label: "label"}, Kinds: []sqlnb.Kind{sqlnb.Gaussian, sqlnb.Logistic, sqlnb.LDA},
		Sizes: []int{40, 100}, TestFraction: 0.3, Seed: 5}
	res, err := sqlnb.Compare(ctx, conn, db, spec)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Points) != 6 {
		t.Fatalf("%d points", len(res.Points))
	}
	mustExec(t, db, `CREATE TABLE split AS SELECT *, (hash(t, 5) % 1000000007) / 1000000007.0 AS u FROM wine t`)
	for _, p := range res.Points {
		if p.Err != "" {
			t.Fatalf("%s at %d: %s", p.Kind, p.Size, p.Err)
		}
		name := fmt.Sprintf("direct_%s_%d", p.Kind, p.Size)
		mustExec(t, db, fmt.Sprintf(`CALL nb_train(%s, 'SELECT * EXCLUDE (u) FROM split WHERE u >= 0.3 ORDER BY u LIMIT %d', 'label', kind := %s)`,
			queries.Literal(name), p.Size, queries.Literal(string(p.Kind))))
		got := queryStrings(t, db, fmt.Sprintf(`SELECT metric, value FROM nb_eval(%s, 'SELECT * EXCLUDE (u) FROM split WHERE u < 0.3')
			WHERE metric IN ('accuracy', 'log_loss') AND class IS NULL ORDER BY metric`, queries.Literal(name)))
		if len(got) != 2 {
			t.Fatalf("%s at %d rows: nb_eval gave %v, want accuracy and log_loss", p.Kind, p.Size, got)
		}
		for _, r := range got {
			v, _ := strconv.ParseFloat(r[1], 64)
			if math.Abs(v-p.Mean[r[0]]) > 1e-12 {
				t.Errorf("%s at %d rows: compare's %s %v, nb_eval's %v", p.Kind, p.Size, r[0], p.Mean[r[0]], v)
			}
		}
		if p.Rows != float64(p.Size) {
			t.Errorf("%s: trained on %v rows, want %d", p.Kind, p.Rows, p.Size)
		}
	}
	t.Logf("%d points on %d test rows equal direct training and nb_eval", len(res.Points), res.TestRows)
}

// TestCompareNothingFitted: when no kind can be fitted at any size, Compare is an error carrying the first
// point's reason (it returned a table of notes, "0 test rows" and success); one kind that fits is a result.
func TestCompareNothingFitted(t *testing.T) {
	ctx := context.Background()
	db := mustOpenDB(t)
	mustExec(t, db, `CREATE TABLE d AS SELECT ['a', 'b'][i % 2 + 1] AS y, i % 2 + sin(i) AS x, NULL::DOUBLE AS z FROM range(200) r(i)`)
	conn, err := db.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	spec := sqlnb.CompareSpec{Train: sqlnb.TrainSpec{Source: "d", Label: "y", Features: []string{"x", "z"}}, Kinds: []sqlnb.Kind{sqlnb.LDA},
		Sizes: []int{50, 100}, TestFraction: 0.3, Seed: 5}
	if _, err := sqlnb.Compare(ctx, conn, db, spec); !errors.Is(err, sqlnb.ErrNoRows) || !strings.Contains(err.Error(), "no kind could be fitted") {
		t.Errorf("lda on an all-NULL feature: %v", err)
	}
	spec.Kinds = append(spec.Kinds, sqlnb.Gaussian)
	res, err := sqlnb.Compare(ctx, conn, db, spec)
	if err != nil || len(res.Points) != 4 || res.Points[0].Err == "" || res.Points[2].Rows == 0 {
		t.Errorf("lda and gaussian: %v, %+v", err, res)
	}
}
