package sqlnb

import (
	"fmt"
	"math"
	"sort"
)

// alphaFloor is the smoothing used for a row that every class finds impossible (only possible with
// α = 0): the row is rescored as if α were 1e-10, scikit-learn's lower bound for alpha.
const alphaFloor = 1e-10

// minVariance keeps a Gaussian variance positive when var_smoothing is 0 and a class is constant.
const minVariance = 1e-300

// Scorer is a Model compiled for scoring: priors, smoothing and variance mode applied, parameters laid
// out per class for the kernels. It is immutable and safe for concurrent use.
type Scorer struct {
	Model *Model
	// Labels are the class labels in model order.
	Labels []string
	// LogPrior is log p(c) per class.
	LogPrior []float64
	// Features are the compiled features in model (training) order.
	Features []ScoreFeature

	base  []float64 // per class: LogPrior + Σ over Gaussian features of LogNorm
	gauss []int     // positions of Gaussian features
	cats  []int     // positions of categorical and Bernoulli features
	sums  []int     // positions of count (multinomial, complement) features
	texts []int     // positions of text features
}

// ScoreFeature holds one feature's smoothed log-parameters.
type ScoreFeature struct {
	Name     string
	Kind     Kind
	Type     string
	Text     TextOptions
	Binarize float64

	// Gaussian: per class mean, 1/(2 var) and -½ log(2π var), var = smoothed variance.
	Mean, HalfInvVar, LogNorm, Var []float64

	// Count features: per class the weight of one count: log θ_jc (multinomial) or the complement weight.
	Weight []float64

	// Text features: the vocabulary is Values/Index; TermLogProb[t*K + c] = log θ_tc.
	TermLogProb      []float64
	termLogProbFloor []float64
	// Absent (text_bernoulli): per class Σ_t log(1 - p_tc), every vocabulary term absent.
	Absent, absentFloor []float64

	// Categorical and Bernoulli: the J training values (Bernoulli: false, true), their positions, and
	// per class the J+2 log-probabilities: the values, then Unseen(J) and Missing(J+1).
	Values  []string
	Index   map[string]int32
	LogProb [][]float64
	// logProbFloor is LogProb recomputed with α = alphaFloor, only when α = 0.
	logProbFloor [][]float64
}

// Unseen is the category index of a value not seen in training.
func (f *ScoreFeature) Unseen() int32 { return int32(len(f.Values)) }

// Missing is the category index of a NULL value.
func (f *ScoreFeature) Missing() int32 { return int32(len(f.Values)) + 1 }

// Compile applies m's Params and lays the model out for scoring. Rules (documented in README):
//   - Gaussian: var = M2/n + ε per class (Params.Variance class) or Σ M2 / Σ n over classes (pooled),
//     ε = VarSmoothing × the largest variance of any Gaussian feature over the whole training set
//     (unweighted, as scikit-learn), or VarSmoothing itself if every feature is constant. A class
//     without any non-NULL value of a feature uses the feature's statistics over all classes.
//   - Categorical: θ = (n_jvc + α)/(n_jc + αJ), J = distinct training values; an unseen value gets
//     α/(n_jc + αJ) when α > 0 and is skipped when α = 0; a class with n_jc + αJ = 0 is uniform (1/J).
//   - Bernoulli: as categorical with J = 2 (values false and true).
//   - Priors: fit n_c/n, smoothed (n_c+α)/(n+αK), uniform 1/K, or given.
func Compile(m *Model) (*Scorer, error) {
	if err := m.Validate(); err != nil {
		return nil, err
	}
	K := len(m.Classes)
	s := &Scorer{Model: m, Labels: make([]string, K), LogPrior: make([]float64, K)}
	for c, cl := range m.Classes {
		s.Labels[c] = cl.Label
	}
	s.computePriors()

	classIdx := m.ClassIndex()
	byFeature := map[string][]GaussianStat{}
	for _, g := range m.Gaussian {
		byFeature[g.Feature] = append(byFeature[g.Feature], g)
	}
	counts := map[string][]CategoryCount{}
	for _, n := range m.Counts {
		counts[n.Feature] = append(counts[n.Feature], n)
	}
	termsOf := map[string][]TermCount{}
	for _, t := range m.Terms {
		termsOf[t.Feature] = append(termsOf[t.Feature], t)
	}
	eps := s.epsilon(byFeature)

	s.Features = make([]ScoreFeature, len(m.Features))
	for j, f := range m.Features {
		sf := &s.Features[j]
		sf.Name, sf.Kind, sf.Type, sf.Text, sf.Binarize = f.Name, f.Kind, f.Type, f.Text, f.Binarize
		switch {
		case f.Kind == Gaussian:
			compileGaussian(sf, byFeature[f.Name], classIdx, K, eps, m.Params.Variance == VariancePooled)
			s.gauss = append(s.gauss, j)
		case f.Kind.Counted():
			s.sums = append(s.sums, j)
		case f.Kind.IsText():
			compileText(sf, termsOf[f.Name], classIdx, m.Classes, m.Params)
			s.texts = append(s.texts, j)
		default:
			compileCategorical(sf, counts[f.Name], classIdx, K, m.Params.Alpha)
			s.cats = append(s.cats, j)
		}
	}
	if len(s.sums) > 0 {
		s.compileCounts(classIdx)
	}
	for _, j := range s.texts {
		if s.Features[j].Kind == TextComplement { // complement scores ignore the priors, as scikit-learn
			clear(s.LogPrior)
		}
	}
	s.base = make([]float64, K)
	for c := range K {
		s.base[c] = s.LogPrior[c]
		for _, j := range s.gauss {
			s.base[c] += s.Features[j].LogNorm[c]
		}
	}
	return s, nil
}

