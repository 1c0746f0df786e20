package sqlnb

import (
	"math"
	"slices"
	"sort"
)

// Sparse holds the terms of a text feature for a vector of rows: row i owns the entries
// Off[i]..Off[i+1] of Idx (vocabulary index) and Val (its count).
type Sparse struct {
	Off  []int32
	Idx  []int32
	Val  []float64
	Null []bool // per row: the text was NULL
}

// Reset empties s for a new vector.
func (s *Sparse) Reset() {
	s.Off = append(s.Off[:0], 0)
	s.Idx, s.Val, s.Null = s.Idx[:0], s.Val[:0], s.Null[:0]
}

// EndNullRow closes the current row as a NULL text (no terms).
func (s *Sparse) EndNullRow() {
	s.EndRow()
	s.Null[len(s.Null)-1] = true
}

// Add adds count occurrences of vocabulary term idx to the current row.
func (s *Sparse) Add(idx int32, count float64) {
	s.Idx = append(s.Idx, idx)
	s.Val = append(s.Val, count)
}

// EndRow closes the current row.
func (s *Sparse) EndRow() {
	s.Off = append(s.Off, int32(len(s.Idx)))
	s.Null = append(s.Null, false)
}

// AddText tokenizes text (Tokenize) into the current row of s: terms of f's vocabulary only (unseen
// terms are ignored, as in scikit-learn's CountVectorizer with a fixed vocabulary).
func (f *ScoreFeature) AddText(s *Sparse, text string) {
	start := len(s.Idx)
	for _, t := range f.Text.Terms(text) {
		if i, ok := f.Index[t]; ok {
			s.Add(i, 1)
		}
	}
	if f.Kind == TextBernoulli {
		s.presence(start, f.Binarize)
	}
}

// presence keeps each term of the current row (entries from start) once if its total count there is
// > threshold, dropping the others: a term is present or not.
func (s *Sparse) presence(start int, threshold float64) {
	type tc struct {
		idx int32
		n   float64
	}
	row := make([]tc, 0, len(s.Idx)-start)
	for k := start; k < len(s.Idx); k++ {
		row = append(row, tc{s.Idx[k], s.Val[k]})
	}
	slices.SortFunc(row, func(a, b tc) int { return int(a.idx) - int(b.idx) })
	s.Idx, s.Val = s.Idx[:start], s.Val[:start]
	for i := 0; i < len(row); {
		j, n := i, 0.0
		for ; j < len(row) && row[j].idx == row[i].idx; j++ {
			n += row[j].n
		}
		if n > threshold {
			s.Add(row[i].idx, 1)
		}
		i = j
	}
}

// AddTerm adds count occurrences of term to the current row of s if it is in f's vocabulary.
// With text_bernoulli a term is present when its count is > 0 (scikit-learn's binarize=0); call Presence
// after the row's terms.
func (f *ScoreFeature) AddTerm(s *Sparse, term string, count float64) {
	if i, ok := f.Index[term]; ok && count != 0 {
		s.Add(i, count)
	}
}

// EndRow closes the current row of s for this feature (keeping each present term once for text_bernoulli).
func (f *ScoreFeature) EndRow(s *Sparse) {
	if f.Kind == TextBernoulli {
		s.presence(int(s.Off[len(s.Off)-1]), f.Binarize)
	}
	s.EndRow()
}

