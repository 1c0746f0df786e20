package categorical_test

import (
	"context"
	"database/sql"
	"fmt"
	"math"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/sqlnb/sqlnb/queries"
	"github.com/sqlnb/sqlnb/sqlnb"
	"github.com/sqlnb/sqlnb/udf"
)

// The declared-categories fixtures (testdata/fixtures/README.md, "Declared categories"; made by
// gen_levels.R with R 4.2.2 and e1071 1.7.13, and gen_levels.py with scikit-learn 1.2.1): real data (R's
// Titanic and HairEyeColor, one row per person) whose training split misses levels its test rows have.
// levels_<name>_levels.csv declares each feature's levels in order; levels_<name>_e1071.csv holds e1071's
// naiveBayes(laplace = α) on factors with those levels (models laplace1, laplace0.5), levels_<name>_sklearn.csv
// CategoricalNB(alpha, min_categories = declared J) (alpha1, alpha0.5) and CategoricalNB(alpha = 1) without
// min_categories (no_min_categories: J = levels seen, only the rows it can score). Both references leave NAs
// out of the counts and skip them when scoring; priors are class frequencies over all training rows.
type levelSet struct {
	name     string
	features []string
	classes  []string // the fixtures' column order (p_<class>, jll_<class>)
}

var levelSets = []levelSet{
	{"titanic", []string{"class", "sex", "adult"}, []string{"No", "Yes"}},
	{"haireye", []string{"eye", "sex"}, []string{"Black", "Brown", "Red", "Blond"}},
}

func fixture(name string) string { return filepath.Join("..", "..", "..", "testdata", "fixtures", name) }

func mustOpenDB(tb testing.TB) *udf.DB {
	tb.Helper()
	db, err := udf.Open("")
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { db.Close() })
	return db
}

// mustScorer loads model name from db and compiles it.
func mustScorer(tb testing.TB, db *udf.DB, name string) *sqlnb.Scorer {
	tb.Helper()
	m, err := sqlnb.Load(context.Background(), db, name)
	if err != nil {
		tb.Fatal(err)
	}
	s, err := sqlnb.Compile(m)
	if err != nil {
		tb.Fatal(err)
	}
	return s
}

// exportSQL returns the DuckDB scoring script of s.
func exportSQL(tb testing.TB, s *sqlnb.Scorer) string {
	tb.Helper()
	var b strings.Builder
	if err := sqlnb.ExportSQL(&b, s, sqlnb.DialectDuckDB); err != nil {
		tb.Fatal(err)
	}
	return b.String()
}

func mustExec(tb testing.TB, db *udf.DB, stmt string, args ...any) {
	tb.Helper()
	if _, err := db.ExecContext(context.Background(), stmt, args...); err != nil {
		tb.Fatalf("%s: %v", stmt, err)
	}
}

// each runs stmt and calls row for each result row, scanned into dst.
func each(tb testing.TB, db *udf.DB, stmt string, dst []any, row func()) {
	tb.Helper()
	rows, err := db.QueryContext(context.Background(), stmt)
	if err != nil {
		tb.Fatalf("%s: %v", stmt, err)
	}
	defer rows.Close()
	for rows.Next() {
		if err := rows.Scan(dst...); err != nil {
			tb.Fatalf("%s: %v", stmt, err)
		}
		row()
	}
	if err := rows.Err(); err != nil {
		tb.Fatalf("%s: %v", stmt, err)
	}
}

func enumOf(levels []string) string {
	q := make([]string, len(levels))
	for i, l := range levels {
		q[i] = queries.Literal(l)
	}
	return "ENUM(" + strings.Join(q, ", ") + ")"
}

// loadSet creates <name>_train and <name>_test (features and label as text, NA as NULL) and returns the
// ENUM type of each feature, its levels in the declared order of levels_<name>_levels.csv.
func loadSet(t *testing.T, db *udf.DB, s levelSet) map[string]string {
	t.Helper()
	for _, part := range []string{"train", "test"} {
		mustExec(t, db, fmt.Sprintf(`CREATE TABLE %s_%s AS SELECT * REPLACE (CAST(id AS INTEGER) AS id) FROM read_csv(%s, all_varchar := true)`,
			s.name, part, queries.Literal(fixture("levels_"+s.name+"_"+part+".csv"))))
	}
	levels := map[string][]string{}
	var f, l string
	each(t, db, fmt.Sprintf(`SELECT feature, level FROM read_csv(%s, all_varchar := true) ORDER BY feature, CAST(position AS INTEGER)`,
		queries.Literal(fixture("levels_"+s.name+"_levels.csv"))), []any{&f, &l}, func() { levels[f] = append(levels[f], l) })
	types := map[string]string{}
	for _, f := range s.features {
		if len(levels[f]) == 0 {
			t.Fatalf("%s: no levels for %s", s.name, f)
		}
		types[f] = enumOf(levels[f])
	}
	for _, part := range []string{"e1071", "sklearn"} {
		mustExec(t, db, fmt.Sprintf(`CREATE TABLE %s_%s AS FROM read_csv(%s, types = {'model': 'VARCHAR', 'predicted': 'VARCHAR'})`, s.name, part, queries.Literal(fixture("levels_"+s.name+"_"+part+".csv"))))
	}
	return types
}

