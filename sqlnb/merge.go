package sqlnb

import "sort"

// Merge combines models trained on disjoint parts of one source (same features and kinds) into the
// model of their union: class counts and weights and categorical counts add up; Gaussian statistics
// combine with Chan et al.'s parallel rule (exact: no subtraction of sums of squares). Classes keep the
// order given by order (labels missing from every part are left out). Name, label, params and
// metadata come from base.
func Merge(base *Model, order []string, parts ...*Model) *Model {
	m := *base
	m.Classes, m.Gaussian, m.Counts, m.Totals, m.Terms = nil, nil, nil, nil, nil
	m.Rows, m.SkippedRows = 0, 0
	classes := map[string]*Class{}
	type gkey struct{ f, c string }
	gauss := map[gkey]*GaussianStat{}
	var gorder []gkey
	totals := map[gkey]*CountStat{}
	var torder []gkey
	type ckey struct{ f, c, v string }
	terms := map[ckey]*TermCount{}
	var termOrder []ckey
	counts := map[ckey]*CategoryCount{}
	var corder []ckey
	for _, p := range parts {
		m.Rows += p.Rows
		m.SkippedRows += p.SkippedRows
		for _, c := range p.Classes {
			if x := classes[c.Label]; x != nil {
				x.Count += c.Count
				x.Weight += c.Weight
			} else {
				cc := c
				classes[c.Label] = &cc
			}
		}
		for _, g := range p.Gaussian {
			k := gkey{g.Feature, g.Class}
			x := gauss[k]
			if x == nil {
				gg := g
				gauss[k] = &gg
				gorder = append(gorder, k)
				continue
			}
			x.Count, x.Mean, x.M2 = chan1(float64(x.Count), x.Mean, x.M2, float64(g.Count), g.Mean, g.M2)
			x.Weight, x.WMean, x.WM2 = chan2(x.Weight, x.WMean, x.WM2, g.Weight, g.WMean, g.WM2)
		}
		for _, t := range p.Totals {
			k := gkey{t.Feature, t.Class}
			if x := totals[k]; x != nil {
				x.Total += t.Total
			} else {
				tt := t
				totals[k] = &tt
				torder = append(torder, k)
			}
		}
		for _, t := range p.Terms {
			k := ckey{t.Feature, t.Class, t.Term}
			if x := terms[k]; x != nil {
				x.Count += t.Count
				x.Docs += t.Docs
				x.Present += t.Present
				x.Weight += t.Weight
			} else {
				tt := t
				terms[k] = &tt
				termOrder = append(termOrder, k)
			}
		}
		for _, n := range p.Counts {
			k := ckey{n.Feature, n.Class, n.Value}
			if x := counts[k]; x != nil {
				x.Count += n.Count
				x.Weight += n.Weight
			} else {
				nn := n
				counts[k] = &nn
				corder = append(corder, k)
			}
		}
	}
	for _, l := range order {
		if c := classes[l]; c != nil {
			m.Classes = append(m.Classes, *c)
		}
	}
	for _, k := range gorder {
		m.Gaussian = append(m.Gaussian, *gauss[k])
	}
	for _, k := range termOrder {
		m.Terms = append(m.Terms, *terms[k])
	}
	for _, k := range torder {
		m.Totals = append(m.Totals, *totals[k])
	}
	for _, k := range corder {
		m.Counts = append(m.Counts, *counts[k])
	}
	sort.SliceStable(m.Counts, func(a, b int) bool {
		if m.Counts[a].Feature != m.Counts[b].Feature {
			return m.Counts[a].Feature < m.Counts[b].Feature
		}
		return m.Counts[a].Value < m.Counts[b].Value
	})
	return &m
}

// chan1 merges two (count, mean, M2) triples with an integer count.
func chan1(na, ma, m2a, nb, mb, m2b float64) (int64, float64, float64) {
	n, m, m2 := chan2(na, ma, m2a, nb, mb, m2b)
	return int64(n), m, m2
}

// chan2 merges (n, mean, M2) of two disjoint sets: n = na + nb, mean = ma + d nb/n, M2 = M2a + M2b +
// d² na nb / n with d = mb - ma.
func chan2(na, ma, m2a, nb, mb, m2b float64) (float64, float64, float64) {
	switch {
	case nb == 0:
		return na, ma, m2a
	case na == 0:
		return nb, mb, m2b
	}
	n := na + nb
	d := mb - ma
	return n, ma + d*nb/n, m2a + m2b + d*d*na*nb/n
}
