package sqlnb

import (
	"context"
	"database/sql"
	"fmt"
	"math"
	"slices"
	"strings"
	"time"

	"gonum.org/v1/gonum/mat"

	"github.com/sqlnb/sqlnb/queries"
)

// Logistic: the class given the features by logistic regression (seed 004), the discriminative twin of
// naive Bayes: p(c | x) = exp(z_c) / Σ_c' exp(z_c'), z_c = b_c + Σ_j w_cj x_j. Two classes: scikit-learn's
// binary LogisticRegression (one weight vector, a sigmoid: class 0's z is 0); more: the multinomial
// (softmax). A number column enters as its value; a VARCHAR, ENUM or BOOLEAN column one-hot encoded, one
// indicator per level but the first in sorted order (the reference level, coefficient 0; false for a
// BOOLEAN).
const Logistic Kind = "logistic"

// maxLogisticParams bounds the free parameters (K - 1 classes × design columns) of a Newton fit: its
// Hessian has that many rows, and every entry is one aggregate of the pass.
const maxLogisticParams = 1000

// LogisticCoef is one fitted coefficient: class Class's weight of a number feature (Value empty) or of a
// category level (Value the level; the reference level's is 0), or the class's intercept (Feature empty),
// in the units of the data. Multinomial coefficients are centred over the classes (they sum to 0 for every
// feature and for the intercepts), as scikit-learn's; binary ones are all 0 for the first class.
type LogisticCoef struct {
	Feature string  `json:"feature"`
	Class   string  `json:"class"`
	Value   string  `json:"value"`
	Coef    float64 `json:"coef"`
}

// LogisticTable is a logistic regression's fitted coefficients: nb.logistic.
var LogisticTable = &Table[LogisticCoef]{
	Name:      "logistic",
	ModelRows: true,
	Key:       func(r *LogisticCoef) rowKey { return rowKey{r.Feature, r.Class, r.Value} },
	// Never used: fitted coefficients do not merge (Merge refuses models of a refitter family).
	Merge: func(_, _ *LogisticCoef) {},
	Check: func(r *LogisticCoef) error {
		if math.IsNaN(r.Coef) || math.IsInf(r.Coef, 0) {
			return fmt.Errorf("coefficient %v is not finite", r.Coef)
		}
		return nil
	},
}

type logisticFamily struct{}

func (logisticFamily) Kinds() []KindInfo {
	return []KindInfo{{Kind: Logistic, Doc: "numbers, and categories one-hot encoded: logistic regression fitted by Newton steps in SQL (LogisticRegression)",
		Priorless: true, Alone: "fit",
		Accepts: func(c Column) error {
			switch classifyType(c.Type) {
			case typeText, typeBool:
				return nil
			}
			if classifyType(c.Type).numeric() {
				return nil
			}
			return fmt.Errorf("%w: feature %q has type %s: a logistic feature must be numeric, VARCHAR, ENUM or BOOLEAN (leave it out with --features, or cast it)",
				ErrBadType, c.Name, c.Type)
		}}}
}

func (logisticFamily) Tables() []table                    { return []table{LogisticTable} }
func (logisticFamily) Check(_, _ []Feature, _ bool) error { return nil }
func (logisticFamily) refits()                            {}

// isNumeric reports whether a logistic feature enters as its value (else: one-hot encoded).
func isNumeric(f Feature) bool { return classifyType(f.Type).numeric() }

func (logisticFamily) summary(m *Model) string {
	p := m.Params
	pen := fmt.Sprintf("penalty l2, C %g", p.C)
	if p.Penalty == PenaltyNone {
		pen = "penalty none"
	}
	return fmt.Sprintf("%s, tol %g, max_iter %d: %d Newton steps, final gradient %.3g", pen, p.Tol, p.MaxIter, m.Iterations, m.GradNorm)
}

