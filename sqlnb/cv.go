package sqlnb

import (
	"context"
	"database/sql"
	"fmt"
	"math"
	"slices"
	"strings"
	"time"

	"github.com/sqlnb/sqlnb/sqlnb/nb"

	"github.com/sqlnb/sqlnb/queries"
)

// CVSpec says what to cross-validate.
type CVSpec struct {
	// Train is the training request (Model names the run in messages; nothing is stored).
	Train TrainSpec
	// Folds is k ≥ 2.
	Folds int
	// Stratified deals the rows of each class round-robin over the folds (in hash order).
	Stratified bool
	// Seed changes the fold assignment.
	Seed int64
	// Key is the column whose hash assigns folds; empty: the whole row.
	Key string
	// Alphas and VarSmoothings are the settings to sweep (empty: the model's one value).
	Alphas, VarSmoothings []float64
	// Metric picks the best setting: accuracy, f1_macro (higher is better), log_loss or brier (lower).
	Metric string
	// AUC also computes ROC-AUC and average precision per fold (sorts every score: slower).
	AUC bool
	// PosLabel is the positive class of a two-class label for the Brier score, ROC-AUC and average
	// precision (EvalSpec.PosLabel); empty: the second class.
	PosLabel string
	// PosLabelGiven makes an empty PosLabel name the class "" (EvalSpec.PosLabelGiven).
	PosLabelGiven bool
}

// FoldRegistrar makes a set of fold scorers callable from SQL as nb_cv_proba(name, fold, features):
// udf.DB implements it.
type FoldRegistrar interface {
	RegisterFolds(scorers []*Scorer) (name string, release func())
}

// CVSetting is the result of one hyperparameter setting.
type CVSetting struct {
	Params nb.Params
	// Folds holds, per fold, metric → value.
	Folds []map[string]float64
	// Mean and SD over folds (sample standard deviation).
	Mean, SD map[string]float64
}

// CVResult is a cross-validation run.
type CVResult struct {
	// Metric is the metric that picked Best, as the settings' Mean names it: CVSpec.Metric, or its macro
	// average (roc_auc_macro, average_precision_macro) for more than two classes.
	Metric   string
	Settings []CVSetting
	Best     int
	Duration time.Duration
	// Warnings are the warnings about the columns, as TrainResult.Warnings.
	Warnings []string
}

// CVMetrics lists the metrics that pick the best setting (CVSpec.Metric); roc_auc and average_precision
// need CVSpec.AUC.
func CVMetrics() []string {
	return []string{"accuracy", "f1_macro", "log_loss", "brier", "roc_auc", "average_precision"}
}

// CVRow is one metric of one setting of a cross-validation: its mean and sample standard deviation over the
// folds and its value on each fold (NaN where undefined, as ROC-AUC of a fold without positives).
type CVRow struct {
	Alpha, VarSmoothing float64
	Metric              string
	Mean, SD            float64
	Folds               []float64
	// Best marks the rows of the setting chosen by CVResult.Metric.
	Best bool
}

// Rows lists, setting by setting, every metric (by name; the row count n left out) with its per-fold values.
func (r *CVResult) Rows() []CVRow {
	var out []CVRow
	for i, s := range r.Settings {
		names := make([]string, 0, len(s.Mean))
		for k := range s.Mean {
			if k != "n" {
				names = append(names, k)
			}
		}
		slices.Sort(names)
		for _, k := range names {
			row := CVRow{Alpha: s.Params.Float("alpha"), VarSmoothing: s.Params.Float("var_smoothing"), Metric: k, Mean: s.Mean[k], SD: s.SD[k],
				Folds: make([]float64, len(s.Folds)), Best: i == r.Best}
			for f, m := range s.Folds {
				v, ok := m[k]
				if !ok {
					v = math.NaN()
				}
				row.Folds[f] = v
			}
			out = append(out, row)
		}
	}
	return out
}

// higherIsBetter lists the metrics to maximise.
var higherIsBetter = map[string]bool{"accuracy": true, "f1_macro": true, "roc_auc": true, "roc_auc_macro": true,
	"average_precision": true, "average_precision_macro": true}

