package discriminant

import (
	"fmt"
	"math"
	"sync"

	"github.com/sqlnb/sqlnb/sqlnb/nb"
	"gonum.org/v1/gonum/mat"
)

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