func (s *Scorer) computePriors() {
	m := s.Model
	K := float64(len(m.Classes))
	total := 0.0
	for _, c := range m.Classes {
		total += c.Weight
	}
	for c, cl := range m.Classes {
		var p float64
		switch m.Params.Priors {
		case PriorsSmoothed:
			p = (cl.Weight + m.Params.Alpha) / (total + m.Params.Alpha*K)
		case PriorsUniform:
			p = 1 / K
		case PriorsGiven:
			p = cl.Prior
		default:
			p = cl.Weight / total
		}
		s.LogPrior[c] = math.Log(p)
	}
}

// compileCounts sets the weights of the count features, as scikit-learn's MultinomialNB and ComplementNB:
//   - multinomial: w_jc = log θ_jc = log(N_jc + α) - log(Σ_j N_jc + αV), V = number of count columns;
//   - complement: with C_jc = Σ_c' N_jc' - N_jc + α (the other classes' counts), l_jc = log(C_jc / Σ_j C_jc),
//     w_jc = -l_jc, or with Params.Norm w_jc = l_jc / Σ_j l_jc; complement scores ignore the priors.
func (s *Scorer) compileCounts(classIdx map[string]int) {
	m := s.Model
	K, V, alpha := len(s.Labels), float64(len(s.sums)), m.Params.Alpha
	pos := map[string]int{}
	for r, j := range s.sums {
		pos[s.Features[j].Name] = r
	}
	n := make([][]float64, len(s.sums)) // n[r][c]
	for r := range n {
		n[r] = make([]float64, K)
	}
	for _, t := range m.Totals {
		n[pos[t.Feature]][classIdx[t.Class]] += t.Total
	}
	w := make([][]float64, len(s.sums))
	for r := range w {
		w[r] = make([]float64, K)
	}
	complement := s.Features[s.sums[0]].Kind == Complement
	for c := range K {
		if !complement {
			total := 0.0
			for r := range n {
				total += n[r][c] + alpha
			}
			for r := range n {
				w[r][c] = math.Log(n[r][c]+alpha) - math.Log(total)
			}
			continue
		}
		comp := make([]float64, len(n))
		total := 0.0
		for r := range n {
			all := 0.0
			for d := range K {
				all += n[r][d]
			}
			comp[r] = all + alpha - n[r][c]
			total += comp[r]
		}
		sumLogged := 0.0
		for r := range n {
			w[r][c] = math.Log(comp[r] / total)
			sumLogged += w[r][c]
		}
		for r := range n {
			if m.Params.Norm {
				w[r][c] /= sumLogged
			} else {
				w[r][c] = -w[r][c]
			}
		}
	}
	_ = V
	for r, j := range s.sums {
		s.Features[j].Weight = w[r]
	}
	if complement {
		for c := range s.LogPrior {
			s.LogPrior[c] = 0
		}
	}
}

