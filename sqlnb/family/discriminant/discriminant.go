package discriminant

import (
	"fmt"
	"math"

	"github.com/sqlnb/sqlnb/sqlnb/nb"
)

// The kinds of the discriminant family: the features of a model form one vector x, Gaussian given the
// class, x | c ~ N(μ_c, Σ_c) (seed 003).
const (
	// LDA: one covariance Σ shared by every class (linear discriminant analysis): the class scores are linear
	// in x, δ_c(x) = log π_c + (μ_c - x̄)ᵀ Σ⁻¹ (x - x̄) - ½ (μ_c - x̄)ᵀ Σ⁻¹ (μ_c - x̄).
	LDA nb.Kind = "lda"
	// QDA: a covariance per class (quadratic discriminant analysis): the class scores are the log-densities
	// log π_c - ½ log|2π Σ_c| - ½ (x - μ_c)ᵀ Σ_c⁻¹ (x - μ_c).
	QDA nb.Kind = "qda"
)

// CoMoment holds the statistics of one pair of features (Feature, Other; Other = Feature on the diagonal)
// in one class, over the class's complete rows (every feature of the model present): the count, the
// (weighted) weight sum, both features' (weighted) means and the co-moment Σ w (x - Mean)(y - OtherMean).
// Each row carries what Chan et al.'s pairwise update needs, so rows of disjoint training sets merge
// exactly by key.
type CoMoment struct {
	Feature   string  `json:"feature"`
	Class     string  `json:"class"`
	Other     string  `json:"other"`
	Count     int64   `json:"count"`
	Weight    float64 `json:"weight"`
	Mean      float64 `json:"mean"`
	OtherMean float64 `json:"other_mean"`
	CoMoment  float64 `json:"comoment"`
}

// CoMomentTable is the discriminant features' statistics: nb.comoments, one row per class and pair j ≤ k.
var CoMomentTable = &nb.Table[CoMoment]{
	Name: "comoments",
	Key:  func(r *CoMoment) nb.RowKey { return nb.RowKey{Feature: r.Feature, Class: r.Class, Value: r.Other} },
	// Chan, Golub and LeVeque's pairwise rule for co-moments: C = C_a + C_b + dx dy n_a n_b / n.
	Merge: func(x, r *CoMoment) {
		x.Count += r.Count
		na, nb := x.Weight, r.Weight
		switch {
		case nb == 0:
			return
		case na == 0:
			x.Weight, x.Mean, x.OtherMean, x.CoMoment = r.Weight, r.Mean, r.OtherMean, r.CoMoment
			return
		}
		n := na + nb
		dx, dy := r.Mean-x.Mean, r.OtherMean-x.OtherMean
		x.CoMoment += r.CoMoment + dx*dy*na*nb/n
		x.Mean += dx * nb / n
		x.OtherMean += dy * nb / n
		x.Weight = n
	},
	Subtract: subtractCoMoment,
	Check: func(r *CoMoment) error {
		for _, v := range []float64{r.Weight, r.Mean, r.OtherMean, r.CoMoment} {
			if math.IsNaN(v) || math.IsInf(v, 0) {
				return nb.ErrNotFinite
			}
		}
		if r.Count < 0 || r.Weight < 0 || (r.Feature == r.Other && r.CoMoment < 0) {
			return fmt.Errorf("a count, weight or second moment is negative")
		}
		return nil
	},
}

type DiscriminantFamily struct{}

func (DiscriminantFamily) Kinds() []nb.KindInfo {
	accepts := func(k nb.Kind) func(nb.Column) error {
		return func(c nb.Column) error {
			if !nb.ClassifyType(c.Type).Numeric() {
				return fmt.Errorf("%w: feature %q has type %s: %s features must be numeric (leave it out with --features, or cast it)", nb.ErrBadType, c.Name, c.Type, k)
			}
			return nil
		}
	}
	return []nb.KindInfo{
		{Kind: LDA, Doc: "numeric columns, jointly normal per class with one shared covariance (LinearDiscriminantAnalysis)",
			Accepts: accepts(LDA), Alone: "covariance", CompleteRows: true},
		{Kind: QDA, Doc: "numeric columns, jointly normal per class with a covariance per class (QuadraticDiscriminantAnalysis)",
			Accepts: accepts(QDA), Alone: "covariance", CompleteRows: true},
	}
}

func (DiscriminantFamily) Tables() []nb.StatsTable               { return []nb.StatsTable{CoMomentTable} }
func (DiscriminantFamily) Check(_, _ []nb.Feature, _ bool) error { return nil }