// FoldExpr is the SQL expression (over the source row queries.Row) assigning each row a fold in [0, k): the hash
// of key (or of the whole row) with the seed, or, stratified, the row's position within its class in
// hash order, modulo k.
func FoldExpr(k int, seed int64, key, label string, stratified bool) string {
	// hash(t, seed) would only XOR hash(t) with a constant of the seed, which modulo a power of two relabels
	// the folds (every seed the same partition) and keeps hash(t)'s poorly mixed low bits; hashing the row's
	// hash XOR the seed again mixes every bit.
	row := queries.Row
	if key != "" {
		row = queries.Ident(key)
	}
	h := fmt.Sprintf("hash(xor(hash(%s), %d::UBIGINT))", row, uint64(seed))
	if stratified {
		return fmt.Sprintf("((row_number() OVER (PARTITION BY %s ORDER BY %s) - 1) %% %d)::BIGINT", queries.Ident(label), h, k)
	}
	return fmt.Sprintf("(%s %% %d)::BIGINT", h, k)
}

// FoldModels computes the statistics of every fold in one GROUP BY (fold, class) scan per distribution
// family and returns, for each fold f, the model trained on all other folds (an exact merge), and the
// fold expression. The columns are checked as Train checks them (a label with more than MaxClasses classes
// is refused unless spec.Train.Force). A model whose parameters are fitted (logistic regression: a refitter
// family) does not merge: each fold's model is fitted on the other folds' rows, still by SQL passes over the
// source (refitFolds).
func FoldModels(ctx context.Context, db nb.Querier, spec CVSpec) ([]*nb.Model, string, error) {
	models, fold, _, err := foldModels(ctx, db, nil, spec)
	return models, fold, err
}

// foldModels is FoldModels, also returning the warnings about the columns (see TrainResult.Warnings). A
// semi-supervised training (spec.Train.SemiSupervised) fits each fold's model by EM on the other folds' rows,
// labelled and not (reg makes its E-steps' scorers callable from SQL).
func foldModels(ctx context.Context, db nb.Querier, reg FoldRegistrar, spec CVSpec) ([]*nb.Model, string, []string, error) {
	if spec.Folds < 2 {
		return nil, "", nil, fmt.Errorf("%w: folds %d: use at least 2 (--folds, folds :=)", nb.ErrBadOption, spec.Folds)
	}
	t := spec.Train
	if len(t.By) > 0 {
		return nil, "", nil, fmt.Errorf("%w: cross-validation of per-group models (by) is not supported yet: cross-validate one group's rows with a WHERE clause", nb.ErrBadOption)
	}
	if t.Terms != nil {
		return nil, "", nil, fmt.Errorf("%w: cross-validation of a model with a term table is not supported yet: its rows carry no term MAP to score", nb.ErrBadOption)
	}
	params := DefaultParams()
	if t.Params != nil {
		params = *t.Params
	} else if t.SemiSupervised {
		params = params.With("tol", DefaultEMTol)
	}
	p, err := makePlan(ctx, db, t)
	if err != nil {
		return nil, "", nil, err
	}
	warnings, err := profile(ctx, db, p, len(t.Features) == 0, t.Force)
	if err != nil {
		return nil, "", nil, err
	}
	if err := families.ValidateParams(params); err != nil {
		return nil, "", nil, err
	}
	p.Params = params
	if spec.Key != "" {
		c, ok := nb.FindColumn(append([]nb.Column{}, p.AllColumns...), spec.Key)
		if !ok {
			return nil, "", nil, fmt.Errorf("%w: key column %q is not in the source", nb.ErrUnknownColumn, spec.Key)
		}
		spec.Key = c.Name
	}
	fold := FoldExpr(spec.Folds, spec.Seed, spec.Key, p.Label.Name, spec.Stratified)
	base := &nb.Model{Name: t.Model, Label: p.Label.Name, LabelType: p.Label.Type, Weight: p.Weight, Source: t.Source,
		Params: params, Created: time.Now().UTC(), Version: nb.FormatVersion, Features: p.Features}
	if t.SemiSupervised {
		out, more, err := semiSupervisedFolds(ctx, db, reg, spec, p, fold)
		return out, fold, append(warnings, more...), err
	}
	for _, g := range families.ByFamily(p.Features) {
		if _, ok := g.Family.(nb.Refitter); ok {
			out, err := refitFolds(ctx, db, spec, p, base, fold)
			return out, fold, warnings, err
		}
	}
	sc, err := trainStats(ctx, db, p, fold)
	if err != nil {
		return nil, "", nil, err
	}
	order := sc.Order
	var rows int64
	for _, part := range sc.Parts {
		for _, c := range part.Classes {
			rows += c.Count
		}
	}
	more, err := checkClasses(p.Label.Name, len(order), rows, t.Force)
	if err != nil {
		return nil, "", nil, err
	}
	warnings = append(warnings, more...)
	if err := checkLabels(p.Src, p.Label.Name, rows, order); err != nil {
		return nil, "", nil, err
	}
	for f := range spec.Folds {
		if sc.Parts[int64(f)] == nil {
			return nil, "", nil, emptyFold(spec, f, rows)
		}
	}
	per := make([]*nb.Model, spec.Folds)
	for f := range per {
		m := *base
		if part := sc.Parts[int64(f)]; part != nil {
			m.Classes, m.SkippedRows, m.IncompleteRows, m.Stats = part.ClassList(order), part.Skipped, part.Incomplete, part.Stats
			for _, c := range m.Classes {
				m.Rows += c.Count
			}
		}
		per[f] = &m
	}
	out := make([]*nb.Model, spec.Folds)
	for f := range out {
		var others []*nb.Model
		for g, m := range per {
			if g != f {
				others = append(others, m)
			}
		}
		if out[f], err = Merge(base, order, others...); err != nil {
			return nil, "", nil, err
		}
		out[f].Name = fmt.Sprintf("%s (fold %d)", t.Model, f+1)
		out[f].Generation = nb.NewGeneration()
		if t.Params != nil && params.Text("priors") == nb.PriorsGiven {
			if err := applyGivenPriors(out[f], t.GivenPriors); err != nil {
				return nil, "", nil, err
			}
		}
		if len(out[f].Classes) < 2 {
			return nil, "", nil, fmt.Errorf("%w: the training folds of fold %d hold %d class(es): use fewer folds or --stratified", nb.ErrOneClass, f+1, len(out[f].Classes))
		}
	}
	return out, fold, warnings, nil
}

