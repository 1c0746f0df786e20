package sqlnb_test

import (
	"context"
	"errors"
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/sqlnb/sqlnb/sqlnb"
	"github.com/sqlnb/sqlnb/sqlnb/family/categorical"
	"github.com/sqlnb/sqlnb/sqlnb/family/gaussian"
	"github.com/sqlnb/sqlnb/sqlnb/family/text"
	"github.com/sqlnb/sqlnb/sqlnb/nb"
	"github.com/sqlnb/sqlnb/udf"
)

// TestMissingValuesSeed004 is seed 004's voter example: for Clinton voters 103 voted in 2012, 54 did not
// and 25 did not answer; with no smoothing θ = 103/157 (NULLs are left out of the denominator).
func TestMissingValuesSeed004(t *testing.T) {
	db := mustOpenDB(t)
	ctx := context.Background()
	mustExec(t, db, `CREATE TABLE voters AS
		SELECT 'Clinton' AS candidate, CASE WHEN i < 103 THEN 'Y' WHEN i < 157 THEN 'N' ELSE NULL END AS voted
		FROM range(182) r(i)
		UNION ALL SELECT 'Trump', CASE WHEN i < 40 THEN 'Y' ELSE 'N' END FROM range(100) r(i)`)
	params := sqlnb.DefaultParams()
	params = params.With("alpha", 0)
	res, err := sqlnb.Train(ctx, db, sqlnb.TrainSpec{Model: "votes", Source: "voters", Label: "candidate", Params: &params})
	if err != nil {
		t.Fatal(err)
	}
	s, err := sqlnb.Compile(res.Model)
	if err != nil {
		t.Fatal(err)
	}
	got := param(t, s, s.Model.Features[0].Name, s.Labels[0], "probability", "Y") // class 0 = Clinton
	if want := 103.0 / 157.0; !near(got, want, 1e-12) {                           // α = 0 scores as 1e-10
		t.Errorf("θ(voted=Y | Clinton) = %v, want 103/157 = %v", got, want)
	}
	if got, want := res.Model.Classes[0].Count, int64(182); got != want {
		t.Errorf("Clinton count = %d, want %d (rows with a NULL feature still count for the prior)", got, want)
	}
	// Loading from the store gives the same model.
	m, err := sqlnb.Load(ctx, db, "votes")
	if err != nil {
		t.Fatal(err)
	}
	if len(nb.StatRows(m, categorical.CategoricalTable)) != len(nb.StatRows(res.Model, categorical.CategoricalTable)) || m.Rows != 282 {
		t.Errorf("loaded model: %d counts, %d rows; want %d counts, 282 rows", len(nb.StatRows(m, categorical.CategoricalTable)), m.Rows, len(nb.StatRows(res.Model, categorical.CategoricalTable)))
	}
}

// TestNoKindAdvice: a DATE feature's error says what works — cast it — not "--feature-kind d=categorical",
// which then failed as categorical features take no DATE.
func TestNoKindAdvice(t *testing.T) {
	db := mustOpenDB(t)
	mustExec(t, db, `CREATE TABLE d AS SELECT DATE '2020-01-01' + i::INTEGER AS day, ['a', 'b'][i % 2 + 1] AS y FROM range(10) r(i)`)
	for _, kind := range []sqlnb.Kind{"", sqlnb.Categorical} {
		_, err := sqlnb.Train(context.Background(), db, sqlnb.TrainSpec{Model: "m", Source: "d", Label: "y", Kind: kind})
		if !errors.Is(err, sqlnb.ErrBadType) || !strings.Contains(err.Error(), `SELECT CAST("day" AS VARCHAR) AS "day"`) ||
			strings.Contains(err.Error(), "--feature-kind") {
			t.Errorf("kind %q, a DATE feature: %v", kind, err)
		}
	}
}

