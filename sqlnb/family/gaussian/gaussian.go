package gaussian

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"github.com/sqlnb/sqlnb/queries"
	"github.com/sqlnb/sqlnb/sqlnb/nb"
	"math"
	"slices"
	"strconv"
	"strings"
)

// Gaussian: x | c ~ N(mean_c, var_c) for a numeric column (seed 000; scikit-learn's GaussianNB).
const Gaussian nb.Kind = "gaussian"

// minVariance keeps a Gaussian variance positive when var_smoothing is 0 and a class is constant, and out
// of the subnormal range: the smallest normal double, 2.2e-308 (it was 1e-300, which changed the posteriors
// of features near 1e-150, whose variances are normal numbers).
const minVariance = 0x1p-1022

// GaussianStat holds the sufficient statistics of one Gaussian feature in one class, over the rows
// where the feature is not NULL: count, mean and M2 = Σ (x - mean)², and their weighted versions
// (Weight = Σ w, WMean = Σ w x / Σ w, WM2 = Σ w (x - WMean)²; equal to the unweighted ones when the
// model has no weight column).
type GaussianStat struct {
	Feature string  `json:"feature"`
	Class   string  `json:"class"`
	Count   int64   `json:"count"`
	Mean    float64 `json:"mean"`
	M2      float64 `json:"m2"`
	Weight  float64 `json:"weight"`
	WMean   float64 `json:"wmean"`
	WM2     float64 `json:"wm2"`
}

// GaussianTable is the Gaussian features' statistics: nb.gaussian.
var GaussianTable = &nb.Table[GaussianStat]{
	Name: "gaussian",
	Key:  func(g *GaussianStat) nb.RowKey { return nb.RowKey{Feature: g.Feature, Class: g.Class, Value: ""} },
	// Chan et al.'s pairwise rule: exact, no subtraction of sums of squares.
	Merge: func(x, g *GaussianStat) {
		var n float64
		n, x.Mean, x.M2 = nb.ChanMerge(float64(x.Count), x.Mean, x.M2, float64(g.Count), g.Mean, g.M2)
		x.Count = int64(n)
		x.Weight, x.WMean, x.WM2 = nb.ChanMerge(x.Weight, x.WMean, x.WM2, g.Weight, g.WMean, g.WM2)
	},
	// Its inverse (forget.go): the combined moments less part b's give part a's.
	Subtract: subtractGaussian,
	Check: func(g *GaussianStat) error {
		for _, v := range []float64{g.Mean, g.M2, g.Weight, g.WMean, g.WM2} {
			if math.IsNaN(v) || math.IsInf(v, 0) {
				return nb.ErrNotFinite
			}
		}
		if g.Count < 0 || g.M2 < 0 || g.Weight < 0 || g.WM2 < 0 {
			return fmt.Errorf("a count, weight or M2 is negative")
		}
		if (g.Count == 0) != (g.Weight == 0) && g.Weight != 0 {
			return fmt.Errorf("weight %v without rows", g.Weight)
		}
		return nil
	},
	Rows: func(g *GaussianStat) (int64, float64) { return g.Count, g.Weight },
	Moments: func(g *GaussianStat) ([]float64, []float64) {
		return []float64{g.Mean, g.M2}, []float64{g.WMean, g.WM2}
	},
}

type GaussianFamily struct{}

func (GaussianFamily) Kinds() []nb.KindInfo {
	return []nb.KindInfo{{Kind: Gaussian, Doc: "a numeric column, normal per class (GaussianNB; the default for numbers)",
		Default: func(t nb.TypeClass) bool { return t.Numeric() },
		Accepts: func(c nb.Column) error {
			if !nb.ClassifyType(c.Type).Numeric() {
				return fmt.Errorf("%w: feature %q has type %s: a Gaussian feature must be numeric", nb.ErrBadType, c.Name, c.Type)
			}
			return nil
		}}}
}

func (GaussianFamily) Tables() []nb.StatsTable               { return []nb.StatsTable{GaussianTable} }
func (GaussianFamily) Check(_, _ []nb.Feature, _ bool) error { return nil }

