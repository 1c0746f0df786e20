package categorical

import (
	"context"
	"database/sql"
	"fmt"
	"github.com/sqlnb/sqlnb/sqlnb/nb"
	"math"
	"strings"

	"github.com/sqlnb/sqlnb/queries"
)

// The kinds of the categorical family.
const (
	// Categorical: x | c ~ Categorical(θ_c) over the column's declared levels (ENUM, BOOLEAN) or else the
	// distinct training values (seed 000).
	Categorical nb.Kind = "categorical"
	// Bernoulli: present (value > Feature.Binarize, or true) | c ~ Bernoulli(p_c); absence contributes
	// log(1 - p_c) (scikit-learn's BernoulliNB).
	Bernoulli nb.Kind = "bernoulli"
)

// CategoryCount is the number (and weight) of training rows of one class with one value of a
// categorical or Bernoulli feature. Bernoulli values are "false" and "true".
type CategoryCount struct {
	Feature string  `json:"feature"`
	Class   string  `json:"class"`
	Value   string  `json:"value"`
	Count   int64   `json:"count"`
	Weight  float64 `json:"weight"`
}

// CategoricalTable is the categorical and Bernoulli features' value counts: nb.categorical.
var CategoricalTable = &nb.Table[CategoryCount]{
	Name:     "categorical",
	Key:      func(n *CategoryCount) nb.RowKey { return nb.RowKey{Feature: n.Feature, Class: n.Class, Value: n.Value} },
	Merge:    func(x, n *CategoryCount) { x.Count += n.Count; x.Weight += n.Weight },
	Subtract: subtractCategory,
	// Training counts the values rows have: a value no row of the class has any more is dropped.
	Empty: func(n *CategoryCount) bool { return n.Count == 0 },
	Check: func(n *CategoryCount) error {
		if n.Count < 0 || !(n.Weight >= 0) || math.IsInf(n.Weight, 1) {
			return fmt.Errorf("count %d, weight %v: must be ≥ 0 and finite", n.Count, n.Weight)
		}
		return nil
	},
	Rows: func(n *CategoryCount) (int64, float64) { return n.Count, n.Weight },
}

type CategoricalFamily struct{}

func (CategoricalFamily) Kinds() []nb.KindInfo {
	return []nb.KindInfo{
		{Kind: Categorical, Doc: "a column of categories, one probability per value and class (CategoricalNB; the default for VARCHAR, ENUM, BOOLEAN)",
			Default:     func(t nb.TypeClass) bool { return t == nb.TypeText || t == nb.TypeBool },
			TypedValues: true,
			Accepts: func(c nb.Column) error {
				up := strings.ToUpper(c.Type)
				switch {
				case nb.ClassifyType(c.Type) != nb.TypeOther:
					return nil
				case strings.HasSuffix(c.Type, "]") || strings.HasPrefix(up, "STRUCT") || strings.HasPrefix(up, "MAP"):
					return fmt.Errorf("%w: feature %q has nested type %s, which cannot be a category", nb.ErrBadType, c.Name, c.Type)
				}
				return fmt.Errorf("%w: feature %q has type %s: a categorical feature must be VARCHAR, ENUM, BOOLEAN or numeric: "+
					"cast it in a --from query (SELECT CAST(%s AS VARCHAR) AS %s, ...)", nb.ErrBadType, c.Name, c.Type, queries.Ident(c.Name), queries.Ident(c.Name))
			}},
		{Kind: Bernoulli, Doc: "present or absent: a BOOLEAN, or a number > --binarize (BernoulliNB)", Binarize: true,
			Accepts: func(c nb.Column) error {
				if t := nb.ClassifyType(c.Type); !t.Numeric() && t != nb.TypeBool {
					return fmt.Errorf("%w: feature %q has type %s: a Bernoulli feature must be BOOLEAN or numeric (present = value > binarize)", nb.ErrBadType, c.Name, c.Type)
				}
				return nil
			}},
	}
}

