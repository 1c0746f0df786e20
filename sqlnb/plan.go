package sqlnb

import (
	"context"
	"fmt"
	"math"
	"slices"

	"github.com/sqlnb/sqlnb/sqlnb/family/text"
	"github.com/sqlnb/sqlnb/sqlnb/nb"
)

// makePlan resolves spec against its source: the source's columns, the label and weight columns, the term
// table, the group columns, and the features with their kinds and settings.
func makePlan(ctx context.Context, db nb.Querier, spec TrainSpec) (*nb.Plan, error) {
	if math.IsNaN(spec.Binarize) || math.IsInf(spec.Binarize, 0) {
		return nil, fmt.Errorf("%w: binarize %v: must be a finite number (a value is present when it is > binarize)", nb.ErrBadOption, spec.Binarize)
	}
	src, err := nb.ResolveSource(ctx, db, spec.Source)
	if err != nil {
		return nil, err
	}
	cols, err := nb.Describe(ctx, db, src)
	if err != nil {
		return nil, err
	}
	p := &nb.Plan{Src: src, AllColumns: cols}
	label, ok := nb.FindColumn(cols, spec.Label)
	if !ok {
		return nil, fmt.Errorf("%w: label column %q is not in the source (columns: %s)", nb.ErrUnknownColumn, spec.Label, nb.ColumnNames(cols))
	}
	p.Label = label
	if spec.Weight != "" {
		w, ok := nb.FindColumn(cols, spec.Weight)
		if !ok {
			return nil, fmt.Errorf("%w: weight column %q is not in the source (columns: %s)", nb.ErrUnknownColumn, spec.Weight, nb.ColumnNames(cols))
		}
		if !nb.ClassifyType(w.Type).Numeric() {
			return nil, fmt.Errorf("%w: weight column %q has type %s: it must be numeric", nb.ErrBadType, w.Name, w.Type)
		}
		if w.Name == label.Name {
			return nil, fmt.Errorf("%w: weight column %q is the label", nb.ErrBadOption, w.Name)
		}
		p.Weight = w.Name
	}
	doc := ""
	if spec.Terms != nil {
		tp, err := planTerms(ctx, db, cols, spec.Terms)
		if err != nil {
			return nil, err
		}
		p.Terms, doc = tp, tp.Doc
	}
	if p.By, err = planBy(cols, label, p.Weight, spec.By); err != nil {
		return nil, err
	}
	chosen, err := chooseColumns(cols, label, p, doc, spec)
	if err != nil {
		return nil, err
	}
	if err := planFeatures(p, chosen, spec); err != nil {
		return nil, err
	}
	return p, nil
}

// chooseColumns returns the feature columns of plan p among cols: spec.Features, or every column but the
// label, the weight, the term table's document id doc and the group columns; less spec.Exclude.
func chooseColumns(cols []nb.Column, label nb.Column, p *nb.Plan, doc string, spec TrainSpec) ([]nb.Column, error) {
	isGroup := func(name string) bool {
		return slices.ContainsFunc(p.By, func(b nb.Column) bool { return b.Name == name })
	}
	var chosen []nb.Column
	if len(spec.Features) == 0 {
		for _, c := range cols {
			if c.Name != label.Name && c.Name != p.Weight && c.Name != doc && !isGroup(c.Name) {
				chosen = append(chosen, c)
			}
		}
	} else {
		seen := map[string]bool{}
		for _, name := range spec.Features {
			c, ok := nb.FindColumn(cols, name)
			if !ok {
				return nil, fmt.Errorf("%w: feature column %q is not in the source (columns: %s)", nb.ErrUnknownColumn, name, nb.ColumnNames(cols))
			}
			if c.Name == label.Name || c.Name == p.Weight {
				return nil, fmt.Errorf("%w: feature %q is the label or weight column", nb.ErrBadOption, c.Name)
			}
			if isGroup(c.Name) {
				return nil, fmt.Errorf("%w: column %q is both a feature and a group column (--by): leave it out of --features", nb.ErrBadOption, c.Name)
			}
			if !seen[c.Name] {
				seen[c.Name] = true
				chosen = append(chosen, c)
			}
		}
	}
	chosen, err := exclude(chosen, cols, spec.Exclude)
	if err != nil {
		return nil, err
	}
	if len(chosen) == 0 && p.Terms == nil {
		return nil, fmt.Errorf("%w: no feature columns: the source has only the label (and weight) and the excluded columns", nb.ErrBadOption)
	}
	return chosen, nil
}