// Train runs train_moments: per (fold,) class the counts and weights, the rows with a NULL label and the
// statistics of every Gaussian feature. var_pop rejects NaN and ±Inf and overflows: only then a diagnosis
// query reports ±Inf by column, NaN is re-read as NULL, and values too large to square are named.
func (GaussianFamily) Train(ctx context.Context, sc *nb.Scan, feats []nb.Feature) error {
	mf := make([]nb.MomentFeature, len(feats))
	for i, f := range feats {
		mf[i] = nb.MomentFeature{Name: f.Name, Cast: nb.ClassifyType(f.Type) != nb.TypeFloat}
	}
	// moments runs train_moments over the features mf (shifted: the two-scan form of the variance) and
	// returns each (fold,) class's statistics, len(mf) a class in feature order.
	moments := func(mf []nb.MomentFeature, shifted bool) (map[int64][]GaussianStat, error) {
		if shifted { // a second scan: its class heads are not recorded again, the classes are the first scan's
			done := sc.Done
			sc.Done = true
			defer func() { sc.Done = done }()
		}
		rows, err := sc.Query(ctx, "train_moments.tmpl.sql", queries.Moments{Train: sc.Train(), Features: mf, Shift: shifted})
		if err != nil {
			return nil, fmt.Errorf("compute Gaussian statistics: %w", err)
		}
		defer rows.Close()
		per := 3
		if sc.Plan.Weight != "" {
			per = 7
		}
		stats := map[int64][]GaussianStat{}
		err = sc.ClassRows(rows, per*len(mf), func(fold int64, class string, v []sql.NullFloat64) error {
			for j, f := range mf {
				stats[fold] = append(stats[fold], momentsOf(f.Name, class, v[per*j:], sc.Plan.Weight != ""))
			}
			return nil
		})
		if err != nil {
			return nil, fmt.Errorf("compute Gaussian statistics: %w", err)
		}
		for _, part := range stats {
			for _, g := range part {
				if GaussianTable.Check(&g) != nil {
					// A class whose only value is ±Inf passes var_pop: the same diagnosis as when it fails.
					return nil, errNonFinite
				}
			}
		}
		return stats, nil
	}
	run := func() error {
		stats, err := moments(mf, false)
		if err != nil {
			return err
		}
		if sc.Plan.Weight == "" {
			if err := reshift(stats, mf, moments); err != nil {
				return err
			}
		}
		for fold, s := range stats {
			nb.AddRows(sc.Part(fold).Stats, GaussianTable, s...)
		}
		return nil
	}
	err := run()
	if err == nil || (!errors.Is(err, errNonFinite) && !strings.Contains(err.Error(), "out of range")) {
		return err
	}
	return gaussianDiagnose(ctx, sc, mf, err, run)
}

// reshift computes again, by train_moments' two-scan form (Shift), the moments of the features of mf that
// welfordLoses in some (fold,) class, and puts them in stats (len(mf) a class, in feature order), matched by fold, class and feature,
// where the second scan counted the same rows.
func reshift(stats map[int64][]GaussianStat, mf []nb.MomentFeature, moments func([]nb.MomentFeature, bool) (map[int64][]GaussianStat, error)) error {
	var again []nb.MomentFeature
	for _, f := range mf {
		for _, part := range stats {
			if slices.ContainsFunc(part, func(g GaussianStat) bool { return g.Feature == f.Name && nb.WelfordLoses(g.Count, g.Mean, g.M2) }) {
				again = append(again, f)
				break
			}
		}
	}
	if len(again) == 0 {
		return nil
	}
	fresh, err := moments(again, true)
	if err != nil {
		return err
	}
	type key struct{ class, feature string }
	for fold, part := range fresh {
		by := make(map[key]GaussianStat, len(part))
		for _, g := range part {
			by[key{g.Class, g.Feature}] = g
		}
		old := stats[fold]
		for i, g := range old {
			// The same rows (counts) only: a source that reads differently each time (random(), a sample)
			// keeps the first scan's moments, consistent with its class counts.
			if n, ok := by[key{g.Class, g.Feature}]; ok && n.Count == g.Count {
				old[i] = n
			}
		}
	}
	return nil
}

