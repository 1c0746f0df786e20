package main

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/sqlnb/sqlnb/udf"

	"github.com/sqlnb/sqlnb/sqlnb"
)

// splitWords splits a command line like a shell: spaces separate words, '...' and "..." quote.
func splitWords(s string) []string {
	var words []string
	var cur strings.Builder
	inWord := false
	var quote rune
	for _, r := range s {
		switch {
		case quote != 0 && r == quote:
			quote = 0
		case quote != 0:
			cur.WriteRune(r)
		case r == '\'' || r == '"':
			quote, inWord = r, true
		case r == ' ':
			if inWord {
				words = append(words, cur.String())
				cur.Reset()
				inWord = false
			}
		default:
			cur.WriteRune(r)
			inWord = true
		}
	}
	if inWord {
		words = append(words, cur.String())
	}
	return words
}

type example struct {
	command []string
	want    string
}

// readmeExamples returns the "$ sqlnb ..." lines of the README's console blocks with the output after each.
func readmeExamples(t *testing.T) []example {
	b, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	var out []example
	inConsole := false
	for _, line := range strings.Split(string(b), "\n") {
		switch {
		case strings.HasPrefix(line, "```console"):
			inConsole = true
		case strings.HasPrefix(line, "```"):
			inConsole = false
		case inConsole && strings.HasPrefix(line, "$ sqlnb "):
			out = append(out, example{command: splitWords(strings.TrimPrefix(line, "$ sqlnb "))})
		case inConsole && len(out) > 0:
			out[len(out)-1].want += line + "\n"
		}
	}
	return out
}

var (
	durations = regexp.MustCompile(`in [0-9.]+s\b`)
	// Long decimals are compared at 10 significant digits: DuckDB's parallel sums may add in another
	// order from run to run and change the last digits.
	longNumbers = regexp.MustCompile(`-?[0-9]+\.[0-9]{8,}(e[-+]?[0-9]+)?`)
)

func normalize(s string) string {
	s = durations.ReplaceAllString(s, "in Ns")
	return longNumbers.ReplaceAllStringFunc(s, func(x string) string {
		f, err := strconv.ParseFloat(x, 64)
		if err != nil {
			return x
		}
		return strconv.FormatFloat(f, 'g', 10, 64)
	})
}

// TestREADME runs every console example of the README, in order, in a fresh directory that sees the
// bundled testdata, and compares what it prints (stderr and stdout together, as a terminal shows them).
func TestREADME(t *testing.T) {
	examples := readmeExamples(t)
	if len(examples) < 5 {
		t.Fatalf("found %d README examples", len(examples))
	}
	testdata, err := filepath.Abs("../../testdata")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	if err := os.Symlink(testdata, filepath.Join(dir, "testdata")); err != nil {
		t.Fatal(err)
	}
	t.Chdir(dir)
	for _, ex := range examples {
		var out bytes.Buffer
		var stdin io.Reader = strings.NewReader("")
		if n := len(ex.command); n >= 2 && ex.command[n-2] == "<" {
			f, err := os.Open(ex.command[n-1])
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			stdin, ex.command = f, ex.command[:n-2]
		}
		code := run(ex.command, stdin, &out, &out)
		if code != 0 {
			t.Errorf("sqlnb %s: exit %d\n%s", strings.Join(ex.command, " "), code, out.String())
			continue
		}
		if got, want := normalize(out.String()), normalize(ex.want); got != want {
			t.Errorf("sqlnb %s\n--- got\n%s--- want (README)\n%s", strings.Join(ex.command, " "), got, want)
		}
	}
}

// TestExitCodes: 0 success, 1 failure, 2 usage; the error is printed once.
func TestExitCodes(t *testing.T) {
	t.Chdir(t.TempDir())
	for _, c := range []struct {
		args []string
		code int
		msg  string
	}{
		{[]string{"train", "--model", "m"}, exitUsage, `required flag(s) "from", "label" not set`},
		{[]string{"train", "--model", "m", "--label", "y", "--from", "t", "--kind", "gamma"}, exitUsage, `kind "gamma"`},
		{[]string{"train", "--model", "m", "--label", "y", "--from", "nosuch"}, exitError, `source "nosuch": no such table`},
		{[]string{"predict", "--model", "nope", "--from", "x.csv"}, exitError, `unknown model "nope"`},
		{[]string{"predict", "--model", "m", "--from", "x", "--output", "x.xlsx"}, exitUsage, `use a .parquet, .csv, .tsv or .json file`},
		{[]string{"sql", "-c", "SELECT 1", "--format", "xml"}, exitUsage, `--format "xml"`},
		{[]string{"sql", "-c", "SELEC 1"}, exitError, `syntax error`},
		{[]string{"bogus"}, exitUsage, `unknown command`},
		{[]string{"models", "show", "nope"}, exitError, `there are no models yet`},
		{[]string{"sql", "--db", ":memory:", "-c", "SELECT 42 AS answer", "--format", "json"}, exitOK, `"answer": 42`},
		{[]string{"sql", "--db", ":memory:", "SELECT 42"}, exitUsage, `to run SQL given on the command line, use -c`},
		{[]string{"--max-rows", "-1", "sql", "--db", ":memory:", "-c", "SELECT 1"}, exitUsage, `--max-rows -1`},
		{[]string{"models", "dorp", "m"}, exitUsage, `did you mean drop`},
		{[]string{"--version"}, exitOK, `, model store format 5, DuckDB ` + udf.DuckDBLine().String()},
		{[]string{"shell", "SELECT 1"}, exitUsage, `the argument is the database to open`},
		{[]string{"sql", "my file.sql"}, exitError, `open my file.sql: no such file`}, // a name with a blank is a file name
	} {
		var stdout, stderr bytes.Buffer
		code := run(c.args, strings.NewReader(""), &stdout, &stderr)
		all := stdout.String() + stderr.String()
		if code != c.code || !strings.Contains(all, c.msg) {
			t.Errorf("sqlnb %v: exit %d, output %q; want exit %d and %q", c.args, code, all, c.code, c.msg)
		}
		if n := strings.Count(stderr.String(), "sqlnb:"); code != 0 && n != 1 {
			t.Errorf("sqlnb %v: error printed %d times", c.args, n)
		}
	}
}

// TestREADMEListsEveryKind: the README's kind table and `train --help` name every kind of the registry.
func TestREADMEListsEveryKind(t *testing.T) {
	b, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	listed := map[string]bool{}
	for _, line := range strings.Split(string(b), "\n") {
		if strings.HasPrefix(line, "| `") {
			name := strings.TrimPrefix(line, "| `")
			name = name[:strings.IndexByte(name, '`')]
			listed[name] = true
		}
	}
	for _, k := range sqlnb.KindNames() {
		if !listed[k] {
			t.Errorf("README's kind table lacks %q", k)
		}
	}
	var help bytes.Buffer
	root := newRoot(&env{stdout: &help, stderr: &help})
	root.SetArgs([]string{"train", "--help"})
	root.SetOut(&help)
	if err := root.Execute(); err != nil {
		t.Fatal(err)
	}
	for _, k := range sqlnb.KindNames() {
		if !strings.Contains(help.String(), k) {
			t.Errorf("train --help lacks kind %q", k)
		}
	}
}
