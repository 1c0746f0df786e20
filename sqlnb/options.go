package sqlnb

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/sqlnb/sqlnb/sqlnb/nb"
)

// Options are training and hyperparameter options as a user types them (CLI flags, nb_train named
// parameters); nil or empty fields keep their defaults (or, for SetOptions, the stored values).
type Options struct {
	Features     []string
	Exclude      []string // columns left out of the features
	By           []string // group columns: one model per group (TrainSpec.By)
	Force        bool     // train a label with more than MaxClasses classes
	Kind         string
	FeatureKinds []string // "column=kind"
	Weight       string
	// Hyperparams are the hyperparameters given, by name (nb.ParamSpec.Name): a value of the declared type
	// (float64, int64, bool, string) or its text as typed on the command line. priors takes fit, smoothed,
	// uniform or class=p,class=p,... (given priors).
	Hyperparams map[string]any
	// A long term table (TermsSpec): source, document id, term and count columns, feature name.
	Terms, Doc, Term, Count, TermsFeature string
	// Tokenizer settings of text features: n-gram length (nil: unigrams; 1 to 5) and stop words ("english").
	Ngrams    *int
	StopWords string
	// Binarize is the threshold of Bernoulli and text_bernoulli features.
	Binarize float64
	// SemiSupervised trains on the rows with a NULL label too, by EM (TrainSpec.SemiSupervised); Tol and
	// MaxIter are then its tolerance (default DefaultEMTol) and step limit.
	SemiSupervised bool
}

// Params applies the hyperparameter options to base: each value is checked against its declaration, then
// the families derive what follows from what was given (nb.ParamAdjuster) and check the whole.
func (o Options) Params(base nb.Params) (nb.Params, map[string]float64, error) {
	p, ps := base, families.ParamSet()
	var givenPriors map[string]float64
	given := map[string]bool{}
	names := slices.Sorted(maps.Keys(o.Hyperparams))
	for _, name := range names {
		v := o.Hyperparams[name]
		given[name] = true
		if name == "priors" {
			text, ok := v.(string)
			if !ok {
				return p, nil, fmt.Errorf("%w: priors %v: use fit, smoothed, uniform or class=p,...", nb.ErrBadOption, v)
			}
			rule, g, err := nb.ParsePriors(text)
			if err != nil {
				return p, nil, err
			}
			p, givenPriors = p.With("priors", rule), g
			continue
		}
		val, err := ps.Value(name, v)
		if err != nil {
			return p, nil, err
		}
		p = p.With(name, val)
	}
	for _, f := range families {
		if a, ok := f.(nb.ParamAdjuster); ok {
			p = a.AdjustParams(p, given)
		}
	}
	return p, givenPriors, families.ValidateParams(p)
}

// Spec builds the TrainSpec for model from source with label.
func (o Options) Spec(model, source, label string) (TrainSpec, error) {
	spec := TrainSpec{Model: model, Source: source, Label: label, Features: o.Features, Exclude: o.Exclude, By: o.By, Force: o.Force, Weight: o.Weight,
		Text: nb.TextOptions{StopWords: strings.ToLower(strings.TrimSpace(o.StopWords))}, Binarize: o.Binarize}
	if o.Ngrams != nil {
		if *o.Ngrams < 1 || *o.Ngrams > 5 {
			return spec, fmt.Errorf("%w: ngrams %d: use 1 to 5", nb.ErrBadOption, *o.Ngrams)
		}
		spec.Text.Ngrams = *o.Ngrams
	}
	if o.Terms == "" && (o.Doc != "" || o.Term != "" || o.Count != "" || o.TermsFeature != "" && o.TermsFeature != "terms") {
		return spec, fmt.Errorf("%w: --doc, --term, --count and --terms-feature (doc :=, term :=, count :=, terms_feature :=) describe a "+
			"term table: give the table with --terms (terms :=)", nb.ErrBadOption)
	}
	if o.Terms != "" {
		if o.Doc == "" || o.Term == "" || o.Count == "" {
			return spec, fmt.Errorf("%w: a term table needs its document id, term and count columns (--doc, --term, --count)", nb.ErrBadOption)
		}
		spec.Terms = &nb.TermsSpec{Source: o.Terms, Doc: o.Doc, Term: o.Term, Count: o.Count, Feature: o.TermsFeature}
	}
	var err error
	if spec.Kind, err = ParseKind(o.Kind); err != nil {
		return spec, err
	}
	if spec.FeatureKinds, err = ParseFeatureKinds(o.FeatureKinds); err != nil {
		return spec, err
	}
	base := DefaultParams()
	if o.SemiSupervised {
		base = base.With("tol", DefaultEMTol)
		spec.SemiSupervised = true
	}
	params, given, err := o.Params(base)
	if err != nil {
		return spec, err
	}
	spec.Params, spec.GivenPriors = &params, given
	return spec, nil
}