// errNonFinite: the moments scan produced a non-finite statistic.
var errNonFinite = errors.New("a Gaussian statistic is not finite")

// momentsOf reads one feature's columns of train_moments: count, mean, variance and, weighted, Σ w,
// Σ w(x-s), Σ w(x-s)² about the class's weighted mean s from a first scan, and s.
func momentsOf(feature, class string, v []sql.NullFloat64, weighted bool) GaussianStat {
	g := GaussianStat{Feature: feature, Class: class, Count: int64(v[0].Float64)}
	if g.Count > 0 {
		g.Mean = v[1].Float64
		g.M2 = v[2].Float64 * float64(g.Count)
	}
	g.Weight, g.WMean, g.WM2 = float64(g.Count), g.Mean, g.M2
	if weighted {
		g.Weight, g.WMean, g.WM2 = v[3].Float64, 0, 0
		if g.Weight > 0 {
			s1, s2, shift := v[4].Float64, v[5].Float64, v[6].Float64
			g.WMean = shift + s1/g.Weight
			g.WM2 = math.Max(0, s2-s1*s1/g.Weight)
		}
	}
	return g
}

// gaussianDiagnose runs after var_pop rejected a value: infinite values are an error naming their
// columns, NaN is read as NULL (missing) and the scan reruns; values whose squares overflow are an error
// naming their columns and saying to rescale.
func gaussianDiagnose(ctx context.Context, sc *nb.Scan, mf []nb.MomentFeature, cause error, rerun func() error) error {
	counts, err := nb.NonfiniteCounts(ctx, sc, mf)
	if err != nil {
		return fmt.Errorf("%w (and checking for NaN and infinity failed: %v)", cause, err)
	}
	infs, huge := counts.Infinite(mf), counts.Huge(mf)
	nan := false
	for i := range mf {
		if counts[3*i+1].Float64 > 0 {
			mf[i].NaNToNull, nan = true, true
		}
	}
	switch {
	case len(infs) > 0:
		return fmt.Errorf("%w: Gaussian feature %s holds infinite values: filter them out or replace them with NULL (missing)",
			nb.ErrBadValue, strings.Join(infs, ", "))
	case nan:
		return rerun()
	case len(huge) > 0:
		return fmt.Errorf("%w: Gaussian feature %s: values this large make the variance overflow a DOUBLE: "+
			"rescale the column (for example divide it by 1e150) and train again", nb.ErrBadValue, strings.Join(huge, ", "))
	}
	return cause
}

func (GaussianFamily) Validate(m *nb.Model, feats []nb.Feature) error {
	return nb.RequirePerClass(m, feats, nb.RowsOf(m, GaussianTable), func(g *GaussianStat) nb.RowKey { return GaussianTable.Key(g) })
}

// gaussianComponent scores every Gaussian feature of a model:
// log p(x | c) = -½ log(2π var_c) - (x - mean_c)² / (2 var_c); NULL, NaN and ±Inf are missing (add nothing).
type gaussianComponent struct {
	warnings []string // Warnings
	in       []*nb.Input
	// Per feature, per class: mean, 1/(2 var), -½ log(2π var), var.
	mean, halfInv, logNorm, variance [][]float64
	count                            [][]float64 // the (weighted) rows behind each estimate
	rule                             nb.E1071Rule
	K                                int
}

