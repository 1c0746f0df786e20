package sqlnb

import "sort"

// Merge combines models trained on disjoint parts of one source (same features and kinds) into the
// model of their union: class counts and weights and categorical counts add up; Gaussian statistics
// combine with Chan et al.'s parallel rule (exact: no subtraction of sums of squares). Classes keep the
// order given by order (labels missing from every part are left out). Name, label, params and
// metadata come from base.
func Merge(base *Model, order []string, parts ...*Model) *Model {
	m := *base
	m.Rows, m.SkippedRows = 0, 0
	type key struct{ f, c, v string }
	var classes accumulator[string, Class]
	var gauss accumulator[key, GaussianStat]
	var sums accumulator[key, CountStat]
	var terms accumulator[key, TermCount]
	var counts accumulator[key, CategoryCount]
	for _, p := range parts {
		m.Rows += p.Rows
		m.SkippedRows += p.SkippedRows
		for _, c := range p.Classes {
			classes.add(c.Label, c, func(x *Class, c Class) { x.Count += c.Count; x.Weight += c.Weight })
		}
		for _, g := range p.Gaussian {
			gauss.add(key{g.Feature, g.Class, ""}, g, func(x *GaussianStat, g GaussianStat) {
				x.Count, x.Mean, x.M2 = chan1(float64(x.Count), x.Mean, x.M2, float64(g.Count), g.Mean, g.M2)
				x.Weight, x.WMean, x.WM2 = chan2(x.Weight, x.WMean, x.WM2, g.Weight, g.WMean, g.WM2)
			})
		}
		for _, t := range p.Totals {
			sums.add(key{t.Feature, t.Class, ""}, t, func(x *CountStat, t CountStat) { x.Total += t.Total })
		}
		for _, t := range p.Terms {
			terms.add(key{t.Feature, t.Class, t.Term}, t, func(x *TermCount, t TermCount) {
				x.Count, x.Docs, x.Present, x.Weight = x.Count+t.Count, x.Docs+t.Docs, x.Present+t.Present, x.Weight+t.Weight
			})
		}
		for _, n := range p.Counts {
			counts.add(key{n.Feature, n.Class, n.Value}, n, func(x *CategoryCount, n CategoryCount) { x.Count += n.Count; x.Weight += n.Weight })
		}
	}
	m.Classes = nil
	for _, l := range order {
		if c := classes.m[l]; c != nil {
			m.Classes = append(m.Classes, *c)
		}
	}
	m.Gaussian, m.Totals, m.Terms, m.Counts = gauss.list(), sums.list(), terms.list(), counts.list()
	sort.SliceStable(m.Counts, func(a, b int) bool {
		if m.Counts[a].Feature != m.Counts[b].Feature {
			return m.Counts[a].Feature < m.Counts[b].Feature
		}
		return m.Counts[a].Value < m.Counts[b].Value
	})
	return &m
}

// accumulator merges values by key, keeping the order in which keys first appear.
type accumulator[K comparable, V any] struct {
	m     map[K]*V
	order []K
}

// add stores v under k, or merges it into the value already there.
func (a *accumulator[K, V]) add(k K, v V, merge func(*V, V)) {
	if x := a.m[k]; x != nil {
		merge(x, v)
		return
	}
	if a.m == nil {
		a.m = map[K]*V{}
	}
	a.m[k] = &v
	a.order = append(a.order, k)
}

// list returns the values in first-seen order.
func (a *accumulator[K, V]) list() []V {
	var out []V
	for _, k := range a.order {
		out = append(out, *a.m[k])
	}
	return out
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
