//go:build integration

package itest

import (
	"path/filepath"
	"strings"
	"testing"
)

// literal quotes s as a SQL string.
func literal(s string) string { return "'" + strings.ReplaceAll(s, "'", "''") + "'" }

// modelState is one query giving everything a client sees of model name: its nb.models row (with its
// generation, which every store of it changes) and nb_show's parameters.
func modelState(name string) string {
	return "SELECT coalesce((SELECT string_agg(r::VARCHAR, ' | ' ORDER BY r::VARCHAR) FROM nb.models r WHERE name = " + literal(name) +
		"), 'absent') || ' / ' || coalesce((SELECT string_agg(s::VARCHAR, ' | ' ORDER BY s::VARCHAR) FROM nb_show(" + literal(name) + ") s), '')"
}

// TestNodeAdversarial: some of udf's TestAdversarial cases (issue 30) through the loadable extension in
// node-api 1.5.6 — a named argument given as NULL, an empty list, a NULL in a list, models that differ, an
// option out of range, rows the model never counted, NULL as the model name and as the class — fail with the
// binary's message, which names what is wrong and says what to do, and a failing write leaves the stored
// model as it was: its nb.models row and nb_show, read in the same node process before and after.
func TestNodeAdversarial(t *testing.T) {
	root := repo(t)
	db := trainWithCLI(t)
	train := filepath.Join(root, votesTrain)
	test := literal(filepath.Join(root, votesTest))
	cases := []struct {
		stmt      string
		want      []string
		unchanged string
	}{
		{"CALL nb_train('votes', " + literal(train) + ", 'party', append := NULL)",
			[]string{"nb_train: append := NULL: give true or false", "leave the argument out"}, "votes"},
		{"CALL nb_train('votes', " + literal(train) + ", 'party', features := [])",
			[]string{"nb_train: features := []: give a list of names", "leave the argument out"}, "votes"},
		{"CALL nb_merge('both', ['votes', NULL, 'iris'])", []string{"nb_merge: models holds NULL (element 2): remove it"}, "both"},
		{"CALL nb_merge('both', ['votes', 'iris'])",
			[]string{`model "votes" and model "iris" differ: label column "party", not "label"`, "train them alike"}, "both"},
		{"CALL nb_set('iris', alpha := -1)", []string{`nb_set: model "iris": bad option: alpha -1: must be a finite number ≥ 0`}, "iris"},
		{"CALL nb_set('iris', priors := '')", []string{"nb_set: priors := '': give a string", "leave the argument out"}, "iris"},
		{"CALL nb_forget('votes', " + literal("SELECT 'green' AS party, * EXCLUDE (party) FROM read_csv("+literal(train)+") LIMIT 1") + ", 'party')",
			[]string{`forget from "votes": cannot forget: model "votes" has no class "green"`, "not trained into it"}, "votes"},
		{"CALL nb_forget('votes', " + literal(train) + ", 'party')",
			[]string{`model "votes" would keep 0 class(es)`, "drop the model (sqlnb models drop, nb_drop)"}, "votes"},
		{"SELECT nb_predict(NULL::VARCHAR, t) FROM " + test + " t", []string{"nb_predict: the model name is NULL", "name a stored model"}, ""},
		{"SELECT nb_proba('votes', t, NULL::VARCHAR) FROM " + test + " t",
			[]string{`nb_proba: model "votes": argument 3, the class, is NULL: name a class (classes: democrat, republican)`}, ""},
	}
	steps := []step{open(copyFile(t, db)), load(mustEnv(t, "SQLNB_EXT"))}
	for _, c := range cases {
		steps = append(steps, sql(modelState(c.unchanged)), sql(c.stmt), sql(modelState(c.unchanged)))
	}
	res := runNode(t, mustEnv(t, "SQLNB_NODE_DIR"), nil, steps...)
	if res[1].Error != "" {
		t.Fatalf("LOAD: %s", res[1].Error)
	}
	res = res[2:]
	for i, c := range cases {
		before, got, after := res[3*i], res[3*i+1], res[3*i+2]
		if got.Error == "" {
			t.Errorf("%s: %q, want an error", c.stmt, got.text())
			continue
		}
		for _, w := range c.want {
			if !strings.Contains(got.Error, w) {
				t.Errorf("%s\nerror %q\nlacks %q", c.stmt, got.Error, w)
			}
		}
		// The binary, on its own copy of the database, says the same.
		if _, msg := cli(t, "sql", "--db", copyFile(t, db), "-c", c.stmt); oneLine(msg) != oneLine(got.Error) {
			t.Errorf("%s\nextension: %q\nbinary:    %q", c.stmt, got.Error, msg)
		}
		if c.unchanged != "" && (before.text() != after.text() || before.Error != after.Error) { // absent stays absent
			t.Errorf("%s changed model %q:\nbefore %.2000q %s\nafter  %.2000q %s", c.stmt, c.unchanged, before.text(), before.Error, after.text(), after.Error)
		}
	}
}
