package udf_test

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"testing"

	"github.com/sqlnb/sqlnb/queries"
	"github.com/sqlnb/sqlnb/sqlnb"
)

// TestLogisticSeparable: on linearly separable data (lr_separable.csv: label b iff x1 + x2 > 0) the
// unpenalised log-loss has no minimum (seed 004): training stops with ErrSeparable and says to set C,
// within a few Newton steps; with C = 1 the model exists and separates the rows.
func TestLogisticSeparable(t *testing.T) {
	ctx := context.Background()
	db := mustOpenDB(t)
	src := fmt.Sprintf("SELECT x1, x2, label FROM read_csv(%s)", queries.Literal(fixture("lr_separable.csv")))
	_, err := sqlnb.Train(ctx, db.DB, sqlnb.TrainSpec{Model: "sep", Source: src, Label: "label", Kind: sqlnb.Logistic,
		Params: ptr(sqlnb.DefaultParams().With("penalty", "none"))})
	if !errors.Is(err, sqlnb.ErrSeparable) || !strings.Contains(err.Error(), "set C") || !strings.Contains(err.Error(), `"sep"`) {
		t.Fatalf("separable data without a penalty: %v, want ErrSeparable saying to set C", err)
	}
	t.Log(err)
	mustExec(t, db, fmt.Sprintf(`CALL nb_train('sep', %s, 'label', kind := 'logistic')`, queries.Literal(src)))
	got := queryStrings(t, db, fmt.Sprintf(`SELECT count(*) FILTER (WHERE nb_predict('sep', t) = label), count(*) FROM (%s) t`, src))
	if got[0][0] != got[0][1] {
		t.Errorf("C = 1 on separable data: %s of %s rows right", got[0][0], got[0][1])
	}
}

// TestLogisticCategorical: a VARCHAR column enters one-hot encoded with its first level ('n') as the
// reference, so a y/n vote gives the same model as its 0/1 indicator (numbers are standardised inside the
// fit, with the penalty rescaled: the objective is the same); rows with a missing vote are left out of
// training and counted, and score NULL.
func TestLogisticCategorical(t *testing.T) {
	db := mustOpenDB(t)
	hv := queries.Literal("../testdata/housevotes84/train.csv")
	mustExec(t, db, `CREATE TABLE votes AS SELECT party, "physician-fee-freeze" AS fee, "el-salvador-aid" AS salvador, "crime" AS crime FROM read_csv(`+hv+`)`)
	mustExec(t, db, `CREATE TABLE votes01 AS SELECT party, (fee = 'y')::INT AS fee, (salvador = 'y')::INT AS salvador, (crime = 'y')::INT AS crime FROM votes`)
	mustExec(t, db, `CALL nb_train('cat', 'votes', 'party', kind := 'logistic')`)
	mustExec(t, db, `CALL nb_train('num', 'votes01', 'party', kind := 'logistic')`)
	got := queryStrings(t, db, `SELECT n_rows, incomplete_rows FROM nb.models WHERE name = 'cat'`)
	want := queryStrings(t, db, `SELECT count(*) FILTER (WHERE fee IS NOT NULL AND salvador IS NOT NULL AND crime IS NOT NULL),
		count(*) FILTER (WHERE fee IS NULL OR salvador IS NULL OR crime IS NULL) FROM votes`)
	if got[0][0] != want[0][0] || got[0][1] != want[0][1] {
		t.Errorf("rows %s, incomplete %s; want %s, %s", got[0][0], got[0][1], want[0][0], want[0][1])
	}
	d := queryStrings(t, db, `SELECT max(abs(nb_proba('cat', c, 'republican') - nb_proba('num', n, 'republican'))),
		count(*) FILTER (WHERE nb_predict('cat', c) IS NULL), count(*) FILTER (WHERE c.fee IS NULL OR c.salvador IS NULL OR c.crime IS NULL)
		FROM (SELECT row_number() OVER () AS i, * FROM votes) c JOIN (SELECT row_number() OVER () AS i, * FROM votes01) n USING (i)`)
	diff, _ := strconv.ParseFloat(d[0][0], 64)
	if diff > 1e-9 || d[0][1] != d[0][2] {
		t.Errorf("one-hot against 0/1: max |Δ p| = %s; %s NULL predictions for %s rows with a missing vote", d[0][0], d[0][1], d[0][2])
	}
	coef := queryStrings(t, db, `SELECT value, estimate FROM nb_show('cat') WHERE feature = 'fee' AND class = 'democrat' ORDER BY value`)
	if len(coef) != 2 || coef[0][0] != "n" || coef[0][1] != "0" {
		t.Errorf("fee's coefficients %v: want the reference level n at 0", coef)
	}
	// An unseen level contributes 0, as the reference level.
	u := queryStrings(t, db, `SELECT nb_proba('cat', {'fee': 'maybe', 'salvador': 'y', 'crime': 'y'}, 'republican') = nb_proba('cat', {'fee': 'n', 'salvador': 'y', 'crime': 'y'}, 'republican')`)
	if u[0][0] != "true" {
		t.Errorf("an unseen level scores differently from the reference level")
	}
}

