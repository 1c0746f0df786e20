package sqlnb

import "fmt"

// Merge combines models trained on disjoint parts of one source (same features and kinds) into the
// model of their union: class counts and weights add up, and every family's statistics rows combine by
// key with their table's exact Merge (counts add; moments by Chan et al.'s parallel rule). Classes keep
// the order given by order (labels missing from every part are left out). Name, label, params and
// metadata come from base. A model whose parameters are fitted (logistic regression) does not merge: the
// error wraps ErrNotMergeable.
func Merge(base *Model, order []string, parts ...*Model) (*Model, error) {
	for _, g := range byFamily(base.Features) {
		if _, ok := g.fam.(refitter); ok {
			return nil, fmt.Errorf("%w: model %q has %s features: its parameters are fitted to the rows, not summed from them; "+
				"train on the union of the rows instead", ErrNotMergeable, base.Name, g.feats[0].Kind)
		}
	}
	m := *base
	m.Rows, m.SkippedRows, m.IncompleteRows = 0, 0, 0
	classes := map[string]*Class{}
	stats := make([]Stats, 0, len(parts))
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
	m.Stats = mergeStats(stats)
	return &m, nil
}
