package sqlnb

import (
	"context"
	"crypto/rand"
	"database/sql"
	"encoding/hex"

	"fmt"
	"math"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/sqlnb/sqlnb/queries"
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
	// Kind, if set, is the kind of every feature; FeatureKinds overrides it per column.
	Kind         Kind
	FeatureKinds map[string]Kind
	// Weight is an optional sample-weight column (non-negative, not NULL).
	Weight string
	// Params are the hyperparameters stored with the model (zero value: DefaultParams).
	Params *Params
	// GivenPriors are per-class priors when Params.Priors is PriorsGiven.
	GivenPriors map[string]float64
	// Terms, if set, adds a text feature from a long term table (document id, term, count), joined to
	// Source on the document id.
	Terms *TermsSpec
	// Text are the tokenizer settings of the text features.
	Text TextOptions
	// Binarize is the threshold of Bernoulli and text_bernoulli features (Feature.Binarize).
	Binarize float64
}

// TermsSpec names a long term table: one row per (document, term) with a count, joined on Doc to the
// labelled source. The model gains the text feature Feature (default "terms"); score it with a MAP of term
// counts per document, e.g. map_from_entries(list((term, count))) grouped by the document id.
type TermsSpec struct {
	Source  string
	Doc     string
	Term    string
	Count   string
	Feature string
}

// ParseFeatureKinds reads "col=kind,col=kind". A column name may contain "=": the last one splits.
func ParseFeatureKinds(specs []string) (map[string]Kind, error) {
	out := map[string]Kind{}
	for _, s := range specs {
		eq := strings.LastIndexByte(s, '=')
		if eq <= 0 {
			return nil, fmt.Errorf("%w: feature kind %q: use column=kind", ErrBadOption, s)
		}
		k, err := ParseKind(s[eq+1:])
		if err != nil {
			return nil, err
		}
		out[strings.TrimSpace(s[:eq])] = k
	}
	return out, nil
}

// TrainResult summarises a training run.
type TrainResult struct {
	Model    *Model
	Duration time.Duration
}

// Train computes the model's statistics with SQL inside DuckDB (one wide GROUP BY scan for the
// Gaussian features, one GROUPING SETS scan for the categorical and Bernoulli ones) and stores the
// model, replacing one of the same name in a single transaction: a failed training leaves the old
// model as it was. Outcomes of bad input:
//   - NULL label: the row is skipped and counted in Model.SkippedRows.
//   - NULL feature value: left out of that feature's statistics (seed 004: 103/157, not 103/182).
//   - NaN in a Gaussian feature: read as NULL; ±Inf: an error naming the column.
//   - no labelled rows: ErrNoRows; one class: ErrOneClass; NULL or negative weight: ErrBadValue.
func Train(ctx context.Context, db DB, spec TrainSpec) (*TrainResult, error) {
	start := time.Now()
	m, err := trainModel(ctx, db, spec)
	if err != nil {
		return nil, fmt.Errorf("train %q: %w", spec.Model, err)
	}
	if err := Save(ctx, db, m); err != nil {
		return nil, fmt.Errorf("train %q: %w", spec.Model, err)
	}
	return &TrainResult{Model: m, Duration: time.Since(start)}, nil
}

// plan is a resolved training request.
type plan struct {
	src        Source
	allColumns []Column
	terms      *termsPlan
	label      Column
	weight     string
	features   []Feature
	types      map[string]typeClass
}

