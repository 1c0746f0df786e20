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
	"github.com/sqlnb/sqlnb/sqlnb/nb"
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

func fixture(name string) string {
	return filepath.Join("..", "..", "..", "testdata", "fixtures", name)
}

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

// titanicTypes are the ENUM types of levels_titanic_levels.csv, with adult as BOOLEAN when boolean.
func titanicTypes(types map[string]string, boolean bool) map[string]string {
	out := map[string]string{}
	for f, typ := range types {
		out[f] = typ
	}
	if boolean {
		out["adult"] = "BOOLEAN"
	}
	return out
}

// TestDeclaredLevelsSeen: without declared levels (the features as VARCHAR) J is the number of levels seen
// in training, as scikit-learn's CategoricalNB(alpha = 1) without min_categories on the rows it can score
// (levels_{titanic,haireye}_sklearn.csv, model no_min_categories: J = largest code seen + 1, here the number
// seen: the unseen levels are the last declared ones); those rows differ from the declared-J model's.
func TestDeclaredLevelsSeen(t *testing.T) {
	db := mustOpenDB(t)
	for _, s := range levelSets {
		loadSet(t, db, s)
		model := "seen_" + s.name
		mustExec(t, db, fmt.Sprintf(`CALL nb_train(%s, %s, 'label')`, queries.Literal(model), queries.Literal(source(s.name+"_train", s, nil, false))))
		seen := reference(t, db, s, "sklearn", "no_min_categories")
		compare(t, model+" vs scikit-learn no_min_categories", sqlScores(t, db, model, source(s.name+"_test", s, nil, true), s, nil), seen, s)
		declared := reference(t, db, s, "e1071", "laplace1")
		worst := 0.0
		for id, want := range seen.p {
			worst = max(worst, math.Abs(want[0]-declared.p[id][0]))
		}
		if worst < 1e-5 {
			t.Errorf("%s: J seen and J declared differ by %g at most on the posteriors: the fixture shows no difference", s.name, worst)
		}
	}
}

// TestDeclaredLevelsBoolean: a BOOLEAN categorical feature has the two categories false and true. Titanic's
// adult as BOOLEAN (class and sex ENUMs) gives e1071's laplace1 (levels_titanic_e1071.csv, adult declared
// false, true); trained on adults only (adult true or NULL), θ(c, adult, false) = α/(n_c + 2α) with the count 0
// shown by nb_show, not the single seen value's J = 1.
func TestDeclaredLevelsBoolean(t *testing.T) {
	db := mustOpenDB(t)
	s := levelSets[0]
	types := titanicTypes(loadSet(t, db, s), true)
	mustExec(t, db, fmt.Sprintf(`CALL nb_train('bool_titanic', %s, 'label')`, queries.Literal(source("titanic_train", s, types, false))))
	compare(t, "adult BOOLEAN vs e1071 laplace1", sqlScores(t, db, "bool_titanic", source("titanic_test", s, types, true), s, nil),
		reference(t, db, s, "e1071", "laplace1"), s)
	mustExec(t, db, fmt.Sprintf(`CALL nb_train('bool_adults', %s, 'label')`,
		queries.Literal(source("titanic_train", s, types, false)+" WHERE adult IS DISTINCT FROM 'false'")))
	for _, class := range s.classes {
		var n, nTrue int64
		each(t, db, fmt.Sprintf(`SELECT count(adult), count(*) FILTER (WHERE adult = 'true') FROM titanic_train WHERE label = %s AND adult IS DISTINCT FROM 'false'`,
			queries.Literal(class)), []any{&n, &nTrue}, func() {})
		want := map[string][2]float64{"false": {1 / float64(n+2), 0}, "true": {float64(nTrue+1) / float64(n+2), float64(nTrue)}}
		got := map[string][2]float64{}
		var value string
		var est, count float64
		each(t, db, fmt.Sprintf(`SELECT value, estimate, count FROM nb_show('bool_adults') WHERE feature = 'adult' AND class = %s AND parameter = 'probability'`,
			queries.Literal(class)), []any{&value, &est, &count}, func() { got[value] = [2]float64{est, count} })
		for v, w := range want {
			if g, ok := got[v]; !ok || math.Abs(g[0]-w[0]) > 1e-15 || g[1] != w[1] {
				t.Errorf("nb_show adult = %s in class %s: estimate, count %v (shown: %v), want %v", v, class, g, ok, w)
			}
		}
	}
}

