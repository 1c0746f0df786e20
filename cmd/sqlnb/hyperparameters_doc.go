package main

import (
	"fmt"
	"strings"

	"github.com/sqlnb/sqlnb/sqlnb"
	"github.com/sqlnb/sqlnb/sqlnb/nb"
)

// hyperparameterDoc writes docs/hyperparameters.md from the families' declarations (sqlnb.ParamSpecs).
func hyperparameterDoc() string {
	var b strings.Builder
	b.WriteString("# Hyperparameters\n\n")
	b.WriteString("Generated from the families' declarations (`nb.ParamSpec`) by `SQLNB_UPDATE_DOCS=1 go test ./cmd/sqlnb -run " +
		"TestHyperparameterDocs`; a test fails when this file is stale. Each is a CLI flag of `train`, `cv` and `models set`, a " +
		"named argument of `nb_train`, `nb_cv` and `nb_set`, and a key of `nb.models.params` and of model JSON. " +
		"*Fitted* parameters shaped the fit: changing one means training again (`models set` and `nb_set` refuse them); " +
		"the others are applied when a model is bound for scoring.\n\n")
	b.WriteString("| name | CLI flag | SQL type | default | kinds | fitted | what it does |\n| --- | --- | --- | --- | --- | --- | --- |\n")
	for _, s := range sqlnb.ParamSpecs() {
		kinds := "every kind"
		if s.Kinds != nil {
			names := make([]string, len(s.Kinds))
			for i, k := range s.Kinds {
				names[i] = string(k)
			}
			kinds = strings.Join(names, ", ")
			if kinds == "" {
				kinds = "(semi-supervised EM)"
			}
		}
		fitted := ""
		if s.Fitted {
			fitted = "yes"
		}
		help := s.Help
		if len(s.Values) > 0 && s.Type == nb.ParamEnum {
			help += " (values: " + strings.Join(s.Values, ", ") + ")"
		}
		fmt.Fprintf(&b, "| `%s` | `--%s` | %s | `%v` | %s | %s | %s |\n", s.Name, s.Flag(), s.Type, s.Default, kinds, fitted,
			strings.ReplaceAll(help, "|", `\|`))
	}
	return b.String()
}