// source is a SELECT of table's label and features, each feature cast to types[feature] (as read: text,
// when absent).
func source(table string, s levelSet, types map[string]string, id bool) string {
	var cols []string
	if id {
		cols = append(cols, "id")
	}
	for _, f := range s.features {
		if typ, ok := types[f]; ok {
			cols = append(cols, fmt.Sprintf("CAST(%s AS %s) AS %s", queries.Ident(f), typ, queries.Ident(f)))
		} else {
			cols = append(cols, queries.Ident(f))
		}
	}
	return "SELECT " + strings.Join(append(cols, "label"), ", ") + " FROM " + table
}

// scores are one model's scores of the test rows, by id, in the fixtures' class order.
type scores struct {
	jll, p    map[int][]float64
	predicted map[int]string
}

// readScores reads scores from stmt's rows: id, predicted label, then per class its jll and posterior.
func readScores(t *testing.T, db *udf.DB, stmt string, K int) scores {
	t.Helper()
	out := scores{jll: map[int][]float64{}, p: map[int][]float64{}, predicted: map[int]string{}}
	var id int
	var label string
	v := make([]float64, 2*K)
	dst := []any{&id, &label}
	for i := range v {
		dst = append(dst, &v[i])
	}
	each(t, db, stmt, dst, func() {
		out.predicted[id] = label
		for c := range K {
			out.jll[id] = append(out.jll[id], v[2*c])
			out.p[id] = append(out.p[id], v[2*c+1])
		}
	})
	if len(out.jll) == 0 {
		t.Fatalf("no rows: %s", stmt)
	}
	return out
}

// sqlScores scores the test rows (src: a SELECT with id and the features) with nb_joint_log_likelihood,
// nb_predict_proba and nb_predict, or, given the model's labels (in model order), with its exported macros.
func sqlScores(t *testing.T, db *udf.DB, model, src string, s levelSet, labels []string) scores {
	t.Helper()
	jll, proba, predict := fmt.Sprintf("nb_joint_log_likelihood(%s, t)", queries.Literal(model)),
		fmt.Sprintf("nb_predict_proba(%s, t)", queries.Literal(model)), fmt.Sprintf("nb_predict(%s, t)", queries.Literal(model))
	if labels != nil {
		jll, proba, predict = queries.Ident(model+"_joint_log_likelihood")+"(t)", queries.Ident(model+"_predict_proba")+"(t)", queries.Ident(model+"_predict")+"(t)::VARCHAR"
	}
	var cols []string
	for _, c := range s.classes {
		at := queries.Literal(c)
		if labels != nil { // the macro's scores are a list in model order
			at = fmt.Sprint(slices.Index(labels, c) + 1)
		}
		cols = append(cols, fmt.Sprintf("%s[%s]", jll, at), fmt.Sprintf("%s[%s]", proba, queries.Literal(c)))
	}
	return readScores(t, db, fmt.Sprintf("SELECT id, %s, %s FROM (%s) t", predict, strings.Join(cols, ", "), src), len(s.classes))
}

// reference reads one model's rows of the fixture levels_<set>_<file>.csv (file: e1071 or sklearn).
func reference(t *testing.T, db *udf.DB, s levelSet, file, model string) scores {
	t.Helper()
	var cols []string
	for _, c := range s.classes {
		cols = append(cols, queries.Ident("jll_"+c), queries.Ident("p_"+c))
	}
	return readScores(t, db, fmt.Sprintf("SELECT id, predicted, %s FROM %s_%s WHERE model = %s", strings.Join(cols, ", "), s.name, file,
		queries.Literal(model)), len(s.classes))
}

