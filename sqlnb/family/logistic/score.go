package logistic

import (
	"fmt"
	"math"
	"slices"

	"github.com/sqlnb/sqlnb/sqlnb/nb"
)

// Validate: every class has an intercept and a coefficient for every number feature; a categorical
// feature has the same levels in every class.
func (LogisticFamily) Validate(m *nb.Model, feats []nb.Feature) error {
	have := map[nb.RowKey]bool{}
	levels := map[string]map[string]int{}
	// A categorical feature's level may be "" (the empty string): a row is a level's by its feature, not
	// its value.
	categorical := map[string]bool{}
	for _, f := range feats {
		categorical[f.Name] = !isNumeric(f)
	}
	for _, r := range nb.RowsOf(m, LogisticTable) {
		have[LogisticTable.Key(&r)] = true
		if categorical[r.Feature] {
			if levels[r.Feature] == nil {
				levels[r.Feature] = map[string]int{}
			}
			levels[r.Feature][r.Value]++
		}
	}
	for _, c := range m.Classes {
		if !have[nb.RowKey{Feature: "", Class: c.Label, Value: ""}] {
			return fmt.Errorf("%w: model %q: no intercept for class %q", nb.ErrInvalidModel, m.Name, c.Label)
		}
		for _, f := range feats {
			if isNumeric(f) && !have[nb.RowKey{Feature: f.Name, Class: c.Label, Value: ""}] {
				return fmt.Errorf("%w: model %q: no coefficient of feature %q for class %q", nb.ErrInvalidModel, m.Name, f.Name, c.Label)
			}
		}
	}
	for f, lv := range levels {
		for v, n := range lv {
			if n != len(m.Classes) {
				return fmt.Errorf("%w: model %q: level %q of feature %q has coefficients for %d of %d classes", nb.ErrInvalidModel, m.Name, v, f, n, len(m.Classes))
			}
		}
	}
	return nil
}

// logisticComponent scores a logistic regression: z_c = Σ_j w_cj x_j (the intercepts b_c take the place of
// the log-priors: intercepter). Every feature is required: a row with a missing value (NULL; NaN or ±Inf
// for a number) scores NULL. An unseen category contributes 0, as the reference level.
type logisticComponent struct {
	in      []*nb.Input
	numeric []bool
	K       int
	b       []float64
	w       [][]float64   // number features: [feature][class]
	level   [][][]float64 // categorical features: [feature][class][code], unseen and missing 0
}

func (LogisticFamily) Compile(cc *nb.Compiler, feats []nb.Feature) ([]nb.Component, error) {
	K := cc.K
	pos := map[string]int{}
	for j, f := range feats {
		pos[f.Name] = j
	}
	l := &logisticComponent{K: K, b: make([]float64, K), numeric: make([]bool, len(feats)), w: make([][]float64, len(feats)),
		level: make([][][]float64, len(feats))}
	values := make([][]string, len(feats))
	rows := nb.RowsOf(cc.Model, LogisticTable)
	for _, r := range rows {
		// A level may be "": a row is a level's when its feature is categorical.
		if j, ok := pos[r.Feature]; ok && r.Feature != "" && !isNumeric(feats[j]) {
			if !slices.Contains(values[j], r.Value) {
				values[j] = append(values[j], r.Value)
			}
		}
	}
	for j, f := range feats {
		l.numeric[j] = isNumeric(f)
		var in *nb.Input
		if l.numeric[j] {
			in = cc.Input(f, nb.NumberInput)
			l.w[j] = make([]float64, K)
		} else {
			in = cc.Input(f, nb.CategoryInput)
			slices.Sort(values[j])
			in.SetValues(values[j])
			l.level[j] = make([][]float64, K)
			for c := range K {
				l.level[j][c] = make([]float64, len(values[j])+2)
			}
		}
		in.Required = true
		l.in = append(l.in, in)
	}
	for _, r := range rows {
		c := cc.Class[r.Class]
		switch {
		case r.Feature == "":
			l.b[c] = r.Coef
		case l.numeric[pos[r.Feature]]:
			l.w[pos[r.Feature]][c] = r.Coef
		default:
			j := pos[r.Feature]
			l.level[j][c][l.in[j].Index[r.Value]] = r.Coef
		}
	}
	return []nb.Component{l}, nil
}

