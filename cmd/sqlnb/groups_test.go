package main

import (
	"strings"
	"testing"
)

// TestTrainBy: train --by trains one model per group and says so; predict scores each row with its group's
// model (the SQL form agrees), unseen groups with the pooled model; a --by column that is the label or a
// feature, or not in the source, is an error (exit 1) naming it.
func TestTrainBy(t *testing.T) {
	t.Chdir(t.TempDir())
	mustRun(t, "sql", "-c", `COPY (SELECT ['north', 'south', 'east'][1 + i % 3] AS region, ['up', 'down'][1 + (i // 3) % 2] AS y,
		CASE WHEN i % 3 = 0 THEN (i // 3) % 2 * 4.0 ELSE -((i // 3) % 2) * 4.0 END + sin(i) AS x FROM range(600) r(i)) TO 'r.csv'`)
	_, errs, code := sqlnbRun(t, "train", "--model", "m", "--label", "y", "--from", "r.csv", "--by", "region")
	if code != exitOK || !strings.Contains(errs, "1 features") || !strings.Contains(errs, "3 group models by region") {
		t.Fatalf("train --by: exit %d\n%s", code, errs)
	}
	// In the north, large x means down; elsewhere up: the pooled model cannot tell, the group models can.
	out := mustRun(t, "sql", "--format", "csv", "-c", `SELECT region, nb_predict('m', {'region': region, 'x': 4.0}) AS p
		FROM (VALUES ('north'), ('south'), ('west')) v(region) ORDER BY region`)
	if !strings.Contains(out, "north,down") || !strings.Contains(out, "south,up") {
		t.Errorf("nb_predict by group: %s", out)
	}
	mustRun(t, "sql", "-c", `CALL nb_train('sqlform', 'r.csv', 'y', by := ['region'])`)
	same := mustRun(t, "sql", "--format", "csv", "-c", `SELECT count(*) FILTER (WHERE nb_predict_proba('m', t) <> nb_predict_proba('sqlform', t)) FROM 'r.csv' t`)
	if !strings.HasSuffix(same, "\n0\n") {
		t.Errorf("CLI and SQL forms differ: %s", same)
	}
	for _, c := range []struct{ args, want string }{
		{"--by y", `group column "y" (--by) is the label`},
		{"--features x,region --by region", `column "region" is both a feature and a group column`},
		{"--by nope", `group column "nope" (--by) is not in the source`},
	} {
		args := append([]string{"train", "--model", "bad", "--label", "y", "--from", "r.csv"}, strings.Fields(c.args)...)
		_, errs, code := sqlnbRun(t, args...)
		if code != exitError || !strings.Contains(errs, c.want) {
			t.Errorf("%s: exit %d, %s", c.args, code, errs)
		}
	}
}