// TestTinyVarianceWarning: a Gaussian feature whose class variances are positive but below the floor of
// 2.2e-308, subnormal (values near 1e-160: scikit-learn still uses them, in subnormal arithmetic), is a
// training warning naming the feature and saying to rescale it; values of ordinary scale are not, nor
// values near 1e-150 (variances near 1e-300, normal numbers), which score as the same values times 1e150
// do (GaussianNB is invariant to a feature's scale: ε is a fraction of the largest variance).
func TestTinyVarianceWarning(t *testing.T) {
	db := mustOpenDB(t)
	mustExec(t, db, `CREATE TABLE d AS SELECT (sin(i) + (i % 2)) * 1e-160 AS tiny, sin(i) + (i % 2) AS x, ['a', 'b'][i % 2 + 1] AS y FROM range(40) r(i)`)
	res, err := sqlnb.Train(context.Background(), db, sqlnb.TrainSpec{Model: "t", Source: "SELECT tiny, y FROM d", Label: "y"})
	if err != nil {
		t.Fatal(err)
	}
	if w := strings.Join(res.Warnings, "\n"); !strings.Contains(w, `feature "tiny": its variance in class "a"`) || !strings.Contains(w, "rescale it") {
		t.Errorf("warnings %q", res.Warnings)
	}
	res, err = sqlnb.Train(context.Background(), db, sqlnb.TrainSpec{Model: "x", Source: "SELECT x, y FROM d", Label: "y"})
	if err != nil || len(res.Warnings) != 0 {
		t.Errorf("ordinary values: warnings %q (%v)", res.Warnings, err)
	}
	small, err := sqlnb.Train(context.Background(), db, sqlnb.TrainSpec{Model: "small", Source: "SELECT x * 1e-150 AS x, y FROM d", Label: "y"})
	if err != nil || len(small.Warnings) != 0 {
		t.Fatalf("values near 1e-150: warnings %q (%v)", small.Warnings, err)
	}
	points := []float64{0, 0.4, 1, -2.5}
	var post [2][]float64
	for k, m := range []*sqlnb.Model{res.Model, small.Model} {
		s, err := sqlnb.Compile(m)
		if err != nil {
			t.Fatal(err)
		}
		b := s.NewBatch(len(points))
		for i, v := range points {
			if k == 1 {
				v *= 1e-150
			}
			b.Num[0][i] = v
		}
		jll := make([]float64, 2*len(points))
		s.JointLogLikelihood(b, jll, nil)
		for i := range points {
			a, bb := jll[i], jll[len(points)+i]
			post[k] = append(post[k], 1/(1+math.Exp(a-bb)))
		}
	}
	for i := range points {
		if d := post[0][i] - post[1][i]; !(math.Abs(d) <= 1e-12) {
			t.Errorf("point %v: posterior %v for values near 1e-150, %v for the same values times 1e150", points[i], post[1][i], post[0][i])
		}
	}
}

// TestNonFiniteUnlabelled: a NaN or ±Inf in a row with a NULL label — a row training skips — trains as if the
// row were not there (it failed with DuckDB's "VARPOP is out of range"), in a plain and a per-group training.
func TestNonFiniteUnlabelled(t *testing.T) {
	db := mustOpenDB(t)
	ctx := context.Background()
	for _, v := range []string{"'NaN'::DOUBLE", "'Infinity'::DOUBLE", "'-Infinity'::DOUBLE"} {
		src := fmt.Sprintf(`SELECT i %% 2 AS g, CASE WHEN i < 36 THEN (i %% 3)::VARCHAR END AS y, CASE WHEN i >= 38 THEN %s ELSE i END AS x FROM range(40) t(i)`, v)
		want, err := sqlnb.Fit(ctx, db, sqlnb.TrainSpec{Model: "w", Source: "SELECT * FROM (" + src + ") WHERE y IS NOT NULL", Label: "y", Features: []string{"x"}})
		if err != nil {
			t.Fatal(err)
		}
		for _, by := range [][]string{nil, {"g"}} {
			m, err := sqlnb.Fit(ctx, db, sqlnb.TrainSpec{Model: "n", Source: src, Label: "y", Features: []string{"x"}, By: by})
			if err != nil {
				t.Errorf("%s in a NULL-label row, by %v: %v", v, by, err)
				continue
			}
			if m.SkippedRows != 4 || fmt.Sprint(nb.StatRows(m.Pooled(), gaussian.GaussianTable)) != fmt.Sprint(nb.StatRows(want, gaussian.GaussianTable)) {
				t.Errorf("%s in a NULL-label row, by %v: %d skipped, statistics %v, want those of the labelled rows %v", v, by, m.SkippedRows,
					nb.StatRows(m.Pooled(), gaussian.GaussianTable), nb.StatRows(want, gaussian.GaussianTable))
			}
		}
	}
}

