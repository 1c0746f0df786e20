package udf_test

import (
	"fmt"
	"strconv"
	"strings"
	"testing"

	"github.com/sqlnb/sqlnb/queries"
	"github.com/sqlnb/sqlnb/udf"
)

// linearSQL writes the linear form nb_linear_weights gives for model as an SQL expression over the row t:
// w0 + Σ w_j x_j, with x_j the number, the Bernoulli presence (a BOOLEAN as 0/1) or a level's indicator.
func linearSQL(t *testing.T, db *udf.DB, model string) (positive, expr string) {
	t.Helper()
	rows := queryStrings(t, db, fmt.Sprintf(`SELECT class, feature, value, weight::VARCHAR FROM nb_linear_weights(%s)`, queries.Literal(model)))
	terms := []string{}
	for _, r := range rows {
		positive = r[0]
		w := "(" + r[3] + ")::DOUBLE"
		switch {
		case r[1] == "NULL":
			terms = append(terms, w)
		case r[2] == "NULL":
			terms = append(terms, fmt.Sprintf("%s * CAST(t.%s AS DOUBLE)", w, queries.Ident(r[1])))
		case r[2] == "true":
			terms = append(terms, fmt.Sprintf("%s * CAST(t.%s AS INTEGER)", w, queries.Ident(r[1])))
		default:
			terms = append(terms, fmt.Sprintf("%s * (CAST(t.%s AS VARCHAR) = %s)::INTEGER", w, queries.Ident(r[1]), queries.Literal(r[2])))
		}
	}
	return positive, strings.Join(terms, " + ")
}

// checkLinear: on every row of table, sign(w0 + w·x) decides nb_predict (the positive class when > 0) and
// w0 + w·x equals nb_explain's sum, the log-odds, to 1e-12 (relative to the largest term).
func checkLinear(t *testing.T, db *udf.DB, model, table string) {
	t.Helper()
	positive, expr := linearSQL(t, db, model)
	lit := queries.Literal(model)
	got := queryStrings(t, db, fmt.Sprintf(`SELECT count(*),
		count(*) FILTER (WHERE (lin > 0) <> (nb_predict(%[1]s, t) = %[2]s)),
		max(abs(lin - list_sum([e.contribution FOR e IN nb_explain(%[1]s, t)])) / greatest(1, list_max([abs(e.contribution) FOR e IN nb_explain(%[1]s, t)]))),
		min(abs(lin))
		FROM (SELECT *, %[3]s AS lin FROM %[4]s t) t`, lit, queries.Literal(positive), expr, queries.Ident(table)))
	worst, _ := strconv.ParseFloat(got[0][2], 64)
	if got[0][1] != "0" || worst > 1e-12 {
		t.Errorf("%s: %s of %s rows where sign(w0 + w·x) disagrees with nb_predict; max relative |w0 + w·x - explain sum| = %s",
			model, got[0][1], got[0][0], got[0][2])
	}
	t.Logf("%s: %s rows, sign(w0 + w·x) = nb_predict on all, |w0 + w·x - explain's log-odds| ≤ %.3g (relative), min |log-odds| %s",
		model, got[0][0], worst, got[0][3])
}

// TestLinearForm: seed 000 (Gaussian NB with a shared variance is linear: w_j = (μ_j1 - μ_j0)/σ_j², w0 =
// log(π1/π0) + Σ (μ_j0² - μ_j1²)/(2σ_j²)) on breast cancer with variance pooled, and seed 002 (Bernoulli NB:
// w_j = log(p_1j(1 - p_0j) / (p_0j(1 - p_1j))), w0 = log(π1/π0) + Σ log((1 - p_1j)/(1 - p_0j))) on the
// complete rows of HouseVotes84 (vote = 'y') and on the digits binarized at 8.
func TestLinearForm(t *testing.T) {
	db := mustOpenDB(t)
	mustExec(t, db, fmt.Sprintf(`CREATE TABLE cancer AS SELECT * EXCLUDE (id, p_malignant, p_benign, predicted) FROM read_csv(%s)`,
		queries.Literal(fixture("sklearn_breast_cancer.csv"))))
	mustExec(t, db, `CALL nb_train('cancer_pooled', 'cancer', 'label', variance := 'pooled')`)
	checkLinear(t, db, "cancer_pooled", "cancer")

	mustExec(t, db, fmt.Sprintf(`CREATE TABLE votes AS SELECT party, COLUMNS(* EXCLUDE (id, party, p_democrat, p_republican, predicted)) = 'y'
		FROM read_csv(%s)`, queries.Literal(fixture("sklearn_housevotes84_cat.csv"))))
	mustExec(t, db, `CALL nb_train('votes_bern', 'votes', 'party', kind := 'bernoulli')`)
	checkLinear(t, db, "votes_bern", "votes")

	mustExec(t, db, fmt.Sprintf(`CREATE TABLE digits AS SELECT * EXCLUDE (id) FROM read_csv(%s) WHERE label IN (3, 8)`,
		queries.Literal(fixture("digits.csv"))))
	mustExec(t, db, `CALL nb_train('digits_bern', 'digits', 'label', kind := 'bernoulli', binarize := 8)`)
	// The presence of a pixel is x > 8: the table the weights are checked on holds it as a BOOLEAN.
	mustExec(t, db, `CREATE TABLE digits_present AS SELECT label, COLUMNS(* EXCLUDE (label)) > 8 FROM digits`)
	checkLinear(t, db, "digits_bern", "digits_present")

	// Not linear: a variance per class, three classes.
	mustExec(t, db, `CALL nb_train('cancer_class', 'cancer', 'label')`)
	for model, want := range map[string]string{"cancer_class": "variance per class", "digits3": "3 classes"} {
		if model == "digits3" {
			mustExec(t, db, fmt.Sprintf(`CALL nb_train('digits3', 'SELECT * EXCLUDE (id) FROM read_csv(%s) WHERE label IN (1, 2, 3)', 'label', kind := 'bernoulli')`,
				strings.ReplaceAll(queries.Literal(fixture("digits.csv")), "'", "''")))
		}
		if err := queryErr(db, fmt.Sprintf(`FROM nb_linear_weights(%s)`, queries.Literal(model))); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("nb_linear_weights(%s): %v, want an error saying %q", model, err, want)
		}
	}
}

// TestLinearFormPerGroup: a per-group model has no one linear form (each group scores with its own weights);
// nb_linear_weights listed the pooled model's, which score no row, under the log-odds formula.
func TestLinearFormPerGroup(t *testing.T) {
	db := mustOpenDB(t)
	mustExec(t, db, `CREATE TABLE g AS SELECT ['n', 's'][i % 2 + 1] AS region, CASE WHEN i % 3 = 0 THEN 'pos' ELSE 'neg' END AS y,
		CASE WHEN i % 2 = 0 THEN 3 * (i % 10) ELSE -(i % 10) END + 2 * (i % 3 = 0)::INTEGER AS x FROM range(300) r(i)`)
	mustExec(t, db, `CALL nb_train('m', 'g', 'y', by := ['region'], variance := 'pooled')`)
	if err := queryErr(db, `FROM nb_linear_weights('m')`); err == nil || !strings.Contains(err.Error(), `model "m" is a per-group model (by "region")`) {
		t.Errorf("nb_linear_weights of a per-group model: %v", err)
	}
}
