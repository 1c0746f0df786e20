package udf

import (
	"bytes"
	"context"
	"fmt"
	"math"
	"os"
	"strings"

	"github.com/duckdb/duckdb-go/v2/mapping"

	"github.com/sqlnb/sqlnb/internal/outfile"
	"github.com/sqlnb/sqlnb/sqlnb"
	"github.com/sqlnb/sqlnb/sqlnb/nb"
	"github.com/sqlnb/sqlnb/sqlnb/store"
)

func registerTables(conn mapping.Connection, reg *registry) error {
	for _, s := range tableSpecs() {
		s.reg = reg
		if err := registerTable(conn, s); err != nil {
			return err
		}
	}
	return nil
}

func str(args map[string]any, k string) string {
	s, _ := args[k].(string)
	return s
}

func optFloat(args map[string]any, k string) *float64 {
	if v, ok := args[k].(float64); ok {
		return &v
	}
	return nil
}

// options reads the options of nb_train, nb_forget, nb_set and nb_cv from their named arguments. A value that
// sqlnb.Options cannot tell from "not given" is an error here: ngrams := 0 (0 is its "not given"; the words
// of a text are ngrams 1).
func options(args map[string]any) (sqlnb.Options, error) {
	o := sqlnb.Options{Kind: str(args, "kind"), Weight: str(args, "weight"), Hyperparams: map[string]any{}}
	for _, p := range optionParams {
		v, ok := args[p.name]
		if _, sweep := v.([]float64); !ok || v == nil || sweep { // nb_cv's alpha and var_smoothing lists: its sweeps
			continue
		}
		o.Hyperparams[p.name] = v
	}
	o.Terms, o.Doc, o.Term, o.Count, o.TermsFeature = str(args, "terms"), str(args, "doc"), str(args, "term"), str(args, "count"), str(args, "terms_feature")
	if v, ok := args["ngrams"].(int64); ok {
		n := int(v)
		o.Ngrams = &n
	}
	o.StopWords = str(args, "stop_words")
	if v, ok := args["binarize"].(float64); ok {
		o.Binarize = v
	}
	if f, ok := args["features"].([]string); ok {
		o.Features = f
	}
	o.Exclude, _ = args["exclude"].([]string)
	o.By, _ = args["by"].([]string)
	o.Force, _ = args["force"].(bool)
	o.SemiSupervised, _ = args["semi_supervised"].(bool)
	if fk := str(args, "feature_kinds"); fk != "" {
		o.FeatureKinds = []string{fk} // "col=kind,col=kind": sqlnb.ParseFeatureKinds splits it
	}
	return o, nil
}

func runTrain(ctx context.Context, reg *registry, args map[string]any) ([][]any, error) {
	if add, _ := args["append"].(bool); add {
		return runUpdate(ctx, reg, args, sqlnb.Append)
	}
	name := str(args, "model")
	var spec sqlnb.TrainSpec
	o, err := options(args)
	if err == nil {
		spec, err = o.Spec(name, str(args, "source"), str(args, "label"))
	}
	if err != nil {
		return nil, fmt.Errorf("train %q: %w", name, err) // as sqlnb.Train's errors name it
	}
	spec.Registrar = reg
	res, err := sqlnb.Train(ctx, reg.internal, spec)
	if err != nil {
		return nil, err
	}
	m := res.Model
	return [][]any{{m.Name, m.Rows, m.SkippedRows, int64(len(m.Classes)), int64(len(m.Features)),
		strings.Join(m.Kinds(), ","), res.Duration.Seconds(), m.IncompleteRows, m.Iterations, append([]string{}, res.Warnings...),
		m.UnlabelledRows, logLikelihood(m)}}, nil
}

// logLikelihood is a semi-supervised model's final log-likelihood, NULL for other models.
func logLikelihood(m *sqlnb.Model) any {
	if m.UnlabelledRows == 0 {
		return nil
	}
	return m.LogLikelihood
}

func runModels(ctx context.Context, reg *registry, _ map[string]any) ([][]any, error) {
	names, err := store.ModelNames(ctx, reg.internal)
	if err != nil {
		return nil, err
	}
	var rows [][]any
	for _, n := range names {
		m, err := sqlnb.Load(ctx, reg.internal, n)
		if err != nil {
			return nil, err
		}
		rows = append(rows, []any{m.Name, m.Label, m.Rows, int64(len(m.Classes)), int64(len(m.Features)),
			strings.Join(m.Kinds(), ","), m.Params.Float("alpha"), m.Params.Float("var_smoothing"), m.Params.Text("variance"), m.Params.Text("priors"), m.Created,
			m.UnlabelledRows, m.Iterations, logLikelihood(m)})
	}
	return rows, nil
}

