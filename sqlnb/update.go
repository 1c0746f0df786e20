package sqlnb

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"math"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/sqlnb/sqlnb/sqlnb/family/text"
	"github.com/sqlnb/sqlnb/sqlnb/nb"
	"github.com/sqlnb/sqlnb/sqlnb/store"

	"github.com/sqlnb/sqlnb/queries"
)

// UpdateSpec names a stored model and rows to add to it (Append) or to remove from it (Forget).
type UpdateSpec struct {
	// Model is the stored model; Source the rows (a table, query or file, as TrainSpec.Source).
	Model, Source string
	// Label is the class column of Source; empty: the model's label column.
	Label string
	// Options are the options the user gave. Those not set take the model's; those set must equal the
	// model's (features, kinds, weight column, binarize threshold, tokenizer settings and hyperparameters),
	// else the error names the model and the column that differs. A term table (Terms, Doc, Term, Count)
	// gives the rows of a model's term-table feature.
	Options Options
	// BinarizeSet: Options.Binarize was given (0 is a threshold too).
	BinarizeSet bool
}

// UpdateResult summarises an Append or Forget: the stored model and the statistics of the rows added or
// removed (Part: its classes, rows, skipped rows).
type UpdateResult struct {
	Model    *nb.Model
	Part     *nb.Model
	Duration time.Duration
	// Warnings say where the result may fall short of the model of the remaining rows (Forget:
	// forgetRounding).
	Warnings []string
}

// Append adds the statistics of the rows of spec.Source to the stored model spec.Model (scikit-learn's
// partial_fit): the rows are scanned as the model's training was — same features, kinds, weight column,
// binarize threshold and tokenizer — and merged into it exactly (Merge); classes may be new. The model is
// replaced in one transaction, on the condition that it is still the version read (a concurrent change
// makes it merge again), so no update is lost and readers see the old model or the new one. A fitted
// model (logistic regression) cannot: ErrNotMergeable.
func Append(ctx context.Context, db nb.DB, spec UpdateSpec) (*UpdateResult, error) {
	res, err := updateModel(ctx, db, spec, func(ctx context.Context, m, part *nb.Model) (*nb.Model, error) {
		order, err := orderLabels(ctx, db, m.LabelType, classLabels(m), classLabels(part))
		if err != nil {
			return nil, err
		}
		known := m.ClassIndex()
		for _, c := range part.Classes {
			if _, ok := known[c.Label]; !ok && m.Weight != "" && c.Weight == 0 {
				return nil, fmt.Errorf("%w: the rows add class %q with total weight 0 in weight column %q: it could never be predicted; "+
					"give its rows positive weights or filter them out", nb.ErrBadValue, c.Label, m.Weight)
			}
		}
		if m.Params.Text("priors") == nb.PriorsGiven {
			var added []string
			for _, c := range part.Classes {
				if _, ok := known[c.Label]; !ok {
					added = append(added, c.Label)
				}
			}
			if len(added) > 0 { // a given prior cannot be made up for a new class
				return nil, fmt.Errorf("%w: model %q has given priors, and the rows add %s, which %s none: set fit priors first "+
					"(models set --priors fit; nb_set), add the rows, then give every class its prior", nb.ErrBadOption, m.Name,
					strings.Join(quoteAll(added), ", "), map[bool]string{true: "has", false: "have"}[len(added) == 1])
			}
		}
		out, err := Merge(m, order, m, part)
		if err != nil {
			return nil, err
		}
		out.Generation = nb.NewGeneration()
		out.Source = updatedSource(m.Source, "+", spec.Source)
		return out, nil
	})
	if err != nil {
		return nil, fmt.Errorf("append to %q: %w", spec.Model, err)
	}
	return res, nil
}

