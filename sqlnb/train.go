package sqlnb

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"time"

	"github.com/sqlnb/sqlnb/sqlnb/nb"
)

// TrainSpec says what to train.
type TrainSpec struct {
	// Model is the name the model is stored under; an existing model of that name is replaced.
	Model string
	// Source is a table or view, a query, or a file path or glob (see ResolveSource).
	Source string
	// Label is the class column.
	Label string
	// Features are the feature columns; empty means every column but Label and Weight.
	Features []string
	// Exclude are columns left out of the features (each must be a column of the source).
	Exclude []string
	// Force trains even when the label has more than MaxClasses classes.
	Force bool
	// Kind, if set, is the kind of every feature; FeatureKinds overrides it per column.
	Kind         nb.Kind
	FeatureKinds map[string]nb.Kind
	// Weight is an optional sample-weight column (non-negative, not NULL).
	Weight string
	// Params are the hyperparameters stored with the model (zero value: DefaultParams).
	Params *nb.Params
	// GivenPriors are per-class priors when Params.Text("priors") is PriorsGiven.
	GivenPriors map[string]float64
	// Terms, if set, adds a text feature from a long term table (document id, term, count), joined to
	// Source on the document id.
	Terms *nb.TermsSpec
	// Text are the tokenizer settings of the text features.
	Text nb.TextOptions
	// Binarize is the threshold of Bernoulli and text_bernoulli features (Feature.Binarize).
	Binarize float64
	// Trace, if set, receives the durations of an iterative fit's SQL passes (logistic regression).
	Trace *nb.FitTrace
	// SemiSupervised trains on the rows with a NULL label too, by expectation-maximisation (see
	// trainSemiSupervised): Params.Float("tol") is its relative log-likelihood tolerance (DefaultEMTol when Params
	// is nil) and Params.Int("max_iter") its step limit. Registrar makes the E-step's scorer callable from SQL
	// (udf.DB implements it); it is required then.
	SemiSupervised bool
	Registrar      FoldRegistrar
	// By, if set, are group columns: one model per group, in the same scan (see groups.go).
	By []string
}

// ParseFeatureKinds reads "col=kind" specs, each of which may list several: "col=kind,col=kind". A column
// name may contain "=" (the last one splits) or "," (a spec whose comma-separated parts do not each hold an
// "=" is one column's).
func ParseFeatureKinds(specs []string) (map[string]nb.Kind, error) {
	out := map[string]nb.Kind{}
	for _, s := range specs {
		parts, err := nb.SplitQuoted(s)
		if err != nil {
			return nil, fmt.Errorf("%w: feature kind %q: %v", nb.ErrBadOption, s, err)
		}
		for _, p := range parts {
			if p.Quoted < 0 && !strings.Contains(p.Text, "=") {
				// An unquoted name with a comma ("k,v=poisson"): the whole string is one column=kind.
				parts = []nb.QuotedPart{{Text: strings.TrimSpace(s), Quoted: -1}}
				break
			}
		}
		for _, p := range parts {
			eq := strings.LastIndexByte(p.Text, '=')
			if eq <= 0 || eq < p.Quoted {
				return nil, fmt.Errorf("%w: feature kind %q: use column=kind (a column with ',', '=', '\"' or spaces at its ends in double quotes: \" n \"=poisson)", nb.ErrBadOption, s)
			}
			if strings.TrimSpace(p.Text[eq+1:]) == "" { // "x=" names no kind (it trained x as auto, silently)
				return nil, fmt.Errorf("%w: feature kind %q: name a kind after '=' (use auto, %s)", nb.ErrBadOption, s, strings.Join(KindNames(), ", "))
			}
			k, err := ParseKind(p.Text[eq+1:])
			if err != nil {
				return nil, err
			}
			name := strings.TrimSpace(p.Text[:eq])
			if p.Quoted >= 0 {
				if rest := strings.TrimSpace(p.Text[p.Quoted:eq]); rest != "" {
					return nil, fmt.Errorf("%w: feature kind %q: %q follows the quoted column %q before its '='", nb.ErrBadOption, s, rest, p.Text[:p.Quoted])
				}
				name = p.Text[:p.Quoted]
			}
			out[name] = k
		}
	}
	return out, nil
}