func runShow(ctx context.Context, reg *registry, args map[string]any) ([][]any, error) {
	s := args["version"].(*sqlnb.Scorer)
	var rows [][]any
	for _, p := range sqlnb.Parameters(s) {
		var value any
		if p.HasValue {
			value = p.Value
		}
		var feature, kind any
		if p.Feature != "" {
			feature, kind = p.Feature, string(p.Kind)
		}
		var class any
		if !p.NoClass {
			class = p.Class // a class may be named ""; lda's shared covariance belongs to none
		}
		rows = append(rows, []any{feature, kind, class, value, p.Parameter, nanIfMissing(p.Estimate), nanIfMissing(p.Count)})
	}
	return rows, nil
}

// runLinear lists the linear form of a two-class model (sqlnb.LinearForm): the intercept (feature NULL),
// then one weight per number feature (value NULL), Bernoulli presence (value 'true') or category level.
// class is the class whose log-odds against the other the weights give.
func runLinear(ctx context.Context, reg *registry, args map[string]any) ([][]any, error) {
	s := args["version"].(*sqlnb.Scorer)
	lin, err := sqlnb.LinearForm(s)
	if err != nil {
		return nil, err
	}
	rows := [][]any{{lin.Positive, nil, nil, lin.Intercept}}
	for _, t := range lin.Terms {
		var value any
		if t.HasValue {
			value = t.Value
		}
		rows = append(rows, []any{lin.Positive, t.Feature, value, t.Weight})
	}
	return rows, nil
}

func nanIfMissing(x float64) any {
	if math.IsNaN(x) {
		return nil
	}
	return x
}

func runSet(ctx context.Context, reg *registry, args map[string]any) ([][]any, error) {
	name := str(args, "model")
	m, err := sqlnb.Load(ctx, reg.internal, name)
	if err != nil {
		return nil, err
	}
	o, err := options(args)
	if err != nil {
		return nil, fmt.Errorf("model %q: %w", name, err)
	}
	p, given, err := o.Params(m.Params)
	if err != nil {
		return nil, fmt.Errorf("model %q: %w", name, err)
	}
	unused := sqlnb.UnusedChanges(m, p)
	if m, err = sqlnb.SetParams(ctx, reg.internal, name, p, given); err != nil {
		return nil, err
	}
	// The warnings sqlnb models set prints (they were lost in SQL: alpha := 0, a parameter of another family).
	warnings := append(append([]string{}, nb.ParamWarnings(m.Params)...), unused...)
	return [][]any{{m.Name, m.Params.Float("alpha"), m.Params.Float("var_smoothing"), m.Params.Text("variance"), m.Params.Text("priors"), warnings}}, nil
}

func runExport(ctx context.Context, reg *registry, args map[string]any) ([][]any, error) {
	m := args["version"].(*sqlnb.Scorer).Model
	var buf bytes.Buffer
	if err := store.Export(&buf, m); err != nil {
		return nil, err
	}
	path := str(args, "path")
	if err := outfile.WriteFile(path, buf.Bytes()); err != nil {
		return nil, fmt.Errorf("export model %q: %w", m.Name, err)
	}
	return [][]any{{m.Name, path, int64(buf.Len())}}, nil
}

func runImport(ctx context.Context, reg *registry, args map[string]any) ([][]any, error) {
	f, err := os.Open(str(args, "path"))
	if err != nil {
		return nil, err
	}
	defer f.Close()
	m, err := sqlnb.Import(f, str(args, "name"))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", str(args, "path"), err) // which file is not a model
	}
	replace, _ := args["replace"].(bool)
	if err := sqlnb.SaveImported(ctx, reg.internal, m, replace); err != nil {
		return nil, err
	}
	return [][]any{{m.Name, int64(len(m.Classes)), int64(len(m.Features))}}, nil
}

func evaluate(ctx context.Context, reg *registry, args map[string]any) (*sqlnb.Evaluation, error) {
	conn, err := reg.internal.Conn(ctx)
	if err != nil {
		return nil, err
	}
	defer conn.Close()
	// The version the caller's snapshot sees, scored on sqlnb's own connection under a name of its own.
	v := args["version"].(*sqlnb.Scorer)
	as, unpin := reg.pin(v)
	defer unpin()
	return sqlnb.Evaluate(ctx, conn, sqlnb.EvalSpec{Version: v.Model, ScoreAs: as, Source: str(args, "source"), Label: str(args, "label"),
		PosLabel: str(args, "pos_label"), PosLabelGiven: args["pos_label"] != nil})
}

func runEval(ctx context.Context, reg *registry, args map[string]any) ([][]any, error) {
	e, err := evaluate(ctx, reg, args)
	if err != nil {
		return nil, err
	}
	rows := make([][]any, len(e.Metrics))
	for i, m := range e.Metrics {
		var class any
		if m.PerClass {
			class = m.Class
		}
		rows[i] = []any{m.Metric, class, m.Value}
	}
	return rows, nil
}