// TestSetParamsKeeps: changing another hyperparameter keeps a model's given priors (it failed: "no prior given
// for class"), a change to nothing keeps the model's generation (a persisted export stays valid), an EM
// model's tol and max_iter are refused (they describe its fit), and UnusedChanges names a setting the model's
// kinds do not use.
func TestSetParamsKeeps(t *testing.T) {
	ctx := context.Background()
	db, err := udf.Open("") // semi-supervised training calls the scoring functions
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	mustExec(t, db.DB, `CREATE TABLE d AS SELECT ['a', 'b', 'c'][i % 3 + 1] AS y, i * 0.1 + i % 3 AS x,
		CASE WHEN i % 5 = 0 THEN NULL ELSE ['a', 'b', 'c'][i % 3 + 1] END AS ys FROM range(60) r(i)`)
	spec, err := sqlnb.Options{Hyperparams: map[string]any{"priors": "a=0.2,b=0.3,c=0.5"}}.Spec("gp", "SELECT y, x FROM d", "y")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := sqlnb.Train(ctx, db, spec); err != nil {
		t.Fatal(err)
	}
	m, _ := sqlnb.Load(ctx, db, "gp")
	p := m.Params
	p = p.With("var_smoothing", 0.5)
	got, err := sqlnb.SetParams(ctx, db, "gp", p, nil)
	if err != nil {
		t.Fatalf("var_smoothing on a model with given priors: %v", err)
	}
	if got.Classes[2].Prior != 0.5 || got.Params.Float("var_smoothing") != 0.5 {
		t.Errorf("after the change: classes %+v, params %+v", got.Classes, got.Params)
	}
	same, err := sqlnb.SetParams(ctx, db, "gp", got.Params, nil)
	if err != nil || same.Generation != got.Generation {
		t.Errorf("a change to nothing: generation %s → %s (%v)", got.Generation, same.Generation, err)
	}
	c := 0.1
	q, _, _ := sqlnb.Options{Hyperparams: map[string]any{"c": c}}.Params(got.Params)
	if w := sqlnb.UnusedChanges(got, q); len(w) != 1 || !strings.Contains(w[0], "c 0.1 has no effect") {
		t.Errorf("UnusedChanges: %q", w)
	}
	mustExec(t, db.DB, `CALL nb_train('em', 'SELECT ys, x FROM d', 'ys', semi_supervised := true)`)
	em, err := sqlnb.Load(ctx, db, "em")
	if err != nil {
		t.Fatal(err)
	}
	p = em.Params
	p = p.With("max_iter", 2)
	if _, err := sqlnb.SetParams(ctx, db, "em", p, nil); !errors.Is(err, sqlnb.ErrBadOption) || !strings.Contains(err.Error(), "fitted by EM") {
		t.Errorf("max_iter of an EM model: %v", err)
	}
}

// TestEmptyFeatureWarning: a feature without a value in any labelled row (all NULL) trained silently (a
// Gaussian of mean 0 and variance ε); training now warns, for the kinds whose statistics count rows.
func TestEmptyFeatureWarning(t *testing.T) {
	db := mustOpenDB(t)
	mustExec(t, db, `CREATE TABLE d AS SELECT ['a', 'b'][i % 2 + 1] AS y, i % 2 + sin(i) AS x, NULL::DOUBLE AS z, NULL::VARCHAR AS c,
		CASE WHEN i % 2 = 0 THEN 'u' END AS half FROM range(100) r(i)`)
	res, err := sqlnb.Train(context.Background(), db, sqlnb.TrainSpec{Model: "m", Source: "d", Label: "y"})
	if err != nil {
		t.Fatal(err)
	}
	w := strings.Join(res.Warnings, "\n")
	for _, name := range []string{"z", "c"} {
		if !strings.Contains(w, fmt.Sprintf(`feature %q has no value in any labelled row (all NULL)`, name)) {
			t.Errorf("no warning for %s: %q", name, w)
		}
	}
	if strings.Contains(w, `"x"`) || strings.Contains(w, `"half"`) || len(res.Warnings) != 2 {
		t.Errorf("warnings %q", res.Warnings)
	}
}

