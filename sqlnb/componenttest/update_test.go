package componenttest_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/sqlnb/sqlnb/queries"
	"github.com/sqlnb/sqlnb/sqlnb"
	"github.com/sqlnb/sqlnb/udf"
)

// split is a model to train on src (a query) with nb_train options opts, and two complementary conditions
// on src's rows: shard A and shard B.
type split struct {
	name, src, label, opts string
	a, b                   string
	// score is a query whose rows every model scores (posteriors compared).
	score string
	// dropClass, if set, is a class of the label; its rows are also appended and forgotten as a whole class.
	dropClass string
}

func (s split) where(cond string) string {
	return queries.Literal(fmt.Sprintf("SELECT * FROM (%s) WHERE %s", s.src, cond))
}

// checkUpdates holds the exactness of incremental models, through the SQL forms, for a model of a
// mergeable family (a fitted one refuses each with ErrNotMergeable and changes nothing):
//   - nb_merge(u, [A, B]) = train(A ∪ B) (and [B, A]),
//   - train(A), then nb_train(..., append := true) of B = train(A ∪ B),
//   - train(A ∪ B), then nb_forget of B = train(A),
//   - with a class: train(others) + append(the class) = train(all); forget(the class) drops it,
//
// each to 1e-12 on the statistics, the compiled parameters (nb_show's) and the posteriors of s.score's rows.
func checkUpdates(t *testing.T, db *udf.DB, s split, fit bool) {
	ctx := context.Background()
	lit := queries.Literal
	train := func(model, src string) {
		t.Helper()
		mustExec(t, db, fmt.Sprintf(`CALL nb_train(%s, %s, %s%s)`, lit(model), src, lit(s.label), s.opts))
	}
	a, b, whole := s.name+"_sa", s.name+"_sb", s.name+"_whole"
	train(a, s.where(s.a))
	train(b, s.where(s.b))
	train(whole, lit(s.src))
	if fit {
		before, err := sqlnb.Load(ctx, db.DB, a)
		if err != nil {
			t.Fatal(err)
		}
		for _, stmt := range []string{
			fmt.Sprintf(`CALL nb_merge(%s, [%s, %s])`, lit(s.name+"_u"), lit(a), lit(b)),
			fmt.Sprintf(`CALL nb_train(%s, %s, %s%s, append := true)`, lit(a), s.where(s.b), lit(s.label), s.opts),
			fmt.Sprintf(`CALL nb_forget(%s, %s, %s%s)`, lit(a), s.where(s.a), lit(s.label), s.opts),
		} {
			if _, err := db.Exec(stmt); err == nil || !strings.Contains(err.Error(), sqlnb.ErrNotMergeable.Error()) {
				t.Errorf("%s: %v, want %q", stmt, err, sqlnb.ErrNotMergeable)
			}
		}
		after, err := sqlnb.Load(ctx, db.DB, a)
		if err != nil || after.Generation != before.Generation {
			t.Errorf("a refused update changed model %q (%v)", a, err)
		}
		return
	}
	compare := func(what, got, want string) {
		t.Helper()
		compareStored(t, db, what, got, want, s.score)
	}

	u := s.name + "_u"
	mustExec(t, db, fmt.Sprintf(`CALL nb_merge(%s, [%s, %s])`, lit(u), lit(a), lit(b)))
	compare("nb_merge(A, B)", u, whole)
	mustExec(t, db, fmt.Sprintf(`CALL nb_merge(%s, [%s, %s], replace := true)`, lit(u), lit(b), lit(a)))
	compare("nb_merge(B, A)", u, whole)

	app := s.name + "_app"
	train(app, s.where(s.a))
	mustExec(t, db, fmt.Sprintf(`CALL nb_train(%s, %s, %s%s, append := true)`, lit(app), s.where(s.b), lit(s.label), s.opts))
	compare("append B to train(A)", app, whole)

	fg := s.name + "_fg"
	train(fg, lit(s.src))
	mustExec(t, db, fmt.Sprintf(`CALL nb_forget(%s, %s, %s%s)`, lit(fg), s.where(s.b), lit(s.label), s.opts))
	compare("forget B from train(A ∪ B)", fg, a)

	if s.dropClass == "" {
		return
	}
	in, out := fmt.Sprintf("%s = %s", queries.Ident(s.label), lit(s.dropClass)), fmt.Sprintf("%s IS DISTINCT FROM %s", queries.Ident(s.label), lit(s.dropClass))
	others := s.name + "_others"
	train(others, s.where(out))
	nc := s.name + "_newclass"
	train(nc, s.where(out))
	mustExec(t, db, fmt.Sprintf(`CALL nb_train(%s, %s, %s%s, append := true)`, lit(nc), s.where(in), lit(s.label), s.opts))
	compare("append a new class", nc, whole)
	fc := s.name + "_fc"
	train(fc, lit(s.src))
	mustExec(t, db, fmt.Sprintf(`CALL nb_forget(%s, %s, %s%s)`, lit(fc), s.where(in), lit(s.label), s.opts))
	compare("forget a whole class", fc, others)
}