func (CategoricalFamily) Tables() []nb.StatsTable               { return []nb.StatsTable{CategoricalTable} }
func (CategoricalFamily) Check(_, _ []nb.Feature, _ bool) error { return nil }

// Train runs train_counts: value counts per (fold,) class from the (label, feature) grouping sets, and the
// classes and skipped rows from the (label) set.
func (CategoricalFamily) Train(ctx context.Context, sc *nb.Scan, feats []nb.Feature) error {
	cf := make([]queries.CountFeature, len(feats)) // Expr: the column, or for Bernoulli over numbers presentSQL(column, $n)
	var thresholds []any
	for i, f := range feats {
		cf[i] = queries.CountFeature{Name: f.Name, Expr: nb.QueriesIdent(f.Name)}
		if f.Kind == Categorical && nb.ClassifyType(f.Type) == nb.TypeFloat {
			// NaN is missing, as scoring reads it (the literal takes the column's own type, so that the
			// values' text stays the column's)
			cf[i].Expr = "nullif(" + nb.QueriesIdent(f.Name) + ", 'NaN')"
		}
		if f.Kind == Bernoulli && nb.ClassifyType(f.Type) != nb.TypeBool {
			thresholds = append(thresholds, f.Binarize)
			cf[i].Expr = nb.PresentSQL(nb.QueriesIdent(f.Name), sc.Param(len(thresholds)))
		}
	}
	rows, err := sc.Query(ctx, "train_counts.tmpl.sql", queries.Counts{Train: sc.Train(), Features: cf}, thresholds...)
	if err != nil {
		return fmt.Errorf("count categorical values: %w", err)
	}
	defer rows.Close()
	var class sql.NullString
	var fold int64
	g := make([]int64, len(feats))
	v := make([]sql.NullString, len(feats))
	var n int64
	var w, nWeight, minW sql.NullFloat64
	var ptrs []any
	if sc.Fold != "" {
		ptrs = append(ptrs, &fold)
	}
	ptrs = append(ptrs, &class)
	for i := range feats {
		ptrs = append(ptrs, &g[i], &v[i])
	}
	ptrs = append(ptrs, &n)
	if sc.Plan.Weight != "" {
		ptrs = append(ptrs, &w, &nWeight, &minW)
	}
	counts := map[int64][]CategoryCount{}
	if l, ok := rows.(interface{ Len() int }); ok && sc.Fold == "" {
		counts[0] = make([]CategoryCount, 0, l.Len())
	}
	for rows.Next() {
		if err := rows.Scan(ptrs...); err != nil {
			return err
		}
		weight := float64(n)
		if sc.Plan.Weight != "" {
			weight = w.Float64
		}
		feature := -1
		for i := range g {
			if g[i] == 0 {
				feature = i
			}
		}
		switch {
		case feature < 0:
			head := []sql.NullFloat64{{Float64: float64(n), Valid: true}, nWeight, minW, w}
			if _, err := sc.AddClass(fold, class, head); err != nil {
				return err
			}
		case class.Valid && v[feature].Valid:
			counts[fold] = append(counts[fold], CategoryCount{Feature: feats[feature].Name, Class: class.String,
				Value: v[feature].String, Count: n, Weight: weight})
		}
	}
	if err := rows.Err(); err != nil {
		return fmt.Errorf("count categorical values: %w", err)
	}
	for fold, c := range counts {
		nb.AddRows(sc.Part(fold).Stats, CategoricalTable, c...)
	}
	return nil
}

func (CategoricalFamily) Validate(m *nb.Model, feats []nb.Feature) error {
	bern := map[string]bool{}
	for _, f := range feats {
		bern[f.Name] = f.Kind == Bernoulli
	}
	for i, n := range nb.RowsOf(m, CategoricalTable) {
		if bern[n.Feature] && n.Value != "true" && n.Value != "false" {
			return nb.InvalidRow(m, CategoricalTable.Name, i, "Bernoulli feature %q has value %q (only true and false)", n.Feature, n.Value)
		}
	}
	return nil
}