// refitFolds fits, for each fold f, the model on the rows of the other folds: the source restricted by the
// fold expression (source_other_folds.tmpl.sql, f a bound parameter), trained as Train trains. k fits.
func refitFolds(ctx context.Context, db nb.Querier, spec CVSpec, p *nb.Plan, base *nb.Model, fold string) ([]*nb.Model, error) {
	stmt, err := queries.Render("source_labels.tmpl.sql", queries.Labelled{From: p.Src.From, Label: p.Label.Name})
	if err != nil {
		return nil, err
	}
	var rows, classes int64
	var first sql.NullString
	if err := db.QueryRowContext(ctx, stmt, p.Src.Args...).Scan(&rows, &classes, &first); err != nil {
		return nil, err
	}
	if classes < 2 {
		if err := checkLabels(p.Src, p.Label.Name, rows, []string{first.String}); err != nil {
			return nil, err
		}
	}
	out := make([]*nb.Model, spec.Folds)
	for f := range out {
		from, err := queries.Render("source_other_folds.tmpl.sql", queries.OtherFolds{From: p.Src.From, Fold: fold, Param: len(p.Src.Args) + 1})
		if err != nil {
			return nil, err
		}
		fp := *p
		fp.Src = nb.Source{Text: p.Src.Text, From: from, Args: append(append([]any{}, p.Src.Args...), int64(f))}
		sc, err := trainStats(ctx, db, &fp, "")
		if err != nil {
			return nil, fmt.Errorf("fold %d: %w", f+1, err)
		}
		m := *base
		part := sc.Part(0)
		m.Classes, m.SkippedRows, m.IncompleteRows, m.Stats = part.ClassList(sc.Order), part.Skipped, part.Incomplete, part.Stats
		m.Iterations, m.GradNorm = part.Iterations, part.GradNorm
		for _, c := range m.Classes {
			m.Rows += c.Count
		}
		m.Name = fmt.Sprintf("%s (fold %d)", spec.Train.Model, f+1)
		m.Generation = nb.NewGeneration()
		if spec.Train.Params != nil && m.Params.Text("priors") == nb.PriorsGiven {
			if err := applyGivenPriors(&m, spec.Train.GivenPriors); err != nil {
				return nil, err
			}
		}
		if len(m.Classes) < 2 {
			return nil, fmt.Errorf("%w: the training folds of fold %d hold %d class(es): use fewer folds or --stratified", nb.ErrOneClass, f+1, len(m.Classes))
		}
		out[f] = &m
	}
	// Fold f's rows are all rows but those its model was fitted on; all rows: each row is in k - 1 fits.
	var sum int64
	for _, m := range out {
		sum += m.Rows
	}
	for f, m := range out {
		if total := sum / int64(spec.Folds-1); m.Rows == total {
			return nil, emptyFold(spec, f, total)
		}
	}
	return out, nil
}