// checkParams refuses to change the hyperparameters the fit used.
func (logisticFamily) checkParams(m *Model, p Params) error {
	o := m.Params
	if p.C != o.C || p.Penalty != o.Penalty || p.Tol != o.Tol || p.MaxIter != o.MaxIter {
		return fmt.Errorf("%w: model %q: C, penalty, tol and max_iter were used to fit its logistic regression: "+
			"train it again to change them (sqlnb train --kind logistic --C ..., or nb_train(..., c := ...))", ErrBadOption, m.Name)
	}
	return nil
}

// logisticFeature is a feature of the describe and step templates.
type logisticFeature struct {
	Name    string
	Numeric bool
}

// designCol is one column of the design matrix: a number feature standardised ((x - mean)/scale) or one
// level's indicator.
type designCol struct {
	Expr          string
	feature       int
	level         string
	mean, scale   float64
	numeric       bool
	constantLevel bool
}

// logisticDesign is what the first pass found: the classes' weights, the design columns.
type logisticDesign struct {
	labels []string
	weight []float64
	cols   []designCol
	levels [][]string // per feature: its levels (categorical), sorted
}

// Train fits the model by Newton's method (IRLS, seed 004): a first pass (train_logistic_describe) finds the
// classes, the levels of categorical features and the mean and spread of number features; then every step
// is one aggregation pass (train_logistic_step) returning the log-loss, gradient and Hessian at the current
// parameters, and gonum's Cholesky solves for the step. Rows with a missing feature value (NULL, NaN) are
// left out and counted; infinite values are an error naming the column. Cross-validation fits each fold
// (FoldModels): Train runs without a fold expression.
func (f logisticFamily) Train(ctx context.Context, sc *scan, feats []Feature) error {
	if sc.fold != "" {
		return fmt.Errorf("logistic regression is fitted per fold, not from fold statistics")
	}
	start := time.Now()
	d, err := describeLogistic(ctx, sc, feats)
	if err != nil {
		return err
	}
	if sc.p.trace != nil {
		sc.p.trace.Describe = time.Since(start)
	}
	if len(d.labels) < 2 {
		return nil // the trainer reports no rows or a single class
	}
	fit, err := newtonFit(ctx, sc, feats, d)
	if err != nil {
		return err
	}
	part := sc.part(0)
	addRows(part.stats, LogisticTable, fit.coefs...)
	part.iterations, part.gradNorm = fit.iterations, fit.gradNorm
	return nil
}