// TrainResult summarises a training run.
type TrainResult struct {
	Model    *nb.Model
	Duration time.Duration
	// Warnings say where scoring will differ from the options given (Params.Warnings), and which columns look
	// wrong: a feature unique per row or named like an identifier, a label with more distinct values than
	// LabelWarnShare of the rows.
	Warnings []string
}

// Train computes the model's statistics with SQL inside DuckDB (one wide GROUP BY scan for the
// Gaussian features, one GROUPING SETS scan for the categorical and Bernoulli ones) and stores the
// model, replacing one of the same name in a single transaction: a failed training leaves the old
// model as it was. Outcomes of bad input:
//   - NULL label: the row is skipped and counted in Model.SkippedRows.
//   - NULL feature value: left out of that feature's statistics (seed 004: 103/157, not 103/182).
//   - NaN in a Gaussian feature: read as NULL; ±Inf: an error naming the column.
//   - no labelled rows: ErrNoRows; one class: ErrOneClass; NULL or negative weight: ErrBadValue.
//   - more than MaxClasses classes: ErrTooManyClasses, unless spec.Force.
func Train(ctx context.Context, db nb.DB, spec TrainSpec) (*TrainResult, error) {
	if isNil(db) {
		return nil, fmt.Errorf("%w: train %q: a nil database", nb.ErrBadOption, spec.Model)
	}
	start := time.Now()
	m, warnings, err := trainModel(ctx, db, spec)
	if err == nil {
		err = checkModel(m, spec.Terms)
	}
	if err != nil {
		return nil, fmt.Errorf("train %q: %w", spec.Model, err)
	}
	if err := theStore.Put(ctx, db, m); err != nil { // trainModel validated m
		return nil, fmt.Errorf("train %q: %w", spec.Model, err)
	}
	base := DefaultParams()
	if spec.SemiSupervised {
		base = base.With("tol", DefaultEMTol)
	}
	warnings = append(append(warnings, nb.ParamWarnings(m.Params)...), unusedParams(m, base)...)
	return &TrainResult{Model: m, Duration: time.Since(start), Warnings: warnings}, nil
}

// Fit trains the model spec describes as Train does, without storing it.
func Fit(ctx context.Context, db nb.Querier, spec TrainSpec) (*nb.Model, error) {
	m, _, err := trainModel(ctx, db, spec)
	if err != nil {
		return nil, fmt.Errorf("train %q: %w", spec.Model, err)
	}
	return m, nil
}

