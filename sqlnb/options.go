package sqlnb

import (
	"fmt"
	"github.com/sqlnb/sqlnb/sqlnb/nb"
	"strings"
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
	Alpha        *float64
	VarSmoothing *float64
	Variance     string
	Priors       string   // fit, smoothed, uniform or class=p,class=p
	Norm         *bool    // complement models: normalise the weights
	MinDF        *int64   // text: minimum document frequency of a term
	MaxFeatures  *int64   // text: keep the most frequent terms
	Threshold    *float64 // e1071's rule: probabilities ≤ Eps count as Threshold (0: off)
	Eps          *float64
	RegParam     *float64 // QDA: covariance regularisation towards the identity
	Solver       string   // LDA: svd or lsqr
	Shrinkage    *float64 // LDA: shrinkage (sets solver lsqr unless Solver says otherwise)
	C            *float64 // logistic: inverse L2 penalty strength
	Penalty      string   // logistic: l2 or none
	Tol          *float64 // logistic: gradient tolerance
	MaxIter      *int64   // logistic: iteration limit
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

// Params applies the hyperparameter options to base.
func (o Options) Params(base nb.Params) (nb.Params, map[string]float64, error) {
	p := base
	if o.Alpha != nil {
		p.Alpha = *o.Alpha
	}
	if o.VarSmoothing != nil {
		p.VarSmoothing = *o.VarSmoothing
	}
	if o.Norm != nil {
		p.Norm = *o.Norm
	}
	if o.MinDF != nil {
		p.MinDF = *o.MinDF
	}
	if o.MaxFeatures != nil {
		p.MaxFeatures = *o.MaxFeatures
	}
	if o.Threshold != nil {
		p.Threshold = *o.Threshold
	}
	if o.Eps != nil {
		p.Eps = *o.Eps
	}
	if o.Variance != "" {
		p.Variance = strings.ToLower(strings.TrimSpace(o.Variance))
	}
	if o.RegParam != nil {
		p.RegParam = *o.RegParam
	}
	if o.Shrinkage != nil {
		p.Shrinkage = *o.Shrinkage
		p.Solver = nb.SolverLSQR
	}
	if o.Solver != "" {
		p.Solver = strings.ToLower(strings.TrimSpace(o.Solver))
		if p.Solver == nb.SolverSVD && o.Shrinkage == nil {
			p.Shrinkage = 0 // back to svd: the stored shrinkage no longer applies
		}
	}
	if o.C != nil {
		p.C = *o.C
	}
	if o.Penalty != "" {
		p.Penalty = strings.ToLower(strings.TrimSpace(o.Penalty))
	}
	if o.Tol != nil {
		p.Tol = *o.Tol
	}
	if o.MaxIter != nil {
		p.MaxIter = *o.MaxIter
	}
	var given map[string]float64
	if o.Priors != "" {
		rule, g, err := nb.ParsePriors(o.Priors)
		if err != nil {
			return p, nil, err
		}
		p.Priors, given = rule, g
	}
	return p, given, p.Validate()
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
	base := nb.DefaultParams()
	if o.SemiSupervised {
		base.Tol = DefaultEMTol
		spec.SemiSupervised = true
	}
	params, given, err := o.Params(base)
	if err != nil {
		return spec, err
	}
	spec.Params, spec.GivenPriors = &params, given
	return spec, nil
}