// Validate: every class has a row for every pair of features j ≤ k.
func (DiscriminantFamily) Validate(m *nb.Model, feats []nb.Feature) error {
	have := map[nb.RowKey]bool{}
	for _, r := range nb.RowsOf(m, CoMomentTable) {
		have[CoMomentTable.Key(&r)] = true
	}
	for _, c := range m.Classes {
		for _, p := range nb.Pairs(len(feats)) {
			if !have[nb.RowKey{Feature: feats[p.J].Name, Class: c.Label, Value: feats[p.K].Name}] {
				return fmt.Errorf("%w: model %q: no co-moment of features %q and %q in class %q", nb.ErrInvalidModel, m.Name, feats[p.J].Name, feats[p.K].Name, c.Label)
			}
		}
	}
	return nil
}

func (DiscriminantFamily) Summary(m *nb.Model) string {
	p := m.Params
	if m.Features[0].Kind == QDA {
		return fmt.Sprintf("reg_param %g, priors %s", p.Float("reg_param"), p.Text("priors"))
	}
	if p.Text("solver") == nb.SolverLSQR {
		return fmt.Sprintf("solver lsqr, shrinkage %g, priors %s", p.Float("shrinkage"), p.Text("priors"))
	}
	return fmt.Sprintf("solver svd, priors %s", p.Text("priors"))
}

<<<<<<< HEAD
// discriminantComponent scores an lda or qda model: one block over the feature vector. Every feature is
// required: a row with a missing value (NULL, NaN, ±Inf) scores NULL.
type discriminantComponent struct {
	in     []*nb.Input
	qda    bool
	K, m   int
	mean   [][]float64 // [class][j]
	weight []float64   // per class: the (weighted) complete rows behind the estimates
	cov    []*mat.SymDense
	// LDA: the centre x̄, per class the weights w_c = Σ⁻¹(μ_c - x̄) and constants b_c = -½ (μ_c - x̄)ᵀ w_c.
	xbar []float64
	w    [][]float64
	b    []float64
	// QDA, per class: L⁻¹ (lower triangle, row r holding r+1 entries), the precision Σ⁻¹, -½ log|2πΣ| and
	// log L_jj (the Cholesky factor's diagonal).
	inv     [][]float64
	prec    []*mat.SymDense
	logNorm []float64
	logDiag [][]float64
	scratch sync.Pool // *[]float64
	// worst is the smallest Cholesky pivot relative to its feature's variance over the covariances (1 − R² of
	// the feature on those before it), with its feature and class ("" for lda's pooled Σ): how many digits
	// the inverse loses (ConditionWarning).
	worst conditioning
}

// conditioning is a covariance's smallest relative Cholesky pivot and where it is.
type conditioning struct {
	rel            float64
	feature, class string
}

// Compile estimates the covariances (scikit-learn 1.2's rules) and factors them (gonum's Cholesky):
//   - qda: S_c = C_c / (W_c - 1) (unbiased), Σ_c = (1 - r) S_c + r I with r = reg_param;
//   - lda, solver svd: Σ = Σ_c C_c / (W - K) (pooled, unbiased);
//   - lda, solver lsqr: Σ = Σ_c π_c ((1 - a) S_c + a tr(S_c)/p I) with S_c = C_c / W_c (biased), π_c the
//     priors and a = shrinkage;
//
// C_c are the class co-moment matrices, W_c the class weights (counts when unweighted). A covariance that is
// singular — a Cholesky pivot below 1e-12 of its feature's variance: a constant feature, or one that is a
// linear combination of the features before it — is an error (ErrSingular) naming the feature and the
// regularisation to set.
func (DiscriminantFamily) Compile(cc *nb.Compiler, feats []nb.Feature) ([]nb.Component, error) {
	m, K := len(feats), cc.K
	pos := map[string]int{}
	for j, f := range feats {
		pos[f.Name] = j
	}
	qda := feats[0].Kind == QDA
	g := &discriminantComponent{qda: qda, K: K, m: m, mean: make([][]float64, K), weight: make([]float64, K)}
	co := make([]*mat.SymDense, K)
	for c := range K {
		g.mean[c] = make([]float64, m)
		co[c] = mat.NewSymDense(m, nil)
	}
	for _, r := range nb.RowsOf(cc.Model, CoMomentTable) {
		c, j, k := cc.Class[r.Class], pos[r.Feature], pos[r.Other]
		co[c].SetSym(j, k, r.CoMoment)
		g.mean[c][j], g.mean[c][k] = r.Mean, r.OtherMean
		g.weight[c] = r.Weight
	}
	for _, f := range feats {
		in := cc.Input(f, nb.NumberInput)
		in.Required = true
		g.in = append(g.in, in)
	}
	total := 0.0
	for c, w := range g.weight {
		if !(w > 0) {
			return nil, fmt.Errorf("%w: class %q has no complete training row with a positive weight", nb.ErrBadValue, cc.Model.Classes[c].Label)
		}
		total += w
	}
	g.xbar = make([]float64, m)
	for c := range K {
		for j := range m {
			g.xbar[j] += g.weight[c] / total * g.mean[c][j]
		}
	}
	p := cc.Model.Params
	if qda {
		return g.compileQDA(cc, feats, co, p.Float("reg_param"))
	}
	return g.compileLDA(cc, feats, co, total, p)
}

