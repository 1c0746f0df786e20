package sqlnb

import (
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/sqlnb/sqlnb/queries"
)

// FormatVersion is the version of the stored model layout (nb.* tables and export JSON).
const FormatVersion = 1

// Kind is the distribution of one feature given the class.
type Kind string

// The feature kinds.
const (
	// Gaussian: x | c ~ N(mean_c, var_c), numeric columns (seed 000).
	Gaussian Kind = "gaussian"
	// Categorical: x | c ~ Categorical(θ_c) over the distinct training values (seed 000).
	Categorical Kind = "categorical"
	// Bernoulli: present (value > 0 or true) | c ~ Bernoulli(p_c); absence contributes log(1-p_c).
	Bernoulli Kind = "bernoulli"
	// Multinomial: the count columns of a model form one multinomial over the V columns:
	// θ_jc = (N_jc + α)/(N_c + αV), b_c gains Σ_j x_j log θ_jc (seed 001; scikit-learn's MultinomialNB).
	Multinomial Kind = "multinomial"
	// Complement: scikit-learn's ComplementNB (Rennie et al. 2003) over the count columns: weights from the
	// other classes' counts, b_c = Σ_j x_j w_jc without priors; Params.Norm normalises the weights.
	Complement Kind = "complement"
	// Text: a VARCHAR column tokenized (Tokenize, TokenizeSQL) into terms, a multinomial over the column's
	// training vocabulary: θ_tc = (N_tc + α)/(N_c + αV); b_c gains Σ_t n_t log θ_tc over the document's terms
	// in the vocabulary (unseen terms are ignored; an empty or NULL document adds nothing). Scoring also
	// takes a MAP(VARCHAR, number) of term counts.
	Text Kind = "text"
	// TextBernoulli: a VARCHAR column as presence/absence of each vocabulary term (a term present once or
	// more): p_tc = (d_tc + α)/(n_c + 2α), d_tc = class-c documents containing t, n_c = class-c documents;
	// b_c gains Σ_t log(1 - p_tc) plus, for each present term, log p_tc - log(1 - p_tc): O(terms present).
	// An empty document has every term absent; a NULL one adds nothing. Unweighted only.
	TextBernoulli Kind = "text_bernoulli"
	// TextComplement: scikit-learn's ComplementNB over a text column's term counts (as Complement over
	// count columns): weights from the other classes' counts, Params.Norm, priors ignored; a complement
	// model holds complement features only.
	TextComplement Kind = "text_complement"
)

// IsText reports whether k reads text (or term MAPs) into sparse term rows.
func (k Kind) IsText() bool { return k == Text || k == TextBernoulli || k == TextComplement }

// Counted reports whether k is a count kind (multinomial or complement).
func (k Kind) Counted() bool { return k == Multinomial || k == Complement }

// Numeric reports whether features of kind k are read as numbers at scoring (Gaussian and count kinds).
func (k Kind) Numeric() bool { return k == Gaussian || k.Counted() }

// ParseKind reads a kind name; "auto" and "" give the empty Kind (choose from the column type).
func ParseKind(s string) (Kind, error) {
	switch k := Kind(strings.ToLower(strings.TrimSpace(s))); k {
	case Gaussian, Categorical, Bernoulli, Multinomial, Complement, Text, TextBernoulli, TextComplement:
		return k, nil
	case "auto", "":
		return "", nil
	default:
		return "", fmt.Errorf("%w: kind %q: use auto, gaussian, categorical, bernoulli, multinomial, complement, text, text_bernoulli or text_complement", ErrBadOption, s)
	}
}

// Variance modes of Gaussian features.
const (
	// VarianceClass: one variance per feature and class (GaussianNB).
	VarianceClass = "class"
	// VariancePooled: one within-class variance per feature shared by all classes (seed 000: the decision
	// boundary is then linear).
	VariancePooled = "pooled"
)

// Prior rules.
const (
	// PriorsFit: p(c) = n_c / n (weighted: w_c / w).
	PriorsFit = "fit"
	// PriorsSmoothed: p(c) = (n_c + α) / (n + αK) (seed 000).
	PriorsSmoothed = "smoothed"
	// PriorsUniform: p(c) = 1/K.
	PriorsUniform = "uniform"
	// PriorsGiven: p(c) given per class (Class.Prior).
	PriorsGiven = "given"
)