// TestExcludeHintRuns: the --exclude a warning suggests works as written in a shell for awkward names (it
// suggested --exclude a,b for the column "a,b", which excludes "a" and "b").
func TestExcludeHintRuns(t *testing.T) {
	for name, want := range map[string]string{
		"plain_1.x": `--exclude plain_1.x (exclude := ['plain_1.x'])`,
		"a,b":       `--exclude '"a,b"' (exclude := ['a,b'])`,
		"my col":    `--exclude '"my col"' (exclude := ['my col'])`,
		`it's "q"`:  `--exclude '"it'\''s ""q"""' (exclude := ['it''s "q"'])`,
		"é":         `--exclude 'é' (exclude := ['é'])`,
	} {
		if got := sqlnb.ExcludeHint(name); got != want {
			t.Errorf("%q: %s, want %s", name, got, want)
		}
	}
}

// TestUnusedTextOptions: --ngrams and --stop-words on a model without a text column (a term table's terms,
// or no text at all) were accepted silently and applied to nothing; training now warns. With a text column
// there is no warning.
func TestUnusedTextOptions(t *testing.T) {
	db := mustOpenDB(t)
	mustExec(t, db, `CREATE TABLE d AS SELECT ['a', 'b'][i % 2 + 1] AS y, i % 2 + sin(i) AS x, ['red car', 'the apple'][i % 2 + 1] AS body FROM range(40) r(i)`)
	for _, c := range []struct {
		source, want string
	}{
		{"SELECT y, x FROM d", `ngrams 2 and stop words "english": no effect: they apply to the words of a text column, and the model has no text column`},
		{"SELECT y, body FROM d", ""},
	} {
		spec := sqlnb.TrainSpec{Model: "m", Source: c.source, Label: "y", Text: sqlnb.TextOptions{Ngrams: 2, StopWords: "english"}}
		if c.want == "" {
			spec.FeatureKinds = map[string]sqlnb.Kind{"body": sqlnb.Text}
		}
		res, err := sqlnb.Train(context.Background(), db, spec)
		if err != nil {
			t.Fatal(err)
		}
		w := strings.Join(res.Warnings, "\n")
		if (c.want == "") != (w == "") || !strings.Contains(w, c.want) {
			t.Errorf("%s: warnings %q", c.source, res.Warnings)
		}
	}
}

// TestParamsSummaryText: the one-line summary (models show) names the vocabulary limits and each text
// feature's n-grams and stop words, which it left out (only nb.features held them).
func TestParamsSummaryText(t *testing.T) {
	db := mustOpenDB(t)
	mustExec(t, db, `CREATE TABLE d AS SELECT ['a', 'b'][i % 2 + 1] AS y, ['red car', 'the apple'][i % 2 + 1] AS body FROM range(40) r(i)`)
	params := sqlnb.DefaultParams()
	params = params.With("min_df", int64(2)).With("max_features", int64(5))
	spec := sqlnb.TrainSpec{Model: "m", Source: "d", Label: "y", Text: sqlnb.TextOptions{Ngrams: 2, StopWords: "english"},
		FeatureKinds: map[string]sqlnb.Kind{"body": sqlnb.Text}, Params: &params}
	res, err := sqlnb.Train(context.Background(), db, spec)
	if err != nil {
		t.Fatal(err)
	}
	if got := sqlnb.ParamsSummary(res.Model); !strings.Contains(got, `min_df 2, max_features 5, feature "body": ngrams 2, stop words english`) {
		t.Errorf("summary %q", got)
	}
}