// Compile applies the variance rules (documented in README "Scoring rules"):
//   - var = WM2/W per class (Params.Text("variance") class), Σ WM2 / Σ W over classes (pooled), or WM2/(W - 1)
//     (sample, R's naiveBayes), plus ε = VarSmoothing × the largest whole-training-set variance of any
//     Gaussian feature (unweighted, as scikit-learn; in a semi-supervised model, where the unweighted
//     statistics count each unlabelled row once per class, weighted: every row once with its sample
//     weight), or VarSmoothing itself if every feature is constant; at least 2.2e-308;
//   - a class without a non-NULL value of the feature uses the feature's statistics over all classes;
//   - with e1071's rule (Params.Float("threshold") > 0) a standard deviation ≤ Eps becomes Threshold.
func (GaussianFamily) Compile(cc *nb.Compiler, feats []nb.Feature) ([]nb.Component, error) {
	m, K := cc.Model, cc.K
	byFeature := nb.RowsByFeature(m, GaussianTable)
	maxVar := 0.0
	for _, stats := range byFeature {
		if n, _, m2 := mergedMoments(stats, m.UnlabelledRows > 0); n > 0 {
			maxVar = math.Max(maxVar, m2/n)
		}
	}
	if maxVar == 0 {
		maxVar = 1
	}
	eps := m.Params.Float("var_smoothing") * maxVar
	g := &gaussianComponent{K: K, rule: cc.Rule}
	// A weighted model with --variance sample: a class whose weights sum to ≤ 1 over more than one row has
	// variances 0 (ε remains) whatever the values, as the n − 1 variance divides by (weight − 1).
	if m.Weight != "" && m.Params.Text("variance") == nb.VarianceSample {
		for _, c := range m.Classes {
			if c.Count > 1 && c.Weight <= 1 {
				g.warnings = append(g.warnings, fmt.Sprintf("class %q: its %d rows weigh %g in all: --variance sample divides by (weight - 1), weights counting "+
					"as row frequencies, so its Gaussian variances are 0 (ε remains); scale the weights (to sum to the row count, say) or use --variance class",
					c.Label, c.Count, c.Weight))
			}
		}
	}
	for _, f := range feats {
		g.in = append(g.in, cc.Input(f, nb.NumberInput))
		stats := byFeature[f.Name]
		mean, half, ln, vr, cnt := make([]float64, K), make([]float64, K), make([]float64, K), make([]float64, K), make([]float64, K)
		allN, allMean, allM2 := mergedMoments(stats, true)
		allVar := 0.0
		if allN > 0 {
			allVar = allM2 / allN
		}
		pooledN, pooledM2 := 0.0, 0.0
		for _, s := range stats {
			pooledN += s.Weight
			pooledM2 += s.WM2
		}
		for _, s := range stats {
			c := cc.Class[s.Class]
			mu, v := allMean, allVar
			if s.Weight > 0 {
				mu = s.WMean
				switch m.Params.Text("variance") {
				case nb.VariancePooled:
					v = pooledM2 / pooledN
				case nb.VarianceSample:
					v = 0
					if s.Weight > 1 {
						v = s.WM2 / (s.Weight - 1)
					}
				default:
					v = s.WM2 / s.Weight
				}
			}
			v += eps
			if cc.Rule.On && math.Sqrt(v) <= cc.Rule.Eps {
				v = cc.Rule.Threshold * cc.Rule.Threshold
			}
			v = math.Max(v, minVariance)
			if v == minVariance && s.Weight > 0 && s.WM2 > 0 {
				g.warnings = append(g.warnings, fmt.Sprintf("feature %q: its variance in class %q (%.3g) is below 2.2e-308 (the smallest normal double), "+
					"where scoring floors it, so the feature tells the classes apart no more: rescale it (multiply it by 1e150, say)", f.Name, s.Class, s.WM2/s.Weight))
			}
			mean[c], vr[c], cnt[c] = mu, v, s.Weight
			half[c] = 1 / (2 * v)
			ln[c] = -0.5 * math.Log(2*math.Pi*v)
		}
		g.mean, g.halfInv, g.logNorm, g.variance, g.count = append(g.mean, mean), append(g.halfInv, half), append(g.logNorm, ln), append(g.variance, vr), append(g.count, cnt)
	}
	return []nb.Component{g}, nil
}

// mergedMoments combines per-class statistics (Chan's rule): count, mean and M2 over all classes,
// unweighted or weighted.
func mergedMoments(stats []GaussianStat, weighted bool) (n, mean, m2 float64) {
	for _, g := range stats {
		if weighted {
			n, mean, m2 = nb.ChanMerge(n, mean, m2, g.Weight, g.WMean, g.WM2)
		} else {
			n, mean, m2 = nb.ChanMerge(n, mean, m2, float64(g.Count), g.Mean, g.M2)
		}
	}
	return n, mean, m2
}

func (g *gaussianComponent) Inputs() []*nb.Input { return g.in }