// TestLogisticFitParams: C, penalty, tol and max_iter were used by the fit: nb_set refuses to change them;
// a fit that needs more steps than max_iter stops with ErrNotConverged.
func TestLogisticFitParams(t *testing.T) {
	ctx := context.Background()
	db := mustOpenDB(t)
	src := fmt.Sprintf("SELECT * EXCLUDE (id) FROM read_csv(%s)", queries.Literal(fixture("lr_synth_multi.csv")))
	mustExec(t, db, fmt.Sprintf(`CALL nb_train('m', %s, 'label', kind := 'logistic')`, queries.Literal(src)))
	if err := queryErr(db, `CALL nb_set('m', c := 0.5)`); err == nil || !strings.Contains(err.Error(), "train it again") {
		t.Errorf("nb_set c: %v", err)
	}
	p := sqlnb.DefaultParams()
	p = p.With("max_iter", 2)
	_, err := sqlnb.Train(ctx, db.DB, sqlnb.TrainSpec{Model: "m2", Source: src, Label: "label", Kind: sqlnb.Logistic, Params: &p})
	if !errors.Is(err, sqlnb.ErrNotConverged) || !strings.Contains(err.Error(), "max_iter") {
		t.Errorf("max_iter 2: %v", err)
	}
	if _, err := sqlnb.Merge(&sqlnb.Model{Name: "m", Features: []sqlnb.Feature{{Name: "x1", Kind: sqlnb.Logistic}}}, nil); !errors.Is(err, sqlnb.ErrNotMergeable) {
		t.Errorf("merge: %v", err)
	}
}

// TestLogisticEmptyLevel: a categorical feature with the empty string as a level (a valid VARCHAR value)
// crashed logistic training ("index out of range": a row with value "" was read as a number feature's
// coefficient). The model now equals the one trained with that level renamed to "!", which sorts first as
// well and so is the reference level too: same posteriors for every row.
func TestLogisticEmptyLevel(t *testing.T) {
	db := mustOpenDB(t)
	mustExec(t, db, `CREATE TABLE c AS SELECT CASE WHEN i % 3 = 0 THEN '' ELSE 'k' || (i % 3) END AS y,
		CASE WHEN i % 4 = 0 THEN '' WHEN i % 4 = 1 THEN NULL ELSE 'v' || (i % 5) END AS cat, sin(i) + (i % 3) AS x FROM range(300) r(i)`)
	mustExec(t, db, `CREATE TABLE bang AS SELECT y, CASE WHEN cat = '' THEN '!' ELSE cat END AS cat, x FROM c`)
	mustExec(t, db, `CALL nb_train('e', 'c', 'y', kind := 'logistic')`)
	mustExec(t, db, `CALL nb_train('b', 'bang', 'y', kind := 'logistic')`)
	got := queryStrings(t, db, `SELECT count(*) FILTER (WHERE cat = ''), max(abs(nb_predict_proba('e', cat, x)[y] -
		nb_predict_proba('b', CASE WHEN cat = '' THEN '!' ELSE cat END, x)[y])) < 1e-12 FROM c WHERE cat IS NOT NULL`)
	if len(got) != 1 || got[0][0] != "75" || got[0][1] != "true" {
		t.Errorf("'' level against '!': %v", got)
	}
}