// Forget removes the statistics of the rows of spec.Source — rows the stored model spec.Model was trained
// on, for example a deletion request — from the model (Subtract), scanned as Append scans them, and stores
// the result as Append does. The model then equals the model of the remaining rows: a class left without
// rows is dropped. Forgetting rows that were never trained is an error (ErrCannotForget) only where a count,
// weight or variance would fall below zero or a class, value or term was never counted; otherwise it cannot
// be detected.
func Forget(ctx context.Context, db nb.DB, spec UpdateSpec) (*UpdateResult, error) {
	var before *nb.Model
	res, err := updateModel(ctx, db, spec, func(_ context.Context, m, part *nb.Model) (*nb.Model, error) {
		before = m
		out, err := Subtract(m, part)
		if err != nil {
			return nil, err
		}
		// A feature whose rows to forget hold no value (NULL) where the trained rows had one leaves its
		// statistics counting more rows than their class keeps (it said "invalid model ... more than the
		// class's", as if the store were corrupt).
		var re *nb.RowError
		if verr := families.Validate(out); errors.As(verr, &re) && errors.Is(re.Err, nb.ErrBeyondClass) {
			return nil, fmt.Errorf("%w: model %q: the rows to forget do not match the rows that were trained: after forgetting them, %s "+
				"would count more rows than its class keeps — rows to forget must hold the values they were trained with (a NULL "+
				"where the trained row had a value is a different row); forget exactly the rows that were trained", nb.ErrCannotForget, m.Name, re.Detail)
		}
		out.Source = updatedSource(m.Source, "−", spec.Source)
		if m.Params.Text("priors") == nb.PriorsGiven && len(out.Classes) < len(m.Classes) {
			left := out.ClassIndex()
			var gone []string
			for _, c := range m.Classes {
				if _, ok := left[c.Label]; !ok {
					gone = append(gone, c.Label)
				}
			}
			return nil, fmt.Errorf("%w: model %q has given priors, and forgetting the rows removes %s, whose prior the others would have "+
				"to make up: set fit priors first (models set --priors fit; nb_set), forget the rows, then give the classes left their priors",
				nb.ErrBadOption, m.Name, strings.Join(quoteAll(gone), ", "))
		}
		return out, nil
	})
	if err != nil {
		return nil, fmt.Errorf("forget from %q: %w", spec.Model, err)
	}
	res.Warnings = forgetRounding(before, res.Model)
	return res, nil
}

// updatedSource records rows added (+) or forgotten (−) in a model's source text, as merge records its
// inputs ("A + B − C"): the model no longer stands for its first source alone. A long history keeps its
// start and its newest step.
func updatedSource(source, op, rows string) string {
	if r := []rune(source); len(r) > 400 {
		source = string(r[:400]) + " …"
	}
	if r := []rune(rows); len(r) > 590 {
		rows = string(r[:590]) + " …"
	}
	return source + " " + op + " " + rows
}

// forgetRounding warns of the features of model after, which Forget made from model before, whose
// estimates may be off by more than 1e-11 relative (each family that can tell says: ForgetWarner), the
// worst estimate of each feature. Training on the remaining rows computes them afresh.
func forgetRounding(before, after *nb.Model) []string {
	worst := map[string]nb.RoundingWarning{}
	for _, g := range families.ByFamily(after.Features) {
		fw, ok := g.Family.(nb.ForgetWarner)
		if !ok {
			continue
		}
		for _, w := range fw.ForgetRounding(before, after) {
			if w.Off > 1e-11 && w.Off > worst[w.Feature].Off {
				worst[w.Feature] = w
			}
		}
	}
	var out []string
	for _, f := range nb.SortedKeys(worst) {
		w := worst[f]
		out = append(out, fmt.Sprintf("feature %q: its %s may be off by about %.1g relative, as the rounding of the sums grows "+
			"when most of a class's rows are forgotten (%s): train the model again on the remaining rows for every digit", f, w.Estimate, w.Off, w.When))
	}
	return out
}

// updateModel loads the model, scans the rows once, and stores combine(model, rows) provided the stored
// model is still the version loaded; if it changed meanwhile, it loads it again and combines again.
func updateModel(ctx context.Context, db nb.DB, spec UpdateSpec, combine func(ctx context.Context, m, part *nb.Model) (*nb.Model, error)) (*UpdateResult, error) {
	start := time.Now()
	if err := nb.ValidateName(spec.Model); err != nil {
		return nil, err
	}
	m, err := Load(ctx, db, spec.Model)
	if err != nil {
		return nil, err
	}
	if err := storedMergeable(m); err != nil {
		return nil, err
	}
	ts, err := updateTrainSpec(m, spec)
	if err != nil {
		return nil, err
	}
	part, err := scanRows(ctx, db, ts)
	if err != nil {
		return nil, fmt.Errorf("model %q: %w", m.Name, err)
	}
	alignNames(m, part)
	if err := sameFeatures(m, part, "the rows"); err != nil {
		return nil, err
	}
	var out *nb.Model
	err = store.RetryConflicts(ctx, m.Name, func(ctx context.Context) error {
		if m == nil {
			if m, err = Load(ctx, db, spec.Model); err != nil {
				return err
			}
			alignNames(m, part)
			if err := sameFeatures(m, part, "the rows"); err != nil {
				return err
			}
		}
		next, err := combine(ctx, m, part)
		if err != nil {
			return err
		}
		if err := finish(next, spec.Options.Force); err != nil {
			return err
		}
		err = saveIfUnchanged(ctx, db, next, m.Generation)
		m, out = nil, next // a conflict loads the model again
		return err
	})
	if err != nil {
		return nil, err
	}
	return &UpdateResult{Model: out, Part: part, Duration: time.Since(start)}, nil
}