// compare checks got against want on want's rows: posteriors to 1e-9 absolute, joint log-likelihoods to
// 1e-12 relative, the same predicted class.
func compare(t *testing.T, what string, got, want scores, s levelSet) {
	t.Helper()
	worstP, worstJ := 0.0, 0.0
	for id, wj := range want.jll {
		gj, ok := got.jll[id]
		if !ok {
			t.Fatalf("%s: no row %d", what, id)
		}
		for c := range s.classes {
			worstP = max(worstP, math.Abs(got.p[id][c]-want.p[id][c]))
			worstJ = max(worstJ, math.Abs(gj[c]-wj[c])/math.Abs(wj[c]))
		}
		if got.predicted[id] != want.predicted[id] {
			t.Errorf("%s: row %d predicted %q, want %q", what, id, got.predicted[id], want.predicted[id])
		}
	}
	if worstP > 1e-9 || worstJ > 1e-12 {
		t.Errorf("%s: max |Δ posterior| = %.3g (want ≤ 1e-9), max relative |Δ jll| = %.3g (want ≤ 1e-12)", what, worstP, worstJ)
	}
	t.Logf("%s: %d rows, max |Δ posterior| %.3g, max relative |Δ jll| %.3g", what, len(want.jll), worstP, worstJ)
}

// rowScores scores the test rows (text values, NULL as nil) with the scorer's row path: Scorer.RowScores
// (the row reference) for the joint log-likelihood, ScoreRow for the posterior and label.
func rowScores(t *testing.T, db *udf.DB, sc *sqlnb.Scorer, s levelSet) scores {
	t.Helper()
	var ids []int
	var rows []map[string]any
	var id int
	v := make([]sql.NullString, len(s.features))
	dst := []any{&id}
	for i := range v {
		dst = append(dst, &v[i])
	}
	each(t, db, fmt.Sprintf("SELECT id, %s FROM %s_test ORDER BY id", strings.Join(s.features, ", "), s.name), dst, func() {
		r := map[string]any{}
		for i, f := range s.features {
			r[f] = nil
			if v[i].Valid {
				r[f] = v[i].String
			}
		}
		ids, rows = append(ids, id), append(rows, r)
	})
	b, err := sc.BatchOf(rows)
	if err != nil {
		t.Fatal(err)
	}
	out := scores{jll: map[int][]float64{}, p: map[int][]float64{}, predicted: map[int]string{}}
	for i, id := range ids {
		jll := make([]float64, len(sc.Labels))
		sc.RowScores(b, i, jll)
		post, label, err := sc.ScoreRow(rows[i])
		if err != nil {
			t.Fatal(err)
		}
		out.predicted[id] = label
		for _, c := range s.classes {
			out.jll[id] = append(out.jll[id], jll[slices.Index(sc.Labels, c)])
			out.p[id] = append(out.p[id], post[c])
		}
	}
	return out
}

// TestDeclaredLevelsParity: a categorical feature cast to an ENUM with its declared levels in the training
// source has J = the number of levels, seen or not, as e1071 on factors and scikit-learn with
// min_categories (fixtures levels_{titanic,haireye}_{e1071,sklearn}.csv, see levelSet): the SQL functions,
// the row path and the exported macros give their posteriors (1e-9) and joint log-likelihoods (1e-12
// relative) on every test row, including levels training never saw (titanic's Crew; haireye's Green, and
// Hazel in class Black) and rows with NAs.
func TestDeclaredLevelsParity(t *testing.T) {
	db := mustOpenDB(t)
	for _, s := range levelSets {
		types := loadSet(t, db, s)
		for _, a := range []struct{ alpha, e1071, sklearn string }{{"1", "laplace1", "alpha1"}, {"0.5", "laplace0.5", "alpha0.5"}} {
			model := fmt.Sprintf("lv_%s_%s", s.name, strings.ReplaceAll(a.alpha, ".", "_"))
			mustExec(t, db, fmt.Sprintf(`CALL nb_train(%s, %s, 'label', alpha := %s)`, queries.Literal(model),
				queries.Literal(source(s.name+"_train", s, types, false)), a.alpha))
			e1071, sklearn := reference(t, db, s, "e1071", a.e1071), reference(t, db, s, "sklearn", a.sklearn)
			// the test rows as ENUMs of the training type, and as text
			for _, src := range []struct{ what, sql string }{
				{"enum", source(s.name+"_test", s, types, true)},
				{"text", source(s.name+"_test", s, nil, true)},
			} {
				got := sqlScores(t, db, model, src.sql, s, nil)
				compare(t, model+" "+src.what+" vs e1071 "+a.e1071, got, e1071, s)
				compare(t, model+" "+src.what+" vs scikit-learn "+a.sklearn, got, sklearn, s)
			}
			sc := mustScorer(t, db, model)
			compare(t, model+" row path vs e1071 "+a.e1071, rowScores(t, db, sc, s), e1071, s)
			mustExec(t, db, exportSQL(t, sc))
			compare(t, model+" exported macros vs e1071 "+a.e1071, sqlScores(t, db, model, source(s.name+"_test", s, types, true), s, sc.Labels), e1071, s)
		}
	}
}
