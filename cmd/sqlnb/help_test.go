package main

import (
	"bytes"
	"strings"
	"testing"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/sqlnb/sqlnb/sqlnb"
)

// help returns the --help text of the command line args.
func help(t *testing.T, args ...string) string {
	t.Helper()
	var out bytes.Buffer
	root := newRoot(&env{stdout: &out, stderr: &out})
	root.SetArgs(append(args, "--help"))
	root.SetOut(&out)
	if err := root.Execute(); err != nil {
		t.Fatal(err)
	}
	return out.String()
}

// TestHelpNamesWhatTheCodeDefines: the help texts come from the lists the code acts on: every kind of the
// registry in the root help and in train's and cv's --kind, every output format in every --format flag,
// every metric CrossValidate accepts in cv --metric, every part in eval --what; defaults show once.
func TestHelpNamesWhatTheCodeDefines(t *testing.T) {
	root := help(t)
	for _, k := range sqlnb.KindNames() {
		if !strings.Contains(root, "  "+k+" ") {
			t.Errorf("root help lacks kind %q", k)
		}
	}
	var walk func(c *cobra.Command)
	formatFlags := 0
	walk = func(c *cobra.Command) {
		for _, name := range []string{"format", "kind"} {
			f := c.Flags().Lookup(name)
			if f == nil {
				f = c.PersistentFlags().Lookup(name)
			}
			if f == nil {
				continue
			}
			want := formats
			if name == "kind" {
				want = sqlnb.KindNames()
			} else {
				formatFlags++
			}
			for _, w := range want {
				if !strings.Contains(f.Usage, w) {
					t.Errorf("%s --%s: %q lacks %q", c.CommandPath(), name, f.Usage, w)
				}
			}
		}
		for _, sub := range c.Commands() {
			walk(sub)
		}
	}
	walk(newRoot(&env{}))
	if formatFlags < 5 { // sql, predict, eval, cv, models
		t.Errorf("found %d --format flags", formatFlags)
	}
	cv := help(t, "cv")
	for _, m := range sqlnb.CVMetrics() {
		if !strings.Contains(cv, m) {
			t.Errorf("cv --help lacks metric %q", m)
		}
	}
	for _, want := range []string{"--alpha float64Slice           α values to sweep, comma-separated (default [1])",
		"--ngrams", "--stop-words", "--binarize", "--terms", "--threshold", "--eps", "--exclude", "--force", "--pos-label"} {
		if !strings.Contains(cv, want) {
			t.Errorf("cv --help lacks %q:\n%s", want, cv)
		}
	}
	if strings.Contains(cv, "(default [])") || strings.Contains(cv, "(default 1) (default") || !strings.Contains(cv, "sweep, comma-separated (default [1e-09])") {
		t.Errorf("cv --help shows an empty or doubled default:\n%s", cv)
	}
	eval := help(t, "eval")
	for _, p := range evalParts {
		if !strings.Contains(eval, p) {
			t.Errorf("eval --help lacks part %q", p)
		}
	}
	// train and cv share the training flags: every flag of train but the model's own is a flag of cv (--by,
	// per-group models, is train's own: cv does not cross-validate per-group models).
	train := newRoot(&env{})
	tc, _, _ := train.Find([]string{"train"})
	cc, _, _ := train.Find([]string{"cv"})
	tc.Flags().VisitAll(func(f *pflag.Flag) {
		if f.Name == "append" || f.Name == "forget" || f.Name == "by" {
			return // they change a stored model or make per-group models: train's own
		}
		if cc.Flags().Lookup(f.Name) == nil {
			t.Errorf("train --%s is not a flag of cv", f.Name)
		}
	})
}
