package poisson

import (
	"context"
	"database/sql"
	"fmt"
	"github.com/sqlnb/sqlnb/queries"
	"github.com/sqlnb/sqlnb/sqlnb/nb"
	"math"
	"strings"
	"sync"
)

// Poisson: a column of non-negative integer counts, x | c ~ Poisson(λ_c) (R's naivebayes with usepoisson):
// λ_c is the class's (weighted) mean of x, log p(x | c) = x log λ_c - λ_c - log x!. A λ below 1e-10 (a class
// that never saw the event) is raised to 1e-10. At scoring NULL, NaN, ±Inf, negative and non-integer
// values are missing: they add nothing; at training they are an error (NULL is left out).
const Poisson nb.Kind = "poisson"

// poissonFloor is the smallest rate λ: a class whose rows all had x = 0 still gives x > 0 a probability.
const poissonFloor = 1e-10

// PoissonStat holds the statistics of one Poisson feature in one class over its non-NULL values: the count
// and mean, and their weighted versions (Weight = Σ w, WMean = Σ w x / Σ w; equal when unweighted).
type PoissonStat struct {
	Feature string  `json:"feature"`
	Class   string  `json:"class"`
	Count   int64   `json:"count"`
	Mean    float64 `json:"mean"`
	Weight  float64 `json:"weight"`
	WMean   float64 `json:"wmean"`
}

// PoissonTable is the Poisson features' statistics: nb.poisson.
var PoissonTable = &nb.Table[PoissonStat]{
	Name: "poisson",
	Key:  func(p *PoissonStat) nb.RowKey { return nb.RowKey{Feature: p.Feature, Class: p.Class, Value: ""} },
	Merge: func(x, p *PoissonStat) {
		var n float64
		n, x.Mean, _ = nb.ChanMerge(float64(x.Count), x.Mean, 0, float64(p.Count), p.Mean, 0)
		x.Count = int64(n)
		x.Weight, x.WMean, _ = nb.ChanMerge(x.Weight, x.WMean, 0, p.Weight, p.WMean, 0)
	},
	Subtract: subtractPoisson,
	Check: func(p *PoissonStat) error {
		if math.IsInf(p.Mean, 0) || math.IsInf(p.Weight, 0) || math.IsInf(p.WMean, 0) {
			return nb.ErrNotFinite
		}
		if p.Count < 0 || !(p.Mean >= 0) || !(p.Weight >= 0) || !(p.WMean >= 0) {
			return fmt.Errorf("count %d, mean %v, weight %v, weighted mean %v: must be ≥ 0 and finite", p.Count, p.Mean, p.Weight, p.WMean)
		}
		return nil
	},
	Rows: func(p *PoissonStat) (int64, float64) { return p.Count, p.Weight },
	Moments: func(p *PoissonStat) ([]float64, []float64) {
		return []float64{p.Mean}, []float64{p.WMean}
	},
}

type PoissonFamily struct{}

func (PoissonFamily) Kinds() []nb.KindInfo {
	return []nb.KindInfo{{Kind: Poisson, Doc: "a column of non-negative integer counts, Poisson per class (R naivebayes' usepoisson)",
		Accepts: func(c nb.Column) error {
			if !nb.ClassifyType(c.Type).Numeric() {
				return fmt.Errorf("%w: feature %q has type %s: a Poisson feature must hold non-negative integer counts", nb.ErrBadType, c.Name, c.Type)
			}
			return nil
		}}}
}

func (PoissonFamily) Tables() []nb.StatsTable               { return []nb.StatsTable{PoissonTable} }
func (PoissonFamily) Check(_, _ []nb.Feature, _ bool) error { return nil }

