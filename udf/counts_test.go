package udf_test

import (
	"fmt"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/sqlnb/sqlnb/queries"
	"github.com/sqlnb/sqlnb/sqlnb"
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
		for _, o := range sqlnb.ExportedObjects("ex") { // the previous kind's export
			mustExec(t, db, "DROP "+o[0]+" IF EXISTS "+queries.Ident(o[1]))
		}
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

// TestParityAlphaZero compares with scikit-learn 1.2.1 at alpha = 0 (fixtures by
// testdata/fixtures/gen_sklearn_alpha0.py): scikit-learn warns and raises alpha to 1e-10 (force_alpha=False),
// as sqlnb does, so zero cells give tiny probabilities instead of NaN. MultinomialNB, BernoulliNB and
// CategoricalNB (every pixel intensity a category) on all 1797 digits, posteriors of every 20th image
// (bar 2e-9: scikit-learn's BernoulliNB computes log(1 - p) with a loss of up to 1e-3 where p ≈ 1, see the
// fixtures' README); CategoricalNB on the complete rows of HouseVotes84.
func TestParityAlphaZero(t *testing.T) {
	db := mustOpenDB(t)
	mustExec(t, db, `CREATE TABLE digits AS FROM read_csv(`+queries.Literal(fixture("digits.csv"))+`)`)
	mustExec(t, db, `CREATE TABLE ref AS FROM read_csv(`+queries.Literal(fixture("sklearn_alpha0_digits.csv"))+`)`)
	for _, c := range []struct{ ref, options string }{
		{"multinomial_alpha0", "kind := 'multinomial'"},
		{"bernoulli_alpha0", "kind := 'bernoulli'"},
		{"categorical_alpha0", "kind := 'categorical'"},
	} {
		mustExec(t, db, `CALL nb_train(`+queries.Literal(c.ref)+`, 'SELECT * EXCLUDE (id) FROM digits', 'label', alpha := 0, `+c.options+`)`)
		mustExec(t, db, `CREATE OR REPLACE TABLE joined AS SELECT d.*, `+classCols("r.p_")+`, r.predicted AS want
			FROM digits d JOIN ref r USING (id) WHERE r.model = `+queries.Literal(c.ref))
		var diffs []string
		for k := range 10 {
			diffs = append(diffs, fmt.Sprintf("abs(nb_predict_proba(%s, t)['%d'] - q_%d)", queries.Literal(c.ref), k, k))
		}
		got := queryStrings(t, db, `SELECT count(*), max(greatest(`+strings.Join(diffs, ", ")+`)),
			count(*) FILTER (WHERE nb_predict(`+queries.Literal(c.ref)+`, t) <> want::VARCHAR) FROM joined t`)
		worst, _ := strconv.ParseFloat(got[0][1], 64)
		if got[0][0] != "90" || worst > 2e-9 || got[0][2] != "0" {
			t.Errorf("%s: %s rows, max |Δ posterior| %s, %s labels differ", c.ref, got[0][0], got[0][1], got[0][2])
		}
		t.Logf("%s: max |Δ posterior| = %.3g, labels identical", c.ref, worst)
	}
	mustExec(t, db, `CREATE TABLE votes0 AS FROM read_csv(`+queries.Literal(fixture("sklearn_alpha0_housevotes84.csv"))+`)`)
	mustExec(t, db, `CALL nb_train('votes0', 'SELECT * EXCLUDE (id, predicted, p_democrat, p_republican) FROM votes0', 'party', alpha := 0)`)
	checkParity(t, db, "votes0", "votes0", "p_", []string{"democrat", "republican"})
}

// TestParityPoisson compares the Poisson kind with scipy 1.10.1's poisson.logpmf (fixtures by
// testdata/fixtures/gen_poisson.py): λ = the class mean (weighted: Σ w x / Σ w), fitted priors; the joint
// log-likelihoods (relative 1e-12: they reach -2e4) and posteriors of every 3rd training row and ten extra
// rows (zeros, counts of 1000), unweighted and weighted.
func TestParityPoisson(t *testing.T) {
	db := mustOpenDB(t)
	mustExec(t, db, `CREATE TABLE ptrain AS FROM read_csv(`+queries.Literal(fixture("poisson_train.csv"))+`)`)
	mustExec(t, db, `CREATE TABLE prows AS SELECT * EXCLUDE (label, weight) FROM ptrain UNION ALL BY NAME FROM read_csv(`+queries.Literal(fixture("poisson_extra.csv"))+`)`)
	mustExec(t, db, `CREATE TABLE pexp AS FROM read_csv(`+queries.Literal(fixture("poisson_expected.csv"))+`)`)
	mustExec(t, db, `CALL nb_train('unweighted', 'SELECT x1, x2, x3, x4, label FROM ptrain', 'label', kind := 'poisson')`)
	mustExec(t, db, `CALL nb_train('weighted', 'SELECT x1, x2, x3, x4, label, weight FROM ptrain', 'label', kind := 'poisson', weight := 'weight')`)
	for _, m := range []string{"unweighted", "weighted"} {
		tbl := "p_" + m
		mustExec(t, db, fmt.Sprintf(`CREATE TABLE %s AS SELECT r.*, e.* EXCLUDE (id, model) FROM prows r JOIN pexp e USING (id) WHERE e.model = %s`, tbl, queries.Literal(m)))
		got := queryStrings(t, db, fmt.Sprintf(`SELECT count(*), max(greatest(%s)) FROM (SELECT nb_joint_log_likelihood(%s, t) AS j, * FROM %s t)`,
			"abs(j['a'] - jll_a) / abs(jll_a), abs(j['b'] - jll_b) / abs(jll_b), abs(j['c'] - jll_c) / abs(jll_c)", queries.Literal(m), tbl))
		worst, _ := strconv.ParseFloat(got[0][1], 64)
		if got[0][0] != "110" || worst > 1e-12 {
			t.Errorf("%s: %s rows, max relative |Δ jll| = %s", m, got[0][0], got[0][1])
		}
		t.Logf("%s: max relative |Δ joint log-likelihood| = %.3g", m, worst)
		checkParity(t, db, m, tbl, "p_", []string{"a", "b", "c"})
	}
}
