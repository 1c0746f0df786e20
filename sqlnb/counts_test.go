package sqlnb_test

import (
	"context"
	"errors"
	"math"
	"strings"
	"testing"

	"github.com/sqlnb/sqlnb/sqlnb"
	"github.com/sqlnb/sqlnb/sqlnb/family/counts"
	"github.com/sqlnb/sqlnb/sqlnb/family/text"
	"github.com/sqlnb/sqlnb/sqlnb/nb"
)

// TestMultinomialSeed001 checks seed 001's multinomial estimator θ_jc = (N_jc + α)/(N_c + αV) by hand:
// class s has word counts (free 3, money 1, meeting 0), class h (0, 1, 4); V = 3, α = 1:
// θ(free|s) = 4/7, θ(money|s) = 2/7, θ(meeting|s) = 1/7; θ(meeting|h) = 5/8. A NULL count is left out.
func TestMultinomialSeed001(t *testing.T) {
	db := mustOpenDB(t)
	mustExec(t, db, `CREATE TABLE mail AS SELECT * FROM (VALUES ('s', 2, 1, 0), ('s', 1, NULL, 0), ('h', 0, 1, 3), ('h', 0, 0, 1))
		v(y, free, money, meeting)`)
	m := train(t, db, sqlnb.TrainSpec{Model: "mn", Source: "mail", Label: "y", Kind: sqlnb.Multinomial})
	s := compile(t, m)
	want := map[string][2]float64{"free": {1.0 / 8, 4.0 / 7}, "money": {2.0 / 8, 2.0 / 7}, "meeting": {5.0 / 8, 1.0 / 7}} // classes h, s
	for name, w := range want {
		for c, l := range s.Labels {
			if got := math.Exp(param(t, s, name, l, "log_prob", "")); !near(got, w[c], 1e-15) {
				t.Errorf("θ(%s|%s) = %v, want %v", name, l, got, w[c])
			}
		}
	}
	// b_c = log p(c) + Σ x_j log θ_jc; a NULL count adds nothing.
	b := s.NewBatch(1)
	b.Num[0][0], b.Num[1][0], b.Num[2][0] = 2, 0, 1
	b.Valid[1] = []uint64{0}
	jll := make([]float64, 2)
	s.JointLogLikelihood(b, jll, nil)
	wantS := math.Log(0.5) + 2*math.Log(4.0/7) + math.Log(1.0/7)
	if !near(jll[1], wantS, 1e-14) {
		t.Errorf("b_s = %v, want %v", jll[1], wantS)
	}
}

func TestCountBadInput(t *testing.T) {
	db := mustOpenDB(t)
	ctx := context.Background()
	mustExec(t, db, `CREATE TABLE neg AS SELECT * FROM (VALUES ('a', 1, 2.0), ('b', -1, 1.0)) v(y, c1, g)`)
	mustExec(t, db, `CREATE TABLE nan AS SELECT * FROM (VALUES ('a', 1.0::DOUBLE), ('b', 'nan'::DOUBLE)) v(y, c1)`)
	for _, c := range []struct {
		spec    sqlnb.TrainSpec
		want    error
		mention string
	}{
		{sqlnb.TrainSpec{Source: "neg", Label: "y", Features: []string{"c1"}, Kind: sqlnb.Multinomial}, sqlnb.ErrBadValue, `count column "c1" holds negative values`},
		{sqlnb.TrainSpec{Source: "nan", Label: "y", Kind: sqlnb.Complement}, sqlnb.ErrBadValue, `count column "c1" holds NaN or infinite values`},
		{sqlnb.TrainSpec{Source: "neg", Label: "y", FeatureKinds: map[string]sqlnb.Kind{"c1": sqlnb.Complement}}, sqlnb.ErrBadOption, "complement model"},
		{sqlnb.TrainSpec{Source: "neg", Label: "y", FeatureKinds: map[string]sqlnb.Kind{"c1": sqlnb.Complement, "g": sqlnb.Multinomial}}, sqlnb.ErrBadOption, "cannot be mixed"},
	} {
		c.spec.Model = "bad"
		_, err := sqlnb.Train(ctx, db, c.spec)
		if !errors.Is(err, c.want) || !strings.Contains(err.Error(), c.mention) {
			t.Errorf("%+v: err = %v, want %v mentioning %q", c.spec, err, c.want, c.mention)
		}
	}
}

