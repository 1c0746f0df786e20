package udf_test

import (
	"context"
	"errors"
	"math"
	"strings"
	"testing"

	"github.com/sqlnb/sqlnb/sqlnb"
)

// TestScoreRowMatchesSQL: Scorer.ScoreRow on a row read into Go (column name → value) gives the posteriors
// and label nb_predict_proba and nb_predict give for it, for Gaussian, categorical (text, integer and
// boolean columns), Bernoulli, Poisson and text features with NULLs and unseen values; a missing feature
// and a value of the wrong type are errors naming the feature.
func TestScoreRowMatchesSQL(t *testing.T) {
	db := mustOpenDB(t)
	ctx := context.Background()
	mustExec(t, db, `CREATE TABLE d AS SELECT ['a', 'b', 'c'][1 + i % 3] AS y,
		CASE WHEN i % 13 = 0 THEN NULL ELSE sin(i) + i % 3 END AS x,
		CASE WHEN i % 7 = 0 THEN NULL ELSE ['u', 'v', 'w'][1 + (i * i) % 3] END AS colour,
		(i % 4)::INTEGER AS grade, i % 5 = 0 AS flag, (i % 3) * 2 + i % 2 AS visits,
		['red apple', 'green pear', 'red cherry pie'][1 + i % 3] || CASE WHEN i % 4 = 0 THEN ' tart' ELSE '' END AS note
		FROM range(300) r(i)`)
	mustExec(t, db, `CALL nb_train('r', 'd', 'y', feature_kinds := 'grade=categorical,flag=bernoulli,visits=poisson,note=text')`)
	m, err := sqlnb.Load(ctx, db, "r")
	if err != nil {
		t.Fatal(err)
	}
	s, err := sqlnb.Compile(m)
	if err != nil {
		t.Fatal(err)
	}
	rows, err := db.QueryContext(ctx, `SELECT x, colour, grade, flag, visits, note, nb_predict('r', t),
		nb_predict_proba('r', t)['a'], nb_predict_proba('r', t)['b'], nb_predict_proba('r', t)['c']
		FROM (SELECT * REPLACE (CASE WHEN x > 2.5 THEN 'zz' ELSE colour END AS colour, CASE WHEN x < -0.5 THEN 9 ELSE grade END AS grade)
		FROM d UNION ALL SELECT 'a', 1e300, NULL, NULL, NULL, NULL, NULL) t`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	n := 0
	for rows.Next() {
		var x, visits *float64
		var colour, note *string
		var grade *int32
		var flag *bool
		var label string
		var pa, pb, pc float64
		if err := rows.Scan(&x, &colour, &grade, &flag, &visits, &note, &label, &pa, &pb, &pc); err != nil {
			t.Fatal(err)
		}
		row := map[string]any{"X": deref(x), "colour": deref(colour), "grade": deref(grade), "flag": deref(flag),
			"visits": deref(visits), "note": deref(note), "other": []int{1}}
		post, got, err := s.ScoreRow(row)
		if err != nil {
			t.Fatal(err)
		}
		for c, want := range map[string]float64{"a": pa, "b": pb, "c": pc} {
			if math.Abs(post[c]-want) > 1e-12 {
				t.Fatalf("row %v: p(%s) %v, SQL %v", row, c, post[c], want)
			}
		}
		if got != label {
			t.Fatalf("row %v: label %s, SQL %s", row, got, label)
		}
		n++
	}
	if n != 301 {
		t.Fatalf("%d rows", n)
	}
	// A map of term counts scores as the text.
	text, _, _ := s.ScoreRow(map[string]any{"x": 1.0, "colour": "u", "grade": 2, "flag": true, "visits": 3, "note": "red red apple"})
	counts, _, _ := s.ScoreRow(map[string]any{"x": 1.0, "colour": "u", "grade": 2, "flag": true, "visits": 3, "note": map[string]int{"red": 2, "apple": 1}})
	if len(text) != 3 || len(counts) != 3 {
		t.Fatalf("term counts %v, text %v: want the posteriors of classes a, b and c", counts, text)
	}
	for c := range text {
		if math.Abs(text[c]-counts[c]) > 1e-15 {
			t.Errorf("term counts %v, text %v", counts, text)
		}
	}
	_, _, err = s.ScoreRow(map[string]any{"x": 1.0, "colour": "u", "grade": 2, "flag": true, "note": "a"})
	if !errors.Is(err, sqlnb.ErrUnknownColumn) || !strings.Contains(err.Error(), `model "r" needs feature "visits", which the row lacks`) {
		t.Errorf("missing feature: %v", err)
	}
	_, _, err = s.ScoreRow(map[string]any{"x": "1.0", "colour": "u", "grade": 2, "flag": true, "visits": 3, "note": "a"})
	if err == nil || !strings.Contains(err.Error(), `feature "x" is gaussian (trained on DOUBLE) but the row gives string: give a number`) {
		t.Errorf("a string for a Gaussian feature: %v", err)
	}
}

func deref[T any](p *T) any {
	if p == nil {
		return nil
	}
	return *p
}