func (g *discriminantComponent) compileQDA(cc *nb.Compiler, feats []nb.Feature, co []*mat.SymDense, r float64) ([]nb.Component, error) {
	m := g.m
	for c := range g.K {
		if !(g.weight[c] > 1) {
			return nil, fmt.Errorf("%w: class %q has %g complete training rows (weight): qda estimates a covariance per class from "+
				"n - 1 and needs more than one; use lda, or more rows", nb.ErrBadValue, cc.Model.Classes[c].Label, g.weight[c])
		}
		sigma := mat.NewSymDense(m, nil)
		for j := range m {
			for k := j; k < m; k++ {
				v := (1 - r) * co[c].At(j, k) / (g.weight[c] - 1)
				if j == k {
					v += r
				}
				sigma.SetSym(j, k, v)
			}
		}
		ch, cond, err := factor(sigma, feats)
		g.noteConditioning(cond, cc.Model.Classes[c].Label)
		if err != nil && cc.Model.Weight == "" && g.weight[c] <= float64(m) { // unweighted: the weight is the row count
			// n rows span at most n - 1 directions around their mean: too few rows, whatever the features.
			return nil, fmt.Errorf("%w: the covariance of class %q is singular: the class has %g complete training rows for %d features, "+
				"and a covariance from n rows has rank n - 1 at most: set reg_param (reg_param := 0.1, --reg-param 0.1), give the class "+
				"more rows, or use fewer features", nb.ErrSingular, cc.Model.Classes[c].Label, g.weight[c], m)
		}
		if err != nil {
			return nil, fmt.Errorf("%w: the covariance of class %q is singular: %v: set reg_param (reg_param := 0.1, --reg-param 0.1) "+
				"to regularise it, or leave the feature out", nb.ErrSingular, cc.Model.Classes[c].Label, err)
		}
		var l, w mat.TriDense
		ch.LTo(&l)
		if err := nb.ConditionOnly(w.InverseTri(&l)); err != nil {
			return nil, fmt.Errorf("%w: the covariance of class %q: %v: set reg_param", nb.ErrSingular, cc.Model.Classes[c].Label, err)
		}
		inv := make([]float64, 0, m*(m+1)/2)
		ld := make([]float64, m)
		for i := range m {
			for j := 0; j <= i; j++ {
				inv = append(inv, w.At(i, j))
			}
			ld[i] = math.Log(l.At(i, i))
		}
		var prec mat.SymDense
		if err := nb.ConditionOnly(ch.InverseTo(&prec)); err != nil {
			return nil, fmt.Errorf("%w: the covariance of class %q: %v: set reg_param", nb.ErrSingular, cc.Model.Classes[c].Label, err)
		}
		g.inv = append(g.inv, inv)
		g.prec = append(g.prec, &prec)
		g.logDiag = append(g.logDiag, ld)
		g.logNorm = append(g.logNorm, -0.5*(float64(m)*math.Log(2*math.Pi)+ch.LogDet()))
		g.cov = append(g.cov, sigma)
	}
	return []nb.Component{qdaComponent{g}}, nil
}