// planFeatures adds the features of the columns chosen to plan p, each of its kind (spec.FeatureKinds, else
// spec.Kind, else chosen from its type) with spec's binarize threshold or tokenizer settings, then the term
// table's feature, and checks them together.
func planFeatures(p *nb.Plan, chosen []nb.Column, spec TrainSpec) error {
	kinds := map[string]nb.Kind{}
	for name, k := range spec.FeatureKinds {
		c, ok := nb.FindColumn(chosen, name)
		if !ok {
			if p.Terms != nil && nb.EqualFoldIdent(name, p.Terms.Feature) {
				return fmt.Errorf("%w: --feature-kind names %q, the term table's feature, which is text (multinomial) only: "+
					"a term table gives counts, not documents", nb.ErrBadOption, name)
			}
			have := "features: " + nb.ColumnNames(chosen)
			if len(chosen) == 0 {
				have = "the source's only features come from the term table"
			}
			return fmt.Errorf("%w: --feature-kind names %q, which is not a feature (%s)", nb.ErrUnknownColumn, name, have)
		}
		kinds[c.Name] = k
	}
	for _, c := range chosen {
		k := kinds[c.Name]
		if k == "" {
			k = spec.Kind
		}
		kind, err := families.ChooseKind(c, k)
		if err != nil {
			return err
		}
		f := nb.Feature{Name: c.Name, Kind: kind, Type: c.Type}
		if families.KindInfo(kind).Binarize {
			f.Binarize = spec.Binarize
		}
		if families.KindInfo(kind).Text {
			if err := spec.Text.Validate(); err != nil {
				return err
			}
			f.Text = spec.Text
		}
		p.Features = append(p.Features, f)
	}
	if p.Terms != nil {
		for _, f := range p.Features {
			if f.Name == p.Terms.Feature {
				return fmt.Errorf("%w: the term table's feature name %q is also a column: choose another with --terms-feature", nb.ErrBadOption, f.Name)
			}
		}
		p.Features = append(p.Features, nb.Feature{Name: p.Terms.Feature, Kind: text.Text, Type: "MAP(VARCHAR, DOUBLE)"})
	}
	if err := families.CheckFeatures(p.Features, p.Weight != ""); err != nil {
		return err
	}
	return nil
}

// exclude removes the columns named in names from chosen; each must be a column of the source (cols).
func exclude(chosen, cols []nb.Column, names []string) ([]nb.Column, error) {
	drop := map[string]bool{}
	for _, name := range names {
		c, ok := nb.FindColumn(cols, name)
		if !ok {
			return nil, fmt.Errorf("%w: excluded column %q is not in the source (columns: %s)", nb.ErrUnknownColumn, name, nb.ColumnNames(cols))
		}
		drop[c.Name] = true
	}
	kept := chosen[:0:0]
	for _, c := range chosen {
		if !drop[c.Name] {
			kept = append(kept, c)
		}
	}
	return kept, nil
}

func planTerms(ctx context.Context, db nb.Querier, labelled []nb.Column, ts *nb.TermsSpec) (*nb.TermsPlan, error) {
	src, err := nb.ResolveSource(ctx, db, ts.Source)
	if err != nil {
		return nil, fmt.Errorf("term table: %w", err)
	}
	cols, err := nb.Describe(ctx, db, src)
	if err != nil {
		return nil, fmt.Errorf("term table: %w", err)
	}
	tp := &nb.TermsPlan{Src: src, Feature: ts.Feature}
	if tp.Feature == "" {
		tp.Feature = "terms"
	}
	d, ok := nb.FindColumn(labelled, ts.Doc)
	if !ok {
		return nil, fmt.Errorf("%w: document id column %q is not in the labelled source (columns: %s)", nb.ErrUnknownColumn, ts.Doc, nb.ColumnNames(labelled))
	}
	if _, ok := nb.FindColumn(cols, d.Name); !ok {
		return nil, fmt.Errorf("%w: document id column %q is not in the term table (columns: %s)", nb.ErrUnknownColumn, d.Name, nb.ColumnNames(cols))
	}
	tp.Doc = d.Name
	for _, x := range []struct {
		name string
		dst  *string
		what string
	}{{ts.Term, &tp.Term, "term"}, {ts.Count, &tp.Count, "count"}} {
		c, ok := nb.FindColumn(cols, x.name)
		if !ok {
			return nil, fmt.Errorf("%w: %s column %q is not in the term table (columns: %s)", nb.ErrUnknownColumn, x.what, x.name, nb.ColumnNames(cols))
		}
		*x.dst = c.Name
	}
	if c, _ := nb.FindColumn(cols, tp.Count); !nb.ClassifyType(c.Type).Numeric() {
		return nil, fmt.Errorf("%w: count column %q has type %s: it must be numeric", nb.ErrBadType, c.Name, c.Type)
	}
	return tp, nil
}