// Params are the hyperparameters applied when a model is compiled for scoring.
type Params struct {
	// Alpha is the additive smoothing of categorical and Bernoulli features, ≥ 0 (default 1).
	Alpha float64 `json:"alpha"`
	// VarSmoothing scales the variance floor ε = VarSmoothing × the largest feature variance, ≥ 0
	// (default 1e-9, scikit-learn's GaussianNB rule).
	VarSmoothing float64 `json:"var_smoothing"`
	// Variance is VarianceClass or VariancePooled.
	Variance string `json:"variance"`
	// Priors is PriorsFit, PriorsSmoothed, PriorsUniform or PriorsGiven.
	Priors string `json:"priors"`
	// Norm normalises complement weights (scikit-learn's ComplementNB norm).
	Norm bool `json:"norm,omitempty"`
	// MinDF keeps, for text features, the terms found in at least MinDF training documents (0 or 1: all).
	MinDF int64 `json:"min_df,omitempty"`
	// MaxFeatures keeps, for text features, the MaxFeatures most frequent terms (ties by term; 0: all),
	// after MinDF, as scikit-learn's CountVectorizer.
	MaxFeatures int64 `json:"max_features,omitempty"`
}

// DefaultParams are the hyperparameters of a newly trained model.
func DefaultParams() Params {
	return Params{Alpha: 1, VarSmoothing: 1e-9, Variance: VarianceClass, Priors: PriorsFit}
}

// Validate checks the ranges and names of p.
func (p Params) Validate() error {
	if !(p.Alpha >= 0) || math.IsInf(p.Alpha, 1) {
		return fmt.Errorf("%w: alpha %v: must be a finite number ≥ 0", ErrBadOption, p.Alpha)
	}
	if !(p.VarSmoothing >= 0) || math.IsInf(p.VarSmoothing, 1) {
		return fmt.Errorf("%w: var_smoothing %v: must be a finite number ≥ 0", ErrBadOption, p.VarSmoothing)
	}
	if p.MinDF < 0 || p.MaxFeatures < 0 {
		return fmt.Errorf("%w: min_df %d, max_features %d: must be ≥ 0", ErrBadOption, p.MinDF, p.MaxFeatures)
	}
	if p.Variance != VarianceClass && p.Variance != VariancePooled {
		return fmt.Errorf("%w: variance %q: use class or pooled", ErrBadOption, p.Variance)
	}
	switch p.Priors {
	case PriorsFit, PriorsSmoothed, PriorsUniform, PriorsGiven:
	default:
		return fmt.Errorf("%w: priors %q: use fit, smoothed, uniform or class=p,...", ErrBadOption, p.Priors)
	}
	return nil
}

// ParsePriors reads a priors option: fit, smoothed, uniform, or "class=p,class=p,..." (given priors).
// Given priors must be positive and sum to 1 within 1e-6; they are returned by class label.
func ParsePriors(s string) (rule string, given map[string]float64, err error) {
	s = strings.TrimSpace(s)
	switch strings.ToLower(s) {
	case "", PriorsFit:
		return PriorsFit, nil, nil
	case PriorsSmoothed, PriorsUniform:
		return strings.ToLower(s), nil, nil
	}
	given = map[string]float64{}
	sum := 0.0
	for _, part := range splitList(s) {
		eq := strings.LastIndexByte(part, '=')
		if eq < 0 {
			return "", nil, fmt.Errorf("%w: priors %q: use fit, smoothed, uniform or class=p,class=p", ErrBadOption, s)
		}
		p, perr := strconv.ParseFloat(strings.TrimSpace(part[eq+1:]), 64)
		if perr != nil || !(p > 0) || p > 1 {
			return "", nil, fmt.Errorf("%w: prior %q: must be a number in (0, 1]", ErrBadOption, part)
		}
		given[part[:eq]] = p
		sum += p
	}
	if math.Abs(sum-1) > 1e-6 {
		return "", nil, fmt.Errorf("%w: priors %q sum to %g: they must sum to 1", ErrBadOption, s, sum)
	}
	return PriorsGiven, given, nil
}