// finish checks a combined model as training checks a new one: valid, not too many classes, and compilable.
func finish(m *nb.Model, force bool) error {
	if _, err := checkClasses(m.Label, len(m.Classes), m.Rows, force); err != nil {
		return err
	}
	if err := families.Validate(m); err != nil {
		// The parts were valid: their sums overflowed (it said "invalid model", as if the store were corrupt).
		var re *nb.RowError
		if errors.As(err, &re) && errors.Is(re.Err, nb.ErrNotFinite) {
			return fmt.Errorf("%w: model %q: the combined statistics of %s overflow a DOUBLE: the values are too large for the sums of "+
				"their squares; rescale the feature (for example divide it by a power of ten) in every part and train them again",
				nb.ErrBadValue, m.Name, re.Detail)
		}
		return err
	}
	_, err := Compile(m)
	return err
}

// errModelChanged: the stored model is not the version that was read (retried by retryConflicts).
var errModelChanged = errors.New("Conflict on update: the model was changed meanwhile")

// saveIfUnchanged stores m in one transaction provided the stored model of m's name has generation want
// (want "": none is stored); else errModelChanged, or ErrModelExists when a model appeared where none was.
func saveIfUnchanged(ctx context.Context, db nb.DB, m *nb.Model, want string) error {
	m.Version = nb.FormatVersion
	if err := theStore.EnsureStore(ctx, db); err != nil {
		return err
	}
	return store.InTransaction(ctx, db, func(t *store.StoreTx) error {
		q := t.Querier
		var gen sql.NullString
		if err := q.QueryRowContext(ctx, queries.SQL("store_model_generation.sql"), m.Name).Scan(&gen); err != nil && !errors.Is(err, sql.ErrNoRows) {
			return err
		}
		switch {
		case gen.String == want:
			return theStore.SaveTx(ctx, t, m)
		case want == "":
			return fmt.Errorf("%w: model %q was stored by another command meanwhile: merge into another name, or replace it (--replace, replace := true)", nb.ErrModelExists, m.Name)
		}
		return errModelChanged
	})
}

// scanRows computes the statistics of the rows of spec's source as training does (the same scans), without
// the checks that apply to a whole model: the rows may hold a single class.
func scanRows(ctx context.Context, db nb.Querier, spec TrainSpec) (*nb.Model, error) {
	p, err := makePlan(ctx, db, spec)
	if err != nil {
		return nil, err
	}
	p.Params = *spec.Params
	sc, err := trainStats(ctx, db, p, "")
	if err != nil {
		return nil, err
	}
	part := sc.Part(0)
	m := &nb.Model{Name: spec.Model, Label: p.Label.Name, LabelType: p.Label.Type, Weight: p.Weight, Source: spec.Source,
		Params: p.Params, Features: p.Features, Classes: part.ClassList(sc.Order), SkippedRows: part.Skipped,
		IncompleteRows: part.Incomplete, Stats: part.Stats}
	for _, c := range m.Classes {
		m.Rows += c.Count
	}
	if m.Rows == 0 {
		return nil, fmt.Errorf("%w: source %s has no rows with a non-NULL label %q", nb.ErrNoRows, p.Src.Quoted(), p.Label.Name)
	}
	return m, nil
}

