package nb

import "slices"

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

// presence keeps each term of the current row (entries from start) once if its total count there is
// Present over threshold, dropping the others: a term is present or not.
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
		if Present(n, threshold) {
			s.Add(row[i].idx, 1)
		}
		i = j
	}
}

// AddText tokenizes text (TextOptions.Terms) into the current row of s and closes it: terms of the input's
// vocabulary only (unseen terms are ignored, as in scikit-learn's CountVectorizer with a fixed vocabulary).
func (in *Input) AddText(s *Sparse, text string) {
	for _, t := range in.Text.Terms(text) {
		if i, ok := in.Index[t]; ok {
			s.Add(i, 1)
		}
	}
	in.EndRow(s)
}

// AddTerm adds count occurrences of term to the current row of s if it is in the input's vocabulary
// (a MAP of term counts); close the row with EndRow.
func (in *Input) AddTerm(s *Sparse, term string, count float64) {
	if i, ok := in.Index[term]; ok && count != 0 {
		s.Add(i, count)
	}
}

// EndRow closes the current row of s (keeping each present term once for a Presence input).
func (in *Input) EndRow(s *Sparse) {
	if in.Presence {
		s.presence(int(s.Off[len(s.Off)-1]), in.Threshold)
	}
	s.EndRow()
}