// TestCountFoldModelsAreExact: cross-validation fold models of a multinomial model (totals merged from the
// other folds) equal direct training on the other folds.
func TestCountFoldModelsAreExact(t *testing.T) {
	db := mustOpenDB(t)
	ctx := context.Background()
	mustExec(t, db, `CREATE TABLE d AS SELECT (i % 3)::VARCHAR AS y, (hash(i) % 5)::INTEGER AS a, (hash(i + 1) % 7)::INTEGER AS b,
		CASE WHEN i % 9 = 0 THEN NULL ELSE i % 4 END AS c FROM range(900) r(i)`)
	spec := sqlnb.CVSpec{Folds: 3, Seed: 1, Train: sqlnb.TrainSpec{Model: "cv", Source: "d", Label: "y", Kind: sqlnb.Multinomial}}
	models, fold, err := sqlnb.FoldModels(ctx, db, spec)
	if err != nil {
		t.Fatal(err)
	}
	if len(models) != 3 {
		t.Fatalf("%d fold models, want 3", len(models))
	}
	for f, m := range models {
		direct := train(t, db, sqlnb.TrainSpec{Model: "direct", Label: "y", Kind: sqlnb.Multinomial,
			Source: "SELECT * EXCLUDE (__f) FROM (SELECT *, " + fold + " AS __f FROM d __sqlnb_row) WHERE __f <> " + string(rune('0'+f))})
		want := map[[2]string]float64{}
		for _, x := range nb.StatRows(direct, counts.TotalsTable) {
			want[[2]string{x.Feature, x.Class}] = x.Total
		}
		if len(nb.StatRows(m, counts.TotalsTable)) != len(nb.StatRows(direct, counts.TotalsTable)) {
			t.Fatalf("fold %d: %d totals vs %d", f, len(nb.StatRows(m, counts.TotalsTable)), len(nb.StatRows(direct, counts.TotalsTable)))
		}
		for _, x := range nb.StatRows(m, counts.TotalsTable) {
			if x.Total != want[[2]string{x.Feature, x.Class}] {
				t.Errorf("fold %d: %+v vs %v", f, x, want[[2]string{x.Feature, x.Class}])
			}
		}
	}
}

// TestTextFoldModelsAreExact: cross-validation fold models of a text feature (term counts merged from
// the other folds) equal direct training on the other folds; the vocabulary comes from the training folds.
func TestTextFoldModelsAreExact(t *testing.T) {
	db := mustOpenDB(t)
	ctx := context.Background()
	mustExec(t, db, `CREATE TABLE d AS SELECT CASE WHEN i % 2 = 0 THEN 'a' ELSE 'b' END AS y,
		CASE WHEN i % 10 = 0 THEN NULL ELSE 'w' || (hash(i) % 7) || ' x' || (i % 5) || ' common' END AS body FROM range(300) r(i)`)
	spec := sqlnb.CVSpec{Folds: 3, Seed: 2, Train: sqlnb.TrainSpec{Model: "cv", Source: "d", Label: "y", Kind: sqlnb.Text}}
	models, fold, err := sqlnb.FoldModels(ctx, db, spec)
	if err != nil {
		t.Fatal(err)
	}
	if len(models) != 3 {
		t.Fatalf("%d fold models, want 3", len(models))
	}
	for f, m := range models {
		direct := train(t, db, sqlnb.TrainSpec{Model: "direct", Label: "y", Kind: sqlnb.Text,
			Source: "SELECT * EXCLUDE (__f) FROM (SELECT *, " + fold + " AS __f FROM d __sqlnb_row) WHERE __f <> " + string(rune('0'+f))})
		want := map[[3]string]int64{}
		for _, x := range nb.StatRows(direct, text.TermsTable) {
			want[[3]string{x.Feature, x.Class, x.Term}] = x.Count
		}
		if len(nb.StatRows(m, text.TermsTable)) != len(nb.StatRows(direct, text.TermsTable)) {
			t.Fatalf("fold %d: %d terms vs %d", f, len(nb.StatRows(m, text.TermsTable)), len(nb.StatRows(direct, text.TermsTable)))
		}
		for _, x := range nb.StatRows(m, text.TermsTable) {
			if x.Count != want[[3]string{x.Feature, x.Class, x.Term}] || float64(x.Count) != x.Weight {
				t.Errorf("fold %d: %+v", f, x)
			}
		}
	}
}
