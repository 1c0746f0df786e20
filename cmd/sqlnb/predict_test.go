package main

import (
	"encoding/json"
	"os"
	"strings"
	"testing"

	"golang.org/x/sys/unix"
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

// TestOutputKeepsWhatIsThere: an output path that is a symbolic link writes the file it points to (the link
// stays; a dangling link's target is created), a file that is there keeps its permissions, a FIFO or a
// directory (or a device: not tried here, where it would be /dev/null) is refused (a rename would replace it) and left as it was, and predict refuses an --output
// that --from reads (directly or by a glob), leaving the input whole.
func TestOutputKeepsWhatIsThere(t *testing.T) {
	t.Chdir(t.TempDir())
	mustRun(t, "train", "--model", "m", "--label", "y", "--from", "SELECT i % 2 AS y, i + sin(i) AS x FROM range(50) r(i)")
	mustRun(t, "sql", "-c", "COPY (SELECT i % 2 AS y, i + sin(i) AS x FROM range(50) r(i)) TO 'in.csv'")
	input, _ := os.ReadFile("in.csv")
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	must(os.WriteFile("real.csv", []byte("old\n"), 0o644))
	must(os.Symlink("real.csv", "link.csv"))
	must(os.Symlink("new.csv", "dangling.csv"))
	must(os.WriteFile("private.csv", []byte("secret\n"), 0o600))
	must(unix.Mkfifo("fifo.sql", 0o644))
	for _, out := range []string{"link.csv", "dangling.csv", "private.csv"} {
		mustRun(t, "predict", "--model", "m", "--from", "in.csv", "--output", out, "--quiet")
	}
	for file, want := range map[string]os.FileMode{"real.csv": 0o644, "new.csv": 0o644, "private.csv": 0o600} {
		fi, err := os.Stat(file)
		must(err)
		if data, _ := os.ReadFile(file); !strings.HasPrefix(string(data), "y,x,prediction") || fi.Mode().Perm() != want {
			t.Errorf("%s: mode %v, content %.30q; want %v and the predictions", file, fi.Mode().Perm(), data, want)
		}
	}
	for _, link := range []string{"link.csv", "dangling.csv"} {
		if fi, err := os.Lstat(link); err != nil || fi.Mode()&os.ModeSymlink == 0 {
			t.Errorf("%s is no longer a symbolic link", link)
		}
	}
	for _, args := range [][]string{
		{"export", "--model", "m", "--sql", "fifo.sql"},
		{"export", "--model", "m", "--sql", "."},
		{"predict", "--model", "m", "--from", "in.csv", "--output", "in.csv"},
		{"predict", "--model", "m", "--from", "i*.csv", "--output", "./in.csv"},
	} {
		_, errs, code := sqlnbRun(t, args...)
		if code == exitOK || !strings.Contains(errs, "regular file") && !strings.Contains(errs, "a file --from reads") {
			t.Errorf("sqlnb %s: exit %d, %q; want an error", strings.Join(args, " "), code, errs)
		}
	}
	if fi, err := os.Lstat("fifo.sql"); err != nil || fi.Mode()&os.ModeNamedPipe == 0 {
		t.Errorf("fifo.sql is no longer a FIFO")
	}
	if data, _ := os.ReadFile("in.csv"); string(data) != string(input) {
		t.Errorf("the input file changed")
	}
	// eval's plots go the same way: a link in the plot directory keeps pointing at its file.
	must(os.Mkdir("plots", 0o755))
	must(os.WriteFile("my-confusion.svg", []byte("old"), 0o600))
	must(os.Symlink("../my-confusion.svg", "plots/confusion.svg"))
	mustRun(t, "eval", "--model", "m", "--from", "in.csv", "--plot", "plots", "--quiet")
	if fi, err := os.Lstat("plots/confusion.svg"); err != nil || fi.Mode()&os.ModeSymlink == 0 {
		t.Errorf("plots/confusion.svg is no longer a symbolic link")
	}
	if fi, err := os.Stat("my-confusion.svg"); err != nil || fi.Mode().Perm() != 0o600 || fi.Size() < 100 {
		t.Errorf("the plot's linked file: %v, %v", fi, err)
	}
}

// TestPredictJSONFiles: --output x.json is one JSON array, as a JSON parser reads a .json file (it was one
// object a line, which json.load refuses: "Extra data"); .jsonl and .ndjson stay one object a line.
func TestPredictJSONFiles(t *testing.T) {
	t.Chdir(t.TempDir())
	mustRun(t, "train", "--model", "m", "--label", "y", "--from", "SELECT ['a', 'b'][i % 2 + 1] AS y, i % 2 + sin(i) AS x FROM range(50) r(i)")
	mustRun(t, "predict", "--model", "m", "--from", "SELECT i % 2 + sin(i) AS x FROM range(3) r(i)", "--proba", "--output", "p.json", "--quiet")
	data, err := os.ReadFile("p.json")
	if err != nil {
		t.Fatal(err)
	}
	var rows []map[string]any
	if err := json.Unmarshal(data, &rows); err != nil || len(rows) != 3 || rows[0]["prediction"] != "a" {
		t.Errorf("p.json: %v, %q", err, data)
	}
	for _, name := range []string{"p.jsonl", "p.ndjson"} {
		mustRun(t, "predict", "--model", "m", "--from", "SELECT i % 2 + sin(i) AS x FROM range(3) r(i)", "--output", name, "--quiet")
		data, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		lines := strings.Split(strings.TrimSpace(string(data)), "\n")
		for _, l := range lines {
			var row map[string]any
			if err := json.Unmarshal([]byte(l), &row); err != nil {
				t.Errorf("%s line %q: %v", name, l, err)
			}
		}
		if len(lines) != 3 {
			t.Errorf("%s: %d lines", name, len(lines))
		}
	}
}