func describeLogistic(ctx context.Context, sc *scan, feats []Feature) (*logisticDesign, error) {
	lf := make([]logisticFeature, len(feats))
	for i, f := range feats {
		lf[i] = logisticFeature{Name: f.Name, Numeric: isNumeric(f)}
	}
	rows, err := sc.query(ctx, "train_logistic_describe.tmpl.sql", map[string]any{"Features": lf})
	if err != nil {
		if strings.Contains(err.Error(), "out of range") {
			return nil, logisticDiagnose(ctx, sc, lf, err)
		}
		return nil, fmt.Errorf("describe logistic features: %w", err)
	}
	defer rows.Close()
	head := 1
	if sc.p.weight != "" {
		head = 4
	}
	var class sql.NullString
	var inc bool
	vals := make([]sql.NullFloat64, head)
	num := make([]sql.NullFloat64, 2*len(feats))
	lists := make([]any, len(feats))
	ptrs := []any{&class, &inc}
	for i := range vals {
		ptrs = append(ptrs, &vals[i])
	}
	for i, f := range lf {
		if f.Numeric {
			ptrs = append(ptrs, &num[2*i], &num[2*i+1])
		} else {
			ptrs = append(ptrs, &lists[i])
		}
	}
	d := &logisticDesign{levels: make([][]string, len(feats))}
	type moments struct{ n, mean, m2 float64 }
	mom := make([]moments, len(feats))
	levelSet := make([]map[string]bool, len(feats))
	for i := range levelSet {
		levelSet[i] = map[string]bool{}
	}
	for rows.Next() {
		if err := rows.Scan(ptrs...); err != nil {
			return nil, fmt.Errorf("describe logistic features: %w", err)
		}
		n := int64(vals[0].Float64)
		if inc {
			if sc.p.weight != "" {
				if err := checkWeights(sc.p.weight, n, int64(vals[1].Float64), vals[2]); err != nil {
					return nil, err
				}
			}
			sc.part(0).incomplete += n
			continue
		}
		ok, err := sc.addClass(0, class, vals)
		if err != nil {
			return nil, err
		}
		if !ok {
			continue
		}
		w := float64(n)
		if sc.p.weight != "" {
			w = vals[3].Float64
		}
		d.labels = append(d.labels, class.String)
		d.weight = append(d.weight, w)
		for i, f := range lf {
			if f.Numeric {
				mom[i].n, mom[i].mean, mom[i].m2 = chanMerge(mom[i].n, mom[i].mean, mom[i].m2, float64(n), num[2*i].Float64, num[2*i+1].Float64*float64(n))
				continue
			}
			list, _ := lists[i].([]any)
			for _, v := range list {
				if s, ok := v.(string); ok {
					levelSet[i][s] = true
				}
			}
		}
	}
	if err := rows.Err(); err != nil {
		if strings.Contains(err.Error(), "out of range") {
			return nil, logisticDiagnose(ctx, sc, lf, err)
		}
		return nil, fmt.Errorf("describe logistic features: %w", err)
	}
	for i, f := range feats {
		if lf[i].Numeric {
			scale := 1.0
			if mom[i].n > 0 && mom[i].m2 > 0 {
				scale = math.Sqrt(mom[i].m2 / mom[i].n)
			}
			if math.IsInf(mom[i].mean, 0) || math.IsNaN(mom[i].mean) || math.IsInf(scale, 0) || math.IsNaN(scale) {
				return nil, logisticDiagnose(ctx, sc, lf, fmt.Errorf("%w: feature %q: its mean or variance is not finite", ErrBadValue, f.Name))
			}
			d.cols = append(d.cols, designCol{feature: i, numeric: true, mean: mom[i].mean, scale: scale, constantLevel: !(mom[i].m2 > 0)})
			continue
		}
		d.levels[i] = sortedKeys(levelSet[i])
		for _, l := range d.levels[i][min(1, len(d.levels[i])):] {
			d.cols = append(d.cols, designCol{feature: i, level: l, scale: 1})
		}
	}
	return d, nil
}

// logisticDiagnose names the number columns with infinite values (or values whose squares overflow).
func logisticDiagnose(ctx context.Context, sc *scan, lf []logisticFeature, cause error) error {
	var names []string
	for _, f := range lf {
		if f.Numeric {
			names = append(names, f.Name)
		}
	}
	return discriminantDiagnose(ctx, sc, names, cause)
}

// logisticFit is a fitted model: its coefficients and the fit's summary.
type logisticFit struct {
	coefs      []LogisticCoef
	iterations int64
	gradNorm   float64
}