func trainModel(ctx context.Context, db DB, spec TrainSpec) (*Model, error) {
	if err := ValidateName(spec.Model); err != nil {
		return nil, err
	}
	params := DefaultParams()
	if spec.Params != nil {
		params = *spec.Params
	}
	if err := params.Validate(); err != nil {
		return nil, err
	}
	p, err := makePlan(ctx, db, spec)
	if err != nil {
		return nil, err
	}
	m := &Model{
		Name: spec.Model, Label: p.label.Name, LabelType: p.label.Type, Weight: p.weight, Source: spec.Source,
		Params: params, Created: time.Now().UTC().Truncate(time.Microsecond), Version: FormatVersion,
		Generation: newGeneration(), Features: p.features,
	}
	parts, order, err := trainStats(ctx, db, p, "")
	if err != nil {
		return nil, err
	}
	var classes []Class
	var skipped int64
	if part := parts[0]; part != nil {
		classes, skipped, m.Gaussian, m.Counts, m.Totals, m.Terms = part.classList(order), part.skipped, part.gauss, part.counts, part.totals, part.terms
	}
	m.Classes, m.SkippedRows = classes, skipped
	for _, c := range classes {
		m.Rows += c.Count
	}
	if m.Rows == 0 {
		return nil, fmt.Errorf("%w: source %q has no rows with a non-NULL label %q", ErrNoRows, spec.Source, p.label.Name)
	}
	if len(classes) == 1 {
		return nil, fmt.Errorf("%w: label column %q has the single class %q: a classifier needs at least two",
			ErrOneClass, p.label.Name, classes[0].Label)
	}
	if p.weight != "" {
		total := 0.0
		for _, c := range classes {
			total += c.Weight
		}
		if !(total > 0) {
			return nil, fmt.Errorf("%w: weight column %q sums to 0: give some rows a positive weight", ErrBadValue, p.weight)
		}
	}
	if params.Priors == PriorsGiven {
		if err := applyGivenPriors(m, spec.GivenPriors); err != nil {
			return nil, err
		}
	}
	if err := m.Validate(); err != nil {
		return nil, err
	}
	return m, nil
}

func applyGivenPriors(m *Model, given map[string]float64) error {
	known := m.ClassIndex()
	for label := range given {
		if _, ok := known[label]; !ok {
			return fmt.Errorf("%w: prior for class %q, which is not in the training data (classes: %s)",
				ErrBadOption, label, strings.Join(classLabels(m), ", "))
		}
	}
	for i := range m.Classes {
		p, ok := given[m.Classes[i].Label]
		if !ok {
			return fmt.Errorf("%w: no prior given for class %q", ErrBadOption, m.Classes[i].Label)
		}
		m.Classes[i].Prior = p
	}
	return nil
}

func classLabels(m *Model) []string {
	out := make([]string, len(m.Classes))
	for i, c := range m.Classes {
		out[i] = c.Label
	}
	return out
}