// updateTrainSpec checks the options of spec against model m (set ones must equal the model's) and returns
// the training spec that scans rows as m's training did.
func updateTrainSpec(m *nb.Model, spec UpdateSpec) (TrainSpec, error) {
	o := spec.Options
	bad := func(format string, args ...any) error {
		return fmt.Errorf("%w: model %q %s", nb.ErrBadOption, m.Name, fmt.Sprintf(format, args...))
	}
	if o.SemiSupervised {
		return TrainSpec{}, bad("cannot take rows semi-supervised: adding or forgetting rows sums the statistics of labelled rows, " +
			"and EM would have to refit the whole model; train it again with --semi-supervised (semi_supervised := true) on all the rows")
	}
	if len(o.By) > 0 {
		return TrainSpec{}, bad("cannot take --by (by :=) when rows are added or forgotten: per-group models are trained whole; " +
			"train it again with --by on all the rows")
	}
	// Names are matched as DuckDB matches identifiers (ASCII case aside): the rows' "Y" is the model's "y".
	if spec.Label != "" && !nb.EqualFoldIdent(spec.Label, m.Label) {
		return TrainSpec{}, bad("has the label column %q, not %q: the rows must have the same label", m.Label, spec.Label)
	}
	if o.Weight != "" && !nb.EqualFoldIdent(o.Weight, m.Weight) {
		if m.Weight == "" {
			return TrainSpec{}, bad("has no weight column, so its rows cannot take weight column %q: leave --weight out, or train a new model", o.Weight)
		}
		return TrainSpec{}, bad("has the weight column %q, not %q: %s", m.Weight, o.Weight, asTrained)
	}
	byName := map[string]nb.Feature{}
	for _, f := range m.Features {
		byName[nb.FoldIdent(f.Name)] = f
	}
	ts := TrainSpec{Model: m.Name, Source: spec.Source, Label: m.Label, Weight: m.Weight, Force: true, FeatureKinds: map[string]nb.Kind{}}
	termsFeature := ""
	if o.Terms == "" && (o.Doc != "" || o.Term != "" || o.Count != "" || o.TermsFeature != "" && o.TermsFeature != "terms") {
		return TrainSpec{}, fmt.Errorf("%w: --doc, --term, --count and --terms-feature (doc :=, term :=, count :=, terms_feature :=) describe a "+
			"term table: give the table with --terms (terms :=)", nb.ErrBadOption)
	}
	if o.Terms != "" {
		termsFeature = o.TermsFeature
		if termsFeature == "" {
			termsFeature = "terms"
		}
		if f, ok := byName[nb.FoldIdent(termsFeature)]; !ok || f.Kind != text.Text || f.Name != termsFeature {
			return TrainSpec{}, bad("has no text feature %q for the term table: name the model's term-table feature with --terms-feature (terms_feature :=)", termsFeature)
		}
		if o.Doc == "" || o.Term == "" || o.Count == "" {
			return TrainSpec{}, fmt.Errorf("%w: a term table needs its document id, term and count columns (--doc, --term, --count)", nb.ErrBadOption)
		}
		ts.Terms = &nb.TermsSpec{Source: o.Terms, Doc: o.Doc, Term: o.Term, Count: o.Count, Feature: termsFeature}
	}
	var names []string
	binarize, tok := math.NaN(), (*nb.TextOptions)(nil)
	for _, f := range m.Features {
		if f.Name == termsFeature {
			continue
		}
		names = append(names, f.Name)
		ts.FeatureKinds[f.Name] = f.Kind
		if families.KindInfo(f.Kind).Binarize {
			if !math.IsNaN(binarize) && binarize != f.Binarize {
				return TrainSpec{}, bad("has features with different binarize thresholds (%g, %g): rows cannot be scanned as it was trained", binarize, f.Binarize)
			}
			binarize = f.Binarize
		}
		if families.KindInfo(f.Kind).Text {
			if tok != nil && !sameText(*tok, f.Text) {
				return TrainSpec{}, bad("has text features with different tokenizer settings: rows cannot be scanned as it was trained")
			}
			tok = &f.Text
		}
	}
	ts.Features = names
	if !math.IsNaN(binarize) {
		ts.Binarize = binarize
	}
	if tok != nil {
		ts.Text = *tok
	}
	for _, f := range m.Features {
		// A text column is VARCHAR: a text feature of this type was made from a term table.
		if f.Kind == text.Text && f.Type == "MAP(VARCHAR, DOUBLE)" && ts.Terms == nil {
			return TrainSpec{}, bad("has the feature %q from a term table: give its rows with --terms, --doc, --term and --count (terms :=, ...)", f.Name)
		}
	}
	// Options the user set must be the model's.
	if len(o.Features) > 0 {
		for _, n := range o.Features {
			if f, ok := byName[nb.FoldIdent(n)]; !ok || f.Name == termsFeature {
				return TrainSpec{}, bad("has no feature %q (features: %s): the rows must have the model's features", n, strings.Join(names, ", "))
			}
		}
		for _, n := range names {
			if !slices.ContainsFunc(o.Features, func(x string) bool { return nb.EqualFoldIdent(x, n) }) {
				return TrainSpec{}, bad("has the feature %q, which --features (features :=) leaves out: the rows must have every feature of the model", n)
			}
		}
	}
	for _, n := range o.Exclude {
		if _, ok := byName[nb.FoldIdent(n)]; ok {
			return TrainSpec{}, bad("has the feature %q, which --exclude (exclude :=) leaves out: the rows must have every feature of the model", n)
		}
	}
	kind, err := ParseKind(o.Kind)
	if err != nil {
		return TrainSpec{}, err
	}
	kinds, err := ParseFeatureKinds(o.FeatureKinds)
	if err != nil {
		return TrainSpec{}, err
	}
	folded := map[string]nb.Kind{}
	for n, k := range kinds {
		if _, ok := byName[nb.FoldIdent(n)]; !ok {
			return TrainSpec{}, bad("has no feature %q (--feature-kind, feature_kinds :=): %s", n, asTrained)
		}
		folded[nb.FoldIdent(n)] = k
	}
	for _, f := range m.Features {
		k, set := folded[nb.FoldIdent(f.Name)], false
		if k != "" {
			set = true
		} else if kind != "" {
			k, set = kind, true
		}
		if set && k != f.Kind {
			return TrainSpec{}, bad("has the feature %q of kind %s, not %s: %s", f.Name, f.Kind, k, asTrained)
		}
	}
	if spec.BinarizeSet || o.Binarize != 0 {
		if !slices.ContainsFunc(m.Features, func(f nb.Feature) bool { return families.KindInfo(f.Kind).Binarize }) {
			return TrainSpec{}, bad("has no bernoulli or text_bernoulli feature: --binarize (binarize :=) does not apply to it")
		}
		for _, f := range m.Features {
			if families.KindInfo(f.Kind).Binarize && f.Binarize != o.Binarize {
				return TrainSpec{}, bad("has the feature %q with binarize threshold %g, not %g: %s", f.Name, f.Binarize, o.Binarize, asTrained)
			}
		}
	}
	asked := nb.TextOptions{StopWords: strings.ToLower(strings.TrimSpace(o.StopWords))}
	if o.Ngrams != nil {
		if *o.Ngrams < 1 || *o.Ngrams > 5 {
			return TrainSpec{}, fmt.Errorf("%w: ngrams %d: use 1 to 5", nb.ErrBadOption, *o.Ngrams)
		}
		asked.Ngrams = *o.Ngrams
	}
	for _, f := range m.Features {
		if !families.KindInfo(f.Kind).Text {
			continue
		}
		if o.Ngrams != nil && max(1, f.Text.Ngrams) != asked.Ngrams {
			return TrainSpec{}, bad("has the text feature %q with ngrams %d, not %d: %s", f.Name, max(1, f.Text.Ngrams), asked.Ngrams, asTrained)
		}
		if asked.StopWords != "" && asked.StopWords != f.Text.StopWords {
			return TrainSpec{}, bad("has the text feature %q with stop words %q, not %q: %s", f.Name, f.Text.StopWords, asked.StopWords, asTrained)
		}
	}
	p, given, err := o.Params(m.Params)
	if err != nil {
		return TrainSpec{}, err
	}
	if name := diffParams(p, m.Params, m); name != "" || given != nil {
		if name == "" {
			name = "priors"
		}
		return TrainSpec{}, bad("keeps its hyperparameters when rows are added or forgotten: %s differs; change it with sqlnb models set (nb_set)", name)
	}
	ts.Params = &p
	return ts, nil
}