// TestTextBernoulliDocumentRows: a text_bernoulli feature keeps per class the documents whose text is not
// NULL (n_c) in the row of the empty term, counting empty documents and not NULL ones; Validate refuses such a
// row with occurrences (no training gives one).
func TestTextBernoulliDocumentRows(t *testing.T) {
	ctx := context.Background()
	db := mustOpenDB(t)
	mustExec(t, db, `CREATE TABLE d AS SELECT * FROM (VALUES ('A', 'x y'), ('A', NULL), ('A', ''), ('B', 'y'), ('B', NULL)) t(label, body)`)
	res, err := sqlnb.Train(ctx, db, sqlnb.TrainSpec{Model: "b", Source: "d", Label: "label", FeatureKinds: map[string]sqlnb.Kind{"body": sqlnb.TextBernoulli}})
	if err != nil {
		t.Fatal(err)
	}
	docs := map[string]int64{}
	for _, r := range nb.StatRows(res.Model, text.TermsTable) {
		if r.Term == text.DocsTerm {
			docs[r.Class] = r.Docs
		}
	}
	if docs["A"] != 2 || docs["B"] != 1 {
		t.Errorf("documents per class %v, want A 2 (x y and the empty one), B 1", docs)
	}
	rows := nb.StatRows(res.Model, text.TermsTable)
	for i := range rows {
		if rows[i].Term == text.DocsTerm {
			rows[i].Count = 1
		}
	}
	if err := sqlnb.Validate(res.Model); !errors.Is(err, sqlnb.ErrInvalidModel) || !strings.Contains(err.Error(), `the documents of text_bernoulli feature "body"`) {
		t.Errorf("a document row with occurrences: %v", err)
	}
	// A model stored before the document rows were kept (none in nb.terms) scores as it did, but adding or
	// forgetting rows is refused: n_c would count the new rows' documents only.
	mustExec(t, db, `DELETE FROM nb.terms WHERE model = 'b' AND term = ''`)
	if _, err := sqlnb.Load(ctx, db, "b"); err != nil {
		t.Fatal(err)
	}
	_, err = sqlnb.Append(ctx, db, sqlnb.UpdateSpec{Model: "b", Source: "d"})
	if !errors.Is(err, sqlnb.ErrNotMergeable) || !strings.Contains(err.Error(), `text_bernoulli feature "body" was trained before`) {
		t.Errorf("append to an older text_bernoulli model: %v", err)
	}
}

// TestSourceForms: a source may be a quoted file name ('d.csv', as FROM 'd.csv' reads it) or a table
// function (read_csv('d.dat', delim = '|'), READ_CSV in capitals, range(3)): both were "no such table or
// view"; a compressed file named in capitals (D.CSV.GZ) is read as compressed (DuckDB looks for .gz). A name that is none of the forms says which forms there are, and how to name another database's
// table.
func TestSourceForms(t *testing.T) {
	ctx := context.Background()
	db := mustOpenDB(t)
	dir := t.TempDir()
	mustExec(t, db, fmt.Sprintf(`COPY (SELECT (i %% 2)::VARCHAR AS y, i * 1.5 AS x FROM range(20) r(i)) TO '%s/d.dat' (DELIMITER '|')`, dir))
	mustExec(t, db, fmt.Sprintf(`COPY (SELECT (i %% 2)::VARCHAR AS y, i * 1.5 AS x FROM range(20) r(i)) TO '%s/d.csv'`, dir))
	mustExec(t, db, fmt.Sprintf(`COPY (SELECT (i %% 2)::VARCHAR AS y, i * 1.5 AS x FROM range(20) r(i)) TO '%s/D.CSV.GZ' (FORMAT csv, COMPRESSION gzip)`, dir))
	for _, src := range []string{fmt.Sprintf(`'%s/d.csv'`, dir), fmt.Sprintf(`read_csv('%s/d.dat', delim = '|')`, dir), dir + "/D.CSV.GZ",
		fmt.Sprintf(`READ_CSV('%s/d.dat', delim = '|')`, dir), fmt.Sprintf(` read_csv ('%s/d.dat', delim = '|') ;`, dir)} {
		res, err := sqlnb.Train(ctx, db, sqlnb.TrainSpec{Model: "m", Source: src, Label: "y"})
		if err != nil {
			t.Errorf("%s: %v", src, err)
			continue
		}
		if res.Model.Rows != 20 {
			t.Errorf("%s: %d rows", src, res.Model.Rows)
		}
	}
	_, err := nb.ResolveSource(ctx, db, "nosuch")
	if err == nil || !strings.Contains(err.Error(), "db.table") || !strings.Contains(err.Error(), "VALUES") || !strings.Contains(err.Error(), "read_csv(") {
		t.Errorf("an unknown source: %v", err)
	}
}