// newtonFit minimises F(θ) = L(θ) + 1/(2C) · Σ_j ‖W_·j‖² (scikit-learn's objective divided by C: L the
// weighted log-loss, W the coefficients without the intercepts, centred over the classes for more than two)
// over θ, the coefficients of the standardised design columns for the free classes 1..K-1 (class 0 is the
// reference, z_0 = 0). Every iteration is one pass at θ + tΔ: Δ = -H⁻¹g is the Newton step of the previous
// accepted pass, t halves until F decreases (Armijo, up to rounding). It stops when the largest gradient
// component per unit weight is ≤ tol; with penalty none it stops with ErrSeparable as soon as θ puts every
// row's own class above ½ (the classes are then linearly separable and F has no minimum), with ErrSingular
// when the Hessian is singular, and with ErrNotConverged after max_iter steps.
func newtonFit(ctx context.Context, sc *scan, feats []Feature, d *logisticDesign) (*logisticFit, error) {
	K, nc := len(d.labels), len(d.cols)
	dim := nc + 1 // with the intercept
	free := K - 1
	D := free * dim
	p := sc.p
	params := p.params
	if D > maxLogisticParams {
		return nil, fmt.Errorf("%w: %d classes and %d design columns (categories one-hot) make %d coefficients: Newton's method "+
			"keeps a Hessian of that size; leave features out or merge category levels (at most %d)", ErrBadOption, K, nc, D, maxLogisticParams)
	}
	none := params.Penalty == PenaltyNone
	if none {
		for _, c := range d.cols {
			if c.numeric && c.constantLevel {
				return nil, fmt.Errorf("%w: feature %q is constant in the training rows: without a penalty its coefficient is not "+
					"determined; leave it out, or set C (penalty l2)", ErrSingular, feats[c.feature].Name)
			}
		}
	}
	// Bound parameters after the source's: per column its mean and scale, or its level; the class labels;
	// θ. The template names them.
	var args []any
	next := func(v any) string {
		args = append(args, v)
		return sc.param(len(args))
	}
	cols := make([]designCol, nc)
	for j, c := range d.cols {
		id := queriesIdent(feats[c.feature].Name)
		if c.numeric {
			c.Expr = fmt.Sprintf("((CAST(%s AS DOUBLE) - %s) / %s)", id, next(c.mean), next(c.scale))
		} else {
			c.Expr = fmt.Sprintf("(CAST(%s AS VARCHAR) = %s)::DOUBLE", id, next(c.level))
		}
		cols[j] = c
	}
	classes := make([]string, K)
	for c, l := range d.labels {
		classes[c] = next(l)
	}
	thetaArg := len(args)
	type zParams struct {
		B string
		W []string
	}
	z := make([]zParams, free)
	for c := range z {
		z[c].B = next(0.0)
		for range nc {
			z[c].W = append(z[c].W, next(0.0))
		}
	}
	var freeIdx, cols1 []int
	for c := 1; c < K; c++ {
		freeIdx = append(freeIdx, c)
	}
	for j := 1; j < dim; j++ {
		cols1 = append(cols1, j)
	}
	type pair struct{ C, D int }
	type prod struct{ J, K int }
	var pairsCD []pair
	for c := 1; c < K; c++ {
		for e := c; e < K; e++ {
			pairsCD = append(pairsCD, pair{c, e})
		}
	}
	var prods []prod
	for j := 1; j < dim; j++ {
		for k := j; k < dim; k++ {
			prods = append(prods, prod{j, k})
		}
	}
	lf := make([]logisticFeature, len(feats))
	for i, f := range feats {
		lf[i] = logisticFeature{Name: f.Name, Numeric: isNumeric(f)}
	}
	stmt, err := queries.Render("train_logistic_step.tmpl.sql", map[string]any{
		"From": p.src.From, "Label": p.label.Name, "Weight": p.weight, "Features": lf, "Cols": cols, "Classes": classes,
		"Z": z, "Free": freeIdx, "Pairs": pairsCD, "Prods": prods, "Cols1": cols1})
	if err != nil {
		return nil, err
	}
	total := 0.0
	for _, w := range d.weight {
		total += w
	}
	// The penalty's quadratic form in the standardised coordinates: (1/C) (1/s_j²) M_cc' between the
	// coefficients of column j ≥ 1 of free classes c and c', M = I for two classes (scikit-learn's binary
	// model penalises its one vector), I - 11ᵀ/K for more (the centred multinomial coefficients).
	pen := func(c, e, j int) float64 {
		if none || j == 0 {
			return 0
		}
		m := 0.0
		if c == e {
			m = 1
		}
		if K > 2 {
			m -= 1 / float64(K)
		}
		s := d.cols[j-1].scale
		return m / (params.C * s * s)
	}
	idx := func(c, j int) int { return (c-1)*dim + j }
	// pass evaluates F, g and H at θ.
	nout := 2 + D + len(pairsCD)*dim*(dim+1)/2
	out := make([]sql.NullFloat64, nout)
	ptrs := make([]any, nout)
	for i := range out {
		ptrs[i] = &out[i]
	}
	type point struct {
		theta  []float64
		f      float64
		g      []float64
		h      *mat.SymDense
		unsure int64
	}
	// The pass is prepared once: with many classes it has thousands of aggregates, and planning it costs.
	query := func(args ...any) *sql.Row { return sc.db.QueryRowContext(ctx, stmt, args...) }
	if pr, ok := sc.db.(interface {
		PrepareContext(context.Context, string) (*sql.Stmt, error)
	}); ok {
		prepared, err := pr.PrepareContext(ctx, stmt)
		if err != nil {
			return nil, fmt.Errorf("logistic regression step: %w", err)
		}
		defer prepared.Close()
		query = func(args ...any) *sql.Row { return prepared.QueryRowContext(ctx, args...) }
	}
	pass := func(theta []float64) (*point, error) {
		for i, v := range theta {
			args[thetaArg+i] = v
		}
		all := append(append([]any{}, p.src.Args...), args...)
		start := time.Now()
		if err := query(all...).Scan(ptrs...); err != nil {
			return nil, fmt.Errorf("logistic regression step: %w", err)
		}
		if p.trace != nil {
			p.trace.Passes = append(p.trace.Passes, time.Since(start))
		}
		pt := &point{theta: theta, f: out[0].Float64, unsure: int64(out[1].Float64), g: make([]float64, D), h: mat.NewSymDense(D, nil)}
		for i := range D {
			pt.g[i] = out[2+i].Float64
		}
		o := 2 + D
		for _, pr := range pairsCD {
			for j := range dim {
				for k := j; k < dim; k++ {
					v := out[o].Float64
					o++
					pt.h.SetSym(idx(pr.C, j), idx(pr.D, k), v)
					pt.h.SetSym(idx(pr.C, k), idx(pr.D, j), v)
				}
			}
		}
		// The penalty.
		for c := 1; c < K; c++ {
			for j := 1; j < dim; j++ {
				for e := 1; e < K; e++ {
					if a := pen(c, e, j); a != 0 {
						pt.g[idx(c, j)] += a * theta[idx(e, j)]
						if e >= c {
							pt.h.SetSym(idx(c, j), idx(e, j), pt.h.At(idx(c, j), idx(e, j))+a)
						}
						pt.f += 0.5 * a * theta[idx(c, j)] * theta[idx(e, j)]
					}
				}
			}
		}
		for _, v := range append([]float64{pt.f}, pt.g...) {
			if math.IsNaN(v) || math.IsInf(v, 0) {
				return nil, fmt.Errorf("%w: the log-loss or its gradient is not finite at step parameters %v", ErrBadValue, theta)
			}
		}
		return pt, nil
	}
	gradNorm := func(g []float64) float64 {
		mx := 0.0
		for _, v := range g {
			mx = math.Max(mx, math.Abs(v))
		}
		return mx / total
	}
	// Start at the intercepts of the class proportions.
	theta := make([]float64, D)
	for c := 1; c < K; c++ {
		theta[idx(c, 0)] = math.Log(d.weight[c] / d.weight[0])
	}
	cur, err := pass(theta)
	if err != nil {
		return nil, err
	}
	var iter int64
	for {
		gn := gradNorm(cur.g)
		if gn <= params.Tol {
			break
		}
		if none && cur.unsure == 0 {
			return nil, fmt.Errorf("%w: at Newton step %d every training row's own class has probability > ½, so the classes are "+
				"linearly separable and, without a penalty, the weights grow without bound (seed 004): set C (penalty l2, e.g. "+
				"--C 1 or c := 1) to regularise", ErrSeparable, iter)
		}
		if iter >= params.MaxIter {
			return nil, fmt.Errorf("%w: logistic regression after %d Newton steps (max_iter): the largest gradient component is "+
				"%.3g per unit weight, above tol %g; the classes may be (quasi-)separable or features collinear: set C (penalty l2), "+
				"or raise max_iter", ErrNotConverged, iter, gn, params.Tol)
		}
		var ch mat.Cholesky
		if !ch.Factorize(cur.h) {
			return nil, fmt.Errorf("%w: the Hessian of the log-loss is singular at Newton step %d: features are collinear (or a category "+
				"level never occurs with some class) or the classes are separable; set C (penalty l2), or leave features out", ErrSingular, iter)
		}
		var step mat.VecDense
		if err := ch.SolveVecTo(&step, mat.NewVecDense(D, cur.g)); err != nil {
			return nil, fmt.Errorf("%w: the Hessian is singular at Newton step %d: %v; set C (penalty l2)", ErrSingular, iter, err)
		}
		slope := 0.0
		for i := range D {
			slope -= cur.g[i] * step.AtVec(i)
		}
		var next *point
		for t := 1.0; ; t /= 2 {
			cand := make([]float64, D)
			for i := range D {
				cand[i] = cur.theta[i] - t*step.AtVec(i)
			}
			pt, err := pass(cand)
			if err != nil {
				return nil, err
			}
			// Armijo's sufficient decrease, up to the rounding of a sum over every row.
			if pt.f <= cur.f+1e-4*t*slope+1e-13*math.Abs(cur.f) {
				next = pt
				break
			}
			if t < 1e-10 {
				return nil, fmt.Errorf("%w: the Newton step %d does not decrease the log-loss (largest gradient component %.3g per "+
					"unit weight, tol %g): the fit is at the limit of floating-point precision; raise tol", ErrNotConverged, iter, gn, params.Tol)
			}
		}
		cur = next
		iter++
	}
	return &logisticFit{coefs: logisticCoefs(feats, d, cur.theta, dim), iterations: iter, gradNorm: gradNorm(cur.g)}, nil
}