// checkLabels makes the checks of a training (checkTrained), with its words, on the labelled rows of a source
// and its classes, before cross-validation's checks of each fold.
func checkLabels(src nb.Source, label string, rows int64, classes []string) error {
	switch {
	case rows == 0:
		return fmt.Errorf("%w: source %s has no rows with a non-NULL label %q", nb.ErrNoRows, src.Quoted(), label)
	case len(classes) == 1:
		return fmt.Errorf("%w: label column %q has the single class %q: a classifier needs at least two", nb.ErrOneClass, label, classes[0])
	}
	return nil
}

// emptyFold is the error of fold f (from 0) without labelled rows, of rows in all.
func emptyFold(spec CVSpec, f int, rows int64) error {
	return fmt.Errorf("%w: folds %d: fold %d has no labelled rows (%d labelled rows in all): use fewer folds, --stratified (stratified := true) "+
		"or another --seed", nb.ErrBadOption, spec.Folds, f+1, rows)
}

// semiSupervisedFolds fits, for each fold f, the semi-supervised model of the other folds' rows (the
// source restricted as refitFolds restricts it): k EM fits on one connection.
func semiSupervisedFolds(ctx context.Context, db nb.Querier, reg FoldRegistrar, spec CVSpec, p *nb.Plan, fold string) ([]*nb.Model, []string, error) {
	if len(spec.Alphas) > 1 || len(spec.VarSmoothings) > 1 {
		return nil, nil, fmt.Errorf("%w: a semi-supervised fit depends on alpha and var_smoothing: cross-validate one setting at a time", nb.ErrBadOption)
	}
	conn, release, err := pinConn(ctx, db)
	if err != nil {
		return nil, nil, err
	}
	defer release()
	out := make([]*nb.Model, spec.Folds)
	var warnings []string
	for f := range out {
		from, err := queries.Render("source_other_folds.tmpl.sql", queries.OtherFolds{From: p.Src.From, Fold: fold, Param: len(p.Src.Args) + 1})
		if err != nil {
			return nil, nil, err
		}
		fp := *p
		fp.Src = nb.Source{Text: p.Src.Text, From: from, Args: append(append([]any{}, p.Src.Args...), int64(f))}
		// EM fits with the setting cross-validated: the sweep's one alpha and var_smoothing where given
		// (the CLI's --alpha is the sweep's, and left the training options' alpha at 0).
		params := p.Params
		if len(spec.Alphas) == 1 {
			params = params.With("alpha", spec.Alphas[0])
		}
		if len(spec.VarSmoothings) == 1 {
			params = params.With("var_smoothing", spec.VarSmoothings[0])
		}
		fp.Params = params
		m, more, err := trainSemiSupervised(ctx, conn, reg, spec.Train, &fp, params)
		if err != nil {
			return nil, nil, fmt.Errorf("fold %d: %w", f+1, err)
		}
		for _, w := range more {
			warnings = append(warnings, fmt.Sprintf("fold %d: %s", f+1, w))
		}
		m.Name = fmt.Sprintf("%s (fold %d)", spec.Train.Model, f+1)
		out[f] = m
	}
	return out, warnings, nil
}