// categoricalComponent scores the categorical and Bernoulli features of a model by table lookup: per
// feature and class the J+2 log-probabilities of the J categories (Compile), a value outside them and NULL (0).
type categoricalComponent struct {
	in      []*nb.Input
	kinds   []nb.Kind
	logProb [][][]float64 // [feature][class][code]
	weight  [][][]float64 // [feature][class][value]: the (weighted) counts behind each probability
	unseen  []bool        // an unseen value has a probability of its own (categorical, α > 0)
	K       int
}

// Compile: θ_jvc = (n_jvc + α)/(n_jc + αJ) over the feature's J categories: the levels its column type
// declares (an ENUM's levels, BOOLEAN's false and true: declaredLevels) together with any other training
// value, or for other types (VARCHAR, numbers) the distinct training values (Bernoulli: J = 2, false and
// true). A declared level no training row has counts 0: α/(n_jc + αJ), as e1071 gives a factor's unused
// levels and scikit-learn's CategoricalNB with min_categories. A value outside the categories (a VARCHAR
// argument to an ENUM-trained feature, a value VARCHAR training never saw) gets α/(n_jc + αJ) too; a class
// with n_jc + αJ = 0 is uniform (1/J). A feature without any category (J = 0: a VARCHAR column NULL in every
// training row, or every value forgotten) adds nothing. α is the effective smoothing (compiler.alpha). With
// e1071's rule, probabilities ≤ Eps count as Threshold and a value outside the categories is skipped (e1071
// re-codes it as NA); a declared level is one of the table's columns there, so it is not skipped.
func (CategoricalFamily) Compile(cc *nb.Compiler, feats []nb.Feature) ([]nb.Component, error) {
	counts := nb.RowsByFeature(cc.Model, CategoricalTable)
	comp := &categoricalComponent{K: cc.K}
	for _, f := range feats {
		in := cc.Input(f, nb.CategoryInput)
		if f.Kind == Bernoulli {
			in.SetValues([]string{"false", "true"})
			in.Binary, in.Threshold = true, f.Binarize
		} else {
			in.SetValues(categories(declaredLevels(f.Type), counts[f.Name]))
		}
		J := len(in.Values)
		w := make([][]float64, cc.K)
		for c := range w {
			w[c] = make([]float64, J)
		}
		for _, n := range counts[f.Name] {
			if v, ok := in.Index[n.Value]; ok {
				w[cc.Class[n.Class]][v] += n.Weight
			}
		}
		lp := make([][]float64, cc.K)
		for c, wc := range w {
			total := 0.0
			for _, x := range wc {
				total += x
			}
			denom := total + cc.Alpha*float64(J)
			lp[c] = make([]float64, J+2)
			for v, x := range wc {
				if denom > 0 {
					lp[c][v] = math.Log((x + cc.Alpha) / denom)
				} else {
					lp[c][v] = -math.Log(float64(J))
				}
			}
			lp[c][J] = math.Inf(-1)
			switch {
			case J == 0:
				lp[c][J] = 0 // no training value at all (a column of NULLs): every value is unseen and tells nothing
			case denom > 0:
				lp[c][J] = math.Log(cc.Alpha / denom)
			}
			if cc.Rule.On {
				for v := range J {
					lp[c][v] = cc.Rule.Apply(lp[c][v])
				}
				lp[c][J] = 0 // e1071 re-codes an unseen level as NA: skipped
			}
		}
		comp.in = append(comp.in, in)
		comp.kinds = append(comp.kinds, f.Kind)
		comp.logProb = append(comp.logProb, lp)
		comp.weight = append(comp.weight, w)
		comp.unseen = append(comp.unseen, f.Kind == Categorical)
	}
	return []nb.Component{comp}, nil
}