// splitList splits a comma-separated option list, trimming spaces; empty parts are dropped.
func splitList(s string) []string {
	var out []string
	for _, p := range strings.Split(s, ",") {
		if p = strings.TrimSpace(p); p != "" {
			out = append(out, p)
		}
	}
	return out
}

// Feature is one input column of a model.
type Feature struct {
	Name string `json:"name"`
	Kind Kind   `json:"kind"`
	// Type is the DuckDB type of the training column (it decides how scoring reads categories).
	Type string `json:"type"`
	// Text holds the tokenizer settings of text features.
	Text TextOptions `json:"text,omitzero"`
	// Binarize is the threshold of Bernoulli and text_bernoulli features: present when the value (the
	// term's count in the document) is > Binarize (default 0, as scikit-learn's BernoulliNB).
	Binarize float64 `json:"binarize,omitempty"`
}

// Class is one label value with its training count and weight.
type Class struct {
	Label  string  `json:"label"`
	Count  int64   `json:"count"`
	Weight float64 `json:"weight"`
	// Prior is the given prior (Params.Priors == PriorsGiven), else 0.
	Prior float64 `json:"prior,omitempty"`
}

// GaussianStat holds the sufficient statistics of one Gaussian feature in one class, over the rows
// where the feature is not NULL: count, mean and M2 = Σ (x - mean)², and their weighted versions
// (Weight = Σ w, WMean = Σ w x / Σ w, WM2 = Σ w (x - WMean)²; equal to the unweighted ones when the
// model has no weight column).
type GaussianStat struct {
	Feature string  `json:"feature"`
	Class   string  `json:"class"`
	Count   int64   `json:"count"`
	Mean    float64 `json:"mean"`
	M2      float64 `json:"m2"`
	Weight  float64 `json:"weight"`
	WMean   float64 `json:"wmean"`
	WM2     float64 `json:"wm2"`
}

// CategoryCount is the number (and weight) of training rows of one class with one value of a
// categorical or Bernoulli feature. Bernoulli values are "false" and "true".
type CategoryCount struct {
	Feature string  `json:"feature"`
	Class   string  `json:"class"`
	Value   string  `json:"value"`
	Count   int64   `json:"count"`
	Weight  float64 `json:"weight"`
}

// CountStat is the (weighted) sum of one count column over the training rows of one class.
type CountStat struct {
	Feature string  `json:"feature"`
	Class   string  `json:"class"`
	Total   float64 `json:"total"`
}

// TermCount is the number (and weight) of occurrences of one term of a text feature in one class.
type TermCount struct {
	Feature string `json:"feature"`
	Class   string `json:"class"`
	Term    string `json:"term"`
	Count   int64  `json:"count"`
	// Docs is the number of training documents of the class that contain the term.
	Docs int64 `json:"docs"`
	// Present is the number of those documents where the term occurs more than the feature's Binarize
	// times (text_bernoulli).
	Present int64   `json:"present"`
	Weight  float64 `json:"weight"`
}

// Model is a trained naive Bayes model: raw sufficient statistics plus hyperparameters.
type Model struct {
	Name        string          `json:"name"`
	Label       string          `json:"label"`
	LabelType   string          `json:"label_type"`
	Weight      string          `json:"weight,omitempty"`
	Source      string          `json:"source"`
	Params      Params          `json:"params"`
	Rows        int64           `json:"n_rows"`
	SkippedRows int64           `json:"skipped_rows"`
	Created     time.Time       `json:"created"`
	Version     int             `json:"format_version"`
	Generation  string          `json:"generation"`
	Features    []Feature       `json:"features"`
	Classes     []Class         `json:"classes"`
	Gaussian    []GaussianStat  `json:"gaussian,omitempty"`
	Counts      []CategoryCount `json:"categorical,omitempty"`
	Totals      []CountStat     `json:"totals,omitempty"`
	Terms       []TermCount     `json:"terms,omitempty"`
}

// ValidateName checks a model name: non-empty, at most 256 bytes, no NUL and no leading or trailing space.
func ValidateName(name string) error {
	switch {
	case name == "":
		return fmt.Errorf("%w: empty model name", ErrBadOption)
	case len(name) > 256:
		return fmt.Errorf("%w: model name longer than 256 bytes", ErrBadOption)
	case strings.IndexByte(name, 0) >= 0:
		return fmt.Errorf("%w: model name %q contains a NUL byte", ErrBadOption, name)
	case strings.TrimSpace(name) != name:
		return fmt.Errorf("%w: model name %q has leading or trailing spaces", ErrBadOption, name)
	}
	return nil
}

