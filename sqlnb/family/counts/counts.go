package counts

import (
	"context"
	"database/sql"
	"fmt"
	"github.com/sqlnb/sqlnb/internal/kernel"
	"github.com/sqlnb/sqlnb/queries"
	"github.com/sqlnb/sqlnb/sqlnb/nb"
	"math"
	"strings"
	"unsafe"
)

// The kinds of the count-column family: a model's count columns form one bag of V "terms" (seed 001).
const (
	// Multinomial: θ_jc = (N_jc + α)/(N_c + αV) over the V count columns; b_c gains Σ_j x_j log θ_jc
	// (scikit-learn's MultinomialNB).
	Multinomial nb.Kind = "multinomial"
	// Complement: scikit-learn's ComplementNB (Rennie et al. 2003) over the count columns: weights from the
	// other classes' counts, b_c = Σ_j x_j w_jc without priors; Params.Bool("norm") normalises the weights.
	Complement nb.Kind = "complement"
)

// CountStat is the (weighted) sum of one count column over the training rows of one class.
type CountStat struct {
	Feature string  `json:"feature"`
	Class   string  `json:"class"`
	Total   float64 `json:"total"`
}

// TotalsTable is the count columns' per-class sums: nb.totals.
var TotalsTable = &nb.Table[CountStat]{
	Name:     "totals",
	Key:      func(t *CountStat) nb.RowKey { return nb.RowKey{Feature: t.Feature, Class: t.Class, Value: ""} },
	Merge:    func(x, t *CountStat) { x.Total += t.Total },
	Subtract: subtractTotal,
	Check: func(t *CountStat) error {
		if !(t.Total >= 0) || math.IsInf(t.Total, 1) {
			return fmt.Errorf("total %v: must be finite and ≥ 0", t.Total)
		}
		return nil
	},
}

type CountsFamily struct{}

func countsAccept(kind nb.Kind) func(nb.Column) error {
	return func(c nb.Column) error {
		if !nb.ClassifyType(c.Type).Numeric() {
			return fmt.Errorf("%w: feature %q has type %s: a %s (count) feature must be numeric", nb.ErrBadType, c.Name, c.Type, kind)
		}
		return nil
	}
}

func (CountsFamily) Kinds() []nb.KindInfo {
	return []nb.KindInfo{
		{Kind: Multinomial, Doc: "count columns, together one multinomial per class (MultinomialNB)", Accepts: countsAccept(Multinomial)},
		{Kind: Complement, Doc: "count columns weighted by the other classes' counts (ComplementNB; count columns only)",
			Accepts: countsAccept(Complement), Priorless: true},
	}
}

func (CountsFamily) Tables() []nb.StatsTable { return []nb.StatsTable{TotalsTable} }

// Check: the count columns form one distribution, so they share one kind.
func (CountsFamily) Check(feats, _ []nb.Feature, _ bool) error {
	for _, f := range feats {
		if f.Kind != feats[0].Kind {
			return fmt.Errorf("%w: multinomial and complement columns cannot be mixed: the count columns form one distribution", nb.ErrBadOption)
		}
	}
	return nil
}