func (g *gaussianComponent) Base(c int) float64 {
	if g.rule.On {
		return 0
	}
	b := 0.0
	for j := range g.in {
		b += g.logNorm[j][c]
	}
	return b
}

// Add subtracts (x - mean)² / (2 var) of four features per pass over the rows of one class. Each term is
// rounded before it is added (the float64 conversions: no fused multiply-add, whatever GOAMD64 allows), so
// that the scores do not depend on the build, and the per-group row kernels (groups.go) give the same bits.
func (g *gaussianComponent) Add(b *nb.Batch, out []float64) {
	n := b.N
	if g.rule.On {
		g.addRule(b, out)
		return
	}
	for c := range g.K {
		o := out[c*n : c*n+n]
		js := g.in
		k := 0
		for ; len(js)-k >= 4; k += 4 {
			x0, x1, x2, x3 := b.Num[js[k].Feature][:n], b.Num[js[k+1].Feature][:n], b.Num[js[k+2].Feature][:n], b.Num[js[k+3].Feature][:n]
			m0, m1, m2, m3 := g.mean[k][c], g.mean[k+1][c], g.mean[k+2][c], g.mean[k+3][c]
			h0, h1, h2, h3 := g.halfInv[k][c], g.halfInv[k+1][c], g.halfInv[k+2][c], g.halfInv[k+3][c]
			for i := range o {
				d0, d1, d2, d3 := x0[i]-m0, x1[i]-m1, x2[i]-m2, x3[i]-m3
				o[i] -= float64(d0*d0*h0) + float64(d1*d1*h1) + float64(d2*d2*h2) + float64(d3*d3*h3)
			}
		}
		for ; k < len(js); k++ {
			x := b.Num[js[k].Feature][:n]
			m, h := g.mean[k][c], g.halfInv[k][c]
			for i := range o {
				d := x[i] - m
				o[i] -= float64(d * d * h)
			}
		}
	}
}

// quadratic lays the component out for the per-group row kernel: its term for class c is
// -Σ_k (x_k - mean) ² · 1/(2 var), params holding (mean, 1/(2 var)) per class then feature (not with e1071's
// rule: ok false).
func (g *gaussianComponent) Quadratic() (cols []int, params []float64, ok bool) {
	if g.rule.On {
		return nil, nil, false
	}
	for c := range g.K {
		for k := range g.in {
			params = append(params, g.mean[k][c], g.halfInv[k][c])
		}
	}
	for _, in := range g.in {
		cols = append(cols, in.Feature)
	}
	return cols, params, true
}

// addRule is Add with e1071's rule: each density is computed as R's dnorm does (in linear space, so that it
// is 0 exactly where R's is) and replaced by threshold when ≤ eps.
func (g *gaussianComponent) addRule(b *nb.Batch, out []float64) {
	n := b.N
	for c := range g.K {
		o := out[c*n : c*n+n]
		for k, in := range g.in {
			x := b.Num[in.Feature][:n]
			m, sd := g.mean[k][c], math.Sqrt(g.variance[k][c])
			for i := range o {
				o[i] += g.rule.ApplyProb(dnormR(x[i], m, sd))
			}
		}
	}
}

// dnormR is R's dnorm(x, mu, sigma) (nmath/dnorm.c, R 4.2): the normal density in linear space, exactly 0
// where R's is, so that e1071's "density ≤ eps" rule sees the same zeros.
func dnormR(x, mu, sigma float64) float64 {
	const invSqrt2Pi = 0.398942280401432677939946059934
	z := math.Abs((x - mu) / sigma)
	if z >= 2*math.Sqrt(math.MaxFloat64) {
		return 0
	}
	if z < 5 {
		return invSqrt2Pi * math.Exp(-0.5*z*z) / sigma
	}
	// sqrt(-2 ln 2 (DBL_MIN_EXP + 1 - DBL_MANT_DIG)): beyond it the density underflows.
	if z > math.Sqrt(-2*math.Ln2*float64(-1021+1-53)) {
		return 0
	}
	x1 := math.Ldexp(math.RoundToEven(math.Ldexp(z, 16)), -16)
	x2 := z - x1
	return invSqrt2Pi / sigma * (math.Exp(-0.5*x1*x1) * math.Exp((-0.5*x2-x1)*x2))
}

