package udf_test

import (
	"fmt"
	"strconv"
	"strings"
	"testing"

	"github.com/sqlnb/sqlnb/queries"
	"github.com/sqlnb/sqlnb/udf"
)

// daCase is one scikit-learn 1.2.1 fit of testdata/fixtures (gen_sklearn_da_lr.py, README section 4): the
// data file, the fixture with its predict_proba per row, the fixture's model name and sqlnb's options.
type daCase struct {
	name, data, expected, model, options string
	classes                              []string
}

var daCases = []daCase{
	{"iris_lda", "sklearn_iris.csv", "sklearn_da_lr_iris.csv", "lda", "kind := 'lda'", iris},
	{"iris_qda", "sklearn_iris.csv", "sklearn_da_lr_iris.csv", "qda", "kind := 'qda'", iris},
	{"wine_lda", "wine.csv", "sklearn_da_lr_wine.csv", "lda", "kind := 'lda'", wine},
	{"wine_lda_lsqr", "wine.csv", "sklearn_da_lr_wine.csv", "lda_lsqr_shrink0.3", "kind := 'lda', shrinkage := 0.3", wine},
	{"wine_qda", "wine.csv", "sklearn_da_lr_wine.csv", "qda", "kind := 'qda'", wine},
	{"wine_qda_reg", "wine.csv", "sklearn_da_lr_wine.csv", "qda_reg0.1", "kind := 'qda', reg_param := 0.1", wine},
}

var lrCases = []daCase{
	{"iris_lr", "sklearn_iris.csv", "sklearn_da_lr_iris.csv", "logreg_c1", "kind := 'logistic'", iris},
	{"wine_lr", "wine.csv", "sklearn_da_lr_wine.csv", "logreg_c1", "kind := 'logistic', c := 1.0", wine},
	{"cancer_lr", "sklearn_breast_cancer.csv", "sklearn_logreg_cancer.csv", "logreg_c1", "kind := 'logistic'", []string{"benign", "malignant"}},
	{"synth2_lr", "lr_synth_binary.csv", "sklearn_logreg_synth_binary.csv", "logreg_none", "kind := 'logistic', penalty := 'none'", []string{"a", "b"}},
	{"synth3_lr", "lr_synth_multi.csv", "sklearn_logreg_synth_multi.csv", "logreg_none", "kind := 'logistic', penalty := 'none'", []string{"a", "b", "c"}},
}

var (
	iris = []string{"setosa", "versicolor", "virginica"}
	wine = []string{"class_0", "class_1", "class_2"}
)

// loadCase creates table c.name (the training data: label and features) and c.name_expected (the
// fixture's rows of c.model joined to the data by id).
func loadCase(t *testing.T, db *udf.DB, c daCase) {
	t.Helper()
	// The data files of iris and breast cancer also hold GaussianNB's posteriors (p_*, predicted): left out.
	mustExec(t, db, fmt.Sprintf(`CREATE OR REPLACE TABLE %s AS SELECT id, label, COLUMNS(lambda c: c NOT IN ('id', 'label', 'predicted') AND NOT starts_with(c, 'p_'))
		FROM read_csv(%s)`, queries.Ident(c.name+"_data"), queries.Literal(fixture(c.data))))
	mustExec(t, db, fmt.Sprintf(`CREATE OR REPLACE TABLE %s AS SELECT d.*, e.* EXCLUDE (id, model) FROM %s d JOIN read_csv(%s) e USING (id)
		WHERE e.model = %s`, queries.Ident(c.name+"_expected"), queries.Ident(c.name+"_data"), queries.Literal(fixture(c.expected)),
		queries.Literal(c.model)))
}

// TestParityDiscriminantScikitLearn compares lda and qda with scikit-learn 1.2.1's
// LinearDiscriminantAnalysis() (svd: pooled n - K covariance), LinearDiscriminantAnalysis(solver='lsqr',
// shrinkage=0.3), QuadraticDiscriminantAnalysis() and QuadraticDiscriminantAnalysis(reg_param=0.1) on iris
// and wine: predict_proba max |Δ| ≤ 1e-6 and identical labels on every training row.
func TestParityDiscriminantScikitLearn(t *testing.T) {
	db := mustOpenDB(t)
	for _, c := range daCases {
		loadCase(t, db, c)
		mustExec(t, db, fmt.Sprintf(`CALL nb_train(%s, 'SELECT * EXCLUDE (id) FROM %s', 'label', %s)`,
			queries.Literal(c.name), c.name+"_data", c.options))
		checkDAParity(t, db, c)
	}
}

// TestParityLogisticScikitLearn compares logistic regression with scikit-learn 1.2.1's LogisticRegression at
// its optimum (the fixtures' coefficients are Newton-polished: scikit-learn's own solvers stop up to 2e-2
// away, README section 4): C=1 multinomial on iris and wine, binary on breast cancer (30 unscaled
// features), penalty=None binary and multinomial on the synthetic sets: predict_proba max |Δ| ≤ 1e-6 and
// identical labels.
func TestParityLogisticScikitLearn(t *testing.T) {
	db := mustOpenDB(t)
	for _, c := range lrCases {
		loadCase(t, db, c)
		mustExec(t, db, fmt.Sprintf(`CALL nb_train(%s, 'SELECT * EXCLUDE (id) FROM %s', 'label', %s)`,
			queries.Literal(c.name), c.name+"_data", c.options))
		checkDAParity(t, db, c)
		got := queryStrings(t, db, `SELECT iterations, grad_norm FROM nb.models WHERE name = ?`, c.name)
		t.Logf("%s: %s Newton steps, final gradient %s", c.name, got[0][0], got[0][1])
	}
}

func checkDAParity(t *testing.T, db *udf.DB, c daCase) {
	t.Helper()
	var diffs []string
	for _, cl := range c.classes {
		diffs = append(diffs, fmt.Sprintf("abs(nb_predict_proba(%s, t)[%s] - %s)", queries.Literal(c.name), queries.Literal(cl), queries.Ident("p_"+cl)))
	}
	got := queryStrings(t, db, fmt.Sprintf(`SELECT count(*), max(greatest(%s)), count(*) FILTER (WHERE nb_predict(%s, t) <> predicted)
		FROM (SELECT * EXCLUDE (label) FROM %s) t`, strings.Join(diffs, ", "), queries.Literal(c.name), queries.Ident(c.name+"_expected")))
	worst, err := strconv.ParseFloat(got[0][1], 64)
	if err != nil || got[0][0] == "0" {
		t.Fatalf("%s: %v", c.name, got)
	}
	if worst > 1e-6 || got[0][2] != "0" {
		t.Errorf("%s: max |Δ predict_proba| = %g (want ≤ 1e-6), %s of %s labels differ from scikit-learn's", c.name, worst, got[0][2], got[0][0])
	}
	t.Logf("%s (scikit-learn %s): %s rows, max |Δ predict_proba| = %.3g, labels identical", c.name, c.model, got[0][0], worst)
}
