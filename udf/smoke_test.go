package udf_test

import (
	"fmt"
	"testing"
)

func TestSmoke(t *testing.T) {
	db := mustOpenDB(t)
	mustExec(t, db, `CREATE TABLE t AS SELECT CASE WHEN i % 3 = 0 THEN 'a' ELSE 'b' END AS y,
		(i % 3) * 1.5 + (i % 7) * 0.1 AS x, CASE WHEN i % 2 = 0 THEN 'red' ELSE 'blue' END AS color FROM range(100) r(i)`)
	t.Log(queryStrings(t, db, `CALL nb_train('m', 't', 'y')`))
	t.Log(queryStrings(t, db, `SELECT y, x::DOUBLE, color, nb_predict('m', t), nb_predict_proba('m', t)::VARCHAR, nb_proba('m', t, 'a') FROM t LIMIT 5`))
	t.Log(queryStrings(t, db, `SELECT nb_predict('m', 1.0, 'red'), nb_predict('m', {'x': NULL, 'color': NULL}), nb_predict('m', NULL::STRUCT(x DOUBLE, color VARCHAR))`))
	t.Log(queryStrings(t, db, `FROM nb_show('m')`))
	t.Log(queryStrings(t, db, `FROM nb_models()`))
}

// TestShowComplementPriors: a complement model's scores ignore the priors (scikit-learn's ComplementNB with
// more than one class), so nb_show gives no prior estimate (NULL, not exp(0) = 1 for every class), and still
// the class counts.
func TestShowComplementPriors(t *testing.T) {
	db := mustOpenDB(t)
	mustExec(t, db, `CREATE TABLE d AS SELECT (i % 3)::VARCHAR AS y, (i % 5)::INT AS a, (i % 7)::INT AS b FROM range(100) r(i)`)
	mustExec(t, db, `CALL nb_train('c', 'd', 'y', kind := 'complement')`)
	mustExec(t, db, `CALL nb_train('m', 'd', 'y', kind := 'multinomial')`)
	got := queryStrings(t, db, `SELECT class, coalesce(estimate::VARCHAR, 'NULL'), count FROM nb_show('c') WHERE parameter = 'prior' ORDER BY class`)
	want := [][]string{{"0", "NULL", "34"}, {"1", "NULL", "33"}, {"2", "NULL", "33"}}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("complement priors: got %v, want %v", got, want)
	}
	// A multinomial model of the same rows uses its fitted priors n_c/n.
	got = queryStrings(t, db, `SELECT class, round(estimate, 12) FROM nb_show('m') WHERE parameter = 'prior' ORDER BY class`)
	want = [][]string{{"0", "0.34"}, {"1", "0.33"}, {"2", "0.33"}}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("multinomial priors: got %v, want %v", got, want)
	}
}