// merged combines per-class statistics (Chan et al.'s parallel rule): count, mean and M2 over all
// classes, unweighted (weighted=false) or weighted.
func merged(stats []GaussianStat, weighted bool) (n, mean, m2 float64) {
	for _, g := range stats {
		gn, gmean, gm2 := float64(g.Count), g.Mean, g.M2
		if weighted {
			gn, gmean, gm2 = g.Weight, g.WMean, g.WM2
		}
		if gn == 0 {
			continue
		}
		tot := n + gn
		d := gmean - mean
		mean += d * gn / tot
		m2 += gm2 + d*d*n*gn/tot
		n = tot
	}
	return n, mean, m2
}

// epsilon is VarSmoothing × the largest whole-training-set variance of any Gaussian feature.
func (s *Scorer) epsilon(byFeature map[string][]GaussianStat) float64 {
	maxVar := 0.0
	for _, stats := range byFeature {
		if n, _, m2 := merged(stats, false); n > 0 {
			maxVar = math.Max(maxVar, m2/n)
		}
	}
	if maxVar == 0 {
		maxVar = 1
	}
	return s.Model.Params.VarSmoothing * maxVar
}

func compileGaussian(sf *ScoreFeature, stats []GaussianStat, classIdx map[string]int, K int, eps float64, pooled bool) {
	sf.Mean, sf.HalfInvVar, sf.LogNorm, sf.Var = make([]float64, K), make([]float64, K), make([]float64, K), make([]float64, K)
	allN, allMean, allM2 := merged(stats, true)
	allVar := 0.0
	if allN > 0 {
		allVar = allM2 / allN
	}
	pooledVar := 0.0
	if pooled {
		n, m2 := 0.0, 0.0
		for _, g := range stats {
			n += g.Weight
			m2 += g.WM2
		}
		if n > 0 {
			pooledVar = m2 / n
		}
	}
	for _, g := range stats {
		c := classIdx[g.Class]
		mean, v := g.WMean, 0.0
		if g.Weight > 0 {
			v = g.WM2 / g.Weight
		} else {
			mean, v = allMean, allVar
		}
		if pooled {
			v = pooledVar
		}
		v = math.Max(v+eps, minVariance)
		sf.Mean[c], sf.Var[c] = mean, v
		sf.HalfInvVar[c] = 1 / (2 * v)
		sf.LogNorm[c] = -0.5 * math.Log(2*math.Pi*v)
	}
}

func compileCategorical(sf *ScoreFeature, counts []CategoryCount, classIdx map[string]int, K int, alpha float64) {
	if sf.Kind == Bernoulli {
		sf.Values = []string{"false", "true"}
	} else {
		set := map[string]bool{}
		for _, n := range counts {
			if n.Weight > 0 || n.Count > 0 {
				set[n.Value] = true
			}
		}
		for v := range set {
			sf.Values = append(sf.Values, v)
		}
		sort.Strings(sf.Values)
	}
	J := len(sf.Values)
	sf.Index = make(map[string]int32, J)
	for i, v := range sf.Values {
		sf.Index[v] = int32(i)
	}
	w := make([][]float64, K) // per class per value: weight
	for c := range w {
		w[c] = make([]float64, J)
	}
	for _, n := range counts {
		if v, ok := sf.Index[n.Value]; ok {
			w[classIdx[n.Class]][v] += n.Weight
		}
	}
	sf.LogProb = categoricalLogProb(w, alpha)
	if alpha == 0 {
		sf.logProbFloor = categoricalLogProb(w, alphaFloor)
	}
}

// categoricalLogProb returns per class the J+2 log-probabilities (values, unseen, missing).
func categoricalLogProb(w [][]float64, alpha float64) [][]float64 {
	out := make([][]float64, len(w))
	for c, wc := range w {
		J := len(wc)
		total := 0.0
		for _, x := range wc {
			total += x
		}
		denom := total + alpha*float64(J)
		lp := make([]float64, J+2)
		for v, x := range wc {
			if denom > 0 {
				lp[v] = math.Log((x + alpha) / denom)
			} else {
				lp[v] = -math.Log(float64(J))
			}
		}
		if alpha > 0 && denom > 0 {
			lp[J] = math.Log(alpha / denom)
		}
		out[c] = lp
	}
	return out
}

// String describes s briefly.
func (s *Scorer) String() string {
	return fmt.Sprintf("scorer %q: %d classes, %d features", s.Model.Name, len(s.Labels), len(s.Features))
}