// trainModel resolves spec, checks its columns (profile), computes the model and checks its classes.
func trainModel(ctx context.Context, db nb.Querier, spec TrainSpec) (m *nb.Model, warnings []string, err error) {
	if err := nb.ValidateName(spec.Model); err != nil {
		return nil, nil, err
	}
	params := DefaultParams()
	if spec.Params != nil {
		params = *spec.Params
	} else if spec.SemiSupervised {
		params = params.With("tol", DefaultEMTol)
	}
	if err := families.ValidateParams(params); err != nil {
		return nil, nil, err
	}
	p, err := makePlan(ctx, db, spec)
	if err != nil {
		return nil, nil, err
	}
	if len(p.By) > 0 {
		if err := checkGroupable(p, params); err != nil {
			return nil, nil, err
		}
	}
	if warnings, err = profile(ctx, db, p, len(spec.Features) == 0, spec.Force); err != nil {
		return nil, nil, err
	}
	if w := unusedTextOptions(spec, p); w != "" {
		warnings = append(warnings, w)
	}
	if spec.Binarize != 0 && !slices.ContainsFunc(p.Features, func(f nb.Feature) bool { return families.KindInfo(f.Kind).Binarize }) {
		warnings = append(warnings, fmt.Sprintf("binarize %v has no effect: it applies to bernoulli and text_bernoulli features, and the model has none", spec.Binarize))
	}
	var more []string
	if spec.SemiSupervised {
		if len(spec.By) > 0 {
			return nil, nil, fmt.Errorf("%w: model %q: semi-supervised training and per-group models (by) do not combine: train one semi-supervised model per group with a WHERE clause instead",
				nb.ErrBadOption, spec.Model)
		}
		// Its temporary tables need one connection throughout.
		conn, release, err := pinConn(ctx, db)
		if err != nil {
			return nil, nil, err
		}
		defer release()
		if m, more, err = trainSemiSupervised(ctx, conn, spec.Registrar, spec, p, params); err != nil {
			return nil, nil, err
		}
	} else if m, more, err = trainPlanned(ctx, db, spec, p, params); err != nil {
		return nil, nil, err
	}
	warnings = append(warnings, more...)
	// Once for the model trained (not per EM step, whose warnings are dropped).
	warnings = append(warnings, emptyFeatures(m)...)
	warnings = append(warnings, componentWarnings(m)...)
	more, err = checkClasses(p.Label.Name, len(m.Classes), m.Rows, spec.Force)
	if err != nil {
		return nil, nil, err
	}
	return m, append(warnings, more...), nil
}

// unusedTextOptions warns of --ngrams and --stop-words on a model without a text column to tokenize: they
// were stored nowhere and applied to nothing (a term table's terms are taken as they are).
func unusedTextOptions(spec TrainSpec, p *nb.Plan) string {
	if spec.Text.Ngrams <= 1 && spec.Text.StopWords == "" { // unigrams, no stop words: the defaults
		return ""
	}
	for _, f := range p.Features {
		if families.KindInfo(f.Kind).Text && (p.Terms == nil || f.Name != p.Terms.Feature) {
			return ""
		}
	}
	what := "the model has no text column (VARCHAR documents)"
	if p.Terms != nil {
		what = "a term table's terms are taken as they are (no tokenizing, no lower-casing): filter or transform the term table instead"
	}
	var opts []string
	if spec.Text.Ngrams > 1 {
		opts = append(opts, fmt.Sprintf("ngrams %d", spec.Text.Ngrams))
	}
	if spec.Text.StopWords != "" {
		opts = append(opts, fmt.Sprintf("stop words %q", spec.Text.StopWords))
	}
	return fmt.Sprintf("%s: no effect: they apply to the words of a text column, and %s", strings.Join(opts, " and "), what)
}

// trainPlanned computes and validates the model of a resolved plan (warnings: groups left without a model).
func trainPlanned(ctx context.Context, db nb.Querier, spec TrainSpec, p *nb.Plan, params nb.Params) (*nb.Model, []string, error) {
	p.Params, p.Trace = params, spec.Trace
	m := &nb.Model{
		Name: spec.Model, Label: p.Label.Name, LabelType: p.Label.Type, Weight: p.Weight, Source: spec.Source,
		Params: params, Created: time.Now().UTC().Truncate(time.Microsecond), Version: nb.FormatVersion,
		Generation: nb.NewGeneration(), Features: p.Features,
	}
	var warnings []string
	var lost []string // classes whose every row misses a value (lda, qda, logistic)
	if len(p.By) > 0 {
		for _, b := range p.By {
			m.By = append(m.By, nb.GroupColumn{Name: b.Name, Type: b.Type})
		}
		var err error
		if m, warnings, err = trainGrouped(ctx, db, spec, p, m); err != nil {
			return nil, nil, err
		}
	} else {
		sc, err := trainStats(ctx, db, p, "")
		if err != nil {
			return nil, nil, err
		}
		part := sc.Part(0)
		m.Classes, m.SkippedRows, m.IncompleteRows, m.Stats = part.ClassList(sc.Order), part.Skipped, part.Incomplete, part.Stats
		lost = lostClasses(part, m.Classes)
		m.Iterations, m.GradNorm = part.Iterations, part.GradNorm
		for _, c := range m.Classes {
			m.Rows += c.Count
		}
	}
	checked, err := checkTrained(spec, p, m)
	switch {
	case err != nil && m.IncompleteRows > 0 && (errors.Is(err, nb.ErrInvalidModel) || errors.Is(err, nb.ErrOneClass) || errors.Is(err, nb.ErrNoRows)):
		// Rows left out for missing values may be why: one more scan says which feature or class.
		if why := missingValues(ctx, db, p).problem(); why != nil {
			return nil, nil, why
		}
	case err == nil && len(lost) > 0:
		warnings = append(warnings, fmt.Sprintf("%s no row without a missing value (NULL or NaN), and %s leaves out every row with "+
			"one: the model does not know it", classesHave(quoteAll(lost)), m.Features[0].Kind))
	}
	return checked, warnings, err
}