// term is feature k's log-density for row i and class c in extended range; ok is false when the value is
// missing (NULL, NaN, ±Inf).
func (g *gaussianComponent) term(b *nb.Batch, i, k, c int) (nb.XFloat, bool) {
	in := g.in[k]
	x := b.Num[in.Feature][i]
	if !nb.IsValid(b.Valid[in.Feature], i) || math.IsNaN(x) || math.IsInf(x, 0) {
		return nb.XFloat{}, false
	}
	if g.rule.On {
		return nb.X(g.rule.ApplyProb(dnormR(x, g.mean[k][c], math.Sqrt(g.variance[k][c])))), true
	}
	d := nb.X(x).Sub(nb.X(g.mean[k][c]))
	return nb.X(g.logNorm[k][c]).Sub(d.Mul(d).Mul(nb.X(g.halfInv[k][c]))), true
}

func (g *gaussianComponent) Row(b *nb.Batch, i, c int) nb.XFloat {
	var s nb.XFloat
	for k := range g.in {
		t, _ := g.term(b, i, k, c)
		s = s.Add(t)
	}
	return s
}

func (g *gaussianComponent) Explain(b *nb.Batch, i, a, c int, out []nb.Contribution) []nb.Contribution {
	for k, in := range g.in {
		ta, _ := g.term(b, i, k, a)
		tc, _ := g.term(b, i, k, c)
		out = append(out, nb.Contribution{Feature: in.Name, Input: in, LLR: ta.Sub(tc).Float()})
	}
	return out
}

func (g *gaussianComponent) Parameters(labels []string) []nb.Parameter {
	var out []nb.Parameter
	for k, in := range g.in {
		for c, l := range labels {
			out = append(out,
				nb.Parameter{Feature: in.Name, Kind: Gaussian, Class: l, Parameter: "mean", Estimate: g.mean[k][c], Count: g.count[k][c]},
				nb.Parameter{Feature: in.Name, Kind: Gaussian, Class: l, Parameter: "variance", Estimate: g.variance[k][c], Count: g.count[k][c]})
		}
	}
	return out
}

// Informative rates each feature at the class mean: log p(mean_c | c) - max over other classes d of
// log p(mean_c | d).
func (g *gaussianComponent) Informative(labels []string, c int) []nb.Informative {
	var out []nb.Informative
	for k, in := range g.in {
		x := g.mean[k][c]
		at := func(d int) float64 {
			dx := x - g.mean[k][d]
			return g.logNorm[k][d] - dx*dx*g.halfInv[k][d]
		}
		out = append(out, nb.Informative{Class: labels[c], Feature: in.Name, Value: "mean " + strconv.FormatFloat(x, 'g', 6, 64),
			LLR: at(c) - nb.BestOther(g.K, c, at)})
	}
	return out
}

// SQL: ln - (x - mean)² h per feature, 0 when missing. In DuckDB a value so large that its square overflows
// makes the term -inf (the exporter's limit rule then decides); PostgreSQL raises an error on overflow, so
// there such a value (|x| ≥ 1e150) gives -Infinity directly.
func (g *gaussianComponent) SQL(x *nb.Exporter, c int) (string, error) {
	var terms []string
	for k, in := range g.in {
		v := x.Number(in.Name)
		t := fmt.Sprintf("%s - (%s - %s) * (%s - %s) * %s", x.Num(g.logNorm[k][c]), v, x.Num(g.mean[k][c]), v, x.Num(g.mean[k][c]), x.Num(g.halfInv[k][c]))
		guard := ""
		if x.Pg {
			guard = fmt.Sprintf(" WHEN abs(%s) >= 1e150 THEN %s", v, x.Num(math.Inf(-1)))
		}
		terms = append(terms, fmt.Sprintf("CASE WHEN %s THEN 0%s ELSE %s END", x.IsMissingNumber(v), guard, x.Ruled(g.rule, t)))
	}
	return strings.Join(terms, " + "), nil
}