// TestDeclaredLevelsShow: nb_show lists a declared level training never saw with count 0 and its smoothed
// probability (levels_titanic fixtures' worked values: θ(No, class, Crew) = 1/(652 + 4), θ(Yes, class, Crew) =
// 1/(425 + 4), θ(No, adult, false) = 1/(648 + 2)); explain names the level; a value outside the declared
// levels (a VARCHAR argument) keeps today's rule: α/(n_c + αJ), as an unseen value, shown as (unseen).
func TestDeclaredLevelsShow(t *testing.T) {
	db := mustOpenDB(t)
	s := levelSets[0]
	types := loadSet(t, db, s)
	mustExec(t, db, fmt.Sprintf(`CALL nb_train('show_titanic', %s, 'label')`, queries.Literal(source("titanic_train", s, types, false))))
	for _, c := range []struct {
		feature, class, value string
		want                  float64
	}{
		{"class", "No", "Crew", 1.0 / 656}, {"class", "Yes", "Crew", 1.0 / 429}, {"adult", "No", "false", 1.0 / 650},
	} {
		var est, count float64
		n := 0
		each(t, db, fmt.Sprintf(`SELECT estimate, count FROM nb_show('show_titanic') WHERE feature = %s AND class = %s AND value = %s AND parameter = 'probability'`,
			queries.Literal(c.feature), queries.Literal(c.class), queries.Literal(c.value)), []any{&est, &count}, func() { n++ })
		if n != 1 || math.Abs(est-c.want) > 1e-15 || count != 0 {
			t.Errorf("nb_show %s = %s in class %s: %d rows, estimate %v, count %v; want one row, %v, 0", c.feature, c.value, c.class, n, est, count, c.want)
		}
		// the unseen row: α/(n_c + αJ), the probability of a count of 0
		n = 0
		each(t, db, fmt.Sprintf(`SELECT estimate FROM nb_show('show_titanic') WHERE feature = %s AND class = %s AND parameter = 'unseen'`,
			queries.Literal(c.feature), queries.Literal(c.class)), []any{&est}, func() { n++ })
		if n != 1 || math.Abs(est-c.want) > 1e-15 {
			t.Errorf("nb_show %s unseen in class %s: %d rows, estimate %v; want %v", c.feature, c.class, n, est, c.want)
		}
	}
	// Crew (declared, count 0) and Deck (outside the levels) score alike here; explain names the first
	var crew, deck, same string
	each(t, db, `SELECT (SELECT e.value FROM (SELECT unnest(nb_explain('show_titanic', {'class': 'Crew'::`+types["class"]+`, 'sex': 'Male', 'adult': 'true'})) AS e) WHERE e.feature = 'class'),
		       (SELECT e.value FROM (SELECT unnest(nb_explain('show_titanic', {'class': 'Deck', 'sex': 'Male', 'adult': 'true'})) AS e) WHERE e.feature = 'class'),
		       (nb_joint_log_likelihood('show_titanic', {'class': 'Crew', 'sex': 'Male', 'adult': 'true'}) =
		        nb_joint_log_likelihood('show_titanic', {'class': 'Deck', 'sex': 'Male', 'adult': 'true'}))::VARCHAR`,
		[]any{&crew, &deck, &same}, func() {})
	if crew != "Crew" || deck != "(unseen)" || same != "true" {
		t.Errorf("explain's value for Crew %q, for Deck %q (want Crew, (unseen)); same scores: %s, want true", crew, deck, same)
	}
}