// Validate checks that m is complete and consistent: names, at least two classes, every Gaussian
// feature has one statistic per class, counts are non-negative and finite, categorical counts name
// known features and classes, and given priors sum to 1.
func (m *Model) Validate() error {
	bad := func(format string, args ...any) error {
		return fmt.Errorf("%w: model %q: %s", ErrInvalidModel, m.Name, fmt.Sprintf(format, args...))
	}
	if err := ValidateName(m.Name); err != nil {
		return err
	}
	if err := m.Params.Validate(); err != nil {
		return fmt.Errorf("model %q: %w", m.Name, err)
	}
	if m.Label == "" {
		return bad("no label column")
	}
	if len(m.Classes) < 2 {
		return bad("%d classes: a classifier needs at least two", len(m.Classes))
	}
	if len(m.Features) == 0 {
		return bad("no features")
	}
	classes := map[string]bool{}
	sumPrior := 0.0
	for _, c := range m.Classes {
		if classes[c.Label] {
			return bad("class %q appears twice", c.Label)
		}
		classes[c.Label] = true
		if c.Count < 0 || !(c.Weight >= 0) || math.IsInf(c.Weight, 1) {
			return bad("class %q: count %d, weight %v: must be ≥ 0 and finite", c.Label, c.Count, c.Weight)
		}
		if m.Params.Priors == PriorsGiven && !(c.Prior > 0 && c.Prior <= 1) {
			return bad("class %q: given prior %v: must be in (0, 1]", c.Label, c.Prior)
		}
		sumPrior += c.Prior
	}
	if m.Params.Priors == PriorsGiven && math.Abs(sumPrior-1) > 1e-6 {
		return bad("given priors sum to %g, not 1", sumPrior)
	}
	kinds := map[string]Kind{}
	for _, f := range m.Features {
		if err := queries.ValidIdent(f.Name); err != nil {
			return bad("feature: %v", err)
		}
		if _, dup := kinds[f.Name]; dup {
			return bad("feature %q appears twice", f.Name)
		}
		if f.Name == m.Label {
			return bad("feature %q is the label", f.Name)
		}
		switch f.Kind {
		case Gaussian, Categorical, Bernoulli, Multinomial, Complement, Text, TextBernoulli, TextComplement:
		default:
			return bad("feature %q: unknown kind %q", f.Name, f.Kind)
		}
		if err := f.Text.Validate(); err != nil {
			return bad("feature %q: %v", f.Name, err)
		}
		kinds[f.Name] = f.Kind
	}
	if err := checkCountKinds(m.Features); err != nil {
		return bad("%v", err)
	}
	seenTotal := map[[2]string]bool{}
	for _, c := range m.Totals {
		if !kinds[c.Feature].Counted() {
			return bad("count total for %q, which is not a count feature", c.Feature)
		}
		if !classes[c.Class] {
			return bad("count total for unknown class %q", c.Class)
		}
		if seenTotal[[2]string{c.Feature, c.Class}] {
			return bad("two count totals for feature %q, class %q", c.Feature, c.Class)
		}
		seenTotal[[2]string{c.Feature, c.Class}] = true
		if !(c.Total >= 0) || math.IsInf(c.Total, 1) {
			return bad("count total for feature %q, class %q is %v: must be finite and ≥ 0", c.Feature, c.Class, c.Total)
		}
	}
	seenTerm := map[[3]string]bool{}
	for _, t := range m.Terms {
		if !kinds[t.Feature].IsText() {
			return bad("term count for %q, which is not a text feature", t.Feature)
		}
		if !classes[t.Class] {
			return bad("term count for unknown class %q", t.Class)
		}
		key := [3]string{t.Feature, t.Class, t.Term}
		if seenTerm[key] {
			return bad("two counts for feature %q, class %q, term %q", t.Feature, t.Class, t.Term)
		}
		seenTerm[key] = true
		if t.Count < 0 || !(t.Weight >= 0) || math.IsInf(t.Weight, 1) {
			return bad("term count for feature %q, class %q, term %q must be ≥ 0 and finite", t.Feature, t.Class, t.Term)
		}
	}
	for _, f := range m.Features {
		for c := range classes {
			if f.Kind.Counted() && !seenTotal[[2]string{f.Name, c}] {
				return bad("no count total for feature %q, class %q", f.Name, c)
			}
		}
	}
	seen := map[[2]string]bool{}
	for _, g := range m.Gaussian {
		if kinds[g.Feature] != Gaussian {
			return bad("Gaussian statistic for %q, which is not a Gaussian feature", g.Feature)
		}
		if !classes[g.Class] {
			return bad("Gaussian statistic for unknown class %q", g.Class)
		}
		key := [2]string{g.Feature, g.Class}
		if seen[key] {
			return bad("two Gaussian statistics for feature %q, class %q", g.Feature, g.Class)
		}
		seen[key] = true
		for _, v := range []float64{g.Mean, g.M2, g.Weight, g.WMean, g.WM2} {
			if math.IsNaN(v) || math.IsInf(v, 0) {
				return bad("Gaussian statistic for feature %q, class %q is not finite", g.Feature, g.Class)
			}
		}
		if g.Count < 0 || g.M2 < 0 || g.Weight < 0 || g.WM2 < 0 {
			return bad("Gaussian statistic for feature %q, class %q is negative", g.Feature, g.Class)
		}
	}
	for _, f := range m.Features {
		if f.Kind != Gaussian {
			continue
		}
		for c := range classes {
			if !seen[[2]string{f.Name, c}] {
				return bad("no Gaussian statistic for feature %q, class %q", f.Name, c)
			}
		}
	}
	seenValue := map[[3]string]bool{}
	for _, n := range m.Counts {
		k := kinds[n.Feature]
		if k != Categorical && k != Bernoulli {
			return bad("value count for %q, which is not a categorical or Bernoulli feature", n.Feature)
		}
		if !classes[n.Class] {
			return bad("value count for unknown class %q", n.Class)
		}
		if k == Bernoulli && n.Value != "true" && n.Value != "false" {
			return bad("Bernoulli feature %q has value %q (only true and false)", n.Feature, n.Value)
		}
		key := [3]string{n.Feature, n.Class, n.Value}
		if seenValue[key] {
			return bad("two counts for feature %q, class %q, value %q", n.Feature, n.Class, n.Value)
		}
		seenValue[key] = true
		if n.Count < 0 || !(n.Weight >= 0) || math.IsInf(n.Weight, 1) {
			return bad("count for feature %q, class %q, value %q: must be ≥ 0 and finite", n.Feature, n.Class, n.Value)
		}
	}
	return nil
}