// emptyFeatures warns of the features without a value in any labelled row (all NULL, or NaN for a Gaussian
// one): they take part in no score, and a file source that holds such a column (CSV) may read it as VARCHAR
// when scored. Only the families whose statistics count their rows (gaussian, poisson, categorical) tell.
func emptyFeatures(m *nb.Model) []string {
	counts := map[string]int64{}
	counted := map[string]bool{} // tables that count rows, by name
	for _, f := range m.Features {
		fam := families.FamilyOf(f.Kind)
		if fam == nil {
			continue
		}
		for _, t := range fam.Tables() {
			if _, done := counted[t.TableName()]; !done {
				counted[t.TableName()] = t.CountRows(m.Stats[t.TableName()], counts)
			}
		}
	}
	var out []string
	for _, f := range m.Features {
		fam := families.FamilyOf(f.Kind)
		if fam == nil || counts[f.Name] > 0 {
			continue
		}
		for _, t := range fam.Tables() {
			if counted[t.TableName()] {
				out = append(out, fmt.Sprintf("feature %q has no value in any labelled row (all NULL): it takes no part in the "+
					"scores; leave it out with %s", f.Name, excludeHint(f.Name)))
				break
			}
		}
	}
	return out
}

// componentWarnings are the warnings of m's compiled components (nb.Warner: a nearly singular covariance, a
// variance floored), and of each group's model (three at most, then how many more).
func componentWarnings(m *nb.Model) []string {
	one := func(mm *nb.Model) []string {
		s, err := Compile(mm)
		if err != nil {
			return nil
		}
		var out []string
		for _, c := range s.Components {
			if w, ok := c.(nb.Warner); ok {
				out = append(out, w.Warnings()...)
			}
		}
		return out
	}
	if len(m.Groups) == 0 {
		return one(m)
	}
	var out []string
	more := 0
	for k, g := range m.Groups {
		for _, w := range one(m.Member(k)) {
			if len(out) == 3 {
				more++
				continue
			}
			out = append(out, fmt.Sprintf("group %s: %s", strings.Join(quoteAll(g.Key), ", "), w))
		}
	}
	if more > 0 {
		out = append(out, fmt.Sprintf("%d more warnings of the groups' models, as these", more))
	}
	return out
}