// TestUnknownModelSuggests: an unknown model name that is a known one in other case or with a typo gets a
// suggestion, and a long list of models is cut (a store of 130 models printed them all on one line).
func TestUnknownModelSuggests(t *testing.T) {
	ctx := context.Background()
	db := mustOpenDB(t)
	mustExec(t, db, `CREATE TABLE d AS SELECT (i % 2)::VARCHAR AS y, i * 1.0 AS x FROM range(20) r(i)`)
	for i := range 25 {
		if _, err := sqlnb.Train(ctx, db, sqlnb.TrainSpec{Model: fmt.Sprintf("shard_%02d", i), Source: "d", Label: "y"}); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := sqlnb.Train(ctx, db, sqlnb.TrainSpec{Model: "votes", Source: "d", Label: "y"}); err != nil {
		t.Fatal(err)
	}
	for name, want := range map[string]string{"vote": `did you mean "votes"?`, "VOTES": `did you mean "votes"?`, "zzzzzz": `"shard_00"`} {
		_, err := sqlnb.Load(ctx, db, name)
		if !errors.Is(err, sqlnb.ErrUnknownModel) || !strings.Contains(err.Error(), want) || !strings.Contains(err.Error(), "… 6 more: sqlnb models list") {
			t.Errorf("%s: %v; want %q", name, err, want)
		}
	}
}

// TestWeightedVocabulary: sample weights weigh documents in the fit only, as scikit-learn's CountVectorizer
// never sees them: --max-features ranks terms by occurrences (it ranked them by weighted count), and a term
// found only in documents of weight 0 is in the vocabulary, so it counts in V (it was dropped). Expected values
// by hand (seed 002's θ = (N + α)/(N_c + αV)), and scikit-learn 1.2 (CountVectorizer + MultinomialNB with
// sample_weight) gives the same: P(x | baz) = (1/12 · 3/7) / (1/12 · 3/7 + 11/12 · 1/2) = 0.0722891566...,
// P(x | foo) = (1/2 · 2/5) / (1/2 · 2/5 + 1/2 · 1/4) = 8/13.
func TestWeightedVocabulary(t *testing.T) {
	ctx := context.Background()
	db := mustOpenDB(t)
	kinds := map[string]sqlnb.Kind{"body": sqlnb.Text}
	for _, c := range []struct {
		src, doc    string
		maxFeatures int64
		want        float64
	}{
		{"SELECT * FROM (VALUES ('x', 'foo foo foo baz baz', 1.0), ('y', 'bar', 10.0), ('y', 'qux', 1.0)) v(label, body, w)", "baz", 2, (3.0 / 84) / (3.0/84 + 11.0/24)},
		{"SELECT * FROM (VALUES ('x', 'foo bar', 1.0), ('y', 'bar', 1.0), ('x', 'zz', 0.0)) v(label, body, w)", "foo", 0, 8.0 / 13},
	} {
		params := sqlnb.DefaultParams()
		params = params.With("max_features", c.maxFeatures)
		res, err := sqlnb.Train(ctx, db, sqlnb.TrainSpec{Model: "m", Source: c.src, Label: "label", Weight: "w", FeatureKinds: kinds, Params: &params})
		if err != nil {
			t.Fatal(err)
		}
		s, err := sqlnb.Compile(res.Model)
		if err != nil {
			t.Fatal(err)
		}
		post, _, err := s.ScoreRow(map[string]any{"body": c.doc})
		if err != nil {
			t.Fatal(err)
		}
		if !near(post["x"], c.want, 1e-14) {
			t.Errorf("%s: P(x | %s) = %.17g, want %.17g", c.src, c.doc, post["x"], c.want)
		}
	}
}

// TestTrainEmptyVocabulary: a text feature whose training documents have no term (each NULL, empty,
// punctuation or only stop words) is an error naming the model and feature, for every text kind, as
// scikit-learn's CountVectorizer raises "empty vocabulary; perhaps the documents only contain stop words"
// (it trained, and every row scored the priors); the failed training stores nothing. A group of a --by model
// An appended batch without a term is fine while the model's vocabulary is not empty.
func TestTrainEmptyVocabulary(t *testing.T) {
	ctx := context.Background()
	db := mustOpenDB(t)
	mustExec(t, db, `CREATE TABLE e AS SELECT * FROM (VALUES ('A', 'the of and', 0), ('A', 'It is!', 0), ('B', 'THE', 0), ('B', '...', 0),
		('A', NULL, 0), ('A', 'apple pie', 1), ('B', 'red car', 1)) t(label, body, g)`)
	for _, c := range []struct {
		name, source string
		stop         string
		want         string
	}{
		{"stop words", "SELECT label, body FROM e WHERE g = 0", "english", "(each is NULL, empty, punctuation or only English stop words): check that the column holds the documents, or train without stop words"},
		{"punctuation", "SELECT label, '?! …' AS body FROM e", "", "(each is NULL, empty or punctuation): check that the column holds the documents"},
	} {
		for _, kind := range []sqlnb.Kind{sqlnb.Text, sqlnb.TextComplement, sqlnb.TextBernoulli} {
			_, err := sqlnb.Train(ctx, db, sqlnb.TrainSpec{Model: "s", Source: c.source, Label: "label", Text: sqlnb.TextOptions{StopWords: c.stop},
				FeatureKinds: map[string]sqlnb.Kind{"body": kind}})
			if !errors.Is(err, sqlnb.ErrBadValue) || !strings.Contains(err.Error(), `model "s": text feature "body": empty vocabulary: no training document has a term `+c.want) {
				t.Errorf("%s, %s: %v", c.name, kind, err)
			}
			if _, err := sqlnb.Load(ctx, db, "s"); !errors.Is(err, sqlnb.ErrUnknownModel) {
				t.Errorf("%s, %s: a failed training stored a model (%v)", c.name, kind, err)
			}
		}
	}
	// A term table none of whose documents is labelled.
	mustExec(t, db, `CREATE TABLE docs AS SELECT * FROM (VALUES (1, 'A'), (2, 'B')) t(id, label); CREATE TABLE tt AS SELECT 7 AS id, 'x' AS term, 1 AS n`)
	_, err := sqlnb.Train(ctx, db, sqlnb.TrainSpec{Model: "tt", Source: "docs", Label: "label", Terms: &nb.TermsSpec{Source: "tt", Doc: "id", Term: "term", Count: "n"}})
	if !errors.Is(err, sqlnb.ErrBadValue) || !strings.Contains(err.Error(), `text feature "terms": empty vocabulary: no training document has a term (none has a row with a positive count in the term table): check that its document ids (column "id") match`) {
		t.Errorf("term table: %v", err)
	}
	// Text features cannot take --by (per-group vocabularies); a fold's model is not checked (FoldModels).
	spec := sqlnb.TrainSpec{Model: "a", Source: "SELECT label, body FROM e WHERE g = 1", Label: "label", Text: sqlnb.TextOptions{StopWords: "english"},
		FeatureKinds: map[string]sqlnb.Kind{"body": sqlnb.TextBernoulli}}
	if _, err := sqlnb.Train(ctx, db, spec); err != nil {
		t.Fatal(err)
	}
	if _, err := sqlnb.Append(ctx, db, sqlnb.UpdateSpec{Model: "a", Source: "SELECT label, body FROM e WHERE g = 0"}); err != nil {
		t.Errorf("appending documents without terms: %v", err)
	}
}