// ClassIndex returns the position of each class label.
func (m *Model) ClassIndex() map[string]int {
	idx := make(map[string]int, len(m.Classes))
	for i, c := range m.Classes {
		idx[c.Label] = i
	}
	return idx
}

// FeatureIndex returns the position of each feature name.
func (m *Model) FeatureIndex() map[string]int {
	idx := make(map[string]int, len(m.Features))
	for i, f := range m.Features {
		idx[f.Name] = i
	}
	return idx
}

// Kinds returns the distinct feature kinds of m, sorted.
func (m *Model) Kinds() []string {
	set := map[string]bool{}
	for _, f := range m.Features {
		set[string(f.Kind)] = true
	}
	out := make([]string, 0, len(set))
	for k := range set {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

func nan() float64 { return math.NaN() }

// checkCountKinds: the count columns of a model form one group of a single kind, and complement weights
// are not log-likelihoods, so a complement model has count columns only.
func checkCountKinds(features []Feature) error {
	var multi, comp, other int
	for _, f := range features {
		switch f.Kind {
		case Multinomial:
			multi++
		case Complement, TextComplement:
			comp++
		default:
			other++
		}
	}
	switch {
	case multi > 0 && comp > 0:
		return fmt.Errorf("%w: multinomial and complement columns cannot be mixed: the count columns form one distribution", ErrBadOption)
	case comp > 0 && other > 0:
		return fmt.Errorf("%w: a complement model scores with weights, not log-likelihoods: it takes count columns only", ErrBadOption)
	}
	return nil
}
