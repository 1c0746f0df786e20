package logistic

import (
	"context"
	"fmt"
	"math"
	"time"

	"github.com/sqlnb/sqlnb/queries"
	"github.com/sqlnb/sqlnb/sqlnb/nb"
	"gonum.org/v1/gonum/mat"
)

// maxLogisticParams bounds the free parameters (K - 1 classes × design columns) of a Newton fit: its
// Hessian has that many rows, and every entry is one aggregate of the pass.
const maxLogisticParams = 1000

// logisticFit is a fitted model: its coefficients and the fit's summary.
type logisticFit struct {
	coefs      []LogisticCoef
	iterations int64
	gradNorm   float64
}

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
	p := sc.Plan
	n, err := newNewton(p, feats, d)
	if err != nil {
		return nil, err
	}
	K, dim := n.K, n.dim
	// Bound parameters after the source's: per column its mean and scale, or its level; the class labels;
	// then a template's own (θ, or the sample's modulus). The templates name them.
	b := &boundArgs{sc: sc}
	// Category levels and class labels first (every template's), then the number features' means and
	// scales (the SQL templates standardise; train_logistic_pass leaves it to the Go kernel).
	cols, classes := b.bindLevels(feats, d)
	prefix := len(b.args)
	lf := make([]queries.LogisticFeature, len(feats))
	for i, f := range feats {
		lf[i] = queries.LogisticFeature{Name: f.Name, Numeric: isNumeric(f)}
	}
	data := queries.Logistic{Train: queries.Train{From: p.Src.From, Label: p.Label.Name, Weight: p.Weight}, Features: lf,
		Cols: templateCols(cols), Classes: classes}
	passArgs := append(append([]any{}, p.Src.Args...), b.args[:prefix]...)
	// The sample first (with the kernel, through nb_logistic_pass): its rows' mean and spread standardise
	// the number columns, then bound after the shared parameters for the SQL templates.
	lp, token, dropKernel, err := logisticKernel(ctx, sc, K, dim)
	if err != nil {
		return nil, err
	}
	defer dropKernel()
	t0 := time.Now()
	sample, sampled, err := logisticSample(ctx, sc, d, data, K, dim, b.from(prefix), prefix, lp, token)
	if err != nil {
		return nil, err
	}
	if err := standardise(ctx, sc, lf, feats, d, sample); err != nil {
		return nil, err
	}
	b.bindScales(cols, feats, d)
	data.Cols = templateCols(cols) // with the standardised expressions bound
	shared := len(b.args)
	n.setSample(sample, sampled)
	if lp != nil {
		lp.setColumns(cols)
	}
	full, closeFull, err := logisticPasser(ctx, sc, data, K, dim, b.from(shared), shared, passArgs, lp, token)
	if err != nil {
		return nil, err
	}
	defer closeFull()
	n.full = full
	theta := n.start()
	// approx: on a sampled fit, the Hessian the steps over the source use, updated by BFGS.
	var approx *mat.SymDense
	if sampled && !n.exact {
		theta, approx = n.warmStart(theta)
	}
	if p.Trace != nil && sampled {
		p.Trace.Sample, p.Trace.Sampling = len(sample.k), time.Since(t0)
	}
	return n.iterate(theta, approx)
}

// boundArgs are the parameters a fit's templates bind after the source's (p.Src.Args), in order.
type boundArgs struct {
	sc   *nb.Scan
	args []any
}

// next binds v and returns its parameter's placeholder.
func (b *boundArgs) next(v any) string {
	b.args = append(b.args, v)
	return b.sc.Param(len(b.args))
}

// from returns the function of a template's arguments: the source's, the first n bound here, then the
// template's own.
func (b *boundArgs) from(n int) func(own ...any) []any {
	return func(own ...any) []any {
		return append(append(append([]any{}, b.sc.Plan.Src.Args...), b.args[:n]...), own...)
	}
}

// bindLevels binds the category levels (in the order of the design columns) and the class labels, and
// returns the design columns with their indicator expressions and every column's raw one, and the labels'
// placeholders.
func (b *boundArgs) bindLevels(feats []nb.Feature, d *logisticDesign) ([]designCol, []string) {
	cols := make([]designCol, len(d.cols))
	for j, c := range d.cols {
		if !c.numeric {
			c.Expr = fmt.Sprintf("(CAST(%s AS VARCHAR) = %s)::DOUBLE", nb.QueriesIdent(feats[c.feature].Name), b.next(c.level))
			c.Raw = c.Expr
		}
		cols[j] = c
	}
	classes := make([]string, len(d.labels))
	for c, l := range d.labels {
		classes[c] = b.next(l)
	}
	for j, c := range cols {
		if c.numeric {
			cols[j].Raw = fmt.Sprintf("CAST(%s AS DOUBLE)", nb.QueriesIdent(feats[c.feature].Name))
		}
	}
	return cols, classes
}