// declaredLevels returns the categories a categorical feature's column type declares, as R's factor levels:
// an ENUM's levels (nb.EnumLevels of the type text DuckDB gave at training, stored with the feature), and
// BOOLEAN's false and true (as training casts them to text); nil for any other type.
func declaredLevels(typ string) []string {
	if levels, ok := nb.EnumLevels(typ); ok {
		return levels
	}
	if nb.ClassifyType(typ) == nb.TypeBool {
		return []string{"false", "true"}
	}
	return nil
}

// categories returns a categorical feature's categories, sorted: the declared levels and the training
// values (distinctValues). Training an ENUM or BOOLEAN column gives declared values only; the union keeps a
// value of a hand-edited store.
func categories(declared []string, rows []CategoryCount) []string {
	seen := distinctValues(rows)
	if len(declared) == 0 {
		return seen
	}
	set := make(map[string]bool, len(declared)+len(seen))
	for _, v := range declared {
		set[v] = true
	}
	for _, v := range seen {
		set[v] = true
	}
	return nb.SortedKeys(set)
}

// distinctValues returns the sorted values with a count or weight: in one pass when the rows are sorted by
// value (as training and the store give them), else through a set.
func distinctValues(rows []CategoryCount) []string {
	var out []string
	sorted := true
	for i, n := range rows {
		if i > 0 && n.Value < rows[i-1].Value {
			sorted = false
			break
		}
		if (n.Weight > 0 || n.Count > 0) && (len(out) == 0 || out[len(out)-1] != n.Value) {
			out = append(out, n.Value)
		}
	}
	if sorted {
		return out
	}
	set := map[string]bool{}
	for _, n := range rows {
		if n.Weight > 0 || n.Count > 0 {
			set[n.Value] = true
		}
	}
	return nb.SortedKeys(set)
}

func (cat *categoricalComponent) Inputs() []*nb.Input { return cat.in }
func (cat *categoricalComponent) Base(int) float64    { return 0 }

func (cat *categoricalComponent) Add(b *nb.Batch, out []float64) {
	n := b.N
	for c := range cat.K {
		o := out[c*n : c*n+n]
		for k, in := range cat.in {
			lp := cat.logProb[k][c]
			idx := b.Cat[in.Feature][:n]
			for i := range o {
				o[i] += lp[idx[i]]
			}
		}
	}
}

func (cat *categoricalComponent) Row(b *nb.Batch, i, c int) nb.XFloat {
	var s nb.XFloat
	for k, in := range cat.in {
		s = s.Add(nb.X(cat.logProb[k][c][b.Cat[in.Feature][i]]))
	}
	return s
}

func (cat *categoricalComponent) Explain(b *nb.Batch, i, a, c int, out []nb.Contribution) []nb.Contribution {
	for k, in := range cat.in {
		code := b.Cat[in.Feature][i]
		out = append(out, nb.Contribution{Feature: in.Name, Input: in, LLR: cat.logProb[k][a][code] - cat.logProb[k][c][code]})
	}
	return out
}

func (cat *categoricalComponent) Parameters(labels []string) []nb.Parameter {
	var out []nb.Parameter
	for k, in := range cat.in {
		for c, l := range labels {
			for v, value := range in.Values {
				out = append(out, nb.Parameter{Feature: in.Name, Kind: cat.kinds[k], Class: l, Value: value, HasValue: true, Parameter: "probability",
					Estimate: math.Exp(cat.logProb[k][c][v]), Count: cat.weight[k][c][v]})
			}
			if cat.unseen[k] && !math.IsInf(cat.logProb[k][c][in.Unseen()], -1) {
				out = append(out, nb.Parameter{Feature: in.Name, Kind: cat.kinds[k], Class: l, Parameter: "unseen",
					Estimate: math.Exp(cat.logProb[k][c][in.Unseen()]), Count: math.NaN()})
			}
		}
	}
	return out
}