// logisticCoefs turns θ (standardised columns, class 0 the reference) into coefficients in the units of the
// data: w_cj = θ_cj / s_j, b_c = θ_c0 - Σ_j θ_cj m_j / s_j; with more than two classes centred over the
// classes, as scikit-learn's multinomial coefficients.
func logisticCoefs(feats []Feature, d *logisticDesign, theta []float64, dim int) []LogisticCoef {
	K := len(d.labels)
	w := make([][]float64, K) // [class][column], column 0 the intercept
	for c := range w {
		w[c] = make([]float64, dim)
		if c == 0 {
			continue
		}
		t := theta[(c-1)*dim : c*dim]
		w[c][0] = t[0]
		for j, col := range d.cols {
			w[c][j+1] = t[j+1] / col.scale
			w[c][0] -= t[j+1] * col.mean / col.scale
		}
	}
	if K > 2 {
		for j := range dim {
			mean := 0.0
			for c := range K {
				mean += w[c][j] / float64(K)
			}
			for c := range K {
				w[c][j] -= mean
			}
		}
	}
	var out []LogisticCoef
	for c, l := range d.labels {
		out = append(out, LogisticCoef{Class: l, Coef: w[c][0]})
		j := 1
		for i, f := range feats {
			if isNumeric(f) {
				out = append(out, LogisticCoef{Feature: f.Name, Class: l, Coef: w[c][j]})
				j++
				continue
			}
			for v, level := range d.levels[i] {
				coef := 0.0
				if v > 0 {
					coef = w[c][j]
					j++
				}
				out = append(out, LogisticCoef{Feature: f.Name, Class: l, Value: level, Coef: coef})
			}
		}
	}
	return out
}