// templateCols returns the design columns as the templates read them.
func templateCols(cols []designCol) []queries.DesignCol {
	out := make([]queries.DesignCol, len(cols))
	for j, c := range cols {
		out[j] = queries.DesignCol{Expr: c.Expr, Raw: c.Raw}
	}
	return out
}

// bindScales copies the standardisation (standardise) into cols and binds the number columns' means and
// scales in their standardised expressions.
func (b *boundArgs) bindScales(cols []designCol, feats []nb.Feature, d *logisticDesign) {
	for j, c := range d.cols {
		cols[j].mean, cols[j].scale = c.mean, c.scale
		if c.numeric {
			cols[j].Expr = fmt.Sprintf("((CAST(%s AS DOUBLE) - %s) / %s)", nb.QueriesIdent(feats[c.feature].Name), b.next(c.mean), b.next(c.scale))
		}
	}
}

// newton is the state of one fit (newtonFit): its sizes and hyperparameters, the sample, the pass over the
// source, and whether every later pass aggregates the exact Hessian.
type newton struct {
	feats  []nb.Feature
	d      *logisticDesign
	params nb.Params
	trace  *nb.FitTrace
	K, dim int
	D      int  // free coefficients: (K - 1) · dim
	none   bool // penalty none
	// total is the weight of the source's complete labelled rows.
	total   float64
	sample  *lrSample
	sampled bool
	// full is one pass over the source at θ (logisticPasser).
	full func(theta []float64, hess bool) ([]float64, error)
	// exact: every later pass aggregates the Hessian too (the sample's is not usable or stalled).
	exact bool
}

// newNewton checks that the fit is possible: at most maxLogisticParams coefficients, and without a
// penalty no constant number feature.
func newNewton(p *nb.Plan, feats []nb.Feature, d *logisticDesign) (*newton, error) {
	K, nc := len(d.labels), len(d.cols)
	dim := nc + 1 // with the intercept
	free := K - 1
	D := free * dim
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
	return &newton{feats: feats, d: d, params: params, trace: p.Trace, K: K, dim: dim, D: D, none: none}, nil
}

// setSample records the sample (sampled: a subset of the rows) and the source's total weight; an empty
// sample makes every pass aggregate the exact Hessian.
func (n *newton) setSample(sample *lrSample, sampled bool) {
	total := 0.0
	for _, w := range n.d.weight {
		total += w
	}
	n.total, n.sample, n.sampled = total, sample, sampled
	n.exact = sample.weight <= 0
}

// pen is the penalty's quadratic form in the standardised coordinates: (1/C) (1/s_j²) M_cc' between the
// coefficients of column j ≥ 1 of free classes c and c', M = I for two classes (scikit-learn's binary
// model penalises its one vector), I - 11ᵀ/K for more (the centred multinomial coefficients).
func (n *newton) pen(c, e, j int) float64 {
	if n.none || j == 0 {
		return 0
	}
	m := 0.0
	if c == e {
		m = 1
	}
	if n.K > 2 {
		m -= 1 / float64(n.K)
	}
	s := n.d.cols[j-1].scale
	return m / (n.params.Float("c") * s * s)
}

// idx is the position of class c's coefficient of design column j in θ.
func (n *newton) idx(c, j int) int { return (c-1)*n.dim + j }

// fitPoint is θ with F, g and (h, when computed) H there; unsure counts the rows whose own class has
// probability ≤ ½.
type fitPoint struct {
	theta  []float64
	f      float64
	g      []float64
	h      *mat.SymDense // nil: not computed
	unsure int64
}

