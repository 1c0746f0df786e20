package sqlnb

import (
	"fmt"
	"slices"

	"github.com/sqlnb/sqlnb/sqlnb/nb"
)

// Merge combines models trained on disjoint parts of one source (same features and kinds) into the
// model of their union: class counts and weights add up, and every family's statistics rows combine by
// key with their table's exact Merge (counts add; moments by Chan et al.'s parallel rule). Classes keep
// the order given by order (labels missing from every part are left out; nil: base's classes, then each
// part's new ones in its order). Name, label, params and metadata come from base. A model whose parameters
// are fitted (logistic regression, or any model trained semi-supervised) does not merge: the error wraps
// ErrNotMergeable; parts whose label, weight column or features differ from base's are an ErrBadOption
// naming what differs, as MergeModels says.
func Merge(base *nb.Model, order []string, parts ...*nb.Model) (*nb.Model, error) {
	if base == nil || slices.Contains(parts, nil) {
		return nil, fmt.Errorf("%w: merge: a nil model", nb.ErrBadOption)
	}
	for _, p := range append([]*nb.Model{base}, parts...) {
		if err := mergeable(p); err != nil {
			return nil, err
		}
	}
	for _, p := range parts {
		if p != base {
			alignNames(base, p)
			if err := sameFeatures(base, p, fmt.Sprintf("model %q", p.Name)); err != nil {
				return nil, err
			}
		}
	}
	if order == nil {
		seen := map[string]bool{}
		for _, p := range append([]*nb.Model{base}, parts...) {
			for _, c := range p.Classes {
				if !seen[c.Label] {
					seen[c.Label] = true
					order = append(order, c.Label)
				}
			}
		}
	}
	m := *base
	m.Rows, m.SkippedRows, m.IncompleteRows = 0, 0, 0
	// Integer labels and categories of different widths (sameFeatures lets them through) take a type that
	// holds them all.
	m.Features = slices.Clone(base.Features)
	for _, p := range parts {
		if p.LabelType != m.LabelType {
			if t := commonInteger(m.LabelType, p.LabelType); t != "" {
				m.LabelType = t
			}
		}
		for i := range m.Features {
			if i < len(p.Features) && p.Features[i].Type != m.Features[i].Type && typedValues(m.Features[i].Kind) {
				if t := commonInteger(m.Features[i].Type, p.Features[i].Type); t != "" {
					m.Features[i].Type = t
				}
			}
		}
	}
	classes := map[string]*nb.Class{}
	stats := make([]nb.Stats, 0, len(parts))
	for _, p := range parts {
		m.Rows += p.Rows
		m.SkippedRows += p.SkippedRows
		m.IncompleteRows += p.IncompleteRows
		for _, c := range p.Classes {
			if x := classes[c.Label]; x != nil {
				x.Count += c.Count
				x.Weight += c.Weight
				continue
			}
			c := c
			classes[c.Label] = &c
		}
		stats = append(stats, p.Stats)
	}
	m.Classes = nil
	for _, l := range order {
		if c := classes[l]; c != nil {
			m.Classes = append(m.Classes, *c)
		}
	}
	m.Stats = families.MergeStats(stats)
	return &m, nil
}

// typedValues reports whether features of kind k keep their statistics by value, read in the column's type
// (KindInfo.TypedValues).
func typedValues(k nb.Kind) bool {
	info := families.KindInfo(k)
	return info != nil && info.TypedValues
}
