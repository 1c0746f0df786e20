package sqlnb

import (
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/sqlnb/sqlnb/sqlnb/family/text"
	"github.com/sqlnb/sqlnb/sqlnb/nb"
)

// updateTrainSpec checks the options of spec against model m (set ones must equal the model's) and returns
// the training spec that scans rows as m's training did.
func updateTrainSpec(m *nb.Model, spec UpdateSpec) (TrainSpec, error) {
	o := spec.Options
	bad := badUpdateOption(m)
	if err := checkUpdateRows(m, spec); err != nil {
		return TrainSpec{}, err
	}
	byName := map[string]nb.Feature{}
	for _, f := range m.Features {
		byName[nb.FoldIdent(f.Name)] = f
	}
	ts := TrainSpec{Model: m.Name, Source: spec.Source, Label: m.Label, Weight: m.Weight, Force: true, FeatureKinds: map[string]nb.Kind{}}
	termsFeature, err := updateTerms(m, o, byName, &ts)
	if err != nil {
		return TrainSpec{}, err
	}
	names, err := updateFeatures(m, termsFeature, &ts)
	if err != nil {
		return TrainSpec{}, err
	}
	// Options the user set must be the model's.
	if err := checkUpdateFeatures(m, o, byName, names, termsFeature); err != nil {
		return TrainSpec{}, err
	}
	if err := checkUpdateKinds(m, o, byName); err != nil {
		return TrainSpec{}, err
	}
	if err := checkUpdateBinarize(m, spec); err != nil {
		return TrainSpec{}, err
	}
	if err := checkUpdateText(m, o); err != nil {
		return TrainSpec{}, err
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

// badUpdateOption returns the error maker of updateTrainSpec's checks: ErrBadOption, "model <name>" and what
// is wrong.
func badUpdateOption(m *nb.Model) func(format string, args ...any) error {
	return func(format string, args ...any) error {
		return fmt.Errorf("%w: model %q %s", nb.ErrBadOption, m.Name, fmt.Sprintf(format, args...))
	}
}

// checkUpdateRows refuses the ways of taking rows that adding or forgetting cannot follow (semi-supervised,
// per group), and a label or weight column other than model m's.
func checkUpdateRows(m *nb.Model, spec UpdateSpec) error {
	o := spec.Options
	bad := badUpdateOption(m)
	if o.SemiSupervised {
		return bad("cannot take rows semi-supervised: adding or forgetting rows sums the statistics of labelled rows, " +
			"and EM would have to refit the whole model; train it again with --semi-supervised (semi_supervised := true) on all the rows")
	}
	if len(o.By) > 0 {
		return bad("cannot take --by (by :=) when rows are added or forgotten: per-group models are trained whole; " +
			"train it again with --by on all the rows")
	}
	// Names are matched as DuckDB matches identifiers (ASCII case aside): the rows' "Y" is the model's "y".
	if spec.Label != "" && !nb.EqualFoldIdent(spec.Label, m.Label) {
		return bad("has the label column %q, not %q: the rows must have the same label", m.Label, spec.Label)
	}
	if o.Weight != "" && !nb.EqualFoldIdent(o.Weight, m.Weight) {
		if m.Weight == "" {
			return bad("has no weight column, so its rows cannot take weight column %q: leave --weight out, or train a new model", o.Weight)
		}
		return bad("has the weight column %q, not %q: %s", m.Weight, o.Weight, asTrained)
	}
	return nil
}

// updateTerms checks the term table options o against model m (byName: its features by folded name) and sets
// ts.Terms when a term table is given; it returns the name of the model's term-table feature ("" if none).
func updateTerms(m *nb.Model, o Options, byName map[string]nb.Feature, ts *TrainSpec) (string, error) {
	bad := badUpdateOption(m)
	termsFeature := ""
	if o.Terms == "" && (o.Doc != "" || o.Term != "" || o.Count != "" || o.TermsFeature != "" && o.TermsFeature != "terms") {
		return "", fmt.Errorf("%w: --doc, --term, --count and --terms-feature (doc :=, term :=, count :=, terms_feature :=) describe a "+
			"term table: give the table with --terms (terms :=)", nb.ErrBadOption)
	}
	if o.Terms != "" {
		termsFeature = o.TermsFeature
		if termsFeature == "" {
			termsFeature = "terms"
		}
		if f, ok := byName[nb.FoldIdent(termsFeature)]; !ok || f.Kind != text.Text || f.Name != termsFeature {
			return "", bad("has no text feature %q for the term table: name the model's term-table feature with --terms-feature (terms_feature :=)", termsFeature)
		}
		if o.Doc == "" || o.Term == "" || o.Count == "" {
			return "", fmt.Errorf("%w: a term table needs its document id, term and count columns (--doc, --term, --count)", nb.ErrBadOption)
		}
		ts.Terms = &nb.TermsSpec{Source: o.Terms, Doc: o.Doc, Term: o.Term, Count: o.Count, Feature: termsFeature}
	}
	return termsFeature, nil
}

// updateFeatures sets ts's features, their kinds, binarize threshold and tokenizer settings to model m's
// (but the term-table feature termsFeature), and returns the features' names.
func updateFeatures(m *nb.Model, termsFeature string, ts *TrainSpec) ([]string, error) {
	bad := badUpdateOption(m)
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
				return nil, bad("has features with different binarize thresholds (%g, %g): rows cannot be scanned as it was trained", binarize, f.Binarize)
			}
			binarize = f.Binarize
		}
		if families.KindInfo(f.Kind).Text {
			if tok != nil && !sameText(*tok, f.Text) {
				return nil, bad("has text features with different tokenizer settings: rows cannot be scanned as it was trained")
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
			return nil, bad("has the feature %q from a term table: give its rows with --terms, --doc, --term and --count (terms :=, ...)", f.Name)
		}
	}
	return names, nil
}