// smallClasses warns of the classes with fewer labelled rows than folds (scikit-learn's StratifiedKFold
// warns alike): some folds' models never see them, and those folds' metrics fall. Each row is in the
// training rows of k − 1 of the k fold models, so a class has Σ (its count in each) / (k − 1) rows.
func smallClasses(models []*nb.Model, folds int) []string {
	rows := map[string]int64{}
	var order []string
	for _, m := range models {
		for _, c := range m.Classes {
			if _, ok := rows[c.Label]; !ok {
				order = append(order, c.Label)
			}
			rows[c.Label] += c.Count
		}
	}
	var out []string
	for _, c := range order {
		if n := rows[c] / int64(folds-1); n < int64(folds) {
			out = append(out, fmt.Sprintf("class %q has %d labelled rows, fewer than the %d folds: the models of the folds it is not "+
				"trained in never predict it, and those folds score lower; use fewer folds, or more rows of it", c, n, folds))
		}
	}
	return out
}

// CrossValidate runs k-fold cross-validation: one statistics scan for every fold (FoldModels), then, per
// hyperparameter setting, one scan that scores each row once with its fold's model (nb_cv_proba) and
// aggregates the per-fold metrics inside DuckDB.
func CrossValidate(ctx context.Context, conn *sql.Conn, reg FoldRegistrar, spec CVSpec) (*CVResult, error) {
	start := time.Now()
	if spec.Metric == "" {
		spec.Metric = "accuracy"
	}
	if spec.Metric == "roc_auc" || spec.Metric == "average_precision" {
		spec.AUC = true
	}
	if !slices.Contains(CVMetrics(), spec.Metric) {
		return nil, fmt.Errorf("%w: --metric %q: use %s", nb.ErrBadOption, spec.Metric, strings.Join(CVMetrics(), ", "))
	}
	if conn == nil || isNil(reg) {
		// Checked first: the folds' models would be trained before the registrar is needed.
		return nil, fmt.Errorf("%w: cross-validation needs a connection and the scoring functions' registrar (open the database with package udf: "+
			"CrossValidate(ctx, conn, db, spec))", nb.ErrBadOption)
	}
	models, fold, warnings, err := foldModels(ctx, conn, reg, spec)
	if err != nil {
		return nil, fmt.Errorf("cv %q: %w", spec.Train.Model, err)
	}
	warnings = append(warnings, smallClasses(models, spec.Folds)...)
	all := &nb.Model{Name: spec.Train.Model, Classes: models[0].Classes}
	if spec.PosLabel, err = positiveClass(all, spec.PosLabel, spec.PosLabel != "" || spec.PosLabelGiven); err != nil {
		return nil, fmt.Errorf("cv %q: %w", spec.Train.Model, err)
	}
	src, err := nb.ResolveSource(ctx, conn, spec.Train.Source)
	if err != nil {
		return nil, err
	}
	base := models[0].Params
	alphas, vss := spec.Alphas, spec.VarSmoothings
	if len(alphas) == 0 {
		alphas = []float64{base.Float("alpha")}
	}
	if len(vss) == 0 {
		vss = []float64{base.Float("var_smoothing")}
	}
	res := &CVResult{Metric: spec.Metric, Warnings: warnings}
	for _, a := range alphas {
		for _, v := range vss {
			p := base.With("alpha", a).With("var_smoothing", v)
			if err := families.ValidateParams(p); err != nil {
				return nil, err
			}
			setting, err := cvSetting(ctx, conn, reg, models, p, src, fold, spec)
			if err != nil {
				return nil, fmt.Errorf("cv %q: %w", spec.Train.Model, err)
			}
			res.Settings = append(res.Settings, *setting)
		}
	}
	// With more than two classes ROC-AUC and average precision are averaged over the classes: the metric is
	// their macro average (roc_auc_macro), as scikit-learn's roc_auc_score(multi_class='ovr') defaults to.
	if _, ok := res.Settings[0].Mean[res.Metric]; !ok {
		if _, ok := res.Settings[0].Mean[res.Metric+"_macro"]; ok {
			res.Metric += "_macro"
		} else {
			return nil, fmt.Errorf("%w: cv %q: metric %q is not computed for this model: use %s", nb.ErrBadOption, spec.Train.Model,
				spec.Metric, strings.Join(CVMetrics(), ", "))
		}
	}
	key := res.Metric
	for i, s := range res.Settings {
		b := res.Settings[res.Best].Mean[key]
		// A NaN mean (a metric undefined on some fold) never wins; the first setting is replaced by any number.
		if x := s.Mean[key]; !math.IsNaN(x) && (math.IsNaN(b) || (higherIsBetter[key] && x > b) || (!higherIsBetter[key] && x < b)) {
			res.Best = i
		}
	}
	res.Duration = time.Since(start)
	return res, nil
}