// TestDeclaredLevelsPaths: explain, the linear form, append, forget, merge and cross-validation agree with
// J = declared levels on the Titanic fixtures (levels_titanic_e1071.csv, laplace1): nb_explain's
// contributions add up to e1071's log-odds, w0 + Σ w of nb_linear_weights is it on complete rows (Crew
// included), a model trained on half the rows and appended the other half (or merged with it) scores as the
// whole, forgetting that half gives the first half's model, and every cross-validation fold model scores as
// the model trained directly on its rows.
func TestDeclaredLevelsPaths(t *testing.T) {
	ctx := context.Background()
	db := mustOpenDB(t)
	s := levelSets[0]
	types := loadSet(t, db, s)
	src := source("titanic_train", s, types, false)
	test := source("titanic_test", s, types, true)
	mustExec(t, db, fmt.Sprintf(`CALL nb_train('whole', %s, 'label')`, queries.Literal(src)))
	want := reference(t, db, s, "e1071", "laplace1")

	// explain: the two classes' log-odds, Yes against No
	explained := map[int]float64{}
	var id int
	var sum float64
	var versus string
	each(t, db, fmt.Sprintf(`SELECT id, e[1].versus, list_sum(list_transform(e, lambda x: x.contribution)) FROM (SELECT id, nb_explain('whole', t, 'No') AS e FROM (%s) t)`, test),
		[]any{&id, &versus, &sum}, func() { explained[id] = sum })
	worst := 0.0
	for id, j := range want.jll {
		// nb_explain(m, t, 'No') compares the predicted class with No: 0 when No is predicted
		lo := 0.0
		if j[1] > j[0] {
			lo = j[1] - j[0]
		}
		worst = max(worst, math.Abs(explained[id]-lo))
	}
	if worst > 1e-12 {
		t.Errorf("nb_explain: contributions add up to e1071's log-odds within %g, want ≤ 1e-12", worst)
	}

	// linear form: w0 + Σ w_j[value] = jll_Yes - jll_No on rows without a NULL
	w := map[string]float64{}
	var f, v sql.NullString
	var weight float64
	each(t, db, `SELECT feature, value, weight FROM nb_linear_weights('whole')`, []any{&f, &v, &weight}, func() { w[f.String+"\x00"+v.String] = weight })
	if _, ok := w["class\x00Crew"]; !ok {
		t.Errorf("nb_linear_weights has no weight for the declared level Crew: %v", w)
	}
	var class, sex, adult string
	n := 0
	worst = 0
	each(t, db, `SELECT id, class, sex, adult FROM titanic_test WHERE class IS NOT NULL AND sex IS NOT NULL AND adult IS NOT NULL`,
		[]any{&id, &class, &sex, &adult}, func() {
			n++
			lin := w["\x00"] + w["class\x00"+class] + w["sex\x00"+sex] + w["adult\x00"+adult]
			worst = max(worst, math.Abs(lin-(want.jll[id][1]-want.jll[id][0])))
		})
	if worst > 1e-12 || n < 200 {
		t.Errorf("linear form on %d complete rows: |Δ log-odds| ≤ %g, want ≤ 1e-12", n, worst)
	}

	// append, merge, forget: halves by id parity
	even, odd := src+" WHERE id % 2 = 0", src+" WHERE id % 2 = 1"
	mustExec(t, db, fmt.Sprintf(`CALL nb_train('even', %s, 'label')`, queries.Literal(even)))
	mustExec(t, db, fmt.Sprintf(`CALL nb_train('odd', %s, 'label')`, queries.Literal(odd)))
	mustExec(t, db, fmt.Sprintf(`CALL nb_train('appended', %s, 'label')`, queries.Literal(even)))
	mustExec(t, db, fmt.Sprintf(`CALL nb_train('appended', %s, 'label', append := true)`, queries.Literal(odd)))
	mustExec(t, db, `CALL nb_merge('merged', ['even', 'odd'])`)
	mustExec(t, db, fmt.Sprintf(`CALL nb_train('forgotten', %s, 'label')`, queries.Literal(src)))
	mustExec(t, db, fmt.Sprintf(`CALL nb_forget('forgotten', %s, 'label')`, queries.Literal(odd)))
	compare(t, "appended vs e1071 laplace1", sqlScores(t, db, "appended", test, s, nil), want, s)
	compare(t, "merged vs e1071 laplace1", sqlScores(t, db, "merged", test, s, nil), want, s)
	compare(t, "forgotten vs even", sqlScores(t, db, "forgotten", test, s, nil), sqlScores(t, db, "even", test, s, nil), s)

	// cross-validation: each fold model scores as direct training on its rows
	conn, err := db.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	spec := sqlnb.TrainSpec{Model: "cv", Source: src, Label: "label"}
	models, fold, err := sqlnb.FoldModels(ctx, db.DB, sqlnb.CVSpec{Folds: 3, Seed: 5, Train: spec})
	if err != nil {
		t.Fatal(err)
	}
	var rows []map[string]any
	for _, c := range []string{"1st", "2nd", "3rd", "Crew"} {
		rows = append(rows, map[string]any{"class": c, "sex": "Female", "adult": "false"})
	}
	for k, m := range models {
		d := spec
		d.Model = fmt.Sprintf("direct_%d", k)
		d.Source = fmt.Sprintf("SELECT * EXCLUDE (__f) FROM (SELECT *, %s AS __f FROM (%s) __sqlnb_row) WHERE __f <> %d", fold, src, k)
		if _, err := sqlnb.Train(ctx, conn, d); err != nil {
			t.Fatal(err)
		}
		fs, err := sqlnb.Compile(m)
		if err != nil {
			t.Fatal(err)
		}
		ds := mustScorer(t, db, d.Model)
		for _, r := range rows {
			got, _, err1 := fs.ScoreRow(r)
			direct, _, err2 := ds.ScoreRow(r)
			if err1 != nil || err2 != nil || math.Abs(got["Yes"]-direct["Yes"]) > 1e-12 {
				t.Errorf("fold %d, %v: p(Yes) %v (%v), direct training %v (%v)", k, r, got["Yes"], err1, direct["Yes"], err2)
			}
		}
		if j := len(fs.Inputs[slices.IndexFunc(fs.Inputs, func(in *nb.Input) bool { return in.Name == "class" })].Values); j != 4 {
			t.Errorf("fold %d: class has %d categories, want the 4 declared", k, j)
		}
	}
}