// Validate: every class has an intercept and a coefficient for every number feature; a categorical
// feature has the same levels in every class.
func (logisticFamily) Validate(m *Model, feats []Feature) error {
	have := map[rowKey]bool{}
	levels := map[string]map[string]int{}
	for _, r := range rowsOf(m, LogisticTable) {
		have[LogisticTable.Key(&r)] = true
		if r.Feature != "" && r.Value != "" {
			if levels[r.Feature] == nil {
				levels[r.Feature] = map[string]int{}
			}
			levels[r.Feature][r.Value]++
		}
	}
	for _, c := range m.Classes {
		if !have[rowKey{"", c.Label, ""}] {
			return fmt.Errorf("%w: model %q: no intercept for class %q", ErrInvalidModel, m.Name, c.Label)
		}
		for _, f := range feats {
			if isNumeric(f) && !have[rowKey{f.Name, c.Label, ""}] {
				return fmt.Errorf("%w: model %q: no coefficient of feature %q for class %q", ErrInvalidModel, m.Name, f.Name, c.Label)
			}
		}
	}
	for f, lv := range levels {
		for v, n := range lv {
			if n != len(m.Classes) {
				return fmt.Errorf("%w: model %q: level %q of feature %q has coefficients for %d of %d classes", ErrInvalidModel, m.Name, v, f, n, len(m.Classes))
			}
		}
	}
	return nil
}