// asTrained is what to do about an option of Append or Forget that differs from the model's.
const asTrained = "leave the option out: rows are added and forgotten as the model was trained"

func sameText(a, b nb.TextOptions) bool {
	return max(1, a.Ngrams) == max(1, b.Ngrams) && a.StopWords == b.StopWords
}

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
		va, _ := a.Value(spec.Name)
		vb, _ := b.Value(spec.Name)
		if !a.With(spec.Name, va).Equal(a.With(spec.Name, vb)) {
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

// sameFeatures checks that part (another model, or rows scanned for m) has m's label, label type, weight
// column and features — names, kinds, binarize thresholds, tokenizer settings, and, for categorical
// features, the column type, which decides how values read as categories. what names part in errors.
// alignNames gives part the spelling of base's label, weight and feature names where the two differ only in
// ASCII case: DuckDB reads "X1" and "x1" as one column, so rows read from a source whose column is spelled
// otherwise, or a model trained on it, add to or merge with base as the same column (they were refused as
// different features).
func alignNames(base, part *nb.Model) {
	if part.Label != base.Label && nb.EqualFoldIdent(part.Label, base.Label) {
		part.Label = base.Label
	}
	if part.Weight != base.Weight && nb.EqualFoldIdent(part.Weight, base.Weight) {
		part.Weight = base.Weight
	}
	to := map[string]string{}
	for i := range min(len(base.Features), len(part.Features)) {
		if a, b := base.Features[i].Name, part.Features[i].Name; a != b && nb.EqualFoldIdent(a, b) {
			to[b] = a
		}
	}
	if len(to) == 0 {
		return
	}
	for i, f := range part.Features {
		if n, ok := to[f.Name]; ok {
			part.Features[i].Name = n
		}
	}
	rename := func(s nb.Stats) {
		for _, t := range families.Tables() {
			if rows, ok := s[t.TableName()]; ok {
				t.RenameFeatures(rows, to)
			}
		}
	}
	rename(part.Stats)
	for _, g := range part.Groups {
		rename(g.Stats)
	}
}

func sameFeatures(m, part *nb.Model, what string) error {
	// What to do, unless the difference says it (cast it): models merge when trained alike, and rows are read
	// as the model was trained.
	todo := "train them alike (the same label, weight column and features, of the same kinds and settings)"
	if what == "the rows" {
		todo = "give rows with the model's label, weight column and features"
	}
	bad := func(format string, args ...any) error {
		detail := fmt.Sprintf(format, args...)
		if !strings.Contains(detail, "cast it") {
			detail += ": " + todo
		}
		return fmt.Errorf("%w: model %q and %s differ: %s", nb.ErrBadOption, m.Name, what, detail)
	}
	if m.Label != part.Label {
		return bad("label column %q, not %q", m.Label, part.Label)
	}
	if m.LabelType != part.LabelType && commonInteger(m.LabelType, part.LabelType) == "" {
		return bad("label column %q is %s in model %q but %s in %s: cast it (SELECT CAST(%s AS %s) AS %s, ...)", m.Label, m.LabelType, m.Name,
			part.LabelType, what, queries.Ident(m.Label), m.LabelType, queries.Ident(m.Label))
	}
	if m.Weight != part.Weight {
		return bad("weight column %q, not %q", m.Weight, part.Weight)
	}
	if len(m.Features) != len(part.Features) {
		// Name the columns one side has and the other lacks (it said only "2 features, not 1").
		has := func(fs []nb.Feature, name string) bool {
			return slices.ContainsFunc(fs, func(f nb.Feature) bool { return f.Name == name })
		}
		var only, lacks []string
		for _, f := range m.Features {
			if !has(part.Features, f.Name) {
				lacks = append(lacks, strconv.Quote(f.Name))
			}
		}
		for _, f := range part.Features {
			if !has(m.Features, f.Name) {
				only = append(only, strconv.Quote(f.Name))
			}
		}
		detail := ""
		if len(lacks) > 0 {
			detail += fmt.Sprintf("; %s lacks %s", what, strings.Join(lacks, ", "))
		}
		if len(only) > 0 {
			detail += fmt.Sprintf("; %s has %s, which model %q does not", what, strings.Join(only, ", "), m.Name)
		}
		return bad("%d features, not %d%s", len(m.Features), len(part.Features), detail)
	}
	for i, f := range m.Features {
		g := part.Features[i]
		switch {
		case f.Name != g.Name:
			return bad("feature %d is %q, not %q", i+1, f.Name, g.Name)
		case f.Kind != g.Kind:
			return bad("feature %q is %s, not %s", f.Name, f.Kind, g.Kind)
		case f.Binarize != g.Binarize:
			return bad("feature %q has binarize threshold %g, not %g", f.Name, f.Binarize, g.Binarize)
		case !sameText(f.Text, g.Text):
			return bad("text feature %q has ngrams %d and stop words %q, not %d and %q", f.Name, max(1, f.Text.Ngrams), f.Text.StopWords, max(1, g.Text.Ngrams), g.Text.StopWords)
		case typedValues(f.Kind) && f.Type != g.Type && commonInteger(f.Type, g.Type) == "":
			return bad("categorical feature %q is %s in model %q but %s in %s: its values would read differently; cast it (CAST(%s AS %s))",
				f.Name, f.Type, m.Name, g.Type, what, queries.Ident(f.Name), f.Type)
		}
	}
	return nil
}

// integerBits gives the width of DuckDB's integer types, negative for the unsigned ones (0: not an integer
// type).
var integerBits = map[string]int{"TINYINT": 8, "SMALLINT": 16, "INTEGER": 32, "BIGINT": 64, "HUGEINT": 128,
	"UTINYINT": -8, "USMALLINT": -16, "UINTEGER": -32, "UBIGINT": -64, "UHUGEINT": -128}

// commonInteger returns the narrowest integer type that holds every value of the integer types a and b (a
// label or category column read as INTEGER in one shard and BIGINT in another: their values read alike,
// and scoring matches them by value), or "" if either is not an integer type.
func commonInteger(a, b string) string {
	x, y := integerBits[strings.ToUpper(a)], integerBits[strings.ToUpper(b)]
	if x == 0 || y == 0 {
		return ""
	}
	if x < 0 && y < 0 { // both unsigned
		return "U" + widthName(max(-x, -y))
	}
	if x < 0 {
		x = -2 * x // a signed type holds an unsigned one of half its width
	}
	if y < 0 {
		y = -2 * y
	}
	if max(x, y) > 128 { // UHUGEINT and a signed type: no integer type holds both
		return ""
	}
	return widthName(max(x, y))
}

func widthName(bits int) string {
	return map[int]string{8: "TINYINT", 16: "SMALLINT", 32: "INTEGER", 64: "BIGINT", 128: "HUGEINT"}[bits]
}

// MergeSpec asks for the models Inputs, trained on disjoint rows, to be merged into the model Into.
type MergeSpec struct {
	Into   string
	Inputs []string
	// Replace: a stored model Into that is not one of the inputs may be replaced (else ErrModelExists).
	Replace bool
	// Force: the merged model may have more than MaxClasses classes.
	Force bool
}

// storedMergeable is mergeable for a stored model the user names: a per-group model is refused by its By, as
// one whose every group fell back to the pooled model has no Groups (mergeable alone let it through, and the
// result lost its grouping). Merge itself takes per-group parts: trainGrouped builds the pooled model so.
func storedMergeable(m *nb.Model) error {
	if len(m.By) > 0 {
		return errPerGroup(m)
	}
	for _, g := range families.ByFamily(m.Features) {
		if u, ok := g.Family.(nb.Updater); ok {
			if err := u.Updatable(m); err != nil {
				return err
			}
		}
	}
	return mergeable(m)
}

// MergeModels merges stored models trained on disjoint rows of one source into the model of their union
// (Merge: counts add, moments by Chan et al.'s pairwise update) and stores it as spec.Into in one
// transaction. The models must have the same label, label type, weight column, features (names, kinds,
// binarize thresholds, tokenizer settings; the column type of categorical ones) and hyperparameters.
// Into may be one of the inputs (it is replaced, on the condition that it is still the version read); any
// other stored model of that name is replaced only with spec.Replace. Whether the rows were disjoint
// cannot be checked: rows in two inputs count twice.
func MergeModels(ctx context.Context, db nb.DB, spec MergeSpec) (*nb.Model, error) {
	out, err := mergeModels(ctx, db, spec)
	if err != nil {
		return nil, fmt.Errorf("merge into %q: %w", spec.Into, err)
	}
	return out, nil
}

func mergeModels(ctx context.Context, db nb.DB, spec MergeSpec) (*nb.Model, error) {
	if err := nb.ValidateName(spec.Into); err != nil {
		return nil, err
	}
	if len(spec.Inputs) < 2 {
		return nil, fmt.Errorf("%w: %d model(s) to merge: name at least two", nb.ErrBadOption, len(spec.Inputs))
	}
	for i, n := range spec.Inputs {
		if slices.Contains(spec.Inputs[:i], n) {
			return nil, fmt.Errorf("%w: model %q is named twice: its rows would count twice", nb.ErrBadOption, n)
		}
	}
	var out *nb.Model
	err := store.RetryConflicts(ctx, spec.Into, func(ctx context.Context) error {
		models := make([]*nb.Model, len(spec.Inputs))
		want := "" // the generation of Into, if it is an input
		for i, n := range spec.Inputs {
			m, err := Load(ctx, db, n)
			if err != nil {
				return err
			}
			if err := storedMergeable(m); err != nil {
				return err
			}
			if i > 0 {
				alignNames(models[0], m)
				if err := sameFeatures(models[0], m, fmt.Sprintf("model %q", n)); err != nil {
					return err
				}
				if name := diffParams(models[0].Params, m.Params, m); name != "" {
					return fmt.Errorf("%w: models %q and %q have different %s: set it equal first (sqlnb models set, nb_set)", nb.ErrBadOption, models[0].Name, n, name)
				}
			}
			if n == spec.Into {
				want = m.Generation
			}
			models[i] = m
		}
		replace := spec.Replace && want == ""
		if want == "" && !replace {
			names, err := store.ModelNames(ctx, db)
			if err != nil {
				return err
			}
			if slices.Contains(names, spec.Into) {
				return fmt.Errorf("%w: model %q is stored and is not one of the models merged: merge into another name, or replace it (--replace, replace := true)", nb.ErrModelExists, spec.Into)
			}
		}
		var labels [][]string
		for _, m := range models {
			labels = append(labels, classLabels(m))
		}
		order, err := orderLabels(ctx, db, models[0].LabelType, labels...)
		if err != nil {
			return err
		}
		m, err := Merge(models[0], order, models...)
		if err != nil {
			return err
		}
		m.Name, m.Generation, m.Created = spec.Into, nb.NewGeneration(), time.Now().UTC().Truncate(time.Microsecond)
		m.Source = "merge of " + strings.Join(quoteAll(spec.Inputs), ", ")
		if err := finish(m, spec.Force); err != nil {
			return err
		}
		if replace {
			err = theStore.Put(ctx, db, m)
		} else {
			err = saveIfUnchanged(ctx, db, m, want)
		}
		out = m
		return err
	})
	return out, err
}

func quoteAll(names []string) []string {
	out := make([]string, len(names))
	for i, n := range names {
		out[i] = strconv.Quote(n)
	}
	return out
}

// safeType matches the DuckDB type names that may be written into a CAST (DECIMAL(18,3), DATE, TIMESTAMP WITH
// TIME ZONE, HUGEINT, UUID, ...): letters, digits, spaces, and a parenthesised list of numbers.
var safeType = regexp.MustCompile(`^[A-Za-z][A-Za-z0-9_ ]*(\([0-9]+( ?, ?[0-9]+)?\))?$`)

// orderLabels returns the union of the class label lists (each in model order) in the order of the label
// type, which is the order training gives classes (ORDER BY label): numbers by value, text byte by byte,
// ENUM by position; other types are cast in DuckDB. A type it cannot compare keeps the lists' order of
// first appearance.
func orderLabels(ctx context.Context, q nb.Querier, labelType string, lists ...[]string) ([]string, error) {
	var all []string
	for _, l := range lists {
		for _, s := range l {
			all = nb.AppendNew(all, s)
		}
	}
	typ := strings.ToUpper(strings.TrimSpace(labelType))
	if parse, ok := nb.LabelTypes[typ]; ok {
		vals := make([]any, len(all))
		for i, s := range all {
			v, err := parse(s)
			if err != nil {
				return all, nil // a hand-edited label: keep the order of appearance
			}
			vals[i] = v
		}
		idx := make([]int, len(all))
		for i := range idx {
			idx[i] = i
		}
		sort.SliceStable(idx, func(a, b int) bool { return lessValue(vals[idx[a]], vals[idx[b]]) })
		out := make([]string, len(all))
		for i, j := range idx {
			out[i] = all[j]
		}
		return out, nil
	}
	if levels, ok := nb.EnumLevels(labelType); ok {
		pos := map[string]int{}
		for i, v := range levels {
			pos[v] = i
		}
		out := slices.Clone(all)
		sort.SliceStable(out, func(a, b int) bool { return pos[out[a]] < pos[out[b]] })
		return out, nil
	}
	if !safeType.MatchString(labelType) {
		return all, nil
	}
	stmt, err := queries.Render("order_labels.tmpl.sql", queries.TypeName{Type: labelType})
	if err != nil {
		return nil, err
	}
	rows, err := q.QueryContext(ctx, stmt, all)
	if err != nil {
		return all, nil // labels that do not cast back: keep the order of appearance
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var s string
		if err := rows.Scan(&s); err != nil {
			return nil, err
		}
		out = append(out, s)
	}
	if rows.Err() != nil || len(out) != len(all) {
		return all, nil
	}
	return out, nil
}

// lessValue orders two label values of one Go type (LabelValues' types): numbers by value, false before
// true, text byte by byte (DuckDB's default collation).
func lessValue(a, b any) bool {
	switch x := a.(type) {
	case int64:
		return x < b.(int64)
	case uint64:
		return x < b.(uint64)
	case float64:
		return x < b.(float64)
	case bool:
		return !x && b.(bool)
	case string:
		return x < b.(string)
	}
	return false
}
