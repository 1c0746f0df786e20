package udf_test

import (
	"errors"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
	"testing"

	"github.com/sqlnb/sqlnb/queries"
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

// TestExportPostgresNameLength: PostgreSQL keeps 63 bytes of a name (NAMEDATALEN - 1) and cuts the rest, so
// that <model>_predict_proba and <model>_predict of a 57-byte model name are one function. The export
// refuses a model whose longest name, <model>_joint_log_likelihood (21 bytes of suffix), would be cut:
// bytes are counted as PostgreSQL counts them, in UTF-8 ("é" is 2). DuckDB keeps long names.
func TestExportPostgresNameLength(t *testing.T) {
	db := mustOpenDB(t)
	mustExec(t, db, `CREATE TABLE c AS SELECT ['a', 'b', 'c'][i % 3 + 1] AS y, 'v' || (i % 3) AS f FROM range(300) r(i)`)
	for _, c := range []struct {
		name, model string
		refused     bool
	}{
		{"42 bytes", strings.Repeat("m", 42), false},
		{"43 bytes", strings.Repeat("m", 43), true},
		{"57 bytes", "churn_model_trained_on_the_emea_and_apac_regions_nov_2026", true},
		{"21 two-byte letters", strings.Repeat("é", 21), false},
		{"22 two-byte letters", strings.Repeat("é", 22), true},
	} {
		t.Run(c.name, func(t *testing.T) {
			mustExec(t, db, `CALL nb_train(?, 'c', 'y')`, c.model)
			s := mustScorer(t, db, c.model)
			exportSQL(t, s, sqlnb.DialectDuckDB)
			err := sqlnb.ExportSQL(io.Discard, s, sqlnb.DialectPostgres)
			if !c.refused {
				if err != nil {
					t.Fatalf("export: %v", err)
				}
				return
			}
			longest := c.model + "_joint_log_likelihood"
			if !errors.Is(err, sqlnb.ErrNotExportable) {
				t.Fatalf("export: got %v, want ErrNotExportable", err)
			}
			for _, want := range []string{strconv.Quote(c.model), strconv.Quote(longest), fmt.Sprintf("is %d bytes", len(longest)),
				"63 bytes", "at most 42 bytes", "models import --name"} {
				if !strings.Contains(err.Error(), want) {
					t.Errorf("error %q does not say %q", err, want)
				}
			}
		})
	}
}

// TestExportLineBreaksInNames: names are written in the script's header comment as Go string literals, so a
// model, label or feature name with a line break (\n, \r, U+2028) cannot end the comment; the DuckDB
// script runs and scores as nb_predict does.
func TestExportLineBreaksInNames(t *testing.T) {
	db := mustOpenDB(t)
	mustExec(t, db, "CREATE TABLE c AS SELECT ['a', 'b', 'c'][i % 3 + 1] AS \"my\nlabel\", 'v' || (i % 3) AS \"f\r\ng\u2028\" FROM range(300) r(i)")
	model := "x\ny\rz\u2028w"
	mustExec(t, db, `CALL nb_train(?, 'c', ?)`, model, "my\nlabel")
	s := mustScorer(t, db, model)
	for _, dialect := range []string{sqlnb.DialectDuckDB, sqlnb.DialectPostgres} {
		script := exportSQL(t, s, dialect)
		header, rest, _ := strings.Cut(script, "\n")
		if want := `-- sqlnb model "x\ny\rz\u2028w" (label "my\nlabel")`; !strings.HasPrefix(header, want) || !strings.HasPrefix(rest, "CREATE TABLE") {
			t.Errorf("%s: script begins %q, want a comment line %q, then CREATE TABLE", dialect, script[:min(len(script), 120)], want)
		}
		if dialect == sqlnb.DialectDuckDB {
			mustExec(t, db, script)
		}
	}
	q := fmt.Sprintf(`SELECT count(*) FROM c t WHERE nb_predict(%s, t) IS DISTINCT FROM %s(t)::VARCHAR`, queries.Literal(model), queries.Ident(model+"_predict"))
	if got := queryStrings(t, db, q); got[0][0] != "0" {
		t.Errorf("%s rows where the macro and nb_predict differ", got[0][0])
	}
}

// TestEmptyClassAndCategory: a class or a category named "" is listed as the empty string — by nb_show
// (priors, probabilities), nb_linear_weights (its level) and the exported parameters table — and NULL keeps
// meaning none: no class (lda's shared covariance), no value (a prior, a category's unseen mass, the
// intercept). The linear form with the "" level decides nb_predict, and the exported macros score "", an
// unseen value and NULL as nb_predict_proba does.
func TestEmptyClassAndCategory(t *testing.T) {
	db := mustOpenDB(t)
	mustExec(t, db, `CREATE TABLE e AS SELECT CASE WHEN i % 5 < 2 + i % 2 THEN '' ELSE 'u' END AS cat,
		CASE WHEN i % 2 = 0 THEN '' ELSE 'A' END AS y, sin(i) + i % 2 AS x, cos(i) AS z FROM range(100) r(i)`)
	mustExec(t, db, `CALL nb_train('e', 'SELECT cat, y FROM e', 'y')`)
	mustExec(t, db, `CALL nb_train('l', 'SELECT x, z, y FROM e', 'y', kind := 'lda')`)
	check := func(what, q string, want [][]string) {
		t.Helper()
		if got := queryStrings(t, db, q); fmt.Sprintf("%q", got) != fmt.Sprintf("%q", want) {
			t.Errorf("%s: got %q, want %q", what, got, want)
		}
	}
	shown := [][]string{{"prior", "", "NULL"}, {"prior", "A", "NULL"}, {"probability", "", ""}, {"probability", "", "u"},
		{"probability", "A", ""}, {"probability", "A", "u"}, {"unseen", "", "NULL"}, {"unseen", "A", "NULL"}}
	check("nb_show", `SELECT parameter, class, value FROM nb_show('e') ORDER BY ALL NULLS FIRST`, shown)
	check("nb_linear_weights", `SELECT class, feature, value FROM nb_linear_weights('e') ORDER BY ALL NULLS FIRST`,
		[][]string{{"A", "NULL", "NULL"}, {"A", "cat", ""}, {"A", "cat", "u"}})
	checkLinear(t, db, "e", "e")
	lda := `SELECT parameter, count(*) FILTER (WHERE class IS NULL), count(*) FILTER (WHERE class = '') FROM %s GROUP BY ALL ORDER BY ALL`
	check("lda's nb_show", fmt.Sprintf(lda, "nb_show('l')"), [][]string{{"covariance", "3", "0"}, {"mean", "0", "2"}, {"prior", "0", "1"}})

	mustExec(t, db, exportSQL(t, mustScorer(t, db, "e"), sqlnb.DialectDuckDB))
	mustExec(t, db, exportSQL(t, mustScorer(t, db, "l"), sqlnb.DialectDuckDB))
	check("exported classes", `SELECT class FROM e_classes ORDER BY position`, [][]string{{""}, {"A"}})
	check("exported parameters", `SELECT parameter, class, value FROM e_parameters ORDER BY ALL NULLS FIRST`, shown[2:])
	check("lda's exported parameters", fmt.Sprintf(lda, "l_parameters"), [][]string{{"covariance", "3", "0"}, {"mean", "0", "2"}})
	check("exported macros", `SELECT cat, e_predict(t) = nb_predict('e', t),
		abs(e_predict_proba(t)[''] - nb_predict_proba('e', t)['']) <= 1e-12 AND abs(e_predict_proba(t)['A'] - nb_predict_proba('e', t)['A']) <= 1e-12
		FROM (VALUES (''), ('u'), ('unseen'), (NULL)) t(cat) ORDER BY ALL NULLS FIRST`,
		[][]string{{"NULL", "true", "true"}, {"", "true", "true"}, {"u", "true", "true"}, {"unseen", "true", "true"}})
}

// TestScoresAboveTheDoubleRange: where a linear model's class scores pass the double range (inputs near
// 1e308: lda, logistic), nb_joint_log_likelihood gives each class its own score (it was NaN from +inf −
// +inf, computed in extended range); the exported macros, whose sums in doubles overflow, possibly in the
// middle of a class that is not the top one, cannot tell the top class there and give NULL (they gave NaN
// posteriors); elsewhere they agree with nb_*.
func TestScoresAboveTheDoubleRange(t *testing.T) {
	db := mustOpenDB(t)
	mustExec(t, db, `CREATE TABLE d AS SELECT ['a', 'b', 'c'][i % 3 + 1] AS y, sin(i) + 0.8 * (i % 3) AS x1,
		cos(1.3 * i) - 0.5 * (i % 3) AS x2, sin(0.7 * i + 1) + 0.3 * (i % 3) AS x3 FROM range(150) r(i)`)
	mustExec(t, db, `CREATE TABLE big AS FROM (VALUES (1e308, -1e308, 1e308), (1.7e308, 1.7e308, 1.7e308), (1.7e308, 1.7e308, -1.7e308),
		(1e307, 1e307, 0.0), (1.0, 2.0, 3.0)) v(x1, x2, x3)`)
	// Features a thousand times smaller: weights a thousand times larger, where +inf and -inf terms meet
	// in one class's sum (NaN).
	mustExec(t, db, `CREATE TABLE d2 AS SELECT y, x1 / 1000 AS x1, x2 / 1000 AS x2, x3 / 1000 AS x3 FROM d`)
	for _, kind := range []string{"lda", "logistic", "lda2"} {
		source, family := "d", kind
		if kind == "lda2" {
			source, family = "d2", "lda"
		}
		mustExec(t, db, `CALL nb_train('`+kind+`', '`+source+`', 'y', kind := '`+family+`')`)
		mustExec(t, db, exportSQL(t, mustScorer(t, db, kind), sqlnb.DialectDuckDB))
		rows := queryStrings(t, db, `SELECT nb_joint_log_likelihood('`+kind+`', t)::VARCHAR, nb_predict('`+kind+`', t), `+kind+`_predict(t),
			list_bool_or([x = 'inf'::DOUBLE OR isnan(x) FOR x IN `+kind+`_joint_log_likelihood(t)]), `+kind+`_predict_proba(t) IS NULL,
			greatest(abs(nb_predict_proba('`+kind+`', t)['a'] - `+kind+`_predict_proba(t)['a']),
				abs(nb_predict_proba('`+kind+`', t)['b'] - `+kind+`_predict_proba(t)['b']),
				abs(nb_predict_proba('`+kind+`', t)['c'] - `+kind+`_predict_proba(t)['c'])) FROM big t`)
		overflowed := 0
		for i, r := range rows {
			if strings.Contains(strings.ToLower(r[0]), "nan") {
				t.Errorf("%s row %d: nb_joint_log_likelihood %s", kind, i, r[0])
			}
			if r[3] == "true" {
				overflowed++
				if r[2] != "NULL" || r[4] != "true" {
					t.Errorf("%s row %d: a macro score at +inf or NaN, yet the macros give %s and a MAP", kind, i, r[2])
				}
				continue
			}
			d, err := strconv.ParseFloat(r[5], 64)
			if r[1] != r[2] || err != nil || !(d <= 1e-12) {
				t.Errorf("%s row %d: nb_predict %s, macro %s, max |Δ posterior| %s", kind, i, r[1], r[2], r[5])
			}
		}
		if overflowed == 0 {
			t.Errorf("%s: no row overflowed in the macros: the test data no longer tests it", kind)
		}
	}
	if nan := queryStrings(t, db, `SELECT count(*) FROM big t WHERE list_bool_or([isnan(x) FOR x IN lda2_joint_log_likelihood(t)])`); nan[0][0] == "0" {
		t.Errorf("no NaN macro score: the test data no longer tests it")
	}
}

// TestExportDollarQuotes: the PostgreSQL functions' bodies are dollar-quoted and hold the classes and
// categories as literals; a value with the quote's tag in it ("$sqlnb$; CREATE TABLE pwned ...") ended the
// body and ran as SQL of its own (found by a pass with a real PostgreSQL). Each body now has a tag it does
// not contain, and the value sits whole inside a body.
func TestExportDollarQuotes(t *testing.T) {
	db := mustOpenDB(t)
	evil := "$sqlnb$; CREATE TABLE pwned(x int); SELECT $sqlnb1$"
	mustExec(t, db, `CREATE TABLE q AS SELECT CASE WHEN i % 2 = 0 THEN 'a' ELSE ? END AS y, CASE WHEN i % 2 = 0 THEN 'plain' ELSE ? END AS cat FROM range(20) r(i)`, evil, evil)
	mustExec(t, db, `CALL nb_train('inj', 'q', 'y')`)
	script := exportSQL(t, mustScorer(t, db, "inj"), sqlnb.DialectPostgres)
	bodies := 0
	for rest := script; ; {
		i := strings.Index(rest, "LANGUAGE sql IMMUTABLE AS ")
		if i < 0 {
			break
		}
		rest = rest[i+len("LANGUAGE sql IMMUTABLE AS "):]
		tag, after, _ := strings.Cut(rest, "\n")
		body, tail, ok := strings.Cut(after, "\n"+tag+";\n")
		if !ok || !strings.HasPrefix(tag, "$") || !strings.HasSuffix(tag, "$") || strings.Contains(body, tag) {
			t.Fatalf("a function body quoted with %q is not closed by it alone:\n%s", tag, rest[:min(len(rest), 300)])
		}
		if strings.Contains(body, "'"+strings.ReplaceAll(evil, "'", "''")+"'") {
			bodies++
		}
		rest = tail
	}
	if bodies == 0 {
		t.Errorf("no function body holds the value as one literal:\n%s", script)
	}
}

// TestExportTypedLabels: the exported _predict returns the label in the label column's type (BOOLEAN,
// INTEGER, DOUBLE labels as themselves; it returned VARCHAR, which sorts '10' before '2'), the class
// nb_predict gives as text; the PostgreSQL function returns the matching type.
func TestExportTypedLabels(t *testing.T) {
	db := mustOpenDB(t)
	for typ, pg := range map[string]string{"BOOLEAN": "boolean", "INTEGER": "integer", "DOUBLE": "double precision", "VARCHAR": "text"} {
		label := fmt.Sprintf("CAST(i %% 3 * 5 AS %s)", typ)
		if typ == "BOOLEAN" {
			label = "i % 3 = 1"
		}
		mustExec(t, db, fmt.Sprintf(`CREATE OR REPLACE TABLE d AS SELECT %s AS y, (i %% 3) + sin(i) AS x FROM range(90) r(i)`, label))
		mustExec(t, db, `CALL nb_train('tl', 'd', 'y')`)
		s := mustScorer(t, db, "tl")
		mustExec(t, db, "DROP MACRO IF EXISTS tl_predict; DROP MACRO IF EXISTS tl_predict_proba; DROP MACRO IF EXISTS tl_joint_log_likelihood; DROP MACRO IF EXISTS tl__limit; DROP TABLE IF EXISTS tl_classes; DROP TABLE IF EXISTS tl_parameters")
		mustExec(t, db, exportSQL(t, s, sqlnb.DialectDuckDB))
		got := queryStrings(t, db, fmt.Sprintf(`SELECT typeof(nb_predict('tl', t)), typeof(tl_predict(t)),
			count(*) FILTER (WHERE CAST(nb_predict('tl', t) AS %s) IS DISTINCT FROM tl_predict(t)) FROM d t GROUP BY ALL`, typ))
		if len(got) != 1 || got[0][0] != "VARCHAR" || got[0][1] != typ || got[0][2] != "0" {
			t.Errorf("%s labels: nb_predict and the macro give %v", typ, got)
		}
		if script := exportSQL(t, s, sqlnb.DialectPostgres); !strings.Contains(script, `CREATE FUNCTION "tl_predict"(f jsonb) RETURNS `+pg+" ") {
			t.Errorf("%s labels: the PostgreSQL _predict does not return %s", typ, pg)
		}
	}
}
