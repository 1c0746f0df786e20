package udf_test

import (
	"math"
	"strconv"
	"testing"

	"github.com/sqlnb/sqlnb/sqlnb"
	"github.com/sqlnb/sqlnb/udf"
)

// exportData is a mixed model's training table d and the rows s to score: NULLs, NaN, infinity, unseen
// categories, and names that need quoting.
const exportData = `CREATE TABLE d AS SELECT CASE WHEN i % 3 = 0 THEN 'yes' WHEN i % 3 = 1 THEN 'no' ELSE 'maybe' END AS "my label",
	CASE WHEN i % 13 = 0 THEN NULL ELSE sin(i) * 3 + (i % 3) END AS "x ""quoted""",
	CASE WHEN i % 11 = 0 THEN NULL ELSE ['red', 'green', 'blue'][1 + ((i * 7) % 3)::INTEGER] END AS colour,
	(i % 4)::INTEGER AS n, i % 5 = 0 AS flag FROM range(400) r(i);
CREATE TABLE s AS SELECT * EXCLUDE ("my label") FROM d UNION ALL
	SELECT 'nan'::DOUBLE, 'purple', 9, NULL UNION ALL SELECT NULL, NULL, NULL, NULL UNION ALL
	SELECT 'inf'::DOUBLE, 'red', 1, true UNION ALL SELECT 1.5, 'green', 7, false`

func mixedExportDB(t *testing.T, alpha string) *udf.DB {
	db := mustOpenDB(t)
	mustExec(t, db, exportData)
	mustExec(t, db, `CALL nb_train('ex', 'd', 'my label', feature_kinds := 'n=categorical,flag=bernoulli', alpha := `+alpha+`)`)
	return db
}

func exportScript(t *testing.T, db *udf.DB, dialect string) string {
	t.Helper()
	return exportSQL(t, mustScorer(t, db, "ex"), dialect)
}

// TestExportedMacrosMatchFunctions: the DuckDB script from ExportSQL scores as nb_predict_proba and
// nb_predict do (|Δ| ≤ 1e-12), with the same NULL, NaN, infinity and unseen-category rules, for α = 1 and
// α = 0 (where some values are impossible in some classes).
func TestExportedMacrosMatchFunctions(t *testing.T) {
	for _, alpha := range []string{"1", "0"} {
		db := mixedExportDB(t, alpha)
		mustExec(t, db, exportScript(t, db, sqlnb.DialectDuckDB))
		rows := queryStrings(t, db, `SELECT nb_predict('ex', t), ex_predict(t),
			greatest(abs(nb_predict_proba('ex', t)['yes'] - ex_predict_proba(t)['yes']),
			         abs(nb_predict_proba('ex', t)['no'] - ex_predict_proba(t)['no']),
			         abs(nb_predict_proba('ex', t)['maybe'] - ex_predict_proba(t)['maybe']))
			FROM s t`)
		worst := 0.0
		for _, r := range rows {
			if r[0] != r[1] {
				t.Errorf("α=%s: nb_predict %s, macro %s", alpha, r[0], r[1])
			}
			d, err := strconv.ParseFloat(r[2], 64)
			if err != nil || math.IsNaN(d) {
				t.Fatalf("α=%s: |Δ| = %s", alpha, r[2])
			}
			worst = math.Max(worst, d)
		}
		if worst > 1e-12 || len(rows) != 404 {
			t.Errorf("α=%s: %d rows, max |Δ posterior| = %g", alpha, len(rows), worst)
		}
		t.Logf("α=%s: %d rows, max |Δ posterior| = %.3g", alpha, len(rows), worst)
		if got := queryStrings(t, db, `SELECT ex_predict(NULL::STRUCT("x ""quoted""" DOUBLE, colour VARCHAR, n INTEGER, flag BOOLEAN))`); got[0][0] != "NULL" {
			t.Errorf("NULL row: %v", got)
		}
	}
}
