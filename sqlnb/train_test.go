package sqlnb_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/sqlnb/sqlnb/sqlnb"
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
	params.Alpha = 0
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
	if len(sqlnb.StatRows(m, sqlnb.CategoricalTable)) != len(sqlnb.StatRows(res.Model, sqlnb.CategoricalTable)) || m.Rows != 282 {
		t.Errorf("loaded model: %d counts, %d rows; want %d counts, 282 rows", len(sqlnb.StatRows(m, sqlnb.CategoricalTable)), m.Rows, len(sqlnb.StatRows(res.Model, sqlnb.CategoricalTable)))
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

// TestTinyVarianceWarning: a Gaussian feature whose class variances are positive but below the 1e-300 floor
// (values near 1e-160: scikit-learn still uses them, in subnormal arithmetic) is a training warning naming
// the feature and saying to rescale it; values of ordinary scale are not.
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
}