func (g *discriminantComponent) compileLDA(cc *nb.Compiler, feats []nb.Feature, co []*mat.SymDense, total float64, p nb.Params) ([]nb.Component, error) {
	m, K := g.m, g.K
	sigma := mat.NewSymDense(m, nil)
	if p.Text("solver") == nb.SolverLSQR {
		pri := nb.ClassPriors(cc.Model)
		a := p.Float("shrinkage")
		for c := range K {
			tr := 0.0
			for j := range m {
				tr += co[c].At(j, j) / g.weight[c]
			}
			for j := range m {
				for k := j; k < m; k++ {
					v := (1 - a) * co[c].At(j, k) / g.weight[c]
					if j == k {
						v += a * tr / float64(m)
					}
					sigma.SetSym(j, k, sigma.At(j, k)+pri[c]*v)
				}
			}
		}
	} else {
		if !(total > float64(K)) {
			return nil, fmt.Errorf("%w: %g complete training rows (weight) for %d classes: lda's pooled covariance divides by n - K; "+
				"use more rows, or solver lsqr", nb.ErrBadValue, total, K)
		}
		for c := range K {
			for j := range m {
				for k := j; k < m; k++ {
					sigma.SetSym(j, k, sigma.At(j, k)+co[c].At(j, k)/(total-float64(K)))
				}
			}
		}
	}
	ch, cond, err := factor(sigma, feats)
	g.noteConditioning(cond, "")
	if err != nil && cc.Model.Weight == "" && total-float64(K) < float64(m) { // unweighted: the weight is the row count
		// n rows around K class means span at most n - K directions.
		return nil, fmt.Errorf("%w: the pooled covariance is singular: %g complete training rows in %d classes for %d features, and "+
			"the pooled covariance has rank n - K at most: set shrinkage (shrinkage := 0.1, --shrinkage 0.1; solver lsqr), use "+
			"more rows, or fewer features", nb.ErrSingular, total, K, m)
	}
	if err != nil {
		return nil, fmt.Errorf("%w: the pooled covariance is singular: %v: set shrinkage (shrinkage := 0.1, --shrinkage 0.1; solver lsqr) "+
			"to regularise it, or leave the feature out", nb.ErrSingular, err)
	}
	g.cov = []*mat.SymDense{sigma}
	g.w, g.b = make([][]float64, K), make([]float64, K)
	for c := range K {
		d := mat.NewVecDense(m, nil)
		for j := range m {
			d.SetVec(j, g.mean[c][j]-g.xbar[j])
		}
		var w mat.VecDense
		if err := nb.ConditionOnly(ch.SolveVecTo(&w, d)); err != nil {
			return nil, fmt.Errorf("%w: the pooled covariance: %v: set shrinkage", nb.ErrSingular, err)
		}
		g.w[c] = make([]float64, m)
		for j := range m {
			g.w[c][j] = w.AtVec(j)
			g.b[c] -= 0.5 * d.AtVec(j) * g.w[c][j]
		}
	}
	return []nb.Component{g}, nil
}

// noteConditioning keeps the worse of g.worst and a covariance's conditioning (of class, "" for lda).
func (g *discriminantComponent) noteConditioning(c conditioning, class string) {
	if c.feature != "" && (g.worst.feature == "" || c.rel < g.worst.rel) {
		g.worst, g.worst.class = c, class
	}
}

// conditionWarnAt is the relative pivot below which training warns: the covariance's inverse then loses
// more than 6 of the 16 digits of a float64, the scores' accuracy falls from ~1e-15 towards 1e-10 and worse.
const conditionWarnAt = 1e-6

// Warnings says how many digits an lda or qda model's scores may lose to a nearly singular covariance (a
// feature nearly a linear combination of the others); none when it is well conditioned.
func (g *discriminantComponent) Warnings() []string {
	if w := g.conditionWarning(); w != "" {
		return []string{w}
	}
	return nil
}

func (g *discriminantComponent) conditionWarning() string {
	w := g.worst
	if w.feature == "" || !(w.rel < conditionWarnAt) {
		return ""
	}
	where := "the pooled covariance"
	fix := "set shrinkage (--shrinkage 0.1, solver lsqr)"
	if g.qda {
		where, fix = fmt.Sprintf("the covariance of class %q", w.class), "set --reg-param (0.1)"
	}
	return fmt.Sprintf("feature %q is nearly a linear combination of the features before it in %s (it keeps %.1e of its "+
		"variance): its inverse loses about %d of 16 digits, so the scores may be accurate to about 1e-%d only; %s, or leave the "+
		"feature out", w.feature, where, w.rel, int(math.Round(-math.Log10(w.rel))), max(1, int(math.Round(16+math.Log10(w.rel)))), fix)
}