// TestEnumLevelsDuckDB: the type text DuckDB stores with a feature (DESCRIBE's) gives back the ENUM's levels
// in order, for levels with quotes, commas, parentheses, blanks, a backslash and none at all (nb.EnumLevels),
// and a model trained on two of them lists every level in nb_show, the others with count 0. (A level with a
// newline parses too, TestEnumLevels, but the store refuses to load such a model today: its type check
// finds the type text unterminated.)
func TestEnumLevelsDuckDB(t *testing.T) {
	db := mustOpenDB(t)
	levels := []string{"it's", "a, b", "(x)", "e)f", " sp ", "", "x\"y", "back\\slash", "é", "''"}
	var list []string
	for _, l := range levels {
		list = append(list, queries.Literal(l))
	}
	mustExec(t, db, fmt.Sprintf(`CREATE TYPE odd AS ENUM (SELECT unnest([%s]))`, strings.Join(list, ", ")))
	mustExec(t, db, `CREATE TABLE odd_rows AS SELECT CAST(v AS odd) AS v, y FROM (VALUES ('a, b', 'p'), ('it''s', 'q'), ('a, b', 'q')) t(v, y)`)
	mustExec(t, db, `CALL nb_train('odd', 'odd_rows', 'y')`)
	m, err := sqlnb.Load(context.Background(), db, "odd")
	if err != nil {
		t.Fatal(err)
	}
	got, ok := nb.EnumLevels(m.Features[0].Type)
	if !ok || !slices.Equal(got, levels) {
		t.Fatalf("EnumLevels(%q) = %q, %v; want %q", m.Features[0].Type, got, ok, levels)
	}
	shown := map[string]float64{}
	var v string
	var est, count float64
	each(t, db, `SELECT value, estimate, count FROM nb_show('odd') WHERE class = 'p' AND parameter = 'probability'`, []any{&v, &est, &count},
		func() { shown[v] = count })
	for _, l := range levels {
		want := 0.0
		if l == "a, b" {
			want = 1
		}
		if c, ok := shown[l]; !ok || c != want {
			t.Errorf("nb_show: level %q count %v (shown: %v), want %v", l, c, ok, want)
		}
	}
	if len(shown) != len(levels) {
		t.Errorf("nb_show lists %d levels, want %d", len(shown), len(levels))
	}
}
