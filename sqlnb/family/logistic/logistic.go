package logistic

import (
	"context"
	"database/sql"
	"fmt"
	"github.com/sqlnb/sqlnb/sqlnb/nb"
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
const Logistic nb.Kind = "logistic"

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
var LogisticTable = &nb.Table[LogisticCoef]{
	Name:      "logistic",
	ModelRows: true,
	Key:       func(r *LogisticCoef) nb.RowKey { return nb.RowKey{Feature: r.Feature, Class: r.Class, Value: r.Value} },
	// Never used: fitted coefficients do not merge (Merge refuses models of a refitter family).
	Merge: func(_, _ *LogisticCoef) {},
	Check: func(r *LogisticCoef) error {
		if math.IsNaN(r.Coef) || math.IsInf(r.Coef, 0) {
			return fmt.Errorf("coefficient %v is not finite", r.Coef)
		}
		return nil
	},
}

type LogisticFamily struct{}

func (LogisticFamily) Kinds() []nb.KindInfo {
	return []nb.KindInfo{{Kind: Logistic, Doc: "numbers, and categories one-hot encoded: logistic regression fitted by Newton steps in SQL (LogisticRegression)",
		Priorless: true, Alone: "fit", CompleteRows: true,
		Accepts: func(c nb.Column) error {
			switch nb.ClassifyType(c.Type) {
			case nb.TypeText, nb.TypeBool:
				return nil
			}
			if nb.ClassifyType(c.Type).Numeric() {
				return nil
			}
			return fmt.Errorf("%w: feature %q has type %s: a logistic feature must be numeric, VARCHAR, ENUM or BOOLEAN (leave it out with --features, or cast it)",
				nb.ErrBadType, c.Name, c.Type)
		}}}
}

func (LogisticFamily) Tables() []nb.StatsTable               { return []nb.StatsTable{LogisticTable} }
func (LogisticFamily) Check(_, _ []nb.Feature, _ bool) error { return nil }
func (LogisticFamily) Refits()                               {}

// isNumeric reports whether a logistic feature enters as its value (else: one-hot encoded).
func isNumeric(f nb.Feature) bool { return nb.ClassifyType(f.Type).Numeric() }

func (LogisticFamily) Summary(m *nb.Model) string {
	p := m.Params
	pen := fmt.Sprintf("penalty l2, C %g", p.Float("c"))
	if p.Text("penalty") == nb.PenaltyNone {
		pen = "penalty none"
	}
	return fmt.Sprintf("%s, tol %g, max_iter %d: %d Newton steps, final gradient %.3g", pen, p.Float("tol"), p.Int("max_iter"), m.Iterations, m.GradNorm)
}

// logisticFeature is a feature of the describe and step templates.
type logisticFeature struct {
	Name    string
	Numeric bool
}

// designCol is one column of the design matrix: a number feature standardised ((x - mean)/scale: the mean
// and spread of the fit's sample) or one level's indicator.
type designCol struct {
	Expr          string
	Raw           string // train_logistic_pass's and train_logistic_sample's: a number feature's value as DOUBLE (standardised in Go)
	feature       int
	level         string
	mean, scale   float64
	lo, hi        float64 // a number feature's range over the complete labelled rows (the first pass)
	numeric       bool
	constantLevel bool
}

// logisticDesign is what the first pass found: the classes' weights, the design columns.
type logisticDesign struct {
	labels []string
	weight []float64
	rows   int64 // complete labelled rows
	cols   []designCol
	levels [][]string // per feature: its levels (categorical), sorted
}

// Train fits the model by Newton's method (IRLS, seed 004): a first pass (train_logistic_describe) finds the
// classes, the levels of categorical features and the mean and spread of number features; then every step
// is one aggregation pass (train_logistic_step) returning the log-loss, gradient and Hessian at the current
// parameters, and gonum's Cholesky solves for the step. Rows with a missing feature value (NULL, NaN) are
// left out and counted; infinite values are an error naming the column. Cross-validation fits each fold
// (FoldModels): Train runs without a fold expression.
func (f LogisticFamily) Train(ctx context.Context, sc *nb.Scan, feats []nb.Feature) error {
	if sc.Fold != "" {
		return fmt.Errorf("logistic regression is fitted per fold, not from fold statistics")
	}
	start := time.Now()
	d, err := describeLogistic(ctx, sc, feats)
	if err != nil {
		return err
	}
	if sc.Plan.Trace != nil {
		sc.Plan.Trace.Describe = time.Since(start)
	}
	if len(d.labels) < 2 {
		return nil // the trainer reports no rows or a single class
	}
	fit, err := newtonFit(ctx, sc, feats, d)
	if err != nil {
		return err
	}
	part := sc.Part(0)
	nb.AddRows(part.Stats, LogisticTable, fit.coefs...)
	part.Iterations, part.GradNorm = fit.iterations, fit.gradNorm
	return nil
}

func describeLogistic(ctx context.Context, sc *nb.Scan, feats []nb.Feature) (*logisticDesign, error) {
	lf := make([]logisticFeature, len(feats))
	for i, f := range feats {
		lf[i] = logisticFeature{Name: f.Name, Numeric: isNumeric(f)}
	}
	rows, err := sc.Query(ctx, "train_logistic_describe.tmpl.sql", map[string]any{"Features": lf})
	if err != nil {
		if strings.Contains(err.Error(), "out of range") {
			return nil, logisticDiagnose(ctx, sc, lf, err)
		}
		return nil, fmt.Errorf("describe logistic features: %w", err)
	}
	defer rows.Close()
	head := 1
	if sc.Plan.Weight != "" {
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
	lo, hi := make([]float64, len(feats)), make([]float64, len(feats))
	for i := range lo {
		lo[i], hi[i] = math.Inf(1), math.Inf(-1)
	}
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
			if sc.Plan.Weight != "" {
				if err := nb.CheckWeights(sc.Plan.Weight, n, int64(vals[1].Float64), vals[2]); err != nil {
					return nil, err
				}
			}
			sc.Part(0).NoteIncomplete(class, n)
			continue
		}
		ok, err := sc.AddClass(0, class, vals)
		if err != nil {
			return nil, err
		}
		if !ok {
			continue
		}
		w := float64(n)
		if sc.Plan.Weight != "" {
			w = vals[3].Float64
		}
		d.labels = append(d.labels, class.String)
		d.weight = append(d.weight, w)
		d.rows += n
		for i, f := range lf {
			if f.Numeric {
				if n > 0 {
					lo[i], hi[i] = math.Min(lo[i], num[2*i].Float64), math.Max(hi[i], num[2*i+1].Float64)
				}
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
	if sc.Plan.Weight != "" {
		// Before the fit, which starts at the intercepts log(w_c/w_0): checkTrained's error, not a log of 0.
		for c, w := range d.weight {
			if w == 0 {
				return nil, nb.ZeroWeightClass(d.labels[c], sc.Plan.Weight)
			}
		}
	}
	for i, f := range feats {
		if lf[i].Numeric {
			if d.rows > 0 && (math.IsInf(lo[i], 0) || math.IsInf(hi[i], 0) || math.IsInf(hi[i]-lo[i], 0)) {
				return nil, logisticDiagnose(ctx, sc, lf, fmt.Errorf("%w: feature %q: its range is not finite", nb.ErrBadValue, f.Name))
			}
			d.cols = append(d.cols, designCol{feature: i, numeric: true, lo: lo[i], hi: hi[i], scale: 1, constantLevel: !(hi[i] > lo[i])})
			continue
		}
		d.levels[i] = nb.SortedKeys(levelSet[i])
		for _, l := range d.levels[i][min(1, len(d.levels[i])):] {
			d.cols = append(d.cols, designCol{feature: i, level: l, scale: 1})
		}
	}
	return d, nil
}

// dependentColumn returns the first design column (0 the intercept) of the first free class's block of the
// Hessian h (dim columns) that is, within 1e-10 of its own scale, a linear combination of the columns before
// it (by the pivots of a Cholesky factorisation taken column by column), or -1: the feature a singular fit
// names, as lda's singular covariance does.
func dependentColumn(h *mat.SymDense, dim int) int {
	l := make([][]float64, dim)
	for i := range dim {
		l[i] = make([]float64, i+1)
		for j := 0; j <= i; j++ {
			sum := h.At(i, j)
			for k := range j {
				sum -= l[i][k] * l[j][k]
			}
			if i == j {
				if !(sum > 1e-10*h.At(i, i)) {
					return i
				}
				l[i][i] = math.Sqrt(sum)
			} else {
				l[i][j] = sum / l[j][j]
			}
		}
	}
	return -1
}

// logisticDiagnose names the number columns with infinite values (or values whose squares overflow).
func logisticDiagnose(ctx context.Context, sc *nb.Scan, lf []logisticFeature, cause error) error {
	var names []string
	for _, f := range lf {
		if f.Numeric {
			names = append(names, f.Name)
		}
	}
	return nb.DiscriminantDiagnose(ctx, sc, names, cause)
}

// logisticFit is a fitted model: its coefficients and the fit's summary.
type logisticFit struct {
	coefs      []LogisticCoef
	iterations int64
	gradNorm   float64
}

// Bounds of the rows a fit keeps in memory for its Hessian (the sample): at most lrSampleValues design
// values, and at most lrSampleWork multiply-adds per Hessian over them.
const (
	lrSampleValues = 4_000_000
	lrSampleWork   = 1_000_000_000
)

// lrSampleRows, when > 0, sets the sample's size (tests: a sampled fit on small data).
var lrSampleRows = 0

// newtonFit minimises F(θ) = L(θ) + 1/(2C) · Σ_j ‖W_·j‖² (scikit-learn's objective divided by C: L the
// weighted log-loss, W the coefficients without the intercepts, centred over the classes for more than two)
// over θ, the coefficients of the standardised design columns for the free classes 1..K-1 (class 0 is the
// reference, z_0 = 0).
//
// Every iteration is one pass over the source at θ + tΔ returning F and its gradient g (nb_logistic_pass,
// sqlnb's Go kernel fed by DuckDB's scan; train_logistic_step's aggregates where that function is not
// registered): Δ = -H⁻¹g is the Newton step of the previous accepted pass, t halves until F decreases
// (Armijo, up to rounding). H comes from a fixed sample of the rows held in memory
// (train_logistic_sample, rescaled to the whole weight). When the source has at most the sample's rows
// (500 per coefficient, at least 100,000) it is every row, H is the exact Hessian at every accepted point
// and the iteration is Newton's method. On a larger source the fit first takes Newton steps on the sample
// alone, to start near the optimum; then H is the sample's Hessian there, updated by BFGS with the exact
// gradients of every pass: the gradient is exact, so the fit lands on the same optimum, in a few more
// passes than Newton's method. Should such a step stall (the gradient shrinks by less than half) or H be
// singular, later passes also aggregate the exact Hessian.
//
// It stops when the largest gradient component per unit weight is ≤ tol; with penalty none it stops with
// ErrSeparable as soon as θ puts every row's own class above ½ (the classes are then linearly separable and
// F has no minimum), with ErrSingular when the exact Hessian is singular, and with ErrNotConverged after
// max_iter steps over the source.
func newtonFit(ctx context.Context, sc *nb.Scan, feats []nb.Feature, d *logisticDesign) (*logisticFit, error) {
	K, nc := len(d.labels), len(d.cols)
	dim := nc + 1 // with the intercept
	free := K - 1
	D := free * dim
	p := sc.Plan
	params := p.Params
	if D > maxLogisticParams {
		return nil, fmt.Errorf("%w: %d classes and %d design columns (categories one-hot) make %d coefficients: Newton's method "+
			"keeps a Hessian of that size; leave features out or merge category levels (at most %d)", nb.ErrBadOption, K, nc, D, maxLogisticParams)
	}
	none := params.Text("penalty") == nb.PenaltyNone
	if none {
		for _, c := range d.cols {
			if c.numeric && c.constantLevel {
				return nil, fmt.Errorf("%w: feature %q is constant in the training rows: without a penalty its coefficient is not "+
					"determined; leave it out, or set C (penalty l2)", nb.ErrSingular, feats[c.feature].Name)
			}
		}
	}
	// Bound parameters after the source's: per column its mean and scale, or its level; the class labels;
	// then a template's own (θ, or the sample's modulus). The templates name them.
	var args []any
	next := func(v any) string {
		args = append(args, v)
		return sc.Param(len(args))
	}
	// Category levels and class labels first (every template's), then the number features' means and
	// scales (the SQL templates standardise; train_logistic_pass leaves it to the Go kernel).
	cols := make([]designCol, nc)
	for j, c := range d.cols {
		if !c.numeric {
			c.Expr = fmt.Sprintf("(CAST(%s AS VARCHAR) = %s)::DOUBLE", nb.QueriesIdent(feats[c.feature].Name), next(c.level))
			c.Raw = c.Expr
		}
		cols[j] = c
	}
	classes := make([]string, K)
	for c, l := range d.labels {
		classes[c] = next(l)
	}
	prefix := len(args)
	for j, c := range cols {
		if c.numeric {
			cols[j].Raw = fmt.Sprintf("CAST(%s AS DOUBLE)", nb.QueriesIdent(feats[c.feature].Name))
		}
	}
	lf := make([]logisticFeature, len(feats))
	for i, f := range feats {
		lf[i] = logisticFeature{Name: f.Name, Numeric: isNumeric(f)}
	}
	data := map[string]any{"From": p.Src.From, "Label": p.Label.Name, "Weight": p.Weight, "Features": lf, "Cols": cols, "Classes": classes}
	argsFrom := func(n int) func(own ...any) []any {
		return func(own ...any) []any {
			return append(append(append([]any{}, p.Src.Args...), args[:n]...), own...)
		}
	}
	passArgs := append(append([]any{}, p.Src.Args...), args[:prefix]...)
	// The sample first (with the kernel, through nb_logistic_pass): its rows' mean and spread standardise
	// the number columns, then bound after the shared parameters for the SQL templates.
	lp, token, dropKernel, err := logisticKernel(ctx, sc, K, dim)
	if err != nil {
		return nil, err
	}
	defer dropKernel()
	t0 := time.Now()
	sample, sampled, err := logisticSample(ctx, sc, d, data, K, dim, argsFrom(prefix), prefix, lp, token)
	if err != nil {
		return nil, err
	}
	if err := standardise(ctx, sc, lf, feats, d, sample); err != nil {
		return nil, err
	}
	for j, c := range d.cols {
		cols[j].mean, cols[j].scale = c.mean, c.scale
		if c.numeric {
			cols[j].Expr = fmt.Sprintf("((CAST(%s AS DOUBLE) - %s) / %s)", nb.QueriesIdent(feats[c.feature].Name), next(c.mean), next(c.scale))
		}
	}
	shared := len(args)
	withArgs := argsFrom(shared)
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
		return m / (params.Float("c") * s * s)
	}
	idx := func(c, j int) int { return (c-1)*dim + j }
	type point struct {
		theta  []float64
		f      float64
		g      []float64
		h      *mat.SymDense // nil: not computed
		unsure int64
	}
	// toPoint reads the sums of a pass (the kernel's layout, the step template's columns), times scale, and
	// adds the penalty.
	toPoint := func(theta, out []float64, scale float64, hess bool) (*point, error) {
		pt := &point{theta: theta, f: scale * out[0], unsure: int64(out[1]), g: make([]float64, D)}
		for i := range D {
			pt.g[i] = scale * out[2+i]
		}
		if hess {
			pt.h = mat.NewSymDense(D, nil)
			o := 2 + D
			for c := 1; c < K; c++ {
				for e := c; e < K; e++ {
					for j := range dim {
						for k := j; k < dim; k++ {
							v := scale * out[o]
							o++
							pt.h.SetSym(idx(c, j), idx(e, k), v)
							pt.h.SetSym(idx(c, k), idx(e, j), v)
						}
					}
				}
			}
		}
		for c := 1; c < K; c++ {
			for j := 1; j < dim; j++ {
				for e := 1; e < K; e++ {
					if a := pen(c, e, j); a != 0 {
						pt.g[idx(c, j)] += a * theta[idx(e, j)]
						if hess && e >= c {
							pt.h.SetSym(idx(c, j), idx(e, j), pt.h.At(idx(c, j), idx(e, j))+a)
						}
						pt.f += 0.5 * a * theta[idx(c, j)] * theta[idx(e, j)]
					}
				}
			}
		}
		for _, v := range append([]float64{pt.f}, pt.g...) {
			if math.IsNaN(v) || math.IsInf(v, 0) {
				return nil, fmt.Errorf("%w: the log-loss or its gradient is not finite at step parameters %v", nb.ErrBadValue, theta)
			}
		}
		return pt, nil
	}
	if lp != nil {
		lp.setColumns(cols)
	}
	full, closeFull, err := logisticPasser(ctx, sc, data, K, dim, withArgs, shared, passArgs, lp, token)
	if err != nil {
		return nil, err
	}
	defer closeFull()
	// pass evaluates F, g (and H when hess) at θ over the source.
	pass := func(theta []float64, hess bool) (*point, error) {
		start := time.Now()
		out, err := full(theta, hess)
		if err != nil {
			return nil, fmt.Errorf("logistic regression step: %w", err)
		}
		if p.Trace != nil {
			p.Trace.Passes = append(p.Trace.Passes, time.Since(start))
			if hess {
				p.Trace.HessianPasses++
			}
		}
		return toPoint(theta, out, 1, hess)
	}
	// exact: every later pass aggregates the Hessian too (the sample's is not usable or stalled).
	exact := sample.weight <= 0
	hessian := func(pt *point) (*mat.SymDense, error) {
		if pt.h != nil {
			return pt.h, nil
		}
		sp, err := toPoint(pt.theta, sample.eval(K, dim, pt.theta, true), total/sample.weight, true)
		if err != nil {
			return nil, err
		}
		return sp.h, nil
	}
	solve := func(g []float64, h *mat.SymDense) (*mat.VecDense, bool) {
		var ch mat.Cholesky
		if !ch.Factorize(h) {
			return nil, false
		}
		var step mat.VecDense
		if err := nb.ConditionOnly(ch.SolveVecTo(&step, mat.NewVecDense(D, g))); err != nil {
			return nil, false
		}
		return &step, true
	}
	slopeOf := func(g []float64, step *mat.VecDense) float64 {
		s := 0.0
		for i := range D {
			s -= g[i] * step.AtVec(i)
		}
		return s
	}
	along := func(theta []float64, t float64, step *mat.VecDense) []float64 {
		cand := make([]float64, D)
		for i := range D {
			cand[i] = theta[i] - t*step.AtVec(i)
		}
		return cand
	}
	// Armijo's sufficient decrease, up to the rounding of a sum over every row.
	decreases := func(cur, pt *point, t, slope float64) bool {
		return pt.f <= cur.f+1e-4*t*slope+1e-13*math.Abs(cur.f)
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
	// approx: on a sampled fit, the Hessian the steps over the source use, updated by BFGS.
	var approx *mat.SymDense
	if sampled && !exact {
		// Newton steps on the sample alone (to gradient max(tol, 1e-5), at most max_iter): the fit then
		// starts near the optimum (the sample's optimum is within its sampling error), with the sample's
		// Hessian there. If they fail (a singular Hessian; with penalty none, a separable sample) the fit
		// starts at the intercepts.
		atSample := func(theta []float64) (*point, error) {
			return toPoint(theta, sample.eval(K, dim, theta, false), total/sample.weight, false)
		}
		sp, err := atSample(theta)
		var h *mat.SymDense
		for it := int64(0); err == nil && gradNorm(sp.g) > math.Max(params.Float("tol"), 1e-5); it++ {
			if it >= params.Int("max_iter") || (none && sp.unsure == 0) {
				err = nb.ErrNotConverged
				break
			}
			if h, err = hessian(sp); err != nil {
				break
			}
			step, ok := solve(sp.g, h)
			if !ok {
				err = nb.ErrSingular
				break
			}
			slope := slopeOf(sp.g, step)
			var nxt *point
			for t := 1.0; t >= 1e-10 && err == nil; t /= 2 {
				var pt *point
				if pt, err = atSample(along(sp.theta, t, step)); err == nil && decreases(sp, pt, t, slope) {
					nxt = pt
					break
				}
			}
			if nxt == nil {
				break // at the limit of precision (or not finite): keep sp
			}
			sp = nxt
		}
		if err == nil {
			theta, approx = sp.theta, h
		}
	}
	if p.Trace != nil && sampled {
		p.Trace.Sample, p.Trace.Sampling = len(sample.k), time.Since(t0)
	}
	cur, err := pass(theta, exact)
	if err != nil {
		return nil, err
	}
	var iter int64
	for {
		gn := gradNorm(cur.g)
		if gn <= params.Float("tol") {
			break
		}
		if none && cur.unsure == 0 {
			return nil, fmt.Errorf("%w: at Newton step %d every training row's own class has probability > ½, so the classes are "+
				"linearly separable and, without a penalty, the weights grow without bound (seed 004): set C (penalty l2, e.g. "+
				"--C 1 or c := 1) to regularise", nb.ErrSeparable, iter)
		}
		if iter >= params.Int("max_iter") {
			return nil, fmt.Errorf("%w: logistic regression after %d Newton steps (max_iter): the largest gradient component is "+
				"%.3g per unit weight, above tol %g; the classes may be (quasi-)separable or features collinear: set C (penalty l2), "+
				"or raise max_iter", nb.ErrNotConverged, iter, gn, params.Float("tol"))
		}
		if exact && cur.h == nil {
			if cur, err = pass(cur.theta, true); err != nil {
				return nil, err
			}
		}
		h := cur.h
		switch {
		case h != nil:
		case sampled && approx != nil:
			h = approx
		default:
			if h, err = hessian(cur); err != nil {
				return nil, err
			}
			if sampled {
				approx = h
			}
		}
		step, ok := solve(cur.g, h)
		if !ok {
			if sampled && !exact {
				exact = true
				continue
			}
			which := ""
			if j := dependentColumn(h, dim); j > 0 {
				c := d.cols[j-1]
				which = fmt.Sprintf(" (feature %q is (nearly) a linear combination of the intercept and the features before it)", feats[c.feature].Name)
				if !c.numeric {
					which = fmt.Sprintf(" (level %q of feature %q is (nearly) a linear combination of the intercept and the columns before it)", c.level, feats[c.feature].Name)
				}
			}
			return nil, fmt.Errorf("%w: the Hessian of the log-loss is singular at Newton step %d%s: features are collinear (or a category "+
				"level never occurs with some class) or the classes are separable; set C (penalty l2), or leave features out", nb.ErrSingular, iter, which)
		}
		slope := slopeOf(cur.g, step)
		var nxt *point
		t := 1.0
		for ; ; t /= 2 {
			pt, err := pass(along(cur.theta, t, step), exact)
			if err != nil {
				return nil, err
			}
			if decreases(cur, pt, t, slope) {
				nxt = pt
				break
			}
			if t < 1e-10 {
				break
			}
		}
		if nxt == nil {
			if sampled && !exact {
				exact = true
				continue
			}
			return nil, fmt.Errorf("%w: the Newton step %d does not decrease the log-loss (largest gradient component %.3g per "+
				"unit weight, tol %g): the fit is at the limit of floating-point precision; raise tol", nb.ErrNotConverged, iter, gn, params.Float("tol"))
		}
		if sampled && !exact {
			if t == 1 && gradNorm(nxt.g) > gn/2 {
				exact = true // stalled
			}
			bfgs(approx, cur.theta, nxt.theta, cur.g, nxt.g)
		}
		cur = nxt
		iter++
	}
	return &logisticFit{coefs: logisticCoefs(feats, d, cur.theta, dim), iterations: iter, gradNorm: gradNorm(cur.g)}, nil
}

// bfgs updates the Hessian approximation B with the step from θ to θ' and the change of the exact
// gradient, g' − g (Nocedal & Wright (6.19)): B − B s sᵀ B / sᵀBs + y yᵀ / yᵀs, which then maps s to y. A
// step without curvature (yᵀs ≤ 0, only from rounding: F is convex) leaves B as it is.
func bfgs(B *mat.SymDense, theta, next, g, gNext []float64) {
	n := len(theta)
	s, y := mat.NewVecDense(n, nil), mat.NewVecDense(n, nil)
	for i := range n {
		s.SetVec(i, next[i]-theta[i])
		y.SetVec(i, gNext[i]-g[i])
	}
	sy := mat.Dot(s, y)
	var bs mat.VecDense
	bs.MulVec(B, s)
	sbs := mat.Dot(s, &bs)
	if !(sy > 0) || !(sbs > 0) {
		return
	}
	B.SymRankOne(B, -1/sbs, &bs)
	B.SymRankOne(B, 1/sy, y)
}

// logisticPasser returns the function of one pass over the source at θ: the sums of the kernel's layout
// (lrKernel), with the Hessian when hess. It runs train_logistic_pass (the Go kernel, nb_logistic_pass) when
// the database has that function (a connection of package udf), else train_logistic_step (the same sums as
// DuckDB aggregates). Each statement is prepared once: with many classes the aggregates are thousands, and
// planning them costs. args returns the shared parameters followed by a template's own, numbered from
// shared + 1; passArgs are train_logistic_pass's (the source's, the levels' and the labels').
func logisticPasser(ctx context.Context, sc *nb.Scan, data map[string]any, K, dim int, args func(...any) []any, shared int, passArgs []any,
	lp *LogisticPass, token string) (pass func(theta []float64, hess bool) ([]float64, error), release func(), err error) {
	var closers []func()
	release = func() {
		for _, c := range closers {
			c()
		}
	}
	prepare := func(stmt string) (func(args ...any) *sql.Row, error) {
		pr, ok := sc.Conn.(interface {
			PrepareContext(context.Context, string) (*sql.Stmt, error)
		})
		if !ok {
			return func(args ...any) *sql.Row { return sc.Conn.QueryRowContext(ctx, stmt, args...) }, nil
		}
		prepared, err := pr.PrepareContext(ctx, stmt)
		if err != nil {
			return nil, fmt.Errorf("logistic regression step: %w", err)
		}
		closers = append(closers, func() { prepared.Close() })
		return func(args ...any) *sql.Row { return prepared.QueryRowContext(ctx, args...) }, nil
	}
	with := func(extra map[string]any) map[string]any {
		m := map[string]any{}
		for k, v := range data {
			m[k] = v
		}
		for k, v := range extra {
			m[k] = v
		}
		return m
	}
	if lp != nil {
		stmt, err := queries.Render("train_logistic_pass.tmpl.sql", with(map[string]any{"Token": queries.Literal(token)}))
		if err != nil {
			return nil, release, err
		}
		query, err := prepare(stmt)
		if err != nil {
			return nil, release, err
		}
		return func(theta []float64, hess bool) ([]float64, error) {
			lp.reset(theta, hess)
			var n int64
			if err := query(passArgs...).Scan(&n); err != nil {
				return nil, err
			}
			return lp.result()
		}, release, nil
	}
	// The step template: θ's parameters follow the shared ones.
	type zParams struct {
		B string
		W []string
	}
	type pair struct{ C, D int }
	type prod struct{ J, K int }
	z := make([]zParams, K-1)
	np := shared
	param := func() string {
		np++
		return sc.Param(np)
	}
	var freeIdx, cols1 []int
	var pairsCD []pair
	var prods []prod
	for c := range z {
		z[c].B = param()
		for range dim - 1 {
			z[c].W = append(z[c].W, param())
		}
		freeIdx = append(freeIdx, c+1)
		for e := c + 1; e < K; e++ {
			pairsCD = append(pairsCD, pair{c + 1, e})
		}
	}
	for j := 1; j < dim; j++ {
		cols1 = append(cols1, j)
		for k := j; k < dim; k++ {
			prods = append(prods, prod{j, k})
		}
	}
	queriesOf := map[bool]func(args ...any) *sql.Row{}
	for _, hess := range []bool{false, true} {
		pairs := pairsCD
		if !hess {
			pairs = nil
		}
		stmt, err := queries.Render("train_logistic_step.tmpl.sql", with(map[string]any{"Z": z, "Free": freeIdx, "Pairs": pairs, "Prods": prods, "Cols1": cols1}))
		if err != nil {
			return nil, release, err
		}
		if queriesOf[hess], err = prepare(stmt); err != nil {
			return nil, release, err
		}
	}
	return func(theta []float64, hess bool) ([]float64, error) {
		kr := lrKernel{K: K, dim: dim, hess: hess}
		out := make([]sql.NullFloat64, kr.width())
		ptrs := make([]any, len(out))
		for i := range out {
			ptrs[i] = &out[i]
		}
		th := make([]any, len(theta))
		for i, v := range theta {
			th[i] = v
		}
		if err := queriesOf[hess](args(th...)...).Scan(ptrs...); err != nil {
			return nil, err
		}
		sums := make([]float64, len(out))
		for i, v := range out {
			sums[i] = v.Float64
		}
		return sums, nil
	}, release, nil
}

// logisticKernel registers a pass of the Go kernel for the fit (nil when the connection does not have
// nb_logistic_pass: the fit then runs train_logistic_step's aggregates); release removes it.
func logisticKernel(ctx context.Context, sc *nb.Scan, K, dim int) (*LogisticPass, string, func(), error) {
	var has int64
	if err := sc.Conn.QueryRowContext(ctx, queries.SQL("function_exists.sql"), "nb_logistic_pass").Scan(&has); err != nil {
		return nil, "", func() {}, fmt.Errorf("logistic regression: %w", err)
	}
	if has == 0 {
		return nil, "", func() {}, nil
	}
	lp, token, release := newLogisticPass(K, dim, sc.Plan.Weight != "")
	return lp, token, release, nil
}

// standardise sets the center and scale of every number column (d.cols) from the sample's rows — their
// mean and standard deviation (two passes, in the sample's fixed order), the source's own when the sample
// is every row; the centre of the range and 1 when the sample is empty; the range's half when the sample's
// values are all equal but the source's are not — and standardises the sample's columns in place. Any
// center and scale give the same optimum (the penalty is rescaled with them); these keep Newton's steps
// well conditioned.
func standardise(ctx context.Context, sc *nb.Scan, lf []logisticFeature, feats []nb.Feature, d *logisticDesign, sample *lrSample) error {
	for j := range d.cols {
		c := &d.cols[j]
		if !c.numeric {
			continue
		}
		x := sample.x[j]
		c.mean, c.scale = c.lo, 1
		if !c.constantLevel {
			c.mean = c.lo + (c.hi-c.lo)/2
			if len(x) > 0 {
				m := 0.0
				for _, v := range x {
					m += v
				}
				m /= float64(len(x))
				ss := 0.0
				for _, v := range x {
					ss += (v - m) * (v - m)
				}
				c.mean, c.scale = m, math.Sqrt(ss/float64(len(x)))
			}
			if !(c.scale > 0) {
				c.scale = (c.hi - c.lo) / 2
			}
		}
		if math.IsInf(c.mean, 0) || math.IsNaN(c.mean) || math.IsInf(c.scale, 0) || math.IsNaN(c.scale) {
			return logisticDiagnose(ctx, sc, lf, fmt.Errorf("%w: feature %q: its mean or variance is not finite", nb.ErrBadValue, feats[c.feature].Name))
		}
		inv := 1 / c.scale
		for i, v := range x {
			x[i] = (v - c.mean) * inv
		}
	}
	return nil
}

// logisticSample reads the rows the fit keeps for its Hessian (train_logistic_sample): every complete
// labelled row if there are at most the budget's (sampled false), else a fixed subset of about that many
// chosen by hash. args returns the shared parameters followed by the template's own, numbered from
// shared + 1. With the Go kernel (lp) the rows go through nb_logistic_pass, which keeps them.
func logisticSample(ctx context.Context, sc *nb.Scan, d *logisticDesign, data map[string]any, K, dim int, args func(...any) []any, shared int,
	lp *LogisticPass, token string) (*lrSample, bool, error) {
	pairs := (K - 1) * K / 2
	// 500 rows per coefficient (at least 100,000: reading the sample costs a scan whatever its size, and a
	// larger one saves passes — 5 instead of 7 for 20 features and two classes) make the sample's Hessian
	// within a few percent of the source's, so a step gains one to two digits; within the bounds of memory
	// and work.
	size := int64(min(lrSampleValues/dim, lrSampleWork/(pairs*dim*(dim+1)/2), max(100_000, 500*(K-1)*dim)))
	if lrSampleRows > 0 {
		size = int64(lrSampleRows)
	}
	sampled := d.rows > size
	const mod = 1 << 20
	keep := int64(mod)
	if sampled {
		keep = max(1, size*mod/d.rows)
	}
	m := map[string]any{"Sample": sampled, "Mod": sc.Param(shared + 1), "Keep": sc.Param(shared + 2), "Token": ""}
	if lp != nil {
		m["Token"] = queries.Literal(token)
	}
	for k, v := range data {
		m[k] = v
	}
	stmt, err := queries.Render("train_logistic_sample.tmpl.sql", m)
	if err != nil {
		return nil, false, err
	}
	var own []any
	if sampled {
		own = []any{int64(mod), keep}
	}
	if lp != nil {
		var n int64
		if err := sc.Conn.QueryRowContext(ctx, stmt, args(own...)...).Scan(&n); err != nil {
			return nil, false, fmt.Errorf("logistic regression sample: %w", err)
		}
		return lp.takeSample(), sampled, nil
	}
	rows, err := nb.QueryRows(ctx, sc.Conn, stmt, args(own...)...)
	if err != nil {
		return nil, false, fmt.Errorf("logistic regression sample: %w", err)
	}
	defer rows.Close()
	weighted := sc.Plan.Weight != ""
	s := &lrSample{x: make([][]float64, dim-1)}
	var k int64
	var w float64
	vals := make([]float64, dim-1)
	ptrs := []any{&k}
	if weighted {
		ptrs = append(ptrs, &w)
	}
	for i := range vals {
		ptrs = append(ptrs, &vals[i])
	}
	for rows.Next() {
		if err := rows.Scan(ptrs...); err != nil {
			return nil, false, fmt.Errorf("logistic regression sample: %w", err)
		}
		s.k = append(s.k, int32(k))
		if weighted {
			s.w = append(s.w, w)
		} else {
			w = 1
		}
		s.weight += w
		for j, v := range vals {
			s.x[j] = append(s.x[j], v)
		}
	}
	if err := rows.Err(); err != nil {
		return nil, false, fmt.Errorf("logistic regression sample: %w", err)
	}
	return s, sampled, nil
}

// logisticCoefs turns θ (standardised columns, class 0 the reference) into coefficients in the units of the
// data: w_cj = θ_cj / s_j, b_c = θ_c0 - Σ_j θ_cj m_j / s_j; with more than two classes centred over the
// classes, as scikit-learn's multinomial coefficients.
func logisticCoefs(feats []nb.Feature, d *logisticDesign, theta []float64, dim int) []LogisticCoef {
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

// linear: two classes' log-odds are b_1 - b_0 (the scorer's) + Σ_j (w_1j - w_0j) x_j.
func (l *logisticComponent) Linear() (float64, []nb.LinearTerm, error) {
	var terms []nb.LinearTerm
	for j, in := range l.in {
		if l.numeric[j] {
			terms = append(terms, nb.LinearTerm{Feature: in.Name, Weight: l.w[j][1] - l.w[j][0]})
			continue
		}
		for v, value := range in.Values {
			terms = append(terms, nb.LinearTerm{Feature: in.Name, Value: value, HasValue: true, Weight: l.level[j][1][v] - l.level[j][0][v]})
		}
	}
	return 0, terms, nil
}

// incompleteSQL: a row with a missing value (a NULL, NaN or ±Inf number, a NULL category) has no score.
func (l *logisticComponent) IncompleteSQL(x *nb.Exporter) string {
	var conds []string
	for j, in := range l.in {
		if l.numeric[j] {
			conds = append(conds, "("+x.IsMissingNumber(x.Number(in.Name))+")")
		} else {
			conds = append(conds, x.Text(in.Name)+" IS NULL")
		}
	}
	return strings.Join(conds, " OR ")
}

// SQL: Σ_j w_cj x_j, a CASE over the levels for a category (unseen: 0). PostgreSQL raises an error on
// overflow: there a product beyond DOUBLE's range is written as the ±Infinity float64 rounds it to.
func (l *logisticComponent) SQL(x *nb.Exporter, c int) (string, error) {
	var terms []string
	for j, in := range l.in {
		if !l.numeric[j] {
			v := x.Text(in.Name)
			var cases []string
			for k, value := range in.Values {
				if lv := l.level[j][c][k]; lv != 0 {
					cases = append(cases, fmt.Sprintf("WHEN %s THEN %s", x.Literal(value), x.Num(lv)))
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
		v := x.Number(in.Name)
		t := fmt.Sprintf("%s * %s", x.Num(w), v)
		if x.Pg {
			t = fmt.Sprintf("CASE WHEN abs(%s) > %s THEN sign(%s) * %s ELSE %s END", v, x.Num(math.MaxFloat64/math.Abs(w)), v, x.Num(math.Copysign(math.Inf(1), w)), t)
		}
		terms = append(terms, t)
	}
	if len(terms) == 0 {
		return "0", nil
	}
	return strings.Join(terms, " + "), nil
}