// logisticComponent scores a logistic regression: z_c = Σ_j w_cj x_j (the intercepts b_c take the place of
// the log-priors: intercepter). Every feature is required: a row with a missing value (NULL; NaN or ±Inf
// for a number) scores NULL. An unseen category contributes 0, as the reference level.
type logisticComponent struct {
	in      []*Input
	numeric []bool
	K       int
	b       []float64
	w       [][]float64   // number features: [feature][class]
	level   [][][]float64 // categorical features: [feature][class][code], unseen and missing 0
}

func (logisticFamily) Compile(cc *compiler, feats []Feature) ([]Component, error) {
	K := cc.K
	pos := map[string]int{}
	for j, f := range feats {
		pos[f.Name] = j
	}
	l := &logisticComponent{K: K, b: make([]float64, K), numeric: make([]bool, len(feats)), w: make([][]float64, len(feats)),
		level: make([][][]float64, len(feats))}
	values := make([][]string, len(feats))
	rows := rowsOf(cc.m, LogisticTable)
	for _, r := range rows {
		if r.Feature != "" && r.Value != "" {
			j := pos[r.Feature]
			if !slices.Contains(values[j], r.Value) {
				values[j] = append(values[j], r.Value)
			}
		}
	}
	for j, f := range feats {
		l.numeric[j] = isNumeric(f)
		var in *Input
		if l.numeric[j] {
			in = cc.input(f, NumberInput)
			l.w[j] = make([]float64, K)
		} else {
			in = cc.input(f, CategoryInput)
			slices.Sort(values[j])
			in.setValues(values[j])
			l.level[j] = make([][]float64, K)
			for c := range K {
				l.level[j][c] = make([]float64, len(values[j])+2)
			}
		}
		in.Required = true
		l.in = append(l.in, in)
	}
	for _, r := range rows {
		c := cc.class[r.Class]
		switch {
		case r.Feature == "":
			l.b[c] = r.Coef
		case r.Value == "":
			l.w[pos[r.Feature]][c] = r.Coef
		default:
			j := pos[r.Feature]
			l.level[j][c][l.in[j].Index[r.Value]] = r.Coef
		}
	}
	return []Component{l}, nil
}

func (l *logisticComponent) Inputs() []*Input    { return l.in }
func (l *logisticComponent) Base(int) float64    { return 0 }
func (l *logisticComponent) ignoresPriors() bool { return true }
func (l *logisticComponent) intercept(c int) float64 {
	return l.b[c]
}

