package sqlnb

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/sqlnb/sqlnb/internal/kernel"
	"github.com/sqlnb/sqlnb/sqlnb/nb"
)

// ScoreRow scores one row given as column name → value, the way the SQL functions score a STRUCT: features
// are matched by name (exact, then case-insensitive; other keys are ignored, a missing feature is an
// error) and decoded as each feature's Input reads them (see BatchOf). It returns the posterior of every
// class (log-sum-exp normalised, summing to 1) and the most probable class (ties: the first in model order,
// as nb_predict). A row that misses a value the model requires (lda, qda, logistic) is ErrIncompleteRow.
func (s *Scorer) ScoreRow(row map[string]any) (posterior map[string]float64, label string, err error) {
	b, err := s.BatchOf([]map[string]any{row})
	if err != nil {
		return nil, "", err
	}
	K := len(s.Labels)
	jll := make([]float64, K)
	var ws Workspace
	s.JointLogLikelihood(b, jll, &ws)
	if ws.NullOf(0) {
		return nil, "", fmt.Errorf("%w: model %q scores complete rows only (%s): the row misses a value of %s (NULL, or NaN or ±Inf for a number), "+
			"where the SQL functions give NULL", nb.ErrIncompleteRow, s.Model.Name, s.requiredKinds(), s.missingRequired(b))
	}
	post := make([]float64, K)
	kernel.Posterior(jll, 1, K, 0, post)
	best := make([]int32, 1)
	kernel.Argmax(jll, 1, K, best, make([]float64, 1))
	posterior = make(map[string]float64, K)
	for c, l := range s.Labels {
		posterior[l] = post[c]
	}
	return posterior, s.Labels[best[0]], nil
}

// BatchOf decodes rows (column name → value) into a Batch for JointLogLikelihood, as the SQL functions
// decode a STRUCT's fields:
//   - a number feature (Gaussian, Poisson, count) takes any Go integer or float; nil is NULL (skipped);
//   - a Bernoulli feature takes a bool or a number (present when > its binarize threshold); nil is NULL;
//   - a categorical feature takes a string, a bool ("true"/"false") or a number: a string matches the
//     training value of that text (as DuckDB cast it), an integer the training value equal to it (2 matches
//     "2" and "2.0"), a float the value that reads as it; a value not seen in training is unseen; nil is NULL.
//     The value must be of the class the feature was trained on (a string for text, a bool for BOOLEAN, a
//     number for numbers), as the SQL functions require, or its text ("true", "2"; a group key);
//   - a text feature takes the text (tokenized as in training) or a map of term counts (map[string]int,
//     map[string]float64, or map[string]any of numbers); nil is NULL.
//
// Any other value is an error naming the model, the feature and what it takes.
func (s *Scorer) BatchOf(rows []map[string]any) (*nb.Batch, error) {
	if s == nil || s.Model == nil {
		return nil, fmt.Errorf("%w: a Scorer not made by Compile: compile the model (sqlnb.Compile)", nb.ErrBadOption)
	}
	b := s.NewBatch(len(rows))
	for _, in := range s.Inputs {
		if in.Kind != nb.NumberInput {
			continue
		}
		b.Valid[in.Feature] = make([]uint64, (len(rows)+63)/64)
	}
	for _, in := range s.Inputs {
		if b.Sparse[in.Feature] != nil {
			b.Sparse[in.Feature].Reset()
		}
	}
	for i, row := range rows {
		for _, in := range s.GroupInputs {
			v, ok := field(row, in.Name)
			if !ok {
				return nil, fmt.Errorf("%w: model %q has one model per group of %q, which the row lacks (it has %s)",
					nb.ErrUnknownColumn, s.Model.Name, in.Name, keys(row))
			}
			if err := s.decode(b, in, i, v); err != nil {
				return nil, fmt.Errorf("model %q: group column %q (trained on %s) but the row gives %T: %w",
					s.Model.Name, in.Name, in.Type, v, err)
			}
		}
		for _, in := range s.Inputs {
			v, ok := field(row, in.Name)
			if !ok {
				return nil, fmt.Errorf("%w: model %q needs feature %q, which the row lacks (it has %s)",
					nb.ErrUnknownColumn, s.Model.Name, in.Name, keys(row))
			}
			if err := s.decode(b, in, i, v); err != nil {
				return nil, fmt.Errorf("model %q: feature %q is %s (trained on %s) but the row gives %T: %w",
					s.Model.Name, in.Name, s.Model.Features[in.Feature].Kind, in.Type, v, err)
			}
		}
	}
	return b, nil
}

