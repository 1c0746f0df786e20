package udf_test

import (
	"fmt"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/sqlnb/sqlnb/queries"
	"github.com/sqlnb/sqlnb/udf"
)

func fixture(name string) string { return filepath.Join("..", "testdata", "fixtures", name) }

// checkParity compares nb_predict_proba of model on table (which holds the expected posteriors in
// columns prefix+class, and the expected label in column predicted) class by class.
func checkParity(t *testing.T, db *udf.DB, model, table, prefix string, classes []string) {
	t.Helper()
	worst := 0.0
	for _, c := range classes {
		got := queryStrings(t, db, fmt.Sprintf(`SELECT max(abs(nb_predict_proba(%s, t)[%s] - %s)), max(abs(nb_proba(%s, t, %s) - %s))
			FROM %s t`, queries.Literal(model), queries.Literal(c), queries.Ident(prefix+c), queries.Literal(model), queries.Literal(c),
			queries.Ident(prefix+c), queries.Ident(table)))
		for _, v := range got[0] {
			d, err := strconv.ParseFloat(v, 64)
			if err != nil {
				t.Fatalf("class %s: %v", c, v)
			}
			worst = max(worst, d)
		}
	}
	if worst > 1e-9 {
		t.Errorf("%s: max |Δ posterior| = %g, want ≤ 1e-9", model, worst)
	}
	mismatch := queryStrings(t, db, fmt.Sprintf(`SELECT count(*) FROM %s t WHERE nb_predict(%s, t) <> predicted`,
		queries.Ident(table), queries.Literal(model)))
	if mismatch[0][0] != "0" {
		t.Errorf("%s: %s labels differ from the reference", model, mismatch[0][0])
	}
	t.Logf("%s: max |Δ posterior| = %.3g, labels identical", model, worst)
}

// TestParityScikitLearn compares with scikit-learn 1.2.1 (fixtures by testdata/fixtures/gen_sklearn.py):
// GaussianNB on iris (also with sample weights) and breast cancer, CategoricalNB(alpha=1) on the complete
// rows of HouseVotes84.
func TestParityScikitLearn(t *testing.T) {
	db := mustOpenDB(t)
	for _, c := range []struct {
		model, file, options string
		classes              []string
	}{
		{"iris", "sklearn_iris.csv", "", []string{"setosa", "versicolor", "virginica"}},
		{"iris_w", "sklearn_iris_weighted.csv", ", weight := 'weight'", []string{"setosa", "versicolor", "virginica"}},
		{"cancer", "sklearn_breast_cancer.csv", "", []string{"malignant", "benign"}},
	} {
		mustExec(t, db, fmt.Sprintf(`CREATE TABLE %s AS FROM read_csv(%s)`, c.model, queries.Literal(fixture(c.file))))
		mustExec(t, db, fmt.Sprintf(`CALL nb_train(%s, 'SELECT * EXCLUDE (id, predicted, %s) FROM %s', 'label'%s)`,
			queries.Literal(c.model), "p_"+strings.Join(c.classes, ", p_"), c.model, c.options))
		checkParity(t, db, c.model, c.model, "p_", c.classes)
	}
	mustExec(t, db, `CREATE TABLE votes AS FROM read_csv(`+queries.Literal(fixture("sklearn_housevotes84_cat.csv"))+`)`)
	mustExec(t, db, `CALL nb_train('votes_cat', 'SELECT * EXCLUDE (id, predicted, p_democrat, p_republican) FROM votes', 'party', kind := 'categorical')`)
	checkParity(t, db, "votes_cat", "votes", "p_", []string{"democrat", "republican"})
}

// TestParityE1071 compares with R's e1071 1.7.13 naiveBayes(laplace = 1) on HouseVotes84 with its 392
// missing votes (fixture by testdata/fixtures/gen_e1071.R): NAs are left out of the counts and skipped
// when predicting, as in seed 004.
func TestParityE1071(t *testing.T) {
	db := mustOpenDB(t)
	mustExec(t, db, `CREATE TABLE hv AS FROM read_csv(`+queries.Literal(filepath.Join("..", "testdata", "housevotes84", "housevotes84.csv"))+`)`)
	mustExec(t, db, `CREATE TABLE ref AS FROM read_csv(`+queries.Literal(fixture("e1071_housevotes84.csv"))+`)`)
	nulls := queryStrings(t, db, `SELECT sum((COLUMNS(* EXCLUDE (id, party)) IS NULL)::INT)::BIGINT FROM hv`)
	total := 0
	for _, v := range nulls[0] {
		n, _ := strconv.Atoi(v)
		total += n
	}
	if total != 392 {
		t.Errorf("HouseVotes84 has %d missing votes, want 392", total)
	}
	mustExec(t, db, `CALL nb_train('hv', 'SELECT * EXCLUDE (id) FROM hv', 'party', alpha := 1)`)
	mustExec(t, db, `CREATE TABLE joined AS SELECT hv.*, ref.democrat AS p_democrat, ref.republican AS p_republican, ref.predicted FROM hv JOIN ref USING (id)`)
	checkParity(t, db, "hv", "joined", "p_", []string{"democrat", "republican"})
}