// compileText lays out a text feature: the vocabulary (terms with a positive count, in at least MinDF
// documents, the MaxFeatures most frequent — scikit-learn's CountVectorizer rules), and per
// term and class log θ_tc = log(N_tc + α) - log(N_c + αV) in TermLogProb[t*K + c]; with α = 0 also the
// α = 1e-10 table for rows every class rules out.
func compileText(sf *ScoreFeature, terms []TermCount, classIdx map[string]int, classes []Class, p Params) {
	K := len(classes)
	alpha := p.Alpha
	total, docs := map[string]float64{}, map[string]int64{}
	for _, t := range terms {
		total[t.Term] += t.Weight
		docs[t.Term] += t.Docs
	}
	for t, w := range total {
		if w > 0 && docs[t] >= p.MinDF {
			sf.Values = append(sf.Values, t)
		}
	}
	if p.MaxFeatures > 0 && int64(len(sf.Values)) > p.MaxFeatures {
		sort.Slice(sf.Values, func(a, b int) bool {
			ta, tb := total[sf.Values[a]], total[sf.Values[b]]
			return ta > tb || (ta == tb && sf.Values[a] < sf.Values[b])
		})
		sf.Values = sf.Values[:p.MaxFeatures]
	}
	sort.Strings(sf.Values)
	sf.Index = make(map[string]int32, len(sf.Values))
	for i, t := range sf.Values {
		sf.Index[t] = int32(i)
	}
	V := len(sf.Values)
	n := make([]float64, V*K)
	for _, t := range terms {
		if i, ok := sf.Index[t.Term]; ok {
			if sf.Kind == TextBernoulli {
				n[int(i)*K+classIdx[t.Class]] += float64(t.Present)
			} else {
				n[int(i)*K+classIdx[t.Class]] += t.Weight
			}
		}
	}
	if sf.Kind == TextComplement {
		sf.TermLogProb = complementTable(n, V, K, alpha, p.Norm)
		return
	}
	if sf.Kind == TextBernoulli {
		sf.TermLogProb, sf.Absent = bernoulliTables(n, V, classes, alpha)
		if alpha == 0 {
			sf.termLogProbFloor, sf.absentFloor = bernoulliTables(n, V, classes, alphaFloor)
		}
		return
	}
	table := func(a float64) []float64 {
		out := make([]float64, V*K)
		for c := range K {
			total := 0.0
			for i := range V {
				total += n[i*K+c]
			}
			denom := math.Log(total + a*float64(V))
			for i := range V {
				out[i*K+c] = math.Log(n[i*K+c]+a) - denom
			}
		}
		return out
	}
	sf.TermLogProb = table(alpha)
	if alpha == 0 {
		sf.termLogProbFloor = table(alphaFloor)
	}
}

// textTerm is row i's term of a text feature: Σ_t n_t log θ_tc (text), or Σ_t log(1 - p_tc) + Σ over present
// terms of log p_tc - log(1 - p_tc) (text_bernoulli; rows hold each present term once); 0 for NULL text.
func (f *ScoreFeature) textTerm(s *Sparse, i, c, K int, floor bool) float64 {
	lp := f.TermLogProb
	if floor && f.termLogProbFloor != nil {
		lp = f.termLogProbFloor
	}
	if s.Null[i] {
		return 0
	}
	v := 0.0
	if f.Kind == TextBernoulli {
		absent := f.Absent
		if floor && f.absentFloor != nil {
			absent = f.absentFloor
		}
		v = absent[c]
		for e := s.Off[i]; e < s.Off[i+1]; e++ {
			v += lp[int(s.Idx[e])*K+c]
		}
		return v
	}
	for e := s.Off[i]; e < s.Off[i+1]; e++ {
		v += s.Val[e] * lp[int(s.Idx[e])*K+c]
	}
	return v
}

// bernoulliTables returns, per term and class, log p - log(1 - p) and, per class, Σ_t log(1 - p_tc), with
// p_tc = (d_tc + α)/(n_c + 2α).
func bernoulliTables(d []float64, V int, classes []Class, alpha float64) ([]float64, []float64) {
	K := len(classes)
	delta, absent := make([]float64, V*K), make([]float64, K)
	for c, cl := range classes {
		denom := float64(cl.Count) + 2*alpha
		for i := range V {
			p := (d[i*K+c] + alpha) / denom
			if denom == 0 {
				p = 0.5
			}
			l1 := math.Log1p(-p)
			delta[i*K+c] = math.Log(p) - l1
			absent[c] += l1
		}
	}
	return delta, absent
}

// complementTable returns ComplementNB's weights per term and class (as Scorer.compileCounts): with
// C_tc = Σ_c' N_tc' - N_tc + α, l_tc = log(C_tc / Σ_t C_tc), w = -l, or l / Σ_t l with norm.
func complementTable(n []float64, V, K int, alpha float64, norm bool) []float64 {
	w := make([]float64, V*K)
	for c := range K {
		comp := make([]float64, V)
		total := 0.0
		for i := range V {
			all := 0.0
			for d := range K {
				all += n[i*K+d]
			}
			comp[i] = all + alpha - n[i*K+c]
			total += comp[i]
		}
		sum := 0.0
		for i := range V {
			w[i*K+c] = math.Log(comp[i] / total)
			sum += w[i*K+c]
		}
		for i := range V {
			if norm {
				w[i*K+c] /= sum
			} else {
				w[i*K+c] = -w[i*K+c]
			}
		}
	}
	return w
}