// checkTrained checks a trained model's classes and weights, applies given priors, validates and compiles it.
func checkTrained(spec TrainSpec, p *nb.Plan, m *nb.Model) (*nb.Model, error) {
	classes, params := m.Classes, m.Params
	if m.Rows == 0 || len(classes) < 2 {
		labels := make([]string, len(classes))
		for i, c := range classes {
			labels[i] = c.Label
		}
		if err := checkLabels(p.Src, p.Label.Name, m.Rows, labels); err != nil {
			return nil, err
		}
	}
	if p.Weight != "" {
		total := 0.0
		if c := nb.ZeroWeightClassOf(classes); c != "" {
			return nil, nb.ZeroWeightClass(c, p.Weight)
		}
		for _, c := range classes {
			total += c.Weight
		}
		if !(total > 0) {
			return nil, fmt.Errorf("%w: weight column %q sums to 0: give some rows a positive weight", nb.ErrBadValue, p.Weight)
		}
	}
	if params.Text("priors") == nb.PriorsGiven {
		if err := applyGivenPriors(m, spec.GivenPriors); err != nil {
			return nil, err
		}
	}
	// A per-group model's groups were validated and compiled one by one as they were trained
	// (trainGrouped): here the pooled model and the groups' keys.
	if err := families.ValidateModel(m, len(m.By) == 0); err != nil {
		return nil, err
	}
	// Compiling now reports what scoring would refuse (a singular covariance) before anything is stored.
	if _, err := compileValid(m.Pooled()); err != nil {
		return nil, err
	}
	return m, nil
}

func applyGivenPriors(m *nb.Model, given map[string]float64) error {
	known := m.ClassIndex()
	for label := range given {
		if _, ok := known[label]; !ok {
			return fmt.Errorf("%w: prior for class %q, which is not in the training data (classes: %s)",
				nb.ErrBadOption, label, strings.Join(quoteAll(classLabels(m)), ", "))
		}
	}
	for i := range m.Classes {
		p, ok := given[m.Classes[i].Label]
		if !ok {
			return fmt.Errorf("%w: no prior given for class %q", nb.ErrBadOption, m.Classes[i].Label)
		}
		m.Classes[i].Prior = p
	}
	return nil
}

func classLabels(m *nb.Model) []string {
	out := make([]string, len(m.Classes))
	for i, c := range m.Classes {
		out[i] = c.Label
	}
	return out
}

// trainStats runs every family's statistics scan over the plan's source, per fold when fold (an SQL
// expression over the source row t) is set. If no family's scan yields the classes (text only), a class
// scan does.
func trainStats(ctx context.Context, db nb.Querier, p *nb.Plan, fold string) (*nb.Scan, error) {
	sc := &nb.Scan{Conn: db, Plan: p, Fold: fold, Parts: map[int64]*nb.Partial{}}
	for _, g := range families.ByFamily(p.Features) {
		if err := g.Family.Train(ctx, sc, g.Features); err != nil {
			return nil, err
		}
		sc.Done = sc.Done || len(sc.Order) > 0
	}
	if !sc.Done {
		rows, err := sc.Query(ctx, "train_classes.tmpl.sql", nil)
		if err != nil {
			return nil, fmt.Errorf("count classes: %w", err)
		}
		defer rows.Close()
		if err := sc.ClassRows(rows, 0, func(int64, string, []sql.NullFloat64) error { return nil }); err != nil {
			return nil, fmt.Errorf("count classes: %w", err)
		}
	}
	return sc, nil
}

// pinConn returns one connection of db (db itself unless it is a pool: *sql.DB) and its release.
func pinConn(ctx context.Context, db nb.Querier) (nb.Querier, func(), error) {
	if pool, ok := db.(interface {
		Conn(context.Context) (*sql.Conn, error)
	}); ok {
		c, err := pool.Conn(ctx)
		if err != nil {
			return nil, nil, err
		}
		return c, func() { c.Close() }, nil
	}
	return db, func() {}, nil
}

// checkModel asks the families of m's features that check whole models (ModelChecker).
func checkModel(m *nb.Model, terms *nb.TermsSpec) error {
	for _, g := range families.ByFamily(m.Features) {
		if c, ok := g.Family.(nb.ModelChecker); ok {
			if err := c.CheckModel(m, terms); err != nil {
				return err
			}
		}
	}
	return nil
}

// isNil reports whether v is nil or holds a nil pointer (a *sql.DB or *udf.DB variable never assigned).
func isNil(v any) bool {
	if v == nil {
		return true
	}
	r := reflect.ValueOf(v)
	return r.Kind() == reflect.Pointer && r.IsNil()
}