// checkUpdateFeatures checks --features and --exclude against model m's features (names, but the term-table
// feature termsFeature).
func checkUpdateFeatures(m *nb.Model, o Options, byName map[string]nb.Feature, names []string, termsFeature string) error {
	bad := badUpdateOption(m)
	if len(o.Features) > 0 {
		for _, n := range o.Features {
			if f, ok := byName[nb.FoldIdent(n)]; !ok || f.Name == termsFeature {
				return bad("has no feature %q (features: %s): the rows must have the model's features", n, strings.Join(names, ", "))
			}
		}
		for _, n := range names {
			if !slices.ContainsFunc(o.Features, func(x string) bool { return nb.EqualFoldIdent(x, n) }) {
				return bad("has the feature %q, which --features (features :=) leaves out: the rows must have every feature of the model", n)
			}
		}
	}
	for _, n := range o.Exclude {
		if _, ok := byName[nb.FoldIdent(n)]; ok {
			return bad("has the feature %q, which --exclude (exclude :=) leaves out: the rows must have every feature of the model", n)
		}
	}
	return nil
}

// checkUpdateKinds checks --kind and --feature-kind against the kinds of model m's features.
func checkUpdateKinds(m *nb.Model, o Options, byName map[string]nb.Feature) error {
	bad := badUpdateOption(m)
	kind, err := ParseKind(o.Kind)
	if err != nil {
		return err
	}
	kinds, err := ParseFeatureKinds(o.FeatureKinds)
	if err != nil {
		return err
	}
	folded := map[string]nb.Kind{}
	for n, k := range kinds {
		if _, ok := byName[nb.FoldIdent(n)]; !ok {
			return bad("has no feature %q (--feature-kind, feature_kinds :=): %s", n, asTrained)
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
			return bad("has the feature %q of kind %s, not %s: %s", f.Name, f.Kind, k, asTrained)
		}
	}
	return nil
}

// checkUpdateBinarize checks --binarize, when given, against the thresholds of model m's features.
func checkUpdateBinarize(m *nb.Model, spec UpdateSpec) error {
	o := spec.Options
	bad := badUpdateOption(m)
	if spec.BinarizeSet || o.Binarize != 0 {
		if !slices.ContainsFunc(m.Features, func(f nb.Feature) bool { return families.KindInfo(f.Kind).Binarize }) {
			return bad("has no bernoulli or text_bernoulli feature: --binarize (binarize :=) does not apply to it")
		}
		for _, f := range m.Features {
			if families.KindInfo(f.Kind).Binarize && f.Binarize != o.Binarize {
				return bad("has the feature %q with binarize threshold %g, not %g: %s", f.Name, f.Binarize, o.Binarize, asTrained)
			}
		}
	}
	return nil
}

// checkUpdateText checks --ngrams and --stop-words, when given, against the tokenizer settings of model m's
// text features.
func checkUpdateText(m *nb.Model, o Options) error {
	bad := badUpdateOption(m)
	asked := nb.TextOptions{StopWords: strings.ToLower(strings.TrimSpace(o.StopWords))}
	if o.Ngrams != nil {
		if *o.Ngrams < 1 || *o.Ngrams > 5 {
			return fmt.Errorf("%w: ngrams %d: use 1 to 5", nb.ErrBadOption, *o.Ngrams)
		}
		asked.Ngrams = *o.Ngrams
	}
	for _, f := range m.Features {
		if !families.KindInfo(f.Kind).Text {
			continue
		}
		if o.Ngrams != nil && max(1, f.Text.Ngrams) != asked.Ngrams {
			return bad("has the text feature %q with ngrams %d, not %d: %s", f.Name, max(1, f.Text.Ngrams), asked.Ngrams, asTrained)
		}
		if asked.StopWords != "" && asked.StopWords != f.Text.StopWords {
			return bad("has the text feature %q with stop words %q, not %q: %s", f.Name, f.Text.StopWords, asked.StopWords, asTrained)
		}
	}
	return nil
}

// asTrained is what to do about an option of Append or Forget that differs from the model's.
const asTrained = "leave the option out: rows are added and forgotten as the model was trained"

func sameText(a, b nb.TextOptions) bool {
	return max(1, a.Ngrams) == max(1, b.Ngrams) && a.StopWords == b.StopWords
}