// factor returns the Cholesky factorisation of sigma and its conditioning (the smallest pivot relative to
// its feature's variance), or an error naming the first feature whose pivot is below 1e-12 of its variance
// (constant, or a linear combination of the features before it).
func factor(sigma *mat.SymDense, feats []nb.Feature) (*mat.Cholesky, conditioning, error) {
	var cond conditioning
	m := sigma.SymmetricDim()
	// The pivots of an unpivoted Cholesky factorisation, computed here to name the feature that fails.
	l := make([][]float64, m)
	for j := range m {
		l[j] = make([]float64, j+1)
		for k := 0; k <= j; k++ {
			s := sigma.At(j, k)
			for i := range k {
				s -= l[j][i] * l[k][i]
			}
			if k < j {
				l[j][k] = s / l[k][k]
				continue
			}
			if !(s > 1e-12*sigma.At(j, j)) || !(sigma.At(j, j) > 0) {
				if j == 0 || !(sigma.At(j, j) > 0) {
					return nil, cond, fmt.Errorf("feature %q is constant", feats[j].Name)
				}
				return nil, cond, fmt.Errorf("feature %q is (nearly) a linear combination of the features before it", feats[j].Name)
			}
			if rel := s / sigma.At(j, j); cond.feature == "" || rel < cond.rel {
				cond = conditioning{rel: rel, feature: feats[j].Name}
			}
			l[j][j] = math.Sqrt(s)
		}
	}
	var ch mat.Cholesky
	if !ch.Factorize(sigma) {
		return nil, cond, fmt.Errorf("the covariance is not positive definite")
	}
	return &ch, cond, nil
}

func (g *discriminantComponent) Inputs() []*nb.Input { return g.in }

// Base is b_c (lda) or -½ log|2π Σ_c| (qda).
func (g *discriminantComponent) Base(c int) float64 {
	if g.qda {
		return g.logNorm[c]
	}
	return g.b[c]
}

func (g *discriminantComponent) buffer(n int) (*[]float64, []float64) {
	bufp, _ := g.scratch.Get().(*[]float64)
	if bufp == nil || cap(*bufp) < n {
		buf := make([]float64, n)
		bufp = &buf
	}
	return bufp, (*bufp)[:n]
}

// Add: lda adds Σ_j w_cj (x_j - x̄_j), four features per pass over a class's rows; qda subtracts ½ Σ_r z_r²,
// z = L_c⁻¹ (x - μ_c), over blocks of rows that stay in the cache.
func (g *discriminantComponent) Add(b *nb.Batch, out []float64) {
	n := b.N
	if !g.qda {
		// Four features per pass over the rows of one class, as the Gaussian kernel.
		for c := range g.K {
			o, w := out[c*n:c*n+n], g.w[c]
			j := 0
			for ; len(g.in)-j >= 4; j += 4 {
				x0, x1, x2, x3 := b.Num[g.in[j].Feature][:n], b.Num[g.in[j+1].Feature][:n], b.Num[g.in[j+2].Feature][:n], b.Num[g.in[j+3].Feature][:n]
				m0, m1, m2, m3 := g.xbar[j], g.xbar[j+1], g.xbar[j+2], g.xbar[j+3]
				w0, w1, w2, w3 := w[j], w[j+1], w[j+2], w[j+3]
				for i := range o {
					o[i] += w0*(x0[i]-m0) + w1*(x1[i]-m1) + w2*(x2[i]-m2) + w3*(x3[i]-m3)
				}
			}
			for ; j < len(g.in); j++ {
				x, m0, w0 := b.Num[g.in[j].Feature][:n], g.xbar[j], w[j]
				for i := range o {
					o[i] += w0 * (x[i] - m0)
				}
			}
		}
		return
	}
	// qda, per class and block of rows: d_j = x_j - μ_cj, then z_r = Σ_{j≤r} (L⁻¹)_rj d_j four terms at a
	// time, q += z_r²; a block of d (m × 128 values) stays in the first-level cache.
	const blk = 128
	m := g.m
	bufp, buf := g.buffer(blk * (m + 2))
	defer g.scratch.Put(bufp)
	for c := range g.K {
		inv, mu := g.inv[c], g.mean[c]
		for i0 := 0; i0 < n; i0 += blk {
			nb := min(blk, n-i0)
			d := func(j int) []float64 { return buf[j*blk : j*blk+nb] }
			for j, in := range g.in {
				x, dj, mj := b.Num[in.Feature][i0:i0+nb], d(j), mu[j]
				for i := range dj {
					dj[i] = x[i] - mj
				}
			}
			z, q := buf[m*blk:m*blk+nb], buf[(m+1)*blk:(m+1)*blk+nb]
			clear(q)
			off := 0
			for r := range m {
				w := inv[off : off+r+1]
				off += r + 1
				w0, d0 := w[0], d(0)
				for i := range z {
					z[i] = w0 * d0[i]
				}
				j := 1
				for ; r+1-j >= 4; j += 4 {
					w0, w1, w2, w3 := w[j], w[j+1], w[j+2], w[j+3]
					d0, d1, d2, d3 := d(j), d(j+1), d(j+2), d(j+3)
					for i := range z {
						z[i] += w0*d0[i] + w1*d1[i] + w2*d2[i] + w3*d3[i]
					}
				}
				for ; j <= r; j++ {
					wj, dj := w[j], d(j)
					for i := range z {
						z[i] += wj * dj[i]
					}
				}
				for i := range q {
					q[i] += z[i] * z[i]
				}
			}
			o := out[c*n+i0 : c*n+i0+nb]
			for i := range o {
				o[i] -= 0.5 * q[i]
			}
		}
	}
}