func (l *logisticComponent) Inputs() []*nb.Input { return l.in }
func (l *logisticComponent) Base(int) float64    { return 0 }
func (l *logisticComponent) IgnoresPriors() bool { return true }
func (l *logisticComponent) Intercept(c int) float64 {
	return l.b[c]
}

func (l *logisticComponent) Add(b *nb.Batch, out []float64) {
	n := b.N
	for c := range l.K {
		o := out[c*n : c*n+n]
		for j, in := range l.in {
			if l.numeric[j] {
				x, w := b.Num[in.Feature][:n], l.w[j][c]
				for i := range o {
					o[i] += w * x[i]
				}
				continue
			}
			codes, lv := b.Cat[in.Feature][:n], l.level[j][c]
			for i := range o {
				o[i] += lv[codes[i]]
			}
		}
	}
}

// term is feature j's part of z_c for row i (0 when missing: such rows are NULL).
func (l *logisticComponent) term(b *nb.Batch, i, j, c int) nb.XFloat {
	in := l.in[j]
	if !l.numeric[j] {
		return nb.X(l.level[j][c][b.Cat[in.Feature][i]])
	}
	x := b.Num[in.Feature][i]
	if !nb.IsValid(b.Valid[in.Feature], i) || x-x != 0 {
		return nb.XFloat{}
	}
	return nb.X(l.w[j][c]).Mul(nb.X(x))
}

func (l *logisticComponent) Row(b *nb.Batch, i, c int) nb.XFloat {
	var s nb.XFloat
	for j := range l.in {
		s = s.Add(l.term(b, i, j, c))
	}
	return s
}

// Explain: feature j's share of z_a - z_c is (w_aj - w_cj) x_j (a level's coefficient difference for a
// category); the intercept difference is the prior term.
func (l *logisticComponent) Explain(b *nb.Batch, i, a, c int, out []nb.Contribution) []nb.Contribution {
	for j, in := range l.in {
		out = append(out, nb.Contribution{Feature: in.Name, Input: in, LLR: l.term(b, i, j, a).Sub(l.term(b, i, j, c)).Float()})
	}
	return out
}

// Parameters lists the coefficients (the intercepts are the scorer's).
func (l *logisticComponent) Parameters(labels []string) []nb.Parameter {
	var out []nb.Parameter
	for j, in := range l.in {
		for c, lb := range labels {
			if l.numeric[j] {
				out = append(out, nb.Parameter{Feature: in.Name, Kind: Logistic, Class: lb, Parameter: "coefficient", Estimate: l.w[j][c], Count: math.NaN()})
				continue
			}
			for v, value := range in.Values {
				out = append(out, nb.Parameter{Feature: in.Name, Kind: Logistic, Class: lb, Value: value, HasValue: true, Parameter: "coefficient",
					Estimate: l.level[j][c][v], Count: math.NaN()})
			}
		}
	}
	return out
}

// Informative rates a number feature by its coefficient against the largest other class's (per unit of
// the feature), a level by its coefficient against the largest other class's.
func (l *logisticComponent) Informative(labels []string, c int) []nb.Informative {
	var out []nb.Informative
	for j, in := range l.in {
		if l.numeric[j] {
			at := func(d int) float64 { return l.w[j][d] }
			out = append(out, nb.Informative{Class: labels[c], Feature: in.Name, Value: "per unit", LLR: at(c) - nb.BestOther(l.K, c, at)})
			continue
		}
		for v, value := range in.Values {
			at := func(d int) float64 { return l.level[j][d][v] }
			out = append(out, nb.Informative{Class: labels[c], Feature: in.Name, Value: value, LLR: at(c) - nb.BestOther(l.K, c, at)})
		}
	}
	return out
}