// Train runs train_sums: per (fold,) class the (weighted) sum of every count column, rejecting negative,
// NaN and infinite counts by column.
func (CountsFamily) Train(ctx context.Context, sc *nb.Scan, feats []nb.Feature) error {
	rows, err := sc.Query(ctx, "train_sums.tmpl.sql", queries.Features{Train: sc.Train(), Features: nb.TemplateFeatures(feats)})
	if err != nil {
		return fmt.Errorf("sum count columns: %w", err)
	}
	defer rows.Close()
	totals := map[int64][]CountStat{}
	err = sc.ClassRows(rows, 3*len(feats), func(fold int64, class string, vals []sql.NullFloat64) error {
		for j, f := range feats {
			v := vals[3*j:]
			switch {
			case v[2].Float64 > 0:
				return fmt.Errorf("%w: count column %q holds NaN or infinite values (class %q): counts must be finite", nb.ErrBadValue, f.Name, class)
			case v[1].Valid && v[1].Float64 < 0:
				return fmt.Errorf("%w: count column %q holds negative values (%v, class %q): %s counts must be ≥ 0",
					nb.ErrBadValue, f.Name, v[1].Float64, class, f.Kind)
			}
			totals[fold] = append(totals[fold], CountStat{Feature: f.Name, Class: class, Total: v[0].Float64})
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("sum count columns: %w", err)
	}
	for fold, t := range totals {
		nb.AddRows(sc.Part(fold).Stats, TotalsTable, t...)
	}
	return nil
}

func (CountsFamily) Validate(m *nb.Model, feats []nb.Feature) error {
	return nb.RequirePerClass(m, feats, nb.RowsOf(m, TotalsTable), TotalsTable.Key)
}

// countsComponent adds Σ_j x_j w_jc over the count columns; NULL, NaN and ±Inf counts add nothing.
type countsComponent struct {
	in         []*nb.Input
	kind       nb.Kind
	weight     [][]float64 // [column][class]
	total      [][]float64 // [column][class]: N_jc
	complement bool
	K          int
	// pairs holds the weights for countsAVX2 by pairs of classes (c, c+1), or (K-1, K-1) for an odd last
	// class: the pair starting at class c at pairs[c·V:], column by column, the two classes' weights of a
	// column next to each other.
	pairs []float64
}

// Compile sets the weights of the count columns, as scikit-learn's MultinomialNB and ComplementNB:
//   - multinomial: w_jc = log θ_jc = log(N_jc + α) - log(Σ_j N_jc + αV), V = number of count columns;
//   - complement: with C_jc = Σ_c' N_jc' - N_jc + α (the other classes' counts), l_jc = log(C_jc / Σ_j C_jc),
//     w_jc = -l_jc, or with Params.Bool("norm") w_jc = l_jc / Σ_j l_jc; complement scores ignore the priors.
func (CountsFamily) Compile(cc *nb.Compiler, feats []nb.Feature) ([]nb.Component, error) {
	comp := &countsComponent{kind: feats[0].Kind, complement: feats[0].Kind == Complement, K: cc.K}
	pos := map[string]int{}
	for r, f := range feats {
		comp.in = append(comp.in, cc.Input(f, nb.NumberInput))
		pos[f.Name] = r
	}
	V := len(feats)
	n := make([]float64, V*cc.K) // n[r*K + c], the bag layout shared with text features
	for _, t := range nb.RowsOf(cc.Model, TotalsTable) {
		n[pos[t.Feature]*cc.K+cc.Class[t.Class]] += t.Total
	}
	var w []float64
	if comp.complement {
		w = nb.ComplementTable(n, V, cc.K, cc.Alpha, cc.Model.Params.Bool("norm"))
	} else {
		w = nb.MultinomialTable(n, V, cc.K, cc.Alpha)
	}
	for r := range V {
		comp.weight = append(comp.weight, w[r*cc.K:(r+1)*cc.K])
		comp.total = append(comp.total, n[r*cc.K:(r+1)*cc.K])
	}
	comp.pairs = make([]float64, V*(cc.K+cc.K%2))
	for c := 0; c < cc.K; c += 2 {
		d := min(c+1, cc.K-1)
		for r := range V {
			comp.pairs[c*V+2*r], comp.pairs[c*V+2*r+1] = w[r*cc.K+c], w[r*cc.K+d]
		}
	}
	return []nb.Component{comp}, nil
}

func (cs *countsComponent) Inputs() []*nb.Input { return cs.in }
func (cs *countsComponent) OwnsBuffers() bool   { return true }
func (cs *countsComponent) Base(int) float64    { return 0 }
func (cs *countsComponent) IgnoresPriors() bool { return cs.complement }

// Add adds Σ_j x_j w_jc to every row's class scores: for each row and class, from the score in out, x_j·w_jc
// for the count columns j in order, each by a fused multiply-add (math.FMA: one rounding a term), so that the
// result does not depend on how the rows are blocked or which kernel runs. On a CPU without FMA (hasFMA), where
// math.FMA is software, the product and the sum are rounded each, on every path alike.
// NULL, NaN and ±Inf counts are not special here: the scorer rescores those rows with Row (Scorer.fixup).
//
// The work is K·V multiply-adds per row (200 for bench-compare's 20 columns × 10 classes). addAVX2 does it
// sixteen rows and two classes at a time in YMM registers (counts_amd64.s), so that out is read and written
// once per class and block of rows instead of once per column; the rest runs addGo, which reads and writes
// out once per four columns. A fused multiply-add is one vector operation where a product and a sum are two:
// it halves the kernel's arithmetic, and rounds once instead of twice.
func (cs *countsComponent) Add(b *nb.Batch, out []float64) {
	from := 0
	if kernel.UseAVX2 {
		from = cs.addAVX2(b, out)
	}
	cs.addGo(b, out, from)
}

// addGo is Add for rows from..b.N-1 in Go: per class, four columns per pass over the rows, each row's score
// held in a local while their four terms are added in column order.
func (cs *countsComponent) addGo(b *nb.Batch, out []float64, from int) {
	n := b.N
	V := len(cs.in)
	for c := range cs.K {
		o := out[c*n+from : c*n+n]
		m := len(o)
		r := 0
		for ; V-r >= 4; r += 4 {
			x0, x1, x2, x3 := b.Num[cs.in[r].Feature][from:n], b.Num[cs.in[r+1].Feature][from:n], b.Num[cs.in[r+2].Feature][from:n], b.Num[cs.in[r+3].Feature][from:n]
			x0, x1, x2, x3 = x0[:m], x1[:m], x2[:m], x3[:m]
			w0, w1, w2, w3 := cs.weight[r][c], cs.weight[r+1][c], cs.weight[r+2][c], cs.weight[r+3][c]
			if !kernel.HasFMA { // software math.FMA: the product and the sum, each rounded
				for i := range o {
					s := o[i]
					s += float64(x0[i] * w0)
					s += float64(x1[i] * w1)
					s += float64(x2[i] * w2)
					s += float64(x3[i] * w3)
					o[i] = s
				}
				continue
			}
			for i := range o {
				s := o[i]
				s = math.FMA(x0[i], w0, s)
				s = math.FMA(x1[i], w1, s)
				s = math.FMA(x2[i], w2, s)
				s = math.FMA(x3[i], w3, s)
				o[i] = s
			}
		}
		for ; r < V; r++ {
			x, w := b.Num[cs.in[r].Feature][from:n], cs.weight[r][c]
			x = x[:m]
			for i := range o {
				if kernel.HasFMA {
					o[i] = math.FMA(x[i], w, o[i])
				} else {
					o[i] += float64(x[i] * w)
				}
			}
		}
	}
}

// countsColumns is how many count columns one countsAVX2 call reads (their pointers live on the stack);
// more columns take more calls, the scores carried in out between them (exact: out holds the running sum).
const countsColumns = 32

// addAVX2 runs countsAVX2 over the first b.N rows rounded down to a multiple of 16 and returns the number of
// rows done.
func (cs *countsComponent) addAVX2(b *nb.Batch, out []float64) int {
	n := b.N
	rows := n &^ 15
	if rows == 0 {
		return 0
	}
	V := len(cs.in)
	_ = out[cs.K*n-1] // countsAVX2 writes every class's first rows
	var cols [countsColumns]unsafe.Pointer
	for j0 := 0; j0 < V; j0 += countsColumns {
		nj := min(V-j0, countsColumns)
		for r := range nj {
			x := b.Num[cs.in[j0+r].Feature][:rows]
			cols[r] = unsafe.Pointer(&x[0])
		}
		kernel.CountsAVX2(&cols[0], nj, &cs.pairs[2*j0], uintptr(2*V)*8, &out[0], uintptr(n)*8, cs.K, rows)
	}
	return rows
}

func (cs *countsComponent) term(b *nb.Batch, i, r, c int) nb.XFloat {
	in := cs.in[r]
	x := b.Num[in.Feature][i]
	if !nb.IsValid(b.Valid[in.Feature], i) || math.IsNaN(x) || math.IsInf(x, 0) {
		return nb.XFloat{}
	}
	return nb.X(x).Mul(nb.X(cs.weight[r][c]))
}

func (cs *countsComponent) Row(b *nb.Batch, i, c int) nb.XFloat {
	var s nb.XFloat
	for r := range cs.in {
		s = s.Add(cs.term(b, i, r, c))
	}
	return s
}

func (cs *countsComponent) Explain(b *nb.Batch, i, a, c int, out []nb.Contribution) []nb.Contribution {
	for r, in := range cs.in {
		out = append(out, nb.Contribution{Feature: in.Name, Input: in, LLR: cs.term(b, i, r, a).Sub(cs.term(b, i, r, c)).Float()})
	}
	return out
}

func (cs *countsComponent) Parameters(labels []string) []nb.Parameter {
	name := "log_prob"
	if cs.complement {
		name = "weight"
	}
	var out []nb.Parameter
	for r, in := range cs.in {
		for c, l := range labels {
			out = append(out, nb.Parameter{Feature: in.Name, Kind: cs.kind, Class: l, Parameter: name, Estimate: cs.weight[r][c], Count: cs.total[r][c]})
		}
	}
	return out
}

func (cs *countsComponent) Informative(labels []string, c int) []nb.Informative {
	var out []nb.Informative
	for r, in := range cs.in {
		at := func(d int) float64 { return cs.weight[r][d] }
		out = append(out, nb.Informative{Class: labels[c], Feature: in.Name, Value: "(one count)", LLR: at(c) - nb.BestOther(cs.K, c, at)})
	}
	return out
}

// SQL: in DuckDB the row's count vector (NULL, NaN and ±Inf read as 0) is bound once per row and each class
// takes one inner product with its weights; in PostgreSQL one CASE per column.
func (cs *countsComponent) SQL(x *nb.Exporter, c int) (string, error) {
	if x.Pg {
		var terms []string
		for r, in := range cs.in {
			v := x.Number(in.Name)
			terms = append(terms, fmt.Sprintf("CASE WHEN %s THEN 0 ELSE %s * %s END", x.IsMissingNumber(v), v, x.Num(cs.weight[r][c])))
		}
		return strings.Join(terms, " + "), nil
	}
	elems := make([]string, len(cs.in))
	for r, in := range cs.in {
		v := x.Number(in.Name)
		elems[r] = fmt.Sprintf("CASE WHEN isfinite(%s) THEN %s ELSE 0 END", v, v)
	}
	vec := x.Bind("counts", "["+strings.Join(elems, ", ")+"]::DOUBLE[]")
	w := make([]string, len(cs.in))
	for r := range cs.in {
		w[r] = x.Num(cs.weight[r][c])
	}
	return "list_inner_product(" + vec + ", [" + strings.Join(w, ", ") + "])", nil
}

func subtractTotal(x, t *CountStat) error {
	v, err := nb.SubSum("the total", x.Total, t.Total)
	x.Total = v
	return err
}