func (cat *categoricalComponent) Informative(labels []string, c int) []nb.Informative {
	var out []nb.Informative
	for k, in := range cat.in {
		for v, value := range in.Values {
			at := func(d int) float64 { return cat.logProb[k][d][v] }
			out = append(out, nb.Informative{Class: labels[c], Feature: in.Name, Value: value, LLR: at(c) - nb.BestOther(cat.K, c, at)})
		}
	}
	return out
}

// linear: a Bernoulli feature adds log p(x | 1) - log p(x | 0) = w0_j + w_j x with x its presence (seed
// 002): w0_j = log((1 - p_1)/(1 - p_0)), w_j = log(p_1/p_0) - w0_j; a categorical feature adds, per level
// v of its categories (declared levels unseen in training included), log θ_v1/θ_v0 times the level's
// indicator (values outside the categories and NULL aside).
func (cat *categoricalComponent) Linear() (float64, []nb.LinearTerm, error) {
	w0 := 0.0
	var terms []nb.LinearTerm
	for k, in := range cat.in {
		lp := cat.logProb[k]
		if in.Binary {
			b := lp[1][0] - lp[0][0]
			w0 += b
			terms = append(terms, nb.LinearTerm{Feature: in.Name, Value: "true", HasValue: true, Weight: lp[1][1] - lp[0][1] - b})
			continue
		}
		for v, value := range in.Values {
			terms = append(terms, nb.LinearTerm{Feature: in.Name, Value: value, HasValue: true, Weight: lp[1][v] - lp[0][v]})
		}
	}
	return w0, terms, nil
}

// SQL: a CASE over the categories (a value outside them gets its own probability, NULL adds 0); Bernoulli
// features binarize numbers with presentSQL (booleans read as 1 and 0).
func (cat *categoricalComponent) SQL(x *nb.Exporter, c int) (string, error) {
	var terms []string
	for k, in := range cat.in {
		lp := cat.logProb[k][c]
		if in.Binary {
			v := x.Binary(in.Name)
			terms = append(terms, fmt.Sprintf("CASE WHEN %s IS NULL OR %s THEN 0 WHEN %s THEN %s ELSE %s END", v, x.IsNaN(v),
				nb.PresentSQL(v, x.Num(in.Threshold)), x.Num(lp[1]), x.Num(lp[0])))
			continue
		}
		v, literal := x.Text(in.Name), x.Literal
		if in.ValueClass() == nb.ValuesNumber { // compared as numbers, as the SQL functions do (1 = 1.0)
			v, literal = x.Numeric(in), x.NumberLiteral(in)
		}
		var cases []string
		for j, value := range in.Values {
			cases = append(cases, fmt.Sprintf("WHEN %s THEN %s", literal(value), x.Num(lp[j])))
		}
		if len(cases) == 0 { // no training value: every value is unseen
			terms = append(terms, fmt.Sprintf("CASE WHEN %s IS NULL THEN 0 ELSE %s END", v, x.Num(lp[in.Unseen()])))
			continue
		}
		terms = append(terms, fmt.Sprintf("CASE WHEN %s IS NULL THEN 0 ELSE CASE %s %s ELSE %s END END", v, v, strings.Join(cases, " "), x.Num(lp[in.Unseen()])))
	}
	return strings.Join(terms, " + "), nil
}

func subtractCategory(x, n *CategoryCount) error {
	c, err := nb.SubCount("the count", x.Count, n.Count)
	if err != nil {
		return err
	}
	w, err := nb.SubSum("the weight", x.Weight, n.Weight)
	if err != nil {
		return err
	}
	if c == 0 {
		if err := nb.EmptySum("weight", w, x.Weight); err != nil {
			return err
		}
		w = 0
	}
	x.Count, x.Weight = c, w
	return nil
}