// Train runs train_poisson: per (fold,) class the count, mean and weighted mean of every Poisson feature,
// with its minimum and number of non-integer values to reject bad counts by column.
func (PoissonFamily) Train(ctx context.Context, sc *nb.Scan, feats []nb.Feature) error {
	rows, err := sc.Query(ctx, "train_poisson.tmpl.sql", queries.Features{Train: sc.Train(), Features: nb.TemplateFeatures(feats)})
	if err != nil {
		return fmt.Errorf("compute Poisson statistics: %w", err)
	}
	defer rows.Close()
	per := 4
	if sc.Plan.Weight != "" {
		per = 6
	}
	stats := map[int64][]PoissonStat{}
	err = sc.ClassRows(rows, per*len(feats), func(fold int64, class string, v []sql.NullFloat64) error {
		for j, f := range feats {
			x := v[per*j:]
			switch {
			case x[3].Float64 > 0:
				return fmt.Errorf("%w: Poisson feature %q holds %d non-integer, NaN or infinite values (class %q): counts must be whole numbers ≥ 0",
					nb.ErrBadValue, f.Name, int64(x[3].Float64), class)
			case x[2].Valid && x[2].Float64 < 0:
				return fmt.Errorf("%w: Poisson feature %q holds negative values (%v, class %q): counts must be ≥ 0", nb.ErrBadValue, f.Name, x[2].Float64, class)
			}
			s := PoissonStat{Feature: f.Name, Class: class, Count: int64(x[0].Float64), Mean: x[1].Float64}
			s.Weight, s.WMean = float64(s.Count), s.Mean
			if sc.Plan.Weight != "" {
				s.Weight, s.WMean = x[4].Float64, 0
				if s.Weight > 0 {
					s.WMean = x[5].Float64 / s.Weight
				}
			}
			stats[fold] = append(stats[fold], s)
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("compute Poisson statistics: %w", err)
	}
	for fold, s := range stats {
		nb.AddRows(sc.Part(fold).Stats, PoissonTable, s...)
	}
	return nil
}

func (PoissonFamily) Validate(m *nb.Model, feats []nb.Feature) error {
	return nb.RequirePerClass(m, feats, nb.RowsOf(m, PoissonTable), PoissonTable.Key)
}

// poissonComponent scores the Poisson features of a model.
type poissonComponent struct {
	in             []*nb.Input
	lambda, logLam [][]float64 // [feature][class]
	count          [][]float64
	rule           nb.E1071Rule
	K              int
	scratch        sync.Pool // *[]float64: per row Σ_j log x_j!
}

// Compile: λ_jc = the class's weighted mean (a class without a non-NULL value takes the feature's mean over
// all classes), at least 1e-10.
func (PoissonFamily) Compile(cc *nb.Compiler, feats []nb.Feature) ([]nb.Component, error) {
	byFeature := nb.RowsByFeature(cc.Model, PoissonTable)
	p := &poissonComponent{K: cc.K, rule: cc.Rule}
	for _, f := range feats {
		p.in = append(p.in, cc.Input(f, nb.NumberInput))
		lam, logLam, cnt := make([]float64, cc.K), make([]float64, cc.K), make([]float64, cc.K)
		allW, allMean := 0.0, 0.0
		for _, s := range byFeature[f.Name] {
			allW, allMean, _ = nb.ChanMerge(allW, allMean, 0, s.Weight, s.WMean, 0)
		}
		for _, s := range byFeature[f.Name] {
			c := cc.Class[s.Class]
			l := allMean
			if s.Weight > 0 {
				l = s.WMean
			}
			l = math.Max(l, poissonFloor)
			lam[c], logLam[c], cnt[c] = l, math.Log(l), s.Weight
		}
		p.lambda, p.logLam, p.count = append(p.lambda, lam), append(p.logLam, logLam), append(p.count, cnt)
	}
	return []nb.Component{p}, nil
}

func (p *poissonComponent) Inputs() []*nb.Input { return p.in }

func (p *poissonComponent) Base(c int) float64 {
	if p.rule.On {
		return 0
	}
	b := 0.0
	for k := range p.in {
		b -= p.lambda[k][c]
	}
	return b
}

// validCount reports whether x is a count: a whole number ≥ 0.
func validCount(x float64) bool { return x >= 0 && x == math.Floor(x) && !math.IsInf(x, 1) }

// Add: per row Σ_j log x_j! once (NaN when a value is not a count, so the scorer rescores the row with Row),
// then per class Σ_j x_j log λ_jc.
func (p *poissonComponent) Add(b *nb.Batch, out []float64) {
	n := b.N
	if p.rule.On {
		for c := range p.K {
			o := out[c*n : c*n+n]
			for i := range o {
				o[i] += p.Row(b, i, c).Float()
			}
		}
		return
	}
	bufp, _ := p.scratch.Get().(*[]float64)
	if bufp == nil || cap(*bufp) < n {
		buf := make([]float64, n)
		bufp = &buf
	}
	defer p.scratch.Put(bufp)
	lf := (*bufp)[:n]
	clear(lf)
	for _, in := range p.in {
		x := b.Num[in.Feature][:n]
		for i, v := range x {
			if !validCount(v) {
				lf[i] = math.NaN()
				continue
			}
			lg, _ := math.Lgamma(v + 1)
			lf[i] += lg
		}
	}
	for c := range p.K {
		o := out[c*n : c*n+n]
		for i := range o {
			o[i] -= lf[i]
		}
		for k, in := range p.in {
			x, ll := b.Num[in.Feature][:n], p.logLam[k][c]
			for i := range o {
				o[i] += x[i] * ll
			}
		}
	}
}

// term is feature k's log p(x | c) for row i, 0 when the value is missing or not a count.
func (p *poissonComponent) term(b *nb.Batch, i, k, c int) nb.XFloat {
	in := p.in[k]
	x := b.Num[in.Feature][i]
	if !nb.IsValid(b.Valid[in.Feature], i) || !validCount(x) {
		return nb.XFloat{}
	}
	lg, _ := math.Lgamma(x + 1)
	t := nb.X(x).Mul(nb.X(p.logLam[k][c])).Sub(nb.X(p.lambda[k][c])).Sub(nb.X(lg))
	if p.rule.On {
		return nb.X(p.rule.Apply(t.Float()))
	}
	return t
}

func (p *poissonComponent) Row(b *nb.Batch, i, c int) nb.XFloat {
	var s nb.XFloat
	for k := range p.in {
		s = s.Add(p.term(b, i, k, c))
	}
	return s
}

func (p *poissonComponent) Explain(b *nb.Batch, i, a, c int, out []nb.Contribution) []nb.Contribution {
	for k, in := range p.in {
		out = append(out, nb.Contribution{Feature: in.Name, Input: in, LLR: p.term(b, i, k, a).Sub(p.term(b, i, k, c)).Float()})
	}
	return out
}

func (p *poissonComponent) Parameters(labels []string) []nb.Parameter {
	var out []nb.Parameter
	for k, in := range p.in {
		for c, l := range labels {
			out = append(out, nb.Parameter{Feature: in.Name, Kind: Poisson, Class: l, Parameter: "lambda", Estimate: p.lambda[k][c], Count: p.count[k][c]})
		}
	}
	return out
}

// Informative rates each feature at the class's rate rounded to a count: log p(x | c) - max over other
// classes d of log p(x | d), x = round(λ_c).
func (p *poissonComponent) Informative(labels []string, c int) []nb.Informative {
	var out []nb.Informative
	for k, in := range p.in {
		x := math.Round(p.lambda[k][c])
		at := func(d int) float64 { return x*p.logLam[k][d] - p.lambda[k][d] }
		out = append(out, nb.Informative{Class: labels[c], Feature: in.Name, Value: fmt.Sprintf("count %g", x), LLR: at(c) - nb.BestOther(p.K, c, at)})
	}
	return out
}

// SQL: x log λ - λ - log x! per feature, 0 unless x is a whole number ≥ 0.
func (p *poissonComponent) SQL(x *nb.Exporter, c int) (string, error) {
	var terms []string
	for k, in := range p.in {
		v := x.Number(in.Name)
		t := fmt.Sprintf("%s * %s - %s - %s", v, x.Num(p.logLam[k][c]), x.Num(p.lambda[k][c]), x.LogFactorial(v))
		terms = append(terms, fmt.Sprintf("CASE WHEN %s OR %s < 0 OR %s <> floor(%s) THEN 0 ELSE %s END",
			x.IsMissingNumber(v), v, v, v, x.Ruled(p.rule, t)))
	}
	return strings.Join(terms, " + "), nil
}

func subtractPoisson(x, p *PoissonStat) error {
	n, err := nb.SubCount("the count of non-NULL values", x.Count, p.Count)
	if err != nil {
		return err
	}
	_, mean, err := nb.MeanUnmerge("Poisson", float64(x.Count), x.Mean, float64(p.Count), p.Mean)
	if err != nil {
		return err
	}
	w, wmean, err := nb.MeanUnmerge("weighted Poisson", x.Weight, x.WMean, p.Weight, p.WMean)
	if err != nil {
		return err
	}
	if n == 0 {
		if err := nb.EmptySum("weight", w, x.Weight); err != nil {
			return err
		}
		mean, w = 0, 0
	}
	if w == 0 {
		wmean = 0
	}
	// A mean of non-negative counts below zero is rounding only when tiny against the mean before.
	for _, v := range []*float64{&mean, &wmean} {
		if *v < 0 {
			if -*v > nb.ForgetTolerance*math.Max(x.Mean, x.WMean) {
				return fmt.Errorf("the mean count would be %g, below zero: the rows to forget differ from the rows trained", *v)
			}
			*v = 0
		}
	}
	*x = PoissonStat{Feature: x.Feature, Class: x.Class, Count: n, Mean: mean, Weight: w, WMean: wmean}
	return nil
}

// ForgetRounding warns of Poisson means (rates), weighted and not, that forgetting most of a class's rows
// leaves rounded: the sums n·mean and n_B·mean_B are each rounded (ε relative), so the rate left is off by
// about ε·(S + S_B)/S_A, S = n·mean; forgetting counts near 1e7 from a class whose counts left are near 1
// left its rate 5e-10 off.
func (PoissonFamily) ForgetRounding(before, after *nb.Model) []nb.RoundingWarning {
	was := map[[2]string]PoissonStat{}
	for _, p := range nb.RowsOf(before, PoissonTable) {
		was[[2]string{p.Feature, p.Class}] = p
	}
	var out []nb.RoundingWarning
	for _, a := range nb.RowsOf(after, PoissonTable) {
		b, ok := was[[2]string{a.Feature, a.Class}]
		if !ok || b.Count <= a.Count {
			continue
		}
		// Unweighted and weighted: the sum before and the sum forgotten, each rounded, against the sum left
		// (0 left exactly is exact: the floor applies).
		for _, s := range [][4]float64{{float64(b.Count), b.Mean, float64(a.Count), a.Mean}, {b.Weight, b.WMean, a.Weight, a.WMean}} {
			sb, sa := s[0]*s[1], s[2]*s[3]
			if sa > 0 {
				out = append(out, nb.RoundingWarning{Feature: a.Feature, Estimate: "mean", When: "the more so for forgotten counts far above those left",
					Off: 0x1p-53 * (sb + math.Abs(sb-sa)) / sa})
			}
		}
	}
	return out
}
