package main

import (
	"strings"
	"testing"
)

// TestPredictColumnNames: classes whose proba_ columns differ only in case, and sqlnb columns the source
// already has, are errors saying what to do — never silently renamed columns; --prefix and --proba-map
// resolve them.
func TestPredictColumnNames(t *testing.T) {
	t.Chdir(t.TempDir())
	mustRun(t, "sql", "-c", `CREATE TABLE d AS SELECT ['A', 'a', 'b'][1 + i % 3] AS y, i * 1.0 AS x, i % 2 AS prediction FROM range(30) r(i)`)
	mustRun(t, "train", "--model", "m", "--label", "y", "--from", "SELECT y, x FROM d")
	for _, c := range []struct {
		args    []string
		mention string
	}{
		{[]string{"--from", "d"}, `"prediction"`},
		{[]string{"--from", "SELECT x FROM d", "--proba"}, `"proba_a"`},
		{[]string{"--from", "d", "--columns", "x,nope"}, `"nope"`},
	} {
		_, errs, code := sqlnbRun(t, append([]string{"predict", "--model", "m"}, c.args...)...)
		if code != exitUsage || !strings.Contains(errs, c.mention) {
			t.Errorf("predict %v: exit %d, %s", c.args, code, errs)
		}
	}
	out := mustRun(t, "predict", "--model", "m", "--from", "d", "--prefix", "nb_", "--proba-map", "--format", "csv")
	if head := strings.SplitN(out, "\n", 2)[0]; head != "y,x,prediction,nb_prediction,nb_proba" {
		t.Errorf("columns %q", head)
	}
}