// compareStored compares stored models got and want: classes and statistics (1e-12, compareModels), every
// compiled parameter (nb_show's estimates), and the posteriors of the rows of score.
func compareStored(t *testing.T, db *udf.DB, what, got, want, score string) {
	t.Helper()
	ctx := context.Background()
	g, err := sqlnb.Load(ctx, db.DB, got)
	if err != nil {
		t.Fatal(err)
	}
	w, err := sqlnb.Load(ctx, db.DB, want)
	if err != nil {
		t.Fatal(err)
	}
	compareModels(t, what, g, w, 1e-12)
	if g.Rows != w.Rows || g.SkippedRows != w.SkippedRows {
		t.Errorf("%s: %d rows (%d skipped), want %d (%d)", what, g.Rows, g.SkippedRows, w.Rows, w.SkippedRows)
	}
	gs, err := sqlnb.Compile(g)
	if err != nil {
		t.Fatal(err)
	}
	ws, err := sqlnb.Compile(w)
	if err != nil {
		t.Fatal(err)
	}
	gp, wp := sqlnb.Parameters(gs), sqlnb.Parameters(ws)
	errorf := errs(t)
	if len(gp) != len(wp) {
		t.Fatalf("%s: %d parameters, want %d", what, len(gp), len(wp))
	}
	for i := range gp {
		x, y := gp[i], wp[i]
		if x.Feature != y.Feature || x.Class != y.Class || x.Value != y.Value || x.Parameter != y.Parameter || !same(x.Estimate, y.Estimate, 1e-12) {
			errorf("%s: parameter %+v, want %+v", what, x, y)
		}
	}
	rows := query(t, db, fmt.Sprintf(`SELECT nb_predict_proba(%s, t)::VARCHAR, nb_predict_proba(%s, t)::VARCHAR FROM (%s) t`,
		queries.Literal(got), queries.Literal(want), score))
	if len(rows) == 0 {
		t.Fatalf("%s: no rows scored", what)
	}
	for i, r := range rows {
		if r[0] == "NULL" || r[1] == "NULL" {
			if r[0] != r[1] {
				errorf("%s: row %d: posteriors %s, want %s", what, i, r[0], r[1])
			}
			continue
		}
		x, y := parseMap(t, r[0]), parseMap(t, r[1])
		for c, p := range y {
			if q, ok := x[c]; !ok || !(q-p <= 1e-12 && p-q <= 1e-12) {
				errorf("%s: row %d class %s: posterior %v, want %v", what, i, c, x[c], p)
			}
		}
	}
}

// TestUpdatesRealData: merge, append and forget are exact on the bundled real data, one family each (and
// weights): iris (Gaussian), breast cancer (Gaussian with pooled variance), wine (lda, qda), HouseVotes84
// (categorical; shards split on a vote, so each lacks values the other has), 16 pixels of digits (multinomial,
// complement, Bernoulli with binarize), the Poisson fixture (weighted), Reuters (text, text_bernoulli,
// text_complement with bigrams and stop words).
func TestUpdatesRealData(t *testing.T) {
	db, err := udf.Open("")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	const root = "../../testdata/"
	iris := "SELECT * EXCLUDE (id, p_setosa, p_versicolor, p_virginica, predicted), id FROM '" + root + "fixtures/sklearn_iris.csv'"
	cancer := "SELECT * EXCLUDE (p_malignant, p_benign, predicted) FROM '" + root + "fixtures/sklearn_breast_cancer.csv'"
	wine := "FROM '" + root + "fixtures/wine.csv'"
	votes := "FROM '" + root + "housevotes84/train.csv'"
	digits := "SELECT id, label, COLUMNS('^p[3-4][0-7]$') FROM '" + root + "fixtures/digits.csv'" // the middle 16 pixels
	poisson := "FROM '" + root + "fixtures/poisson_train.csv'"
	reuters := "FROM '" + root + "reuters/reuters.csv'"
	byID := func(name, src, label, opts, drop string) split {
		return split{name: name, src: src, label: label, opts: ", exclude := ['id']" + opts, a: "id % 3 <> 0", b: "id % 3 = 0",
			score: src, dropClass: drop}
	}
	cases := []split{
		byID("iris", iris, "label", "", "setosa"),
		byID("cancer", cancer, "label", ", variance := 'pooled'", ""),
		byID("wine_lda", wine, "label", ", kind := 'lda'", "class_2"),
		byID("wine_qda", wine, "label", ", kind := 'qda', reg_param := 0.05", "class_2"),
		{name: "votes", src: votes, label: "party", a: `"water-project-cost-sharing" = 'y'`, b: `"water-project-cost-sharing" IS DISTINCT FROM 'y'`,
			score: votes, dropClass: ""},
		byID("digits_mn", digits, "label", ", kind := 'multinomial'", "9"),
		byID("digits_cnb", digits, "label", ", kind := 'complement', norm := true", "9"),
		byID("digits_bern", digits, "label", ", kind := 'bernoulli', binarize := 8", "9"),
		byID("poisson", poisson, "label", ", kind := 'poisson', weight := 'weight'", ""),
		byID("reuters_text", reuters, "topic", ", feature_kinds := 'text=text', ngrams := 2, stop_words := 'english'", ""),
		byID("reuters_bern", reuters, "topic", ", feature_kinds := 'text=text_bernoulli'", ""),
		byID("reuters_cnb", reuters, "topic", ", feature_kinds := 'text=text_complement'", ""),
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) { checkUpdates(t, db, c, false) })
	}
}