func (l *logisticComponent) Add(b *Batch, out []float64) {
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
func (l *logisticComponent) term(b *Batch, i, j, c int) XFloat {
	in := l.in[j]
	if !l.numeric[j] {
		return X(l.level[j][c][b.Cat[in.Feature][i]])
	}
	x := b.Num[in.Feature][i]
	if !isValid(b.Valid[in.Feature], i) || x-x != 0 {
		return XFloat{}
	}
	return X(l.w[j][c]).Mul(X(x))
}

func (l *logisticComponent) Row(b *Batch, i, c int) XFloat {
	var s XFloat
	for j := range l.in {
		s = s.Add(l.term(b, i, j, c))
	}
	return s
}

// Explain: feature j's share of z_a - z_c is (w_aj - w_cj) x_j (a level's coefficient difference for a
// category); the intercept difference is the prior term.
func (l *logisticComponent) Explain(b *Batch, i, a, c int, out []Contribution) []Contribution {
	for j, in := range l.in {
		out = append(out, Contribution{Feature: in.Name, input: in, LLR: l.term(b, i, j, a).Sub(l.term(b, i, j, c)).Float()})
	}
	return out
}

// Parameters lists the coefficients (the intercepts are the scorer's).
func (l *logisticComponent) Parameters(labels []string) []Parameter {
	var out []Parameter
	for j, in := range l.in {
		for c, lb := range labels {
			if l.numeric[j] {
				out = append(out, Parameter{Feature: in.Name, Kind: Logistic, Class: lb, Parameter: "coefficient", Estimate: l.w[j][c], Count: math.NaN()})
				continue
			}
			for v, value := range in.Values {
				out = append(out, Parameter{Feature: in.Name, Kind: Logistic, Class: lb, Value: value, Parameter: "coefficient",
					Estimate: l.level[j][c][v], Count: math.NaN()})
			}
		}
	}
	return out
}

// Informative rates a number feature by its coefficient against the largest other class's (per unit of
// the feature), a level by its coefficient against the largest other class's.
func (l *logisticComponent) Informative(labels []string, c int) []Informative {
	var out []Informative
	for j, in := range l.in {
		if l.numeric[j] {
			at := func(d int) float64 { return l.w[j][d] }
			out = append(out, Informative{Class: labels[c], Feature: in.Name, Value: "per unit", LLR: at(c) - bestOther(l.K, c, at)})
			continue
		}
		for v, value := range in.Values {
			at := func(d int) float64 { return l.level[j][d][v] }
			out = append(out, Informative{Class: labels[c], Feature: in.Name, Value: value, LLR: at(c) - bestOther(l.K, c, at)})
		}
	}
	return out
}

// linear: two classes' log-odds are b_1 - b_0 (the scorer's) + Σ_j (w_1j - w_0j) x_j.
func (l *logisticComponent) linear() (float64, []LinearTerm, error) {
	var terms []LinearTerm
	for j, in := range l.in {
		if l.numeric[j] {
			terms = append(terms, LinearTerm{Feature: in.Name, Weight: l.w[j][1] - l.w[j][0]})
			continue
		}
		for v, value := range in.Values {
			terms = append(terms, LinearTerm{Feature: in.Name, Value: value, Weight: l.level[j][1][v] - l.level[j][0][v]})
		}
	}
	return 0, terms, nil
}

// incompleteSQL: a row with a missing value (a NULL, NaN or ±Inf number, a NULL category) has no score.
func (l *logisticComponent) incompleteSQL(x *exporter) string {
	var conds []string
	for j, in := range l.in {
		if l.numeric[j] {
			conds = append(conds, "("+x.isMissingNumber(x.number(in.Name))+")")
		} else {
			conds = append(conds, x.text(in.Name)+" IS NULL")
		}
	}
	return strings.Join(conds, " OR ")
}

// SQL: Σ_j w_cj x_j, a CASE over the levels for a category (unseen: 0). PostgreSQL raises an error on
// overflow: there a product beyond DOUBLE's range is written as the ±Infinity float64 rounds it to.
func (l *logisticComponent) SQL(x *exporter, c int) (string, error) {
	var terms []string
	for j, in := range l.in {
		if !l.numeric[j] {
			v := x.text(in.Name)
			var cases []string
			for k, value := range in.Values {
				if lv := l.level[j][c][k]; lv != 0 {
					cases = append(cases, fmt.Sprintf("WHEN %s THEN %s", x.literal(value), x.num(lv)))
				}
			}
			if len(cases) > 0 {
				terms = append(terms, fmt.Sprintf("CASE %s %s ELSE 0 END", v, strings.Join(cases, " ")))
			}
			continue
		}
		w := l.w[j][c]
		if w == 0 {
			continue
		}
		v := x.number(in.Name)
		t := fmt.Sprintf("%s * %s", x.num(w), v)
		if x.pg {
			t = fmt.Sprintf("CASE WHEN abs(%s) > %s THEN sign(%s) * %s ELSE %s END", v, x.num(math.MaxFloat64/math.Abs(w)), v, x.num(math.Copysign(math.Inf(1), w)), t)
		}
		terms = append(terms, t)
	}
	if len(terms) == 0 {
		return "0", nil
	}
	return strings.Join(terms, " + "), nil
}