// field returns row's value of column name: the exact key, else the only key equal to it ignoring ASCII case
// (EqualFoldIdent, as DuckDB).
func field(row map[string]any, name string) (any, bool) {
	if v, ok := row[name]; ok {
		return v, true
	}
	var found []string
	for k := range row {
		if nb.EqualFoldIdent(k, name) {
			found = append(found, k)
		}
	}
	if len(found) == 1 {
		return row[found[0]], true
	}
	return nil, false
}

func keys(row map[string]any) string {
	if len(row) == 0 {
		return "no columns"
	}
	ks := nb.SortedKeys(row)
	for i, k := range ks {
		ks[i] = strconv.Quote(k)
	}
	return strings.Join(ks, ", ")
}

// decode writes value v of input in into row i of b.
func (s *Scorer) decode(b *nb.Batch, in *nb.Input, i int, v any) error {
	j := in.Feature
	switch in.Kind {
	case nb.NumberInput:
		if v == nil {
			return nil // the validity bit stays clear: NULL
		}
		x, ok := nb.Number(v)
		if !ok {
			return fmt.Errorf("give a number")
		}
		b.Num[j][i] = x
		b.Valid[j][i>>6] |= 1 << (uint(i) & 63)
		return nil
	case nb.TermsInput:
		sp := b.Sparse[j]
		switch t := v.(type) {
		case nil:
			sp.EndNullRow()
		case string:
			in.AddText(sp, t)
		default:
			counts, ok := nb.TermCounts(v)
			if !ok {
				return fmt.Errorf("give the text (a string) or a map of term counts")
			}
			for _, term := range nb.SortedKeys(counts) {
				if c := counts[term]; !math.IsNaN(c) && !math.IsInf(c, 0) {
					in.AddTerm(sp, term, c)
				}
			}
			in.EndRow(sp)
		}
		return nil
	}
	cat := b.Cat[j]
	if v == nil {
		cat[i] = in.Missing()
		return nil
	}
	if in.Binary {
		switch t := v.(type) {
		case bool:
			cat[i] = 0
			if t {
				cat[i] = 1
			}
			return nil
		}
		x, ok := nb.Number(v)
		if !ok {
			return fmt.Errorf("give a bool or a number (present when > the binarize threshold)")
		}
		cat[i] = in.Code(x)
		return nil
	}
	// As the SQL functions: the value must be of the class of values the input was trained on (a BOOLEAN
	// feature given 1 or "yes" is an error, not an unseen value).
	want := in.ValueClass()
	wrong := map[string]error{nb.ValuesText: fmt.Errorf("give a string"), nb.ValuesBoolean: fmt.Errorf("give a bool (true or false)"),
		nb.ValuesNumber: fmt.Errorf("give a number")}[want]
	switch t := v.(type) {
	case string:
		// Text as such; for other classes the text of a value of the class (a group key, say): "true" or
		// "false", or a number, matched as that number.
		switch want {
		case nb.ValuesText:
			cat[i] = in.Lookup(t)
		case nb.ValuesBoolean:
			if t != "true" && t != "false" {
				return wrong
			}
			return s.decode(b, in, i, t == "true")
		default:
			if k, err := strconv.ParseInt(t, 10, 64); err == nil {
				return s.decode(b, in, i, k)
			}
			if u, err := strconv.ParseUint(t, 10, 64); err == nil {
				return s.decode(b, in, i, u)
			}
			if c, ok := in.NumberKeys().Big[t]; ok && !in.FloatTrained() { // an integer beyond 64 bits
				cat[i] = c
				return nil
			}
			x, err := strconv.ParseFloat(t, 64)
			if err != nil {
				return wrong
			}
			if cat[i] = in.Lookup(t); cat[i] == in.Unseen() { // "1.50" as trained, else by value
				return s.decode(b, in, i, x)
			}
		}
	case bool:
		if want != nb.ValuesBoolean {
			return wrong
		}
		cat[i] = in.Lookup(strconv.FormatBool(t))
	default:
		x, ok := nb.Number(v)
		if !ok || want != nb.ValuesNumber {
			return wrong
		}
		cat[i] = in.NumberCode(v, x)
	}
	return nil
}

// requiredKinds lists the kinds of the features a complete row needs.
func (s *Scorer) requiredKinds() string {
	var kinds []string
	for _, j := range s.required {
		k := string(s.Model.Features[s.Inputs[j].Feature].Kind)
		if !slices.Contains(kinds, k) {
			kinds = append(kinds, k)
		}
	}
	return strings.Join(kinds, ", ")
}

// missingRequired names the required inputs row 0 of b misses.
func (s *Scorer) missingRequired(b *nb.Batch) string {
	var names []string
	for _, j := range s.required {
		if s.misses(b, j, 0) {
			names = append(names, strconv.Quote(s.Inputs[j].Name))
		}
	}
	return strings.Join(names, ", ")
}