// linear: with one variance v_j shared by both classes (variance pooled, seed 000), feature j adds
// log N(x; μ_1, v) - log N(x; μ_0, v) = (μ_1 - μ_0)/v · x + (μ_0² - μ_1²)/(2v).
func (g *gaussianComponent) Linear() (float64, []nb.LinearTerm, error) {
	if g.rule.On {
		return 0, nil, fmt.Errorf("e1071's rule (threshold) replaces small densities: the log-odds are not linear")
	}
	w0 := 0.0
	var terms []nb.LinearTerm
	for k, in := range g.in {
		h := g.halfInv[k]
		if h[0] != h[1] {
			return 0, nil, fmt.Errorf("Gaussian feature %q has a variance per class: its log-odds are quadratic; set variance pooled", in.Name)
		}
		m0, m1 := g.mean[k][0], g.mean[k][1]
		w0 += h[0] * (m0 - m1) * (m0 + m1)
		terms = append(terms, nb.LinearTerm{Feature: in.Name, Weight: 2 * h[0] * (m1 - m0)})
	}
	return w0, terms, nil
}

// limitSQL is class c's quadratic term scaled by 2^-1200, -((x - mean) 2^-600)² h, which does not overflow
// (the exporter's limit rule); features with |x| < 1e150 add 0 (their share is below 2^-900).
func (g *gaussianComponent) LimitSQL(x *nb.Exporter, c int) string {
	var terms []string
	for k, in := range g.in {
		v := x.Number(in.Name)
		h := g.halfInv[k][c]
		if h < 1e-200 {
			continue
		}
		terms = append(terms, fmt.Sprintf("CASE WHEN %s OR abs(%s) < 1e150 THEN 0 ELSE -((%s * %s - %s) * (%s * %s - %s)) * %s END",
			x.IsMissingNumber(v), v, v, x.Num(nb.LimitScale), x.Num(g.mean[k][c]*nb.LimitScale), v, x.Num(nb.LimitScale), x.Num(g.mean[k][c]*nb.LimitScale), x.Num(h)))
	}
	return strings.Join(append(terms, "0"), " + ")
}

// Warnings are the features whose variance in some class is positive but below the smallest normal
// double, where Compile floors it: the feature no longer tells the classes apart (found by a review).
func (g *gaussianComponent) Warnings() []string { return g.warnings }

func subtractGaussian(x, g *GaussianStat) error {
	n, err := nb.SubCount("the count of non-NULL values", x.Count, g.Count)
	if err != nil {
		return err
	}
	_, mean, m2, err := nb.ChanUnmerge("Gaussian", float64(x.Count), x.Mean, x.M2, float64(g.Count), g.Mean, g.M2)
	if err != nil {
		return err
	}
	w, wmean, wm2, err := nb.ChanUnmerge("weighted Gaussian", x.Weight, x.WMean, x.WM2, g.Weight, g.WMean, g.WM2)
	if err != nil {
		return err
	}
	switch n {
	case 0: // no value left: as training gives a class without a value of the feature
		if err := nb.EmptySum("weight", w, x.Weight); err != nil {
			return err
		}
		mean, m2, w, wmean, wm2 = 0, 0, 0, 0, 0
	case 1: // one value has no spread
		m2, wm2 = 0, 0
	}
	if w == 0 {
		wmean, wm2 = 0, 0
	}
	*x = GaussianStat{Feature: x.Feature, Class: x.Class, Count: n, Mean: mean, M2: m2, Weight: w, WMean: wmean, WM2: wm2}
	return nil
}

// ForgetRounding warns of variances that forgetting most of a class's rows leaves rounded (MomentRounding).
func (GaussianFamily) ForgetRounding(before, after *nb.Model) []nb.RoundingWarning {
	read := func(m *nb.Model) map[[2]string][3]float64 {
		out := map[[2]string][3]float64{}
		for _, g := range nb.RowsOf(m, GaussianTable) {
			out[[2]string{g.Feature, g.Class}] = [3]float64{float64(g.Count), g.Mean, g.M2}
		}
		return out
	}
	return nb.MomentRounding(read(before), read(after))
}