func newGeneration() string {
	var b [12]byte
	_, _ = rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

func makePlan(ctx context.Context, db Querier, spec TrainSpec) (*plan, error) {
	src, err := ResolveSource(ctx, db, spec.Source)
	if err != nil {
		return nil, err
	}
	cols, err := Describe(ctx, db, src)
	if err != nil {
		return nil, err
	}
	p := &plan{src: src, allColumns: cols, types: map[string]typeClass{}}
	label, ok := findColumn(cols, spec.Label)
	if !ok {
		return nil, fmt.Errorf("%w: label column %q is not in the source (columns: %s)", ErrUnknownColumn, spec.Label, columnNames(cols))
	}
	p.label = label
	if spec.Weight != "" {
		w, ok := findColumn(cols, spec.Weight)
		if !ok {
			return nil, fmt.Errorf("%w: weight column %q is not in the source (columns: %s)", ErrUnknownColumn, spec.Weight, columnNames(cols))
		}
		if !classifyType(w.Type).numeric() {
			return nil, fmt.Errorf("%w: weight column %q has type %s: it must be numeric", ErrBadType, w.Name, w.Type)
		}
		if w.Name == label.Name {
			return nil, fmt.Errorf("%w: weight column %q is the label", ErrBadOption, w.Name)
		}
		p.weight = w.Name
	}
	doc := ""
	if spec.Terms != nil {
		tp, err := planTerms(ctx, db, cols, spec.Terms)
		if err != nil {
			return nil, err
		}
		p.terms, doc = tp, tp.doc
	}
	var chosen []Column
	if len(spec.Features) == 0 {
		for _, c := range cols {
			if c.Name != label.Name && c.Name != p.weight && c.Name != doc {
				chosen = append(chosen, c)
			}
		}
	} else {
		seen := map[string]bool{}
		for _, name := range spec.Features {
			c, ok := findColumn(cols, name)
			if !ok {
				return nil, fmt.Errorf("%w: feature column %q is not in the source (columns: %s)", ErrUnknownColumn, name, columnNames(cols))
			}
			if c.Name == label.Name || c.Name == p.weight {
				return nil, fmt.Errorf("%w: feature %q is the label or weight column", ErrBadOption, c.Name)
			}
			if !seen[c.Name] {
				seen[c.Name] = true
				chosen = append(chosen, c)
			}
		}
	}
	if len(chosen) == 0 && p.terms == nil {
		return nil, fmt.Errorf("%w: no feature columns: the source has only the label (and weight)", ErrBadOption)
	}
	kinds := map[string]Kind{}
	for name, k := range spec.FeatureKinds {
		c, ok := findColumn(chosen, name)
		if !ok {
			return nil, fmt.Errorf("%w: --feature-kind names %q, which is not a feature (features: %s)", ErrUnknownColumn, name, columnNames(chosen))
		}
		kinds[c.Name] = k
	}
	for _, c := range chosen {
		k := kinds[c.Name]
		if k == "" {
			k = spec.Kind
		}
		kind, err := chooseKind(c, k)
		if err != nil {
			return nil, err
		}
		f := Feature{Name: c.Name, Kind: kind, Type: c.Type}
		if kind == Bernoulli || kind == TextBernoulli {
			f.Binarize = spec.Binarize
		}
		if kind.IsText() {
			if err := spec.Text.Validate(); err != nil {
				return nil, err
			}
			f.Text = spec.Text
		}
		p.features = append(p.features, f)
		p.types[c.Name] = classifyType(c.Type)
	}
	if p.terms != nil {
		for _, f := range p.features {
			if f.Name == p.terms.feature {
				return nil, fmt.Errorf("%w: the term table's feature name %q is also a column: choose another with --terms-feature", ErrBadOption, f.Name)
			}
		}
		p.features = append(p.features, Feature{Name: p.terms.feature, Kind: Text, Type: "MAP(VARCHAR, DOUBLE)"})
	}
	if err := checkCountKinds(p.features); err != nil {
		return nil, err
	}
	for _, f := range p.features {
		if f.Kind == TextBernoulli && p.weight != "" {
			return nil, fmt.Errorf("%w: feature %q is text_bernoulli, which does not take sample weights yet: use text, or drop --weight", ErrBadOption, f.Name)
		}
	}
	return p, nil
}

// termsPlan is a resolved long term table.
type termsPlan struct {
	src                       Source
	doc, term, count, feature string
}

func planTerms(ctx context.Context, db Querier, labelled []Column, ts *TermsSpec) (*termsPlan, error) {
	src, err := ResolveSource(ctx, db, ts.Source)
	if err != nil {
		return nil, fmt.Errorf("term table: %w", err)
	}
	cols, err := Describe(ctx, db, src)
	if err != nil {
		return nil, fmt.Errorf("term table: %w", err)
	}
	tp := &termsPlan{src: src, feature: ts.Feature}
	if tp.feature == "" {
		tp.feature = "terms"
	}
	d, ok := findColumn(labelled, ts.Doc)
	if !ok {
		return nil, fmt.Errorf("%w: document id column %q is not in the labelled source (columns: %s)", ErrUnknownColumn, ts.Doc, columnNames(labelled))
	}
	if _, ok := findColumn(cols, d.Name); !ok {
		return nil, fmt.Errorf("%w: document id column %q is not in the term table (columns: %s)", ErrUnknownColumn, d.Name, columnNames(cols))
	}
	tp.doc = d.Name
	for _, x := range []struct {
		name string
		dst  *string
		what string
	}{{ts.Term, &tp.term, "term"}, {ts.Count, &tp.count, "count"}} {
		c, ok := findColumn(cols, x.name)
		if !ok {
			return nil, fmt.Errorf("%w: %s column %q is not in the term table (columns: %s)", ErrUnknownColumn, x.what, x.name, columnNames(cols))
		}
		*x.dst = c.Name
	}
	if c, _ := findColumn(cols, tp.count); !classifyType(c.Type).numeric() {
		return nil, fmt.Errorf("%w: count column %q has type %s: it must be numeric", ErrBadType, c.Name, c.Type)
	}
	return tp, nil
}

// chooseKind picks the kind of column c: asked (non-empty) or from its type: numbers are Gaussian;
// VARCHAR, ENUM and BOOLEAN categorical.
func chooseKind(c Column, asked Kind) (Kind, error) {
	tc := classifyType(c.Type)
	switch asked {
	case "":
		switch {
		case tc.numeric():
			return Gaussian, nil
		case tc == typeText || tc == typeBool:
			return Categorical, nil
		}
		return "", fmt.Errorf("%w: feature %q has type %s, which has no default distribution: "+
			"leave it out with --features, mark it --feature-kind %s=categorical, or cast it", ErrBadType, c.Name, c.Type, c.Name)
	case Gaussian:
		if !tc.numeric() {
			return "", fmt.Errorf("%w: feature %q has type %s: a Gaussian feature must be numeric", ErrBadType, c.Name, c.Type)
		}
	case Bernoulli:
		if !tc.numeric() && tc != typeBool {
			return "", fmt.Errorf("%w: feature %q has type %s: a Bernoulli feature must be BOOLEAN or numeric (present = value > 0)", ErrBadType, c.Name, c.Type)
		}
	case Text, TextBernoulli, TextComplement:
		if tc != typeText || strings.HasPrefix(strings.ToUpper(c.Type), "ENUM") {
			return "", fmt.Errorf("%w: feature %q has type %s: a text feature must be VARCHAR", ErrBadType, c.Name, c.Type)
		}
	case Multinomial, Complement:
		if !tc.numeric() {
			return "", fmt.Errorf("%w: feature %q has type %s: a %s (count) feature must be numeric", ErrBadType, c.Name, c.Type, asked)
		}
	case Categorical:
		if tc == typeOther && (strings.HasSuffix(c.Type, "]") || strings.HasPrefix(strings.ToUpper(c.Type), "STRUCT") ||
			strings.HasPrefix(strings.ToUpper(c.Type), "MAP")) {
			return "", fmt.Errorf("%w: feature %q has nested type %s, which cannot be a category", ErrBadType, c.Name, c.Type)
		}
		if tc == typeOther {
			return "", fmt.Errorf("%w: feature %q has type %s: a categorical feature must be VARCHAR, ENUM, BOOLEAN or numeric (cast it)", ErrBadType, c.Name, c.Type)
		}
	}
	return asked, nil
}

// partial holds the statistics of one fold (or of the whole source: fold 0).
type partial struct {
	classes map[string]Class
	skipped int64
	gauss   []GaussianStat
	counts  []CategoryCount
	totals  []CountStat
	terms   []TermCount
}

// classList returns the classes of the partial in the global order.
func (p *partial) classList(order []string) []Class {
	var out []Class
	for _, l := range order {
		if c, ok := p.classes[l]; ok {
			out = append(out, c)
		}
	}
	return out
}

func partOf(parts map[int64]*partial, f int64) *partial {
	if parts[f] == nil {
		parts[f] = &partial{classes: map[string]Class{}}
	}
	return parts[f]
}

// trainStats runs the statistics scans: moments for the Gaussian features, counts for the others, per
// fold when fold (an SQL expression over the source row t) is set, else as fold 0. order lists every
// class in the label's own order.
func trainStats(ctx context.Context, db Querier, p *plan, fold string) (map[int64]*partial, []string, error) {
	var gauss, cats, sums, texts []Feature
	for _, f := range p.features {
		switch {
		case f.Kind == Gaussian:
			gauss = append(gauss, f)
		case f.Kind.Counted():
			sums = append(sums, f)
		case f.Kind.IsText():
			texts = append(texts, f)
		default:
			cats = append(cats, f)
		}
	}
	parts := map[int64]*partial{}
	var order []string
	if len(sums) > 0 {
		o, err := trainSums(ctx, db, p, sums, fold, parts, len(gauss) == 0 && len(cats) == 0)
		if err != nil {
			return nil, nil, err
		}
		order = o
	}
	if len(gauss) > 0 {
		o, err := trainMoments(ctx, db, p, gauss, fold, parts)
		if err != nil {
			return nil, nil, err
		}
		if order == nil {
			order = o
		}
	}
	if len(cats) > 0 || (len(texts) > 0 && order == nil) {
		// With text features only, a counts scan over no feature gives the classes.
		o, err := trainCounts(ctx, db, p, cats, fold, parts, len(gauss) == 0 && len(sums) == 0)
		if err != nil {
			return nil, nil, err
		}
		if order == nil {
			order = o
		}
	}
	for _, f := range texts {
		var err error
		if p.terms != nil && f.Name == p.terms.feature {
			err = trainLongTerms(ctx, db, p, fold, parts)
		} else {
			err = trainTerms(ctx, db, p, f, fold, parts)
		}
		if err != nil {
			return nil, nil, err
		}
	}
	return parts, order, nil
}

// trainLongTerms runs train_long_terms: the term table joined to the labelled source.
func trainLongTerms(ctx context.Context, db Querier, p *plan, fold string, parts map[int64]*partial) error {
	tp := p.terms
	stmt, err := queries.Render("train_long_terms.tmpl.sql", map[string]any{"From": p.src.FromAt(1),
		"TermsFrom": tp.src.FromAt(len(p.src.Args) + 1), "Label": p.label.Name, "Weight": p.weight, "Fold": fold,
		"Doc": tp.doc, "Term": tp.term, "Count": tp.count, "Threshold": fmt.Sprintf("$%d", len(p.src.Args)+len(tp.src.Args)+1)})
	if err != nil {
		return err
	}
	rows, err := db.QueryContext(ctx, stmt, append(append(append([]any{}, p.src.Args...), tp.src.Args...), 0.0)...)
	if err != nil {
		return fmt.Errorf("count the term table: %w", err)
	}
	defer rows.Close()
	var t TermCount
	var fold64, bad int64
	ptrs := []any{&t.Class, &t.Term, &t.Count, &t.Docs, &t.Present, &t.Weight, &bad}
	if fold != "" {
		ptrs = append([]any{&fold64}, ptrs...)
	}
	for rows.Next() {
		if err := rows.Scan(ptrs...); err != nil {
			return err
		}
		if bad > 0 {
			return fmt.Errorf("%w: count column %q of the term table holds negative, NaN or infinite counts (term %q): counts must be ≥ 0",
				ErrBadValue, tp.count, t.Term)
		}
		t.Feature = tp.feature
		part := partOf(parts, fold64)
		part.terms = append(part.terms, t)
	}
	if err := rows.Err(); err != nil {
		return fmt.Errorf("count the term table: %w", err)
	}
	return nil
}

// trainTerms runs train_terms for the text feature f: per (fold,) class and term its occurrences.
func trainTerms(ctx context.Context, db Querier, p *plan, f Feature, fold string, parts map[int64]*partial) error {
	stmt, err := queries.Render("train_terms.tmpl.sql", map[string]any{"From": p.src.From, "Label": p.label.Name,
		"Weight": p.weight, "Fold": fold, "Tokens": f.Text.SQL(queries.Ident(f.Name)), "Threshold": fmt.Sprintf("$%d", len(p.src.Args)+1)})
	if err != nil {
		return err
	}
	rows, err := db.QueryContext(ctx, stmt, append(append([]any{}, p.src.Args...), f.Binarize)...)
	if err != nil {
		return fmt.Errorf("count the terms of %q: %w", f.Name, err)
	}
	defer rows.Close()
	var t TermCount
	var fold64 int64
	var w sql.NullFloat64
	ptrs := []any{&t.Class, &t.Term, &t.Count, &t.Docs, &t.Present}
	if fold != "" {
		ptrs = append([]any{&fold64}, ptrs...)
	}
	if p.weight != "" {
		ptrs = append(ptrs, &w)
	}
	for rows.Next() {
		if err := rows.Scan(ptrs...); err != nil {
			return err
		}
		t.Feature, t.Weight = f.Name, float64(t.Count)
		if p.weight != "" {
			t.Weight = w.Float64
		}
		part := partOf(parts, fold64)
		part.terms = append(part.terms, t)
	}
	if err := rows.Err(); err != nil {
		return fmt.Errorf("count the terms of %q: %w", f.Name, err)
	}
	return nil
}

type momentFeature struct {
	Name      string
	Cast      bool
	NaNToNull bool
}

// trainMoments runs train_moments: per (fold,) class the counts and weights, the rows with a NULL label
// and the statistics of every Gaussian feature, into parts.
func trainMoments(ctx context.Context, db Querier, p *plan, feats []Feature, fold string, parts map[int64]*partial) ([]string, error) {
	mf := make([]momentFeature, len(feats))
	for i, f := range feats {
		mf[i] = momentFeature{Name: f.Name, Cast: p.types[f.Name] != typeFloat}
	}
	run := func() ([]string, error) {
		for _, part := range parts {
			part.gauss = nil
		}
		rows, err := runStats(ctx, db, p, "train_moments.tmpl.sql", mf, fold, "compute Gaussian statistics")
		if err != nil {
			return nil, err
		}
		defer rows.Close()
		return scanMoments(rows, p, feats, fold != "", parts)
	}
	order, err := run()
	if err == nil || !strings.Contains(err.Error(), "out of range") {
		return order, err
	}
	// var_pop rejects NaN and ±Inf: find which, reject infinities by column, read NaN as NULL.
	var floats []momentFeature
	for _, f := range mf {
		if !f.Cast {
			floats = append(floats, f)
		}
	}
	if len(floats) == 0 {
		return nil, err
	}
	stmt, rerr := queries.Render("train_nonfinite.tmpl.sql", map[string]any{"From": p.src.From, "Label": p.label.Name, "Features": floats})
	if rerr != nil {
		return nil, rerr
	}
	counts := make([]int64, 2*len(floats))
	ptrs := make([]any, len(counts))
	for i := range counts {
		ptrs[i] = &counts[i]
	}
	if rerr := db.QueryRowContext(ctx, stmt, p.src.Args...).Scan(ptrs...); rerr != nil {
		return nil, fmt.Errorf("%w (and checking for NaN and infinity failed: %v)", err, rerr)
	}
	var infs []string
	nan := map[string]bool{}
	for i, f := range floats {
		if counts[2*i] > 0 {
			infs = append(infs, fmt.Sprintf("%q (%d rows)", f.Name, counts[2*i]))
		}
		if counts[2*i+1] > 0 {
			nan[f.Name] = true
		}
	}
	if len(infs) > 0 {
		return nil, fmt.Errorf("%w: Gaussian feature %s holds infinite values: filter them out or replace them with NULL (missing)",
			ErrBadValue, strings.Join(infs, ", "))
	}
	for i := range mf {
		mf[i].NaNToNull = nan[mf[i].Name]
	}
	return run()
}

func scanMoments(rows *sql.Rows, p *plan, feats []Feature, folded bool, parts map[int64]*partial) ([]string, error) {
	per := 3
	if p.weight != "" {
		per = 6
	}
	head := 1 // n
	if p.weight != "" {
		head = 4 // n, n_weight, min_weight, weight
	}
	vals := make([]sql.NullFloat64, head+per*len(feats))
	var class sql.NullString
	var fold int64
	var ptrs []any
	if folded {
		ptrs = append(ptrs, &fold)
	}
	ptrs = append(ptrs, &class)
	for i := range vals {
		ptrs = append(ptrs, &vals[i])
	}
	var order []string
	for rows.Next() {
		if err := rows.Scan(ptrs...); err != nil {
			return nil, err
		}
		part := partOf(parts, fold)
		cl, ok, err := classRow(p, class, vals)
		if err != nil {
			return nil, err
		}
		if !ok {
			part.skipped = cl.Count
			continue
		}
		order = appendNew(order, cl.Label)
		part.classes[cl.Label] = cl
		for j, f := range feats {
			v := vals[head+per*j:]
			g := GaussianStat{Feature: f.Name, Class: class.String, Count: int64(v[0].Float64)}
			if g.Count > 0 {
				g.Mean = v[1].Float64
				g.M2 = v[2].Float64 * float64(g.Count)
			}
			g.Weight, g.WMean, g.WM2 = float64(g.Count), g.Mean, g.M2
			if p.weight != "" {
				g.Weight = v[3].Float64
				if g.Weight > 0 {
					s1, s2 := v[4].Float64, v[5].Float64 // Σ w(x-s), Σ w(x-s)², s = unweighted mean
					g.WMean = g.Mean + s1/g.Weight
					g.WM2 = math.Max(0, s2-s1*s1/g.Weight)
				} else {
					g.WMean, g.WM2 = 0, 0
				}
			}
			part.gauss = append(part.gauss, g)
		}
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("compute Gaussian statistics: %w", err)
	}
	return order, nil
}

func checkWeights(col string, n, nonNull int64, minW sql.NullFloat64) error {
	if nonNull < n {
		return fmt.Errorf("%w: weight column %q is NULL in %d rows: give every row a weight (or filter them out)", ErrBadValue, col, n-nonNull)
	}
	if minW.Valid && (minW.Float64 < 0 || math.IsNaN(minW.Float64) || math.IsInf(minW.Float64, 0)) {
		return fmt.Errorf("%w: weight column %q holds %v: weights must be finite and ≥ 0", ErrBadValue, col, minW.Float64)
	}
	return nil
}

type countFeature struct {
	Name      string
	Binarize  bool
	Threshold string // bound parameter $n of the binarize threshold
}

// trainCounts runs train_counts into parts: value counts from the (label, feature) sets and, when
// withClasses, the classes and skipped rows from the (label) set.
func trainCounts(ctx context.Context, db Querier, p *plan, feats []Feature, fold string, parts map[int64]*partial, withClasses bool) ([]string, error) {
	cf := make([]countFeature, len(feats))
	var thresholds []any
	for i, f := range feats {
		cf[i] = countFeature{Name: f.Name, Binarize: f.Kind == Bernoulli && p.types[f.Name] != typeBool}
		if cf[i].Binarize {
			thresholds = append(thresholds, f.Binarize)
			cf[i].Threshold = fmt.Sprintf("$%d", len(p.src.Args)+len(thresholds))
		}
	}
	rows, err := runStats(ctx, db, p, "train_counts.tmpl.sql", cf, fold, "count categorical values", thresholds...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var class sql.NullString
	var fold64 int64
	g := make([]int64, len(feats))
	v := make([]sql.NullString, len(feats))
	var n int64
	var w, nWeight, minW sql.NullFloat64
	var ptrs []any
	if fold != "" {
		ptrs = append(ptrs, &fold64)
	}
	ptrs = append(ptrs, &class)
	for i := range feats {
		ptrs = append(ptrs, &g[i], &v[i])
	}
	ptrs = append(ptrs, &n)
	if p.weight != "" {
		ptrs = append(ptrs, &w, &nWeight, &minW)
	}
	var order []string
	seen := map[string]bool{}
	for rows.Next() {
		if err := rows.Scan(ptrs...); err != nil {
			return nil, err
		}
		part := partOf(parts, fold64)
		weight := float64(n)
		if p.weight != "" {
			weight = w.Float64
		}
		feature := -1
		for i := range g {
			if g[i] == 0 {
				feature = i
			}
		}
		switch {
		case !class.Valid:
			if feature < 0 && withClasses {
				part.skipped = n
			}
		case feature < 0:
			if !seen[class.String] {
				seen[class.String] = true
				order = append(order, class.String)
			}
			if p.weight != "" {
				if err := checkWeights(p.weight, n, int64(nWeight.Float64), minW); err != nil {
					return nil, err
				}
			}
			if withClasses {
				part.classes[class.String] = Class{Label: class.String, Count: n, Weight: weight}
			}
		case v[feature].Valid:
			part.counts = append(part.counts, CategoryCount{Feature: feats[feature].Name, Class: class.String,
				Value: v[feature].String, Count: n, Weight: weight})
		}
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("count categorical values: %w", err)
	}
	for _, part := range parts {
		sort.SliceStable(part.counts, func(a, b int) bool {
			if part.counts[a].Feature != part.counts[b].Feature {
				return part.counts[a].Feature < part.counts[b].Feature
			}
			return part.counts[a].Value < part.counts[b].Value
		})
	}
	return order, nil
}

// trainSums runs train_sums: per (fold,) class the (weighted) sum of every count column, into parts;
// withClasses also records the classes and skipped rows (when no other scan does).
func trainSums(ctx context.Context, db Querier, p *plan, feats []Feature, fold string, parts map[int64]*partial, withClasses bool) ([]string, error) {
	rows, err := runStats(ctx, db, p, "train_sums.tmpl.sql", feats, fold, "sum count columns")
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	head := 1
	if p.weight != "" {
		head = 4
	}
	vals := make([]sql.NullFloat64, head+3*len(feats))
	var class sql.NullString
	var fold64 int64
	var ptrs []any
	if fold != "" {
		ptrs = append(ptrs, &fold64)
	}
	ptrs = append(ptrs, &class)
	for i := range vals {
		ptrs = append(ptrs, &vals[i])
	}
	var order []string
	for rows.Next() {
		if err := rows.Scan(ptrs...); err != nil {
			return nil, err
		}
		part := partOf(parts, fold64)
		cl, ok, err := classRow(p, class, vals)
		if err != nil {
			return nil, err
		}
		if !ok {
			if withClasses {
				part.skipped = cl.Count
			}
			continue
		}
		order = appendNew(order, cl.Label)
		if withClasses {
			part.classes[cl.Label] = cl
		}
		for j, f := range feats {
			v := vals[head+3*j:]
			switch {
			case v[2].Float64 > 0:
				return nil, fmt.Errorf("%w: count column %q holds NaN or infinite values (class %q): counts must be finite", ErrBadValue, f.Name, class.String)
			case v[1].Valid && v[1].Float64 < 0:
				return nil, fmt.Errorf("%w: count column %q holds negative values (%v, class %q): %s counts must be ≥ 0",
					ErrBadValue, f.Name, v[1].Float64, class.String, f.Kind)
			}
			part.totals = append(part.totals, CountStat{Feature: f.Name, Class: class.String, Total: v[0].Float64})
		}
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("sum count columns: %w", err)
	}
	return order, nil
}

// classRow reads the columns every per-class statistics scan starts with: n and, with a weight column,
// n_weight, min_weight and the weight sum (checked). ok is false for the NULL-label group, whose Count is
// the number of skipped rows.
func classRow(p *plan, class sql.NullString, vals []sql.NullFloat64) (cl Class, ok bool, err error) {
	n := int64(vals[0].Float64)
	if !class.Valid {
		return Class{Count: n}, false, nil
	}
	cl = Class{Label: class.String, Count: n, Weight: float64(n)}
	if p.weight != "" {
		if err := checkWeights(p.weight, n, int64(vals[1].Float64), vals[2]); err != nil {
			return cl, true, err
		}
		cl.Weight = vals[3].Float64
	}
	return cl, true, nil
}

// appendNew appends s to list unless it is already there (class labels arrive in label order, per fold).
func appendNew(list []string, s string) []string {
	if slices.Contains(list, s) {
		return list
	}
	return append(list, s)
}

// runStats renders the training template tmpl for plan p (features, optional fold expression) and runs it
// over the source; what names the step in errors.
func runStats(ctx context.Context, db Querier, p *plan, tmpl string, features any, fold, what string, extra ...any) (*sql.Rows, error) {
	stmt, err := queries.Render(tmpl, map[string]any{
		"From": p.src.From, "Label": p.label.Name, "Weight": p.weight, "Features": features, "Fold": fold})
	if err != nil {
		return nil, err
	}
	rows, err := db.QueryContext(ctx, stmt, append(append([]any{}, p.src.Args...), extra...)...)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", what, err)
	}
	return rows, nil
}
