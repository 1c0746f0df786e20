package sqlnb

import (
	"fmt"
	"slices"
	"strings"

	"github.com/sqlnb/sqlnb/sqlnb/nb"
)

// diffParams returns the name (as stored) of the first hyperparameter that differs between a and b, or "".
// Only those that model m's features use count (ParamUsed): a logistic regression's C stored on a naive
// Bayes model does not keep it from merging.
func diffParams(a, b nb.Params, m *nb.Model) string {
	for _, c := range changedParams(a, b) {
		if paramUsed(m, c.name) {
			return c.name
		}
	}
	return ""
}

// paramChange is a hyperparameter (by its stored name) whose value differs between two Params, and its value
// in the first.
type paramChange struct {
	name  string
	value any
}

// changedParams lists the hyperparameters whose values differ between a and b, in declaration order.
func changedParams(a, b nb.Params) []paramChange {
	var out []paramChange
	for _, spec := range families.ParamSet().Specs() {
		if !a.Same(b, spec.Name) {
			va, _ := a.Value(spec.Name)
			out = append(out, paramChange{spec.Name, va})
		}
	}
	return out
}

func kindNames(kinds []nb.Kind) []string {
	out := make([]string, len(kinds))
	for i, k := range kinds {
		out[i] = string(k)
	}
	return out
}

// UnusedChanges warns of the hyperparameters that p sets away from model m's and that have no effect on m
// (sqlnb models set, nb_set: --C on a naive Bayes model).
func UnusedChanges(m *nb.Model, p nb.Params) []string {
	changed := *m
	changed.Params = p
	return unusedParams(&changed, m.Params)
}

// unusedParams warns of the hyperparameters set away from their defaults (base) that have no effect on model m.
func unusedParams(m *nb.Model, base nb.Params) []string {
	var out []string
	for _, c := range changedParams(m.Params, base) {
		if c.name == "priors" && !paramUsed(m, c.name) {
			var has []nb.Kind // the model's own kinds that leave the priors out (not every such kind)
			for _, f := range m.Features {
				if slices.Contains(priorIgnorers, f.Kind) && !slices.Contains(has, f.Kind) {
					has = append(has, f.Kind)
				}
			}
			out = append(out, fmt.Sprintf("priors %v have no effect: the model has %s features, which leave the class priors out "+
				"(as scikit-learn's ComplementNB and LogisticRegression)", c.value, strings.Join(kindNames(has), ", ")))
			continue
		}
		if !paramUsed(m, c.name) {
			spec, _ := families.ParamSet().Spec(c.name)
			kinds := kindNames(spec.Kinds)
			out = append(out, fmt.Sprintf("%s %v has no effect: it applies to %s features, and the model has none", c.name, c.value, strings.Join(kinds, ", ")))
		}
	}
	return out
}