// value returns feature j of row i (0 when missing: required inputs make such rows NULL before any term
// is used).
func (g *discriminantComponent) value(b *nb.Batch, i, j int) float64 {
	in := g.in[j]
	x := b.Num[in.Feature][i]
	if !nb.IsValid(b.Valid[in.Feature], i) || x-x != 0 {
		return 0
	}
	return x
}

// Row: the class term in extended range (values near 1e200 square without overflow).
func (g *discriminantComponent) Row(b *nb.Batch, i, c int) nb.XFloat {
	if !g.qda {
		s := nb.X(g.b[c])
		for j := range g.in {
			s = s.Add(nb.X(g.w[c][j]).Mul(nb.X(g.value(b, i, j)).Sub(nb.X(g.xbar[j]))))
		}
		return s
	}
	d := make([]nb.XFloat, g.m)
	for j := range d {
		d[j] = nb.X(g.value(b, i, j)).Sub(nb.X(g.mean[c][j]))
	}
	var q nb.XFloat
	off := 0
	for r := range g.m {
		var z nb.XFloat
		for j := 0; j <= r; j++ {
			z = z.Add(nb.X(g.inv[c][off+j]).Mul(d[j]))
		}
		off += r + 1
		q = q.Add(z.Mul(z))
	}
	return nb.X(g.logNorm[c]).Sub(q.Mul(nb.X(0.5)))
}

// contributions splits Row(a) - Row(c) at x by feature. lda: δ_j (x_j - (μ_aj + μ_cj)/2) with δ = w_a - w_c
// = Σ⁻¹(μ_a - μ_c) (seed 003's linear discriminant). qda: -½ [d_aj (P_a d_a)_j - d_cj (P_c d_c)_j]
// - (log L_a,jj - log L_c,jj), d_k = x - μ_k, P_k = Σ_k⁻¹: the quadratic forms split by their rows and the
// log-determinants by the Cholesky diagonal (so the split depends on the feature order; the sum does not).
func (g *discriminantComponent) contributions(x []float64, a, c int) []float64 {
	out := make([]float64, g.m)
	if !g.qda {
		for j := range out {
			mid := nb.X(g.mean[a][j]).Add(nb.X(g.mean[c][j])).Mul(nb.X(0.5))
			out[j] = nb.X(g.w[a][j] - g.w[c][j]).Mul(nb.X(x[j]).Sub(mid)).Float()
		}
		return out
	}
	half := func(k int) []nb.XFloat {
		d := make([]nb.XFloat, g.m)
		for j := range d {
			d[j] = nb.X(x[j]).Sub(nb.X(g.mean[k][j]))
		}
		h := make([]nb.XFloat, g.m)
		for j := range h {
			var pd nb.XFloat
			for l := range g.m {
				pd = pd.Add(nb.X(g.prec[k].At(j, l)).Mul(d[l]))
			}
			h[j] = d[j].Mul(pd).Mul(nb.X(0.5))
		}
		return h
	}
	ha, hc := half(a), half(c)
	for j := range out {
		out[j] = hc[j].Sub(ha[j]).Sub(nb.X(g.logDiag[a][j] - g.logDiag[c][j])).Float()
	}
	return out
}

func (g *discriminantComponent) Explain(b *nb.Batch, i, a, c int, out []nb.Contribution) []nb.Contribution {
	x := make([]float64, g.m)
	for j := range x {
		x[j] = g.value(b, i, j)
	}
	for j, v := range g.contributions(x, a, c) {
		out = append(out, nb.Contribution{Feature: g.in[j].Name, Input: g.in[j], LLR: v})
	}
	return out
}

