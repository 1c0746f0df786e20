package main

import (
	"strings"
	"testing"
)

// TestTrainSemiSupervised: `train --semi-supervised` learns from the rows with a NULL label too: it reports
// the unlabelled rows and EM steps (and a warning when --max-iter stops it), `models show` and nb_models show
// them with the final log-likelihood; a fully labelled source trains as usual with a warning; a kind EM
// cannot fit (lda) is an error naming the feature that leaves the stored model as it was.
func TestTrainSemiSupervised(t *testing.T) {
	t.Chdir(t.TempDir())
	mustRun(t, "sql", "-c", `COPY (SELECT CASE WHEN i % 10 = 0 THEN ['a', 'b'][1 + i % 20 // 10] END AS y,
		(i % 2) * 3 + sin(i * 7) AS x1, ((i + 1) % 2) * 2 + cos(i * 3) AS x2 FROM range(400) r(i)) TO 'half.csv'`)
	_, errs, code := sqlnbRun(t, "train", "--model", "m", "--label", "y", "--from", "half.csv", "--semi-supervised", "--max-iter", "2", "--tol", "1e-15")
	if code != exitOK || !strings.Contains(errs, `trained "m" on 40 rows (and 360 unlabelled rows)`) || !strings.Contains(errs, "2 EM steps (log-likelihood -") ||
		!strings.Contains(errs, `warning: model "m": semi-supervised: EM stopped at max_iter 2 steps`) {
		t.Fatalf("train --semi-supervised --max-iter 2: exit %d\n%s", code, errs)
	}
	_, errs, code = sqlnbRun(t, "train", "--model", "m", "--label", "y", "--from", "half.csv", "--semi-supervised")
	if code != exitOK || strings.Contains(errs, "warning") || !strings.Contains(errs, "360 unlabelled rows") {
		t.Fatalf("train --semi-supervised: exit %d\n%s", code, errs)
	}
	out := mustRun(t, "models", "show", "m")
	if !strings.Contains(out, "semi-supervised (EM, tol 1e-06, max_iter 100): 360 unlabelled rows, ") || !strings.Contains(out, "EM steps, log-likelihood -") {
		t.Errorf("models show:\n%s", out)
	}
	out = mustRun(t, "sql", "--format", "csv", "-c", `SELECT n_rows, unlabelled_rows, iterations > 1, log_likelihood < 0 FROM nb_models() WHERE name = 'm'`)
	if out != "n_rows,unlabelled_rows,(iterations > 1),(log_likelihood < 0)\n40,360,true,true\n" {
		t.Errorf("nb_models: %q", out)
	}
	before := mustRun(t, "models", "export", "m")
	_, errs, code = sqlnbRun(t, "train", "--model", "m", "--label", "y", "--from", "half.csv", "--semi-supervised", "--kind", "lda")
	if code != exitError || !strings.Contains(errs, `semi-supervised training needs naive Bayes features`) || !strings.Contains(errs, `feature "x1" is lda`) {
		t.Errorf("--kind lda: exit %d\n%s", code, errs)
	}
	if after := mustRun(t, "models", "export", "m"); after != before {
		t.Errorf("a failed semi-supervised training changed the stored model")
	}
	_, errs, code = sqlnbRun(t, "train", "--model", "full", "--label", "y", "--from", "SELECT * FROM 'half.csv' WHERE y IS NOT NULL", "--semi-supervised")
	if code != exitOK || !strings.Contains(errs, `semi-supervised: source "SELECT * FROM 'half.csv' WHERE y IS NOT NULL" has no rows with a NULL label "y": trained on the labelled rows only`) ||
		!strings.Contains(errs, `trained "full" on 40 rows (0 skipped: NULL label)`) {
		t.Errorf("no unlabelled rows: exit %d\n%s", code, errs)
	}
}

// TestSourceQuotedInMessages: a source table written in double quotes is named in warnings and errors as it
// was written ("my data", main."my data"), not quoted again ("\"my data\"").
func TestSourceQuotedInMessages(t *testing.T) {
	t.Chdir(t.TempDir())
	mustRun(t, "sql", "-c", `CREATE TABLE "my data" AS SELECT * FROM (VALUES ('a', 1.0), ('b', 3.0), ('a', 1.5), ('b', 3.5)) v(y, x);
		CREATE TABLE "no labels" AS SELECT NULL::VARCHAR AS y, 1.0 AS x`)
	for _, c := range []struct {
		from, want string
		code       int
	}{
		{`"my data"`, `semi-supervised: source "my data" has no rows with a NULL label "y"`, exitOK},
		{`main."my data"`, `semi-supervised: source main."my data" has no rows with a NULL label "y"`, exitOK},
		{`my data`, `semi-supervised: source "my data" has no rows with a NULL label "y"`, exitOK},
		{`"no labels"`, `source "no labels" has no rows with a non-NULL label "y"`, exitError},
	} {
		_, errs, code := sqlnbRun(t, "train", "--model", "m", "--label", "y", "--from", c.from, "--semi-supervised")
		if code != c.code || !strings.Contains(errs, c.want) {
			t.Errorf("--from %s: exit %d\n%s\nwant exit %d and %q", c.from, code, errs, c.code, c.want)
		}
	}
}
