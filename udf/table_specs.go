package udf

import (
	"context"
	"fmt"
	"slices"

	"github.com/sqlnb/sqlnb/sqlnb"
	"github.com/sqlnb/sqlnb/sqlnb/nb"
)

// optionParams are the named parameters shared by nb_train and nb_set: the hyperparameters the families
// declare (nb.ParamSpec), with their types.
var optionParams = func() []param {
	var out []param
	for _, s := range sqlnb.ParamSpecs() {
		t := tVarchar
		switch s.Type {
		case nb.ParamFloat:
			t = tDouble
		case nb.ParamInt:
			t = tBigint
		case nb.ParamBool:
			t = tBoolean
		}
		out = append(out, param{s.Name, t})
	}
	return out
}()

// trainParams are nb_train's named parameters besides the hyperparameters: the columns and how they are
// read. nb_cv takes them too.
var trainParams = []param{{"features", tVarcharList}, {"exclude", tVarcharList}, {"force", tBoolean}, {"kind", tVarchar},
	{"feature_kinds", tVarchar}, {"weight", tVarchar}, {"terms", tVarchar}, {"doc", tVarchar}, {"term", tVarchar}, {"count", tVarchar},
	{"terms_feature", tVarchar}, {"ngrams", tBigint}, {"stop_words", tVarchar}, {"binarize", tDouble}, {"semi_supervised", tBoolean},
	{"by", tVarcharList}}

// cvParams are nb_cv's named parameters: nb_train's, with alpha and var_smoothing as lists of values to
// sweep, and the cross-validation's own.
func cvParams() []param {
	out := slices.Clone(trainParams)
	for _, p := range optionParams {
		if p.name != "alpha" && p.name != "var_smoothing" {
			out = append(out, p)
		}
	}
	return append(out, param{"alpha", tDoubleList}, param{"var_smoothing", tDoubleList}, param{"folds", tBigint},
		param{"stratified", tBoolean}, param{"seed", tBigint}, param{"key", tVarchar}, param{"metric", tVarchar},
		param{"auc", tBoolean}, param{"pos_label", tVarchar})
}

// tableSpecs are the table functions, in the order they are registered: those that train, those that read
// the stored models, and those that change the store.
func tableSpecs() []*tableSpec {
	return slices.Concat(trainTableSpecs(), readTableSpecs(), storeTableSpecs())
}

// trainTableSpecs are the table functions that train, add to, forget from, merge and cross-validate models.
func trainTableSpecs() []*tableSpec {
	return []*tableSpec{
		{
			name:       "nb_train",
			writes:     true,
			positional: []param{{"model", tVarchar}, {"source", tVarchar}, {"label", tVarchar}},
			named:      append(append(slices.Clone(trainParams), optionParams...), param{"append", tBoolean}),
			columns:    updateColumns,
			run:        runTrain,
		},
		{
			name:       "nb_forget",
			writes:     true,
			positional: []param{{"model", tVarchar}, {"source", tVarchar}, {"label", tVarchar}},
			named:      append(slices.Clone(trainParams), optionParams...),
			columns:    updateColumns,
			run:        runForget,
		},
		{
			name:       "nb_merge",
			writes:     true,
			positional: []param{{"into", tVarchar}, {"models", tVarcharList}},
			named:      []param{{"replace", tBoolean}, {"force", tBoolean}},
			columns: []column{{"model", tVarchar}, {"n_rows", tBigint}, {"skipped_rows", tBigint}, {"classes", tBigint},
				{"features", tBigint}, {"kinds", tVarchar}},
			run: runMerge,
		},
		{
			name:       "nb_cv",
			positional: []param{{"source", tVarchar}, {"label", tVarchar}},
			named:      cvParams(),
			columns: []column{{"alpha", tDouble}, {"var_smoothing", tDouble}, {"metric", tVarchar}, {"mean", tDouble},
				{"sd", tDouble}, {"folds", tDoubleList}, {"best", tBoolean}},
			run: runCV,
		},
	}
}