// Parameters lists the class means and the covariance entries j ≤ k (Value names the second feature):
// per class for qda (regularised), once with no class for lda.
func (g *discriminantComponent) Parameters(labels []string) []nb.Parameter {
	kind := LDA
	if g.qda {
		kind = QDA
	}
	var out []nb.Parameter
	for c, l := range labels {
		for j, in := range g.in {
			out = append(out, nb.Parameter{Feature: in.Name, Kind: kind, Class: l, Parameter: "mean", Estimate: g.mean[c][j], Count: g.weight[c]})
		}
	}
	for k, cov := range g.cov {
		class, count := "", 0.0
		if g.qda {
			class, count = labels[k], g.weight[k]
		} else {
			for _, w := range g.weight {
				count += w
			}
		}
		for j := range g.m {
			for l := j; l < g.m; l++ {
				out = append(out, nb.Parameter{Feature: g.in[j].Name, Kind: kind, Class: class, NoClass: !g.qda, Value: g.in[l].Name, HasValue: true,
					Parameter: "covariance", Estimate: cov.At(j, l), Count: count})
			}
		}
	}
	return out
}

// Informative rates each feature at the class mean: its share of the log-odds of class c against the
// likeliest other class there.
func (g *discriminantComponent) Informative(labels []string, c int) []nb.Informative {
	x := g.mean[c]
	score := func(d int) float64 {
		if !g.qda {
			s := g.b[d]
			for j := range x {
				s += g.w[d][j] * (x[j] - g.xbar[j])
			}
			return s
		}
		s := g.logNorm[d]
		for j := range x {
			for l := range x {
				s -= 0.5 * (x[j] - g.mean[d][j]) * g.prec[d].At(j, l) * (x[l] - g.mean[d][l])
			}
		}
		return s
	}
	best, top := -1, math.Inf(-1)
	for d := range g.K {
		if d != c && score(d) > top {
			best, top = d, score(d)
		}
	}
	var out []nb.Informative
	for j, v := range g.contributions(x, c, best) {
		out = append(out, nb.Informative{Class: labels[c], Feature: g.in[j].Name, Value: "mean " + strconv.FormatFloat(x[j], 'g', 6, 64), LLR: v})
	}
	return out
}

// linear: lda's log-odds of class 1 against class 0 are b_1 - b_0 + Σ_j (w_1j - w_0j)(x_j - x̄_j).
func (g *discriminantComponent) Linear() (float64, []nb.LinearTerm, error) {
	if g.qda {
		return 0, nil, fmt.Errorf("qda's log-odds are quadratic (a covariance per class); lda's are linear")
	}
	w0 := g.b[1] - g.b[0]
	var terms []nb.LinearTerm
	for j, in := range g.in {
		w := g.w[1][j] - g.w[0][j]
		w0 -= w * g.xbar[j]
		terms = append(terms, nb.LinearTerm{Feature: in.Name, Weight: w})
	}
	return w0, terms, nil
}

// incompleteSQL: a row with a missing feature value (NULL, NaN, ±Inf) has no score.
func (g *discriminantComponent) IncompleteSQL(x *nb.Exporter) string {
	var conds []string
	for _, in := range g.in {
		conds = append(conds, "("+x.IsMissingNumber(x.Number(in.Name))+")")
	}
	return strings.Join(conds, " OR ")
}

// SQL: lda b_c + Σ_j w_cj (x_j - x̄_j); qda -½ log|2πΣ_c| - ½ Σ_r z_r² with z = L_c⁻¹ (x - μ_c), each z_r
// bound once per row (DuckDB). PostgreSQL raises an error on overflow, so there a value with |x| ≥ 1e150
// makes the qda term -Infinity directly (the exporter's limit rule then decides, as for Gaussian NB).
func (g *discriminantComponent) SQL(x *nb.Exporter, c int) (string, error) {
	if !g.qda {
		terms := []string{x.Num(g.b[c])}
		for j, in := range g.in {
			terms = append(terms, fmt.Sprintf("%s * (%s - %s)", x.Num(g.w[c][j]), x.Number(in.Name), x.Num(g.xbar[j])))
		}
		return strings.Join(terms, " + "), nil
	}
	var squares []string
	for r, z := range g.zSQL(x, c, 1) {
		if x.Pg {
			squares = append(squares, fmt.Sprintf("power(%s, 2)", z))
			continue
		}
		id := x.Bind(fmt.Sprintf("qda%d_z%d", c, r), z)
		squares = append(squares, id+" * "+id)
	}
	t := fmt.Sprintf("%s - 0.5 * (%s)", x.Num(g.logNorm[c]), strings.Join(squares, " + "))
	if x.Pg {
		var huge []string
		for _, in := range g.in {
			huge = append(huge, fmt.Sprintf("abs(%s) >= 1e150", x.Number(in.Name)))
		}
		t = fmt.Sprintf("CASE WHEN %s THEN %s ELSE %s END", strings.Join(huge, " OR "), x.Num(math.Inf(-1)), t)
	}
	return t, nil
}