func runConfusion(ctx context.Context, reg *registry, args map[string]any) ([][]any, error) {
	e, err := evaluate(ctx, reg, args)
	if err != nil {
		return nil, err
	}
	rows := make([][]any, len(e.Confusion))
	for i, c := range e.Confusion {
		rows[i] = []any{c.Actual, c.Predicted, c.N}
	}
	return rows, nil
}

// runCV cross-validates as `sqlnb cv` does (sqlnb.CrossValidate) on a connection of the internal pool: one
// row per setting and metric, with the per-fold values as a list and the best setting by metric marked.
func runCV(ctx context.Context, reg *registry, args map[string]any) ([][]any, error) {
	o, err := options(args)
	if err != nil {
		return nil, err
	}
	spec, err := o.Spec("nb_cv", str(args, "source"), str(args, "label"))
	if err != nil {
		return nil, err
	}
	cv := sqlnb.CVSpec{Train: spec, Folds: 5, Key: str(args, "key"), Metric: str(args, "metric"), PosLabel: str(args, "pos_label"), PosLabelGiven: args["pos_label"] != nil}
	if v, ok := args["folds"].(int64); ok {
		cv.Folds = int(v)
	}
	if v, ok := args["seed"].(int64); ok {
		cv.Seed = v
	}
	cv.Stratified, _ = args["stratified"].(bool)
	cv.AUC, _ = args["auc"].(bool)
	cv.Alphas, _ = args["alpha"].([]float64)
	cv.VarSmoothings, _ = args["var_smoothing"].([]float64)
	conn, err := reg.internal.Conn(ctx)
	if err != nil {
		return nil, err
	}
	defer conn.Close()
	res, err := sqlnb.CrossValidate(ctx, conn, reg, cv)
	if err != nil {
		return nil, err
	}
	var rows [][]any
	for _, r := range res.Rows() {
		rows = append(rows, []any{r.Alpha, r.VarSmoothing, r.Metric, r.Mean, r.SD, r.Folds, r.Best})
	}
	return rows, nil
}

// updateColumns are nb_train's result columns: nb_train(..., append := true) and nb_forget return the stored
// model as nb_train does (the rows it now counts; the warnings of its options).
var updateColumns = []column{{"model", tVarchar}, {"n_rows", tBigint}, {"skipped_rows", tBigint}, {"classes", tBigint},
	{"features", tBigint}, {"kinds", tVarchar}, {"seconds", tDouble}, {"incomplete_rows", tBigint}, {"iterations", tBigint},
	{"warnings", tVarcharList}, {"unlabelled_rows", tBigint}, {"log_likelihood", tDouble}}

// runUpdate adds (sqlnb.Append) or removes (sqlnb.Forget) the rows of source: the options given must be the
// model's, those not given take the model's.
func runUpdate(ctx context.Context, reg *registry, args map[string]any,
	update func(context.Context, sqlnb.DB, sqlnb.UpdateSpec) (*sqlnb.UpdateResult, error)) ([][]any, error) {
	_, binarize := args["binarize"].(float64)
	o, err := options(args)
	if err != nil {
		return nil, fmt.Errorf("model %q: %w", str(args, "model"), err)
	}
	res, err := update(ctx, reg.internal, sqlnb.UpdateSpec{Model: str(args, "model"), Source: str(args, "source"), Label: str(args, "label"),
		Options: o, BinarizeSet: binarize})
	if err != nil {
		return nil, err
	}
	m := res.Model
	return [][]any{{m.Name, m.Rows, m.SkippedRows, int64(len(m.Classes)), int64(len(m.Features)),
		strings.Join(m.Kinds(), ","), res.Duration.Seconds(), m.IncompleteRows, m.Iterations, append(append([]string{}, nb.ParamWarnings(m.Params)...), res.Warnings...),
		m.UnlabelledRows, logLikelihood(m)}}, nil
}

func runForget(ctx context.Context, reg *registry, args map[string]any) ([][]any, error) {
	return runUpdate(ctx, reg, args, sqlnb.Forget)
}

func runMerge(ctx context.Context, reg *registry, args map[string]any) ([][]any, error) {
	models, _ := args["models"].([]string)
	replace, _ := args["replace"].(bool)
	force, _ := args["force"].(bool)
	m, err := sqlnb.MergeModels(ctx, reg.internal, sqlnb.MergeSpec{Into: str(args, "into"), Inputs: models, Replace: replace, Force: force})
	if err != nil {
		return nil, err
	}
	return [][]any{{m.Name, m.Rows, m.SkippedRows, int64(len(m.Classes)), int64(len(m.Features)), strings.Join(m.Kinds(), ",")}}, nil
}