func cvSetting(ctx context.Context, conn *sql.Conn, reg FoldRegistrar, models []*nb.Model, p nb.Params, src nb.Source, fold string, spec CVSpec) (*CVSetting, error) {
	scorers := make([]*Scorer, len(models))
	for f, m := range models {
		mm := *m
		mm.Params = p
		s, err := Compile(&mm)
		if err != nil {
			return nil, err
		}
		scorers[f] = s
	}
	name, release := reg.RegisterFolds(scorers)
	defer release()
	var metrics []Metric
	var err error
	if spec.AUC {
		// Each row scored once by its fold's model into a compact table, sorted once per class: the
		// evaluation of eval, per fold.
		var e *Evaluation
		classes := foldClasses(models)
		ordered := true // every fold's model has every class, in the same order: nb_cv_proba's keys are the classes
		for _, m := range models {
			ordered = ordered && len(m.Classes) == len(classes)
		}
		e, err = evaluate(ctx, conn, scoring{src: src, label: models[0].Label, group: fold,
			proba: "nb_cv_proba(" + queries.Literal(name) + ", " + fold + ", " + queries.Row + ")", classes: classes, ordered: ordered, pos: spec.PosLabel, ranking: true})
		if e != nil {
			metrics = e.Metrics
		}
	} else {
		// The positive class is a constant of the query, as nb_cv_terms must see it when it is bound.
		pos := "NULL"
		if len(models[0].Classes) == 2 { // PositiveClass named it (the class "" too)
			pos = queries.Literal(spec.PosLabel)
		}
		terms := "nb_cv_terms(" + queries.Literal(name) + ", " + fold + ", CAST(" + queries.Ident(models[0].Label) + " AS VARCHAR), " + pos + ", " + queries.Row + ")"
		metrics, err = cvMetrics(ctx, conn, src, models[0].Label, fold, terms)
	}
	if err != nil {
		return nil, err
	}
	s := &CVSetting{Params: p, Folds: make([]map[string]float64, len(models)), Mean: map[string]float64{}, SD: map[string]float64{}}
	for f := range s.Folds {
		s.Folds[f] = map[string]float64{}
	}
	for _, m := range metrics {
		if !m.PerClass && m.Group >= 0 && int(m.Group) < len(s.Folds) {
			s.Folds[m.Group][m.Metric] = m.Value
		}
	}
	names := map[string]bool{}
	for _, f := range s.Folds {
		for k := range f {
			names[k] = true
		}
	}
	for k := range names {
		var xs []float64
		for _, f := range s.Folds {
			if v, ok := f[k]; ok && !math.IsNaN(v) {
				xs = append(xs, v)
			}
		}
		s.Mean[k], s.SD[k] = meanSD(xs)
	}
	return s, nil
}

// foldClasses lists the classes of the fold models in order (a class may be missing from a fold's model).
func foldClasses(models []*nb.Model) []string {
	var out []string
	for _, m := range models {
		for _, c := range m.Classes {
			if !slices.Contains(out, c.Label) {
				out = append(out, c.Label)
			}
		}
	}
	return out
}

func meanSD(xs []float64) (float64, float64) {
	if len(xs) == 0 {
		return math.NaN(), math.NaN()
	}
	m := 0.0
	for _, x := range xs {
		m += x
	}
	m /= float64(len(xs))
	if len(xs) < 2 {
		return m, 0
	}
	ss := 0.0
	for _, x := range xs {
		ss += (x - m) * (x - m)
	}
	return m, math.Sqrt(ss / float64(len(xs)-1))
}

// cvMetrics scores and aggregates in one statement (cv_metrics.tmpl.sql): per fold n, accuracy, log_loss,
// brier and f1_macro.
func cvMetrics(ctx context.Context, conn *sql.Conn, src nb.Source, label, fold, terms string) ([]Metric, error) {
	stmt, err := queries.Render("cv_metrics.tmpl.sql", queries.CVMetrics{From: src.From, Label: label, Group: fold, Terms: terms})
	if err != nil {
		return nil, err
	}
	return scanMetrics(ctx, conn, false, stmt, src.Args...)
}