// readTableSpecs are the table functions that list, show, evaluate and explain the stored models.
func readTableSpecs() []*tableSpec {
	return []*tableSpec{
		{
			name: "nb_models",
			columns: []column{{"name", tVarchar}, {"label", tVarchar}, {"n_rows", tBigint}, {"classes", tBigint},
				{"features", tBigint}, {"kinds", tVarchar}, {"alpha", tDouble}, {"var_smoothing", tDouble},
				{"variance", tVarchar}, {"priors", tVarchar}, {"created", tTimestamp}, {"unlabelled_rows", tBigint},
				{"iterations", tBigint}, {"log_likelihood", tDouble}},
			run: runModels,
		},
		{
			name:       "nb_show",
			reads:      true,
			positional: []param{{"model", tVarchar}},
			columns: []column{{"feature", tVarchar}, {"kind", tVarchar}, {"class", tVarchar}, {"value", tVarchar},
				{"parameter", tVarchar}, {"estimate", tDouble}, {"count", tDouble}},
			run: runShow,
		},
		{
			name:       "nb_eval",
			reads:      true,
			positional: []param{{"model", tVarchar}, {"source", tVarchar}},
			named:      []param{{"label", tVarchar}, {"pos_label", tVarchar}},
			columns:    []column{{"metric", tVarchar}, {"class", tVarchar}, {"value", tDouble}},
			run:        runEval,
		},
		{
			name:       "nb_confusion",
			reads:      true,
			positional: []param{{"model", tVarchar}, {"source", tVarchar}},
			named:      []param{{"label", tVarchar}},
			columns:    []column{{"actual", tVarchar}, {"predicted", tVarchar}, {"n", tBigint}},
			run:        runConfusion,
		},
		{
			name:       "nb_informative",
			reads:      true,
			positional: []param{{"model", tVarchar}},
			named:      []param{{"top", tBigint}},
			columns:    []column{{"class", tVarchar}, {"feature", tVarchar}, {"value", tVarchar}, {"llr", tDouble}},
			run: func(ctx context.Context, reg *registry, args map[string]any) ([][]any, error) {
				s := args["version"].(*sqlnb.Scorer)
				top := int64(10)
				if v, ok := args["top"].(int64); ok {
					top = v
				}
				if top < 0 {
					return nil, fmt.Errorf("%w: top := %d: give the number of values to list per class (0 or more; default 10)", sqlnb.ErrBadOption, top)
				}
				var rows [][]any
				for _, x := range sqlnb.MostInformative(s, int(top)) {
					rows = append(rows, []any{x.Class, x.Feature, x.Value, x.LLR})
				}
				return rows, nil
			},
		},
		{
			name:       "nb_linear_weights",
			reads:      true,
			positional: []param{{"model", tVarchar}},
			columns:    []column{{"class", tVarchar}, {"feature", tVarchar}, {"value", tVarchar}, {"weight", tDouble}},
			run:        runLinear,
		},
	}
}

// storeTableSpecs are the table functions that drop, change, export and import stored models.
func storeTableSpecs() []*tableSpec {
	return []*tableSpec{
		{
			name:       "nb_drop",
			writes:     true,
			positional: []param{{"model", tVarchar}},
			columns:    []column{{"model", tVarchar}, {"dropped", tBoolean}},
			run: func(ctx context.Context, reg *registry, args map[string]any) ([][]any, error) {
				name := args["model"].(string)
				if err := sqlnb.Drop(ctx, reg.internal, name); err != nil {
					return nil, err
				}
				return [][]any{{name, true}}, nil
			},
		},
		{
			name:       "nb_set",
			writes:     true,
			positional: []param{{"model", tVarchar}},
			named:      optionParams,
			columns: []column{{"model", tVarchar}, {"alpha", tDouble}, {"var_smoothing", tDouble},
				{"variance", tVarchar}, {"priors", tVarchar}, {"warnings", tVarcharList}},
			run: runSet,
		},
		{
			name:       "nb_export",
			reads:      true,
			positional: []param{{"model", tVarchar}, {"path", tVarchar}},
			columns:    []column{{"model", tVarchar}, {"path", tVarchar}, {"bytes", tBigint}},
			run:        runExport,
		},
		{
			name:       "nb_import",
			writes:     true,
			positional: []param{{"path", tVarchar}},
			named:      []param{{"name", tVarchar}, {"replace", tBoolean}},
			columns:    []column{{"model", tVarchar}, {"classes", tBigint}, {"features", tBigint}},
			run:        runImport,
		},
	}
}