// zSQL writes z = L_c⁻¹ (x - μ_c) row by row; with s ≠ 1 (limitScale) the differences are scaled by s, and a
// feature with |x| < 1e150 counts 0 (next to one ≥ 1e154, whose square overflows, its share is below
// float64's precision, as in the row reference; and PostgreSQL raises an error where a square underflows).
func (g *discriminantComponent) zSQL(x *nb.Exporter, c int, s float64) []string {
	var out []string
	off := 0
	for r := range g.m {
		var terms []string
		for j := 0; j <= r; j++ {
			v := x.Number(g.in[j].Name)
			d := fmt.Sprintf("(%s - %s)", v, x.Num(g.mean[c][j]))
			if s != 1 {
				d = fmt.Sprintf("(CASE WHEN abs(%s) < 1e150 THEN 0 ELSE %s * %s END)", v, v, x.Num(s))
			}
			terms = append(terms, fmt.Sprintf("%s * %s", x.Num(g.inv[c][off+j]), d))
		}
		off += r + 1
		out = append(out, strings.Join(terms, " + "))
	}
	return out
}

// qdaComponent is a qda model's component: its terms can overflow for finite input (quadratic forms), so
// it writes the exporter's limit rule.
type qdaComponent struct{ *discriminantComponent }

// limitSQL is class c's quadratic term scaled by 2^-1200: -½ Σ_r z_r² with the values scaled by 2^-600,
// which does not overflow (the exporter's limit rule, where every class score is -inf).
func (g qdaComponent) LimitSQL(x *nb.Exporter, c int) string {
	var squares []string
	for _, z := range g.zSQL(x, c, nb.LimitScale) {
		squares = append(squares, fmt.Sprintf("power(%s, 2)", z))
	}
	return "-0.5 * (" + strings.Join(squares, " + ") + ")"
}

=======
>>>>>>> split31
// subtractCoMoment inverts the co-moment merge: C_a = C - C_b - dx·dy·w_a·w_b/w with dx, dy the differences
// of b's and a's means; a diagonal below zero beyond rounding is an error.
func subtractCoMoment(x, r *CoMoment) error {
	n, err := nb.SubCount("the count of complete rows", x.Count, r.Count)
	if err != nil {
		return err
	}
	if r.Weight == 0 {
		x.Count = n
		return nil
	}
	w, mx, err := nb.MeanUnmerge("the co-moment's", x.Weight, x.Mean, r.Weight, r.Mean)
	if err != nil {
		return err
	}
	_, my, _ := nb.MeanUnmerge("the co-moment's", x.Weight, x.OtherMean, r.Weight, r.OtherMean)
	if n == 0 || w == 0 {
		if n == 0 {
			if err := nb.EmptySum("weight", w, x.Weight); err != nil {
				return err
			}
		}
		*x = CoMoment{Feature: x.Feature, Class: x.Class, Other: x.Other, Count: n}
		return nil
	}
	dx, dy := r.Mean-mx, r.OtherMean-my
	corr := dx * dy * w * r.Weight / x.Weight
	c := x.CoMoment - r.CoMoment - corr
	if n == 1 {
		c = 0 // one row has no spread
	}
	if x.Feature == x.Other && c < 0 {
		if -c > nb.ForgetTolerance*(x.CoMoment+r.CoMoment+math.Abs(corr)) {
			return fmt.Errorf("the second moment would be %g (below zero beyond rounding): the rows to forget differ from the rows trained", c)
		}
		c = 0
	}
	x.Count, x.Weight, x.Mean, x.OtherMean, x.CoMoment = n, w, mx, my, c
	return nil
}

// ForgetRounding warns of variances that forgetting most of a class's rows leaves rounded (MomentRounding of
// the co-moments' diagonal).
func (DiscriminantFamily) ForgetRounding(before, after *nb.Model) []nb.RoundingWarning {
	read := func(m *nb.Model) map[[2]string][3]float64 {
		out := map[[2]string][3]float64{}
		for _, c := range nb.RowsOf(m, CoMomentTable) {
			if c.Feature == c.Other {
				out[[2]string{c.Feature, c.Class}] = [3]float64{float64(c.Count), c.Mean, c.CoMoment}
			}
		}
		return out
	}
	return nb.MomentRounding(read(before), read(after))
}