// TestParityE1071Rules compares with R's e1071 1.7.13 naiveBayes and predict(type = "raw") on the cases of
// testdata/fixtures/gen_e1071_cases.R (rules in testdata/fixtures/README.md): a Gaussian model on iris
// (laplace 0) with far outliers whose densities underflow, under e1071's defaults (threshold 0.001, eps 0)
// and threshold 0.01, eps 1e-6; MASS's survey data, categorical and Gaussian features with NAs in both
// (laplace 1); BreastCancer's nine categorical features with zero table cells (laplace 0); a made-up edge
// case (an sd of 0, a logical feature, unseen levels, three settings); HouseVotes84 with laplace 0. sqlnb's
// settings: alpha = laplace, variance 'sample' (n - 1), var_smoothing 0, and e1071's threshold and eps.
func TestParityE1071Rules(t *testing.T) {
	db := mustOpenDB(t)
	for _, c := range []struct {
		name, kind string
		classes    []string
	}{
		{"iris", "", []string{"setosa", "versicolor", "virginica"}},
		{"survey", "", []string{"Freq", "None", "Some"}},
		{"breastcancer", "categorical", []string{"benign", "malignant"}},
		{"edge", "", []string{"A", "B", "C"}},
	} {
		tr, ex, exp := "e_"+c.name+"_train", "e_"+c.name+"_rows", "e_"+c.name+"_expected"
		mustExec(t, db, fmt.Sprintf(`CREATE TABLE %s AS FROM read_csv(%s)`, tr, queries.Literal(fixture("e1071_"+c.name+"_train.csv"))))
		mustExec(t, db, fmt.Sprintf(`CREATE TABLE %s AS SELECT * EXCLUDE (label) FROM %s UNION ALL BY NAME FROM read_csv(%s)`,
			ex, tr, queries.Literal(fixture("e1071_"+c.name+"_extra.csv"))))
		mustExec(t, db, fmt.Sprintf(`CREATE TABLE %s AS FROM read_csv(%s)`, exp, queries.Literal(fixture("e1071_"+c.name+"_expected.csv"))))
		settings := queryStrings(t, db, fmt.Sprintf(`SELECT DISTINCT laplace, threshold, eps FROM %s ORDER BY ALL`, exp))
		for i, s := range settings {
			model := fmt.Sprintf("e_%s_%d", c.name, i)
			kind := ""
			if c.kind != "" {
				kind = ", kind := " + queries.Literal(c.kind)
			}
			mustExec(t, db, fmt.Sprintf(`CALL nb_train(%s, 'SELECT * EXCLUDE (id) FROM %s', 'label', alpha := %s, variance := 'sample',
				var_smoothing := 0, threshold := %s, eps := %s%s)`, queries.Literal(model), tr, s[0], s[1], s[2], kind))
			joined := model + "_joined"
			mustExec(t, db, fmt.Sprintf(`CREATE TABLE %s AS SELECT r.*, e.* EXCLUDE (id, laplace, threshold, eps) FROM %s r
				JOIN %s e USING (id) WHERE e.laplace = %s AND e.threshold = %s AND e.eps = %s`, joined, ex, exp, s[0], s[1], s[2]))
			checkParity(t, db, model, joined, "p_", c.classes)
		}
	}
	mustExec(t, db, `CREATE TABLE hv0 AS FROM read_csv(`+queries.Literal(filepath.Join("..", "testdata", "housevotes84", "housevotes84.csv"))+`)`)
	mustExec(t, db, `CALL nb_train('hv0', 'SELECT * EXCLUDE (id) FROM hv0', 'party', alpha := 0, threshold := 0.001)`)
	mustExec(t, db, `CREATE TABLE hv0_joined AS SELECT hv0.*, ref.* EXCLUDE (id) FROM hv0 JOIN read_csv(`+
		queries.Literal(fixture("e1071_housevotes84_laplace0.csv"))+`) ref USING (id)`)
	checkParity(t, db, "hv0", "hv0_joined", "p_", []string{"democrat", "republican"})
}
