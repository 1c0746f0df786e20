package udf_test

import (
	"fmt"
	"math"
	"strconv"
	"testing"
)

// TestSmoke trains a model in SQL and calls every entry point once — nb_train, nb_predict, nb_predict_proba
// and nb_proba (on table rows, on positional features, on a struct of NULLs and on a NULL struct), nb_show
// and nb_models — checking what each returns. The data: y is 'a' when i % 3 = 0 (34 of the 100 rows), else
// 'b'; x = (i % 3)·1.5 + (i % 7)·0.1, so a's x ≤ 0.6 and b's ≥ 1.5 (x separates the classes); color
// alternates red and blue, half of each class's rows red.
func TestSmoke(t *testing.T) {
	db := mustOpenDB(t)
	mustExec(t, db, `CREATE TABLE t AS SELECT CASE WHEN i % 3 = 0 THEN 'a' ELSE 'b' END AS y,
		(i % 3) * 1.5 + (i % 7) * 0.1 AS x, CASE WHEN i % 2 = 0 THEN 'red' ELSE 'blue' END AS color FROM range(100) r(i)`)
	check := func(what string, got, want [][]string) {
		t.Helper()
		if fmt.Sprint(got) != fmt.Sprint(want) {
			t.Errorf("%s: got %v, want %v", what, got, want)
		}
	}
	num := func(s string) float64 {
		t.Helper()
		v, err := strconv.ParseFloat(s, 64)
		if err != nil {
			t.Fatal(err)
		}
		return v
	}
	check("nb_train", queryStrings(t, db, `SELECT model, n_rows, skipped_rows, classes, features, kinds FROM nb_train('m', 't', 'y')`),
		[][]string{{"m", "100", "0", "2", "2", "categorical,gaussian"}})
	// Every row: the prediction is its class (x separates them), its posteriors sum to 1, and nb_proba of
	// class a is nb_predict_proba's a.
	check("scores of the table's rows", queryStrings(t, db, `SELECT count(*), count(*) FILTER (WHERE nb_predict('m', t) = y),
		max(abs(list_sum(map_values(nb_predict_proba('m', t))) - 1)) <= 1e-15,
		max(abs(nb_proba('m', t, 'a') - map_extract(nb_predict_proba('m', t), 'a')[1])) FROM t`),
		[][]string{{"100", "100", "true", "0"}})
	// x = 1.0 is 3.5 of a's standard deviations (0.20) from its mean 0.30, 2.0 of b's (0.77) from 2.54: b. A
	// row without any feature value scores by the priors alone (0.66 for b); a NULL row has no prediction.
	check("nb_predict", queryStrings(t, db, `SELECT nb_predict('m', 1.0, 'red'), nb_predict('m', {'x': NULL, 'color': NULL}),
		coalesce(nb_predict('m', NULL::STRUCT(x DOUBLE, color VARCHAR)), 'NULL')`), [][]string{{"b", "b", "NULL"}})
	// nb_show: the priors n_c/n; color's probabilities (n_cv + 1)/(n_c + 2), 17 of a's 34 rows red and 33
	// of b's 66, unseen 1/(n_c + 2); x's mean and variance below.
	check("nb_show", queryStrings(t, db, `SELECT coalesce(feature, ''), class, coalesce(value, ''), parameter, round(estimate, 12),
		coalesce(count::BIGINT::VARCHAR, '') FROM nb_show('m') WHERE parameter NOT IN ('mean', 'variance') ORDER BY ALL`),
		[][]string{{"", "a", "", "prior", "0.34", "34"}, {"", "b", "", "prior", "0.66", "66"},
			{"color", "a", "", "unseen", fmt.Sprint(math.Round(1e12/36) / 1e12), ""}, {"color", "a", "blue", "probability", "0.5", "17"},
			{"color", "a", "red", "probability", "0.5", "17"}, {"color", "b", "", "unseen", fmt.Sprint(math.Round(1e12/68) / 1e12), ""},
			{"color", "b", "blue", "probability", "0.5", "33"}, {"color", "b", "red", "probability", "0.5", "33"}})
	// x's mean and variance per class are DuckDB's avg and var_pop over the class's rows, the variance plus
	// var_smoothing (1e-9) × the largest variance over all rows, as scikit-learn's GaussianNB.
	ref := queryStrings(t, db, `SELECT y, avg(x), var_pop(x) + 1e-9 * (SELECT var_pop(x) FROM t) FROM t GROUP BY y ORDER BY y`)
	show := queryStrings(t, db, `SELECT class, max(estimate) FILTER (WHERE parameter = 'mean'), max(estimate) FILTER (WHERE parameter = 'variance')
		FROM nb_show('m') WHERE feature = 'x' GROUP BY class ORDER BY class`)
	if len(show) != 2 || len(ref) != 2 {
		t.Fatalf("x's estimates: got %v, want a mean and a variance for classes a and b (%v)", show, ref)
	}
	mean, variance := make([]float64, 2), make([]float64, 2)
	for c := range 2 {
		mean[c], variance[c] = num(show[c][1]), num(show[c][2])
		if show[c][0] != ref[c][0] || !(math.Abs(mean[c]-num(ref[c][1])) <= 1e-12) || !(math.Abs(variance[c]-num(ref[c][2])) <= 1e-12) {
			t.Errorf("class %s: x's mean %v and variance %v, want %v", show[c][0], mean[c], variance[c], ref[c])
		}
	}
	// p(a | x = 0, red) by the formula: log π_c − ½ log(2π σ²_c) − (x − μ_c)²/(2σ²_c) + log p(red | c) per
	// class (p(red | c) = 0.5 for both), normalised.
	joint := func(c int, prior float64) float64 {
		return math.Log(prior) - 0.5*math.Log(2*math.Pi*variance[c]) - mean[c]*mean[c]/(2*variance[c]) + math.Log(0.5)
	}
	want := 1 / (1 + math.Exp(joint(1, 0.66)-joint(0, 0.34)))
	if got := num(queryStrings(t, db, `SELECT nb_proba('m', {'x': 0.0, 'color': 'red'}, 'a')`)[0][0]); !(math.Abs(got-want) <= 1e-12) {
		t.Errorf("nb_proba of class a at x = 0, red: got %v, want %v", got, want)
	}
	check("nb_models", queryStrings(t, db, `SELECT name, label, n_rows, classes, features, kinds FROM nb_models()`),
		[][]string{{"m", "y", "100", "2", "2", "categorical,gaussian"}})
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
