package sqlnb

import (
	"math"
	"sort"
)

// Sparse holds the terms of a text feature for a vector of rows: row i owns the entries
// Off[i]..Off[i+1] of Idx (vocabulary index) and Val (its count).
type Sparse struct {
	Off []int32
	Idx []int32
	Val []float64
}

// Reset empties s for a new vector.
func (s *Sparse) Reset() {
	s.Off = append(s.Off[:0], 0)
	s.Idx, s.Val = s.Idx[:0], s.Val[:0]
}

// Add adds count occurrences of vocabulary term idx to the current row.
func (s *Sparse) Add(idx int32, count float64) {
	s.Idx = append(s.Idx, idx)
	s.Val = append(s.Val, count)
}

// EndRow closes the current row.
func (s *Sparse) EndRow() { s.Off = append(s.Off, int32(len(s.Idx))) }

// AddText tokenizes text (Tokenize) into the current row of s: terms of f's vocabulary only (unseen
// terms are ignored, as in scikit-learn's CountVectorizer with a fixed vocabulary).
func (f *ScoreFeature) AddText(s *Sparse, text string) {
	for _, t := range Tokenize(text) {
		if i, ok := f.Index[t]; ok {
			s.Add(i, 1)
		}
	}
}

// AddTerm adds count occurrences of term to the current row of s if it is in f's vocabulary.
func (f *ScoreFeature) AddTerm(s *Sparse, term string, count float64) {
	if i, ok := f.Index[term]; ok && count != 0 {
		s.Add(i, count)
	}
}

// compileText lays out a text feature: the vocabulary (terms with a positive count, in at least MinDF
// documents, the MaxFeatures most frequent — scikit-learn's CountVectorizer rules), and per
// term and class log θ_tc = log(N_tc + α) - log(N_c + αV) in TermLogProb[t*K + c]; with α = 0 also the
// α = 1e-10 table for rows every class rules out.
func compileText(sf *ScoreFeature, terms []TermCount, classIdx map[string]int, K int, p Params) {
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
			n[int(i)*K+classIdx[t.Class]] += t.Weight
		}
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

// textTerm is Σ_t n_t log θ_tc of row i of a text feature.
func (f *ScoreFeature) textTerm(s *Sparse, i, c, K int, floor bool) float64 {
	lp := f.TermLogProb
	if floor && f.termLogProbFloor != nil {
		lp = f.termLogProbFloor
	}
	v := 0.0
	for e := s.Off[i]; e < s.Off[i+1]; e++ {
		v += s.Val[e] * lp[int(s.Idx[e])*K+c]
	}
	return v
}
