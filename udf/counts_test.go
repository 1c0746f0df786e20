package udf_test

import (
	"fmt"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/sqlnb/sqlnb/queries"
)

// TestParityCountModels compares with scikit-learn 1.2.1 on the 8×8 digits (fixtures by
// testdata/fixtures/gen_sklearn.py): MultinomialNB, ComplementNB (norm false and true) and BernoulliNB
// (pixel > 0 present; and with binarize 8, pixel > 8), alpha = 1, trained on all 1797 images, posteriors of
// every 6th image.
func TestParityCountModels(t *testing.T) {
	db := mustOpenDB(t)
	mustExec(t, db, `CREATE TABLE digits AS FROM read_csv(`+queries.Literal(fixture("digits.csv"))+`)`)
	mustExec(t, db, `CREATE TABLE ref AS FROM read_csv(`+queries.Literal(fixture("sklearn_digits_proba.csv"))+`)`)
	for _, c := range []struct{ ref, options string }{
		{"multinomial", "kind := 'multinomial'"},
		{"complement", "kind := 'complement'"},
		{"complement_norm", "kind := 'complement', norm := true"},
		{"bernoulli", "kind := 'bernoulli'"},
		{"bernoulli_8", "kind := 'bernoulli', binarize := 8"},
	} {
		mustExec(t, db, `CALL nb_train(`+queries.Literal(c.ref)+`, 'SELECT * EXCLUDE (id) FROM digits', 'label', `+c.options+`)`)
		mustExec(t, db, `CREATE OR REPLACE TABLE joined AS SELECT d.*, `+classCols("r.p_")+`, r.predicted AS want
			FROM digits d JOIN ref r USING (id) WHERE r.model = `+queries.Literal(c.ref))
		var diffs []string
		for k := range 10 {
			diffs = append(diffs, fmt.Sprintf("abs(nb_predict_proba(%s, t)['%d'] - q_%d)", queries.Literal(c.ref), k, k))
		}
		got := queryStrings(t, db, `SELECT count(*), max(greatest(`+strings.Join(diffs, ", ")+`)),
			count(*) FILTER (WHERE nb_predict(`+queries.Literal(c.ref)+`, t) <> want::VARCHAR) FROM joined t`)
		worst, _ := strconv.ParseFloat(got[0][1], 64)
		if got[0][0] != "300" || worst > 1e-9 || got[0][2] != "0" {
			t.Errorf("%s: %s rows, max |Δ posterior| %s, %s labels differ", c.ref, got[0][0], got[0][1], got[0][2])
		}
		t.Logf("%s: max |Δ posterior| = %.3g, labels identical", c.ref, worst)
	}
}

func classCols(prefix string) string {
	cols := make([]string, 10)
	for k := range cols {
		cols[k] = fmt.Sprintf("%s%d AS q_%d", prefix, k, k)
	}
	return strings.Join(cols, ", ")
}

// TestExportedCountMacros: the exported macros of multinomial and complement models score as
// nb_predict_proba does.
func TestExportedCountMacros(t *testing.T) {
	db := mustOpenDB(t)
	mustExec(t, db, `CREATE TABLE digits AS FROM read_csv(`+queries.Literal(fixture("digits.csv"))+`)`)
	for _, kind := range []string{"multinomial", "complement"} {
		mustExec(t, db, `CALL nb_train('ex', 'SELECT * EXCLUDE (id) FROM digits', 'label', kind := '`+kind+`', norm := true)`)
		mustExec(t, db, exportScript(t, db, "duckdb"))
		var diffs []string
		for k := range 10 {
			diffs = append(diffs, fmt.Sprintf("abs(a['%d'] - b['%d'])", k, k))
		}
		got := queryStrings(t, db, `SELECT max(greatest(`+strings.Join(diffs, ", ")+`)), count(*) FILTER (WHERE pa <> pb) FROM (
			SELECT nb_predict_proba('ex', t) AS a, ex_predict_proba(t) AS b, nb_predict('ex', t) AS pa, ex_predict(t) AS pb
			FROM (SELECT * EXCLUDE (label) FROM digits WHERE id % 5 = 0) t)`)
		if d, _ := strconv.ParseFloat(got[0][0], 64); d > 1e-12 || got[0][1] != "0" {
			t.Errorf("%s: max |Δ| %s, %s labels differ", kind, got[0][0], got[0][1])
		}
	}
}

// TestParityTextModels compares with scikit-learn 1.2.1 on the Reuters sample (fixture by
// testdata/fixtures/gen_sklearn.py, CountVectorizer with sqlnb's tokenization): MultinomialNB,
// ComplementNB (norm false and true) and BernoulliNB over the raw text, alpha = 1, all 70 documents.
func TestParityTextModels(t *testing.T) {
	db := mustOpenDB(t)
	mustExec(t, db, `CREATE TABLE reuters AS FROM read_csv(`+queries.Literal(filepath.Join("..", "testdata", "reuters", "reuters.csv"))+`)`)
	mustExec(t, db, `CREATE TABLE ref AS FROM read_csv(`+queries.Literal(fixture("sklearn_reuters_proba.csv"))+`)`)
	for _, c := range []struct{ ref, options string }{
		{"text", "kind := 'text'"},
		{"text_complement", "kind := 'text_complement'"},
		{"text_complement_norm", "kind := 'text_complement', norm := true"},
		{"text_bernoulli", "kind := 'text_bernoulli'"},
	} {
		mustExec(t, db, `CALL nb_train(`+queries.Literal(c.ref)+`, 'SELECT topic, text FROM reuters', 'topic', `+c.options+`)`)
		m := queries.Literal(c.ref)
		got := queryStrings(t, db, `SELECT count(*), max(greatest(abs(nb_predict_proba(`+m+`, t)['acq'] - r.p_acq), abs(nb_predict_proba(`+m+`, t)['crude'] - r.p_crude))),
			count(*) FILTER (WHERE nb_predict(`+m+`, t) <> r.predicted)
			FROM reuters t JOIN ref r ON r.id = t.id AND r.model = `+m)
		worst, _ := strconv.ParseFloat(got[0][1], 64)
		if got[0][0] != "70" || worst > 1e-9 || got[0][2] != "0" {
			t.Errorf("%s: %s rows, max |Δ posterior| %s, %s labels differ", c.ref, got[0][0], got[0][1], got[0][2])
		}
		t.Logf("%s: max |Δ posterior| = %.3g, labels identical", c.ref, worst)
	}
}