// toPoint reads the sums of a pass (the kernel's layout, the step template's columns), times scale, and
// adds the penalty.
func (n *newton) toPoint(theta, out []float64, scale float64, hess bool) (*fitPoint, error) {
	K, dim, D := n.K, n.dim, n.D
	pt := &fitPoint{theta: theta, f: scale * out[0], unsure: int64(out[1]), g: make([]float64, D)}
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
						pt.h.SetSym(n.idx(c, j), n.idx(e, k), v)
						pt.h.SetSym(n.idx(c, k), n.idx(e, j), v)
					}
				}
			}
		}
	}
	for c := 1; c < K; c++ {
		for j := 1; j < dim; j++ {
			for e := 1; e < K; e++ {
				if a := n.pen(c, e, j); a != 0 {
					pt.g[n.idx(c, j)] += a * theta[n.idx(e, j)]
					if hess && e >= c {
						pt.h.SetSym(n.idx(c, j), n.idx(e, j), pt.h.At(n.idx(c, j), n.idx(e, j))+a)
					}
					pt.f += 0.5 * a * theta[n.idx(c, j)] * theta[n.idx(e, j)]
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

// pass evaluates F, g (and H when hess) at θ over the source.
func (n *newton) pass(theta []float64, hess bool) (*fitPoint, error) {
	start := time.Now()
	out, err := n.full(theta, hess)
	if err != nil {
		return nil, fmt.Errorf("logistic regression step: %w", err)
	}
	if n.trace != nil {
		n.trace.Passes = append(n.trace.Passes, time.Since(start))
		if hess {
			n.trace.HessianPasses++
		}
	}
	return n.toPoint(theta, out, 1, hess)
}

// atSample evaluates F and g at θ over the sample, rescaled to the source's total weight.
func (n *newton) atSample(theta []float64) (*fitPoint, error) {
	return n.toPoint(theta, n.sample.eval(n.K, n.dim, theta, false), n.total/n.sample.weight, false)
}

// hessian is pt's Hessian: the exact one if its pass aggregated it, else the sample's at pt.theta.
func (n *newton) hessian(pt *fitPoint) (*mat.SymDense, error) {
	if pt.h != nil {
		return pt.h, nil
	}
	sp, err := n.toPoint(pt.theta, n.sample.eval(n.K, n.dim, pt.theta, true), n.total/n.sample.weight, true)
	if err != nil {
		return nil, err
	}
	return sp.h, nil
}

// solve returns H⁻¹g by Cholesky's factorisation, false when h is singular or ill-conditioned.
func (n *newton) solve(g []float64, h *mat.SymDense) (*mat.VecDense, bool) {
	var ch mat.Cholesky
	if !ch.Factorize(h) {
		return nil, false
	}
	var step mat.VecDense
	if err := nb.ConditionOnly(ch.SolveVecTo(&step, mat.NewVecDense(n.D, g))); err != nil {
		return nil, false
	}
	return &step, true
}

// slopeOf is F's directional derivative along -step: -gᵀ step.
func (n *newton) slopeOf(g []float64, step *mat.VecDense) float64 {
	s := 0.0
	for i := range n.D {
		s -= g[i] * step.AtVec(i)
	}
	return s
}

// along is θ - t·step.
func (n *newton) along(theta []float64, t float64, step *mat.VecDense) []float64 {
	cand := make([]float64, n.D)
	for i := range n.D {
		cand[i] = theta[i] - t*step.AtVec(i)
	}
	return cand
}

// decreases is Armijo's sufficient decrease, up to the rounding of a sum over every row.
func decreases(cur, pt *fitPoint, t, slope float64) bool {
	return pt.f <= cur.f+1e-4*t*slope+1e-13*math.Abs(cur.f)
}

// gradNorm is the largest gradient component per unit weight.
func (n *newton) gradNorm(g []float64) float64 {
	mx := 0.0
	for _, v := range g {
		mx = math.Max(mx, math.Abs(v))
	}
	return mx / n.total
}

// start is θ at the intercepts of the class proportions.
func (n *newton) start() []float64 {
	theta := make([]float64, n.D)
	for c := 1; c < n.K; c++ {
		theta[n.idx(c, 0)] = math.Log(n.d.weight[c] / n.d.weight[0])
	}
	return theta
}

// warmStart takes Newton steps on the sample alone (to gradient max(tol, 1e-5), at most max_iter): the fit
// then starts near the optimum (the sample's optimum is within its sampling error), with the sample's
// Hessian there. If they fail (a singular Hessian; with penalty none, a separable sample) the fit starts at
// theta, without a Hessian.
func (n *newton) warmStart(theta []float64) ([]float64, *mat.SymDense) {
	sp, err := n.atSample(theta)
	var h *mat.SymDense
	for it := int64(0); err == nil && n.gradNorm(sp.g) > math.Max(n.params.Float("tol"), 1e-5); it++ {
		if it >= n.params.Int("max_iter") || (n.none && sp.unsure == 0) {
			err = nb.ErrNotConverged
			break
		}
		if h, err = n.hessian(sp); err != nil {
			break
		}
		step, ok := n.solve(sp.g, h)
		if !ok {
			err = nb.ErrSingular
			break
		}
		slope := n.slopeOf(sp.g, step)
		var nxt *fitPoint
		for t := 1.0; t >= 1e-10 && err == nil; t /= 2 {
			var pt *fitPoint
			if pt, err = n.atSample(n.along(sp.theta, t, step)); err == nil && decreases(sp, pt, t, slope) {
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
		return sp.theta, h
	}
	return theta, nil
}

// iterate runs the steps over the source from theta (approx: the sampled fit's Hessian, or nil) until the
// gradient is within tol, and returns the coefficients.
func (n *newton) iterate(theta []float64, approx *mat.SymDense) (*logisticFit, error) {
	params := n.params
	cur, err := n.pass(theta, n.exact)
	if err != nil {
		return nil, err
	}
	var iter int64
	for {
		gn := n.gradNorm(cur.g)
		if gn <= params.Float("tol") {
			break
		}
		if n.none && cur.unsure == 0 {
			return nil, fmt.Errorf("%w: at Newton step %d every training row's own class has probability > ½, so the classes are "+
				"linearly separable and, without a penalty, the weights grow without bound (seed 004): set C (penalty l2, e.g. "+
				"--C 1 or c := 1) to regularise", nb.ErrSeparable, iter)
		}
		if iter >= params.Int("max_iter") {
			return nil, fmt.Errorf("%w: logistic regression after %d Newton steps (max_iter): the largest gradient component is "+
				"%.3g per unit weight, above tol %g; the classes may be (quasi-)separable or features collinear: set C (penalty l2), "+
				"or raise max_iter", nb.ErrNotConverged, iter, gn, params.Float("tol"))
		}
		if n.exact && cur.h == nil {
			if cur, err = n.pass(cur.theta, true); err != nil {
				return nil, err
			}
		}
		h := cur.h
		switch {
		case h != nil:
		case n.sampled && approx != nil:
			h = approx
		default:
			if h, err = n.hessian(cur); err != nil {
				return nil, err
			}
			if n.sampled {
				approx = h
			}
		}
		step, ok := n.solve(cur.g, h)
		if !ok {
			if n.sampled && !n.exact {
				n.exact = true
				continue
			}
			return nil, n.singular(h, iter)
		}
		nxt, t, err := n.lineSearch(cur, step)
		if err != nil {
			return nil, err
		}
		if nxt == nil {
			if n.sampled && !n.exact {
				n.exact = true
				continue
			}
			return nil, fmt.Errorf("%w: the Newton step %d does not decrease the log-loss (largest gradient component %.3g per "+
				"unit weight, tol %g): the fit is at the limit of floating-point precision; raise tol", nb.ErrNotConverged, iter, gn, params.Float("tol"))
		}
		if n.sampled && !n.exact {
			if t == 1 && n.gradNorm(nxt.g) > gn/2 {
				n.exact = true // stalled
			}
			bfgs(approx, cur.theta, nxt.theta, cur.g, nxt.g)
		}
		cur = nxt
		iter++
	}
	return &logisticFit{coefs: logisticCoefs(n.feats, n.d, cur.theta, n.dim), iterations: iter, gradNorm: n.gradNorm(cur.g)}, nil
}

// lineSearch halves t from 1 until a pass at θ - t·step decreases F enough (decreases), and returns that
// point and t; nil once t is below 1e-10.
func (n *newton) lineSearch(cur *fitPoint, step *mat.VecDense) (*fitPoint, float64, error) {
	slope := n.slopeOf(cur.g, step)
	var nxt *fitPoint
	t := 1.0
	for ; ; t /= 2 {
		pt, err := n.pass(n.along(cur.theta, t, step), n.exact)
		if err != nil {
			return nil, t, err
		}
		if decreases(cur, pt, t, slope) {
			nxt = pt
			break
		}
		if t < 1e-10 {
			break
		}
	}
	return nxt, t, nil
}

// singular is the error of a singular exact Hessian h at step iter, naming the design column that is
// (nearly) a linear combination of the ones before it.
func (n *newton) singular(h *mat.SymDense, iter int64) error {
	which := ""
	if j := dependentColumn(h, n.dim); j > 0 {
		c := n.d.cols[j-1]
		which = fmt.Sprintf(" (feature %q is (nearly) a linear combination of the intercept and the features before it)", n.feats[c.feature].Name)
		if !c.numeric {
			which = fmt.Sprintf(" (level %q of feature %q is (nearly) a linear combination of the intercept and the columns before it)", c.level, n.feats[c.feature].Name)
		}
	}
	return fmt.Errorf("%w: the Hessian of the log-loss is singular at Newton step %d%s: features are collinear (or a category "+
		"level never occurs with some class) or the classes are separable; set C (penalty l2), or leave features out", nb.ErrSingular, iter, which)
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
