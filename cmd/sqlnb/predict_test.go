package main

import (
	"strings"
	"testing"
)

// TestPredictOutputType: predict --output writes the prediction in the label column's type (an INTEGER
// label gives an INTEGER column in parquet, csv reads back as numbers), and a VARCHAR label stays VARCHAR.
func TestPredictOutputType(t *testing.T) {
	t.Chdir(t.TempDir())
	mustRun(t, "sql", "-c", `COPY (SELECT (i % 3)::INTEGER AS grade, i % 2 = 0 AS passed, (i % 3) * 10 + sin(i) AS score
		FROM range(200) r(i)) TO 'data.parquet'`)
	mustRun(t, "train", "--model", "grade", "--label", "grade", "--from", "SELECT grade, score FROM 'data.parquet'")
	mustRun(t, "train", "--model", "passed", "--label", "passed", "--from", "SELECT passed, score FROM 'data.parquet'")
	for _, c := range []struct{ model, file, want string }{
		{"grade", "g.parquet", "INTEGER"}, {"passed", "p.parquet", "BOOLEAN"}, {"grade", "g.csv", "BIGINT"},
	} {
		mustRun(t, "predict", "--model", c.model, "--from", "data.parquet", "--output", c.file)
		got := mustRun(t, "sql", "--format", "csv", "-c", "SELECT column_type FROM (DESCRIBE FROM '"+c.file+"') WHERE column_name = 'prediction'")
		if strings.TrimSpace(got) != "column_type\n"+c.want {
			t.Errorf("%s: prediction column %q, want %s", c.file, got, c.want)
		}
	}
	if got := mustRun(t, "sql", "--format", "csv", "-c", "SELECT count(*) FILTER (WHERE prediction = grade) AS right FROM 'g.parquet'"); got != "right\n200\n" {
		t.Errorf("predictions equal to the INTEGER label: %q", got)
	}
}
