package nb

import (
	"bytes"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"math"
	"reflect"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"
)

// FormatVersion is the version of the stored model layout (nb.* tables) and export JSON. Version 2 added the
// hyperparameters threshold and eps to nb.models and the Poisson statistics; version 3 the hyperparameters of
// discriminant analysis and logistic regression (reg_param, solver, shrinkage, c, penalty, tol, max_iter),
// the fit summary (incomplete_rows, iterations, grad_norm) and their statistics tables; version 4 the summary
// of semi-supervised training (unlabelled_rows, log_likelihood) and per-group models (nb.models.group_by,
// nb.groups, nb.group_classes and a group_id column in every statistics table, 0 for the model itself);
// version 5 keeps the hyperparameters as one JSON object (nb.models.params) instead of a column each, so
// that a family declares its own (ParamSpec). Earlier stores are upgraded by Upgrade; earlier JSON imports
// as it is (missing hyperparameters take their defaults).
const FormatVersion = 5

// Kind is the distribution of one feature given the class: one of the kinds a Family registers (Kinds).
type Kind string

// Variance modes of Gaussian features.
const (
	// VarianceClass: one variance per feature and class (GaussianNB).
	VarianceClass = "class"
	// VariancePooled: one within-class variance per feature shared by all classes (seed 000: the decision
	// boundary is then linear).
	VariancePooled = "pooled"
	// VarianceSample: one variance per feature and class with the n - 1 denominator (R's e1071 and naivebayes).
	VarianceSample = "sample"
)

// Prior rules.
const (
	// PriorsFit: p(c) = n_c / n (weighted: w_c / w).
	PriorsFit = "fit"
	// PriorsSmoothed: p(c) = (n_c + α) / (n + αK) (seed 000).
	PriorsSmoothed = "smoothed"
	// PriorsUniform: p(c) = 1/K.
	PriorsUniform = "uniform"
	// PriorsGiven: p(c) given per class (Class.Prior).
	PriorsGiven = "given"
)

// LDA solvers (scikit-learn's names for its covariance estimates).
const (
	SolverSVD  = "svd"
	SolverLSQR = "lsqr"
)

// Logistic regression penalties.
const (
	PenaltyL2   = "l2"
	PenaltyNone = "none"
)

// alphaMin is scikit-learn's lower bound for alpha (naive_bayes._ALPHA_MIN).
const alphaMin = 1e-10

// EffectiveAlpha is the smoothing used for scoring: alpha, raised to 1e-10 unless e1071's rule is on.
func EffectiveAlpha(p Params) float64 {
	if p.Float("threshold") > 0 {
		return p.Float("alpha")
	}
	return math.Max(p.Float("alpha"), alphaMin)
}

// ParamWarnings lists what scoring will do differently from what the parameters say.
func ParamWarnings(p Params) []string {
	if p.Float("threshold") == 0 && p.Float("alpha") < alphaMin {
		return []string{fmt.Sprintf("alpha %g is below 1e-10: it is raised to 1e-10 when scoring, as scikit-learn does "+
			"(a zero probability would rule a class out); for e1071's rule with exact zeros set threshold", p.Float("alpha"))}
	}
	return nil
}

// ParsePriors reads a priors option: fit, smoothed, uniform, or "class=p,class=p,..." (given priors).
// Given priors must be positive and sum to 1 within 1e-6; they are returned by class label.
func ParsePriors(s string) (rule string, given map[string]float64, err error) {
	s = strings.TrimSpace(s)
	switch strings.ToLower(s) {
	case "", PriorsFit:
		return PriorsFit, nil, nil
	case PriorsSmoothed, PriorsUniform:
		return strings.ToLower(s), nil, nil
	}
	given = map[string]float64{}
	sum := 0.0
	parts, err := SplitQuoted(s)
	if err != nil {
		return "", nil, fmt.Errorf("%w: priors %q: %v", ErrBadOption, s, err)
	}
	for _, part := range parts {
		eq := strings.LastIndexByte(part.Text, '=')
		if eq < 0 || eq < part.Quoted {
			return "", nil, fmt.Errorf("%w: priors %q: use fit, smoothed, uniform or class=p,class=p (a class with ',' '=' or '\"' in "+
				"double quotes: \"a,b\"=0.5)", ErrBadOption, s)
		}
		p, perr := strconv.ParseFloat(strings.TrimSpace(part.Text[eq+1:]), 64)
		if perr != nil || !(p > 0) || p > 1 {
			return "", nil, fmt.Errorf("%w: prior %q: must be a number in (0, 1]", ErrBadOption, part.Text)
		}
		class := strings.TrimSpace(part.Text[:eq])
		if part.Quoted >= 0 {
			if rest := strings.TrimSpace(part.Text[part.Quoted:eq]); rest != "" {
				return "", nil, fmt.Errorf("%w: priors %q: %q follows the quoted class %q before its '=': write \"class\"=p, "+
					"the pairs separated by commas", ErrBadOption, s, rest, part.Text[:part.Quoted])
			}
			class = part.Text[:part.Quoted]
		}
		if _, dup := given[class]; dup {
			return "", nil, fmt.Errorf("%w: priors %q: class %q is given twice", ErrBadOption, s, class)
		}
		given[class] = p
		sum += p
	}
	if math.Abs(sum-1) > 1e-6 {
		return "", nil, fmt.Errorf("%w: priors %q sum to %g: they must sum to 1", ErrBadOption, s, sum)
	}
	return PriorsGiven, given, nil
}

// quotedPart is one element of a list read by splitQuoted: its text, with a leading double-quoted string
// unquoted; quoted is the length of that string in text (−1 when the element does not start with one).
type QuotedPart struct {
	Text   string
	Quoted int
}

// splitQuoted splits a comma-separated list whose elements may start with a double-quoted string (a doubled
// quote inside stands for one), which may hold commas: `"a,b"=0.5, c=0.5`. Spaces around elements are
// trimmed; empty elements are dropped.
func SplitQuoted(s string) ([]QuotedPart, error) {
	var out []QuotedPart
	for rest := s; ; {
		rest = strings.TrimLeft(rest, " \t")
		part := QuotedPart{Quoted: -1}
		if strings.HasPrefix(rest, `"`) {
			var b strings.Builder
			i := 1
			for {
				j := strings.IndexByte(rest[i:], '"')
				if j < 0 {
					return nil, fmt.Errorf("a double quote is not closed")
				}
				b.WriteString(rest[i : i+j])
				i += j + 1
				if !strings.HasPrefix(rest[i:], `"`) {
					break
				}
				b.WriteByte('"')
				i++
			}
			part.Quoted = b.Len()
			part.Text = b.String()
			rest = rest[i:]
		}
		comma := strings.IndexByte(rest, ',')
		if comma < 0 {
			comma = len(rest)
		}
		part.Text += strings.TrimRight(rest[:comma], " \t")
		if part.Text != "" || part.Quoted >= 0 {
			out = append(out, part)
		}
		if comma == len(rest) {
			return out, nil
		}
		rest = rest[comma+1:]
	}
}

// Feature is one input column of a model.
type Feature struct {
	Name string `json:"name"`
	Kind Kind   `json:"kind"`
	// Type is the DuckDB type of the training column (it decides how scoring reads categories).
	Type string `json:"type"`
	// Text holds the tokenizer settings of text features.
	Text TextOptions `json:"text,omitzero"`
	// Binarize is the threshold of Bernoulli and text_bernoulli features: present when the value (the
	// term's count in the document) is > Binarize (default 0, as scikit-learn's BernoulliNB).
	Binarize float64 `json:"binarize,omitempty"`
}

// Class is one label value with its training count and weight.
type Class struct {
	Label  string  `json:"label"`
	Count  int64   `json:"count"`
	Weight float64 `json:"weight"`
	// Prior is the given prior (Params.Priors == PriorsGiven), else 0.
	Prior float64 `json:"prior,omitempty"`
}

// Model is a trained model: raw sufficient statistics plus hyperparameters. It is plain data: Stats holds
// each family's statistics rows by table (nb.<table> in the store, a key of the same name in JSON).
type Model struct {
	Name        string `json:"name"`
	Label       string `json:"label"`
	LabelType   string `json:"label_type"`
	Weight      string `json:"weight,omitempty"`
	Source      string `json:"source"`
	Params      Params `json:"params"`
	Rows        int64  `json:"n_rows"`
	SkippedRows int64  `json:"skipped_rows"`
	// IncompleteRows are the labelled training rows left out because a feature value was missing (NULL or
	// NaN), by models that need complete rows (lda, qda, logistic).
	IncompleteRows int64 `json:"incomplete_rows,omitempty"`
	// Iterations and GradNorm summarise an iterative fit (logistic): the Newton steps taken and the final
	// largest absolute gradient component (see Params.Tol).
	Iterations int64   `json:"iterations,omitempty"`
	GradNorm   float64 `json:"grad_norm,omitempty"`
	// UnlabelledRows are the rows with a NULL label that took part in semi-supervised training (EM, see
	// TrainSpec.SemiSupervised); then Iterations counts the EM steps and LogLikelihood is the final model's
	// log-likelihood of the training rows. Class weights then add the unlabelled rows' posteriors to the
	// labelled weight (Class.Count stays the labelled rows), and a statistics row counts each unlabelled row
	// in every class.
	UnlabelledRows int64     `json:"unlabelled_rows,omitempty"`
	LogLikelihood  float64   `json:"log_likelihood,omitempty"`
	Created        time.Time `json:"created"`
	Version        int       `json:"format_version"`
	Generation     string    `json:"generation"`
	Features       []Feature `json:"features"`
	Classes        []Class   `json:"classes"`
	Stats          Stats     `json:"-"`
	// By are the group columns of a per-group model (train --by), empty otherwise. The model's own classes
	// and statistics are then the pooled model (the exact merge of every group: the model of all rows), and
	// Groups hold one model per group (see groups.go).
	By     []GroupColumn `json:"by,omitempty"`
	Groups []Group       `json:"groups,omitempty"`
}

// modelFields is Model without its methods (for the JSON codec).
type modelFields Model

// MarshalJSON writes the model's fields, then each statistics table as a key of its own (as format 1 did).
func (m *Model) MarshalJSON() ([]byte, error) {
	head, err := json.Marshal((*modelFields)(m))
	if err != nil {
		return nil, err
	}
	return appendStatsJSON(head, m.Stats)
}

// appendStatsJSON adds each statistics table of stats, sorted by name, as a key of its own to the JSON
// object head (empty tables are left out).
func appendStatsJSON(head []byte, stats Stats) ([]byte, error) {
	var b bytes.Buffer
	b.Write(head[:len(head)-1])
	for _, name := range SortedKeys(stats) {
		rows := stats[name]
		if v := reflect.ValueOf(rows); v.Kind() == reflect.Slice && v.Len() == 0 {
			continue
		}
		body, err := json.Marshal(rows)
		if err != nil {
			return nil, err
		}
		if b.Len() > 1 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, "%q:", name)
		b.Write(body)
	}
	b.WriteByte('}')
	return b.Bytes(), nil
}

// ValidateName checks a model name: non-empty, at most 256 bytes, no NUL and no leading or trailing space.
func ValidateName(name string) error {
	switch {
	case name == "":
		return fmt.Errorf("%w: empty model name: give the model a name", ErrBadOption)
	case len(name) > 256:
		return fmt.Errorf("%w: model name longer than 256 bytes: give a shorter name", ErrBadOption)
	case strings.IndexByte(name, 0) >= 0:
		return fmt.Errorf("%w: model name %q contains a NUL byte: give a name without one", ErrBadOption, name)
	case strings.TrimSpace(name) != name:
		return fmt.Errorf("%w: model name %q has leading or trailing spaces: remove them", ErrBadOption, name)
	}
	return nil
}

// ClassIndex returns the position of each class label.
func (m *Model) ClassIndex() map[string]int {
	idx := make(map[string]int, len(m.Classes))
	for i, c := range m.Classes {
		idx[c.Label] = i
	}
	return idx
}

// FeatureIndex returns the position of each feature name.
func (m *Model) FeatureIndex() map[string]int {
	idx := make(map[string]int, len(m.Features))
	for i, f := range m.Features {
		idx[f.Name] = i
	}
	return idx
}

// Kinds returns the distinct feature kinds of m, sorted.
func (m *Model) Kinds() []string {
	set := map[string]bool{}
	for _, f := range m.Features {
		set[string(f.Kind)] = true
	}
	out := make([]string, 0, len(set))
	for k := range set {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// hasKind reports whether a feature of m is of kind k.
func (m *Model) hasKind(k Kind) bool {
	return slices.ContainsFunc(m.Features, func(f Feature) bool { return f.Kind == k })
}

func NewGeneration() string {
	var b [12]byte
	_, _ = rand.Read(b[:])
	return hex.EncodeToString(b[:])
}
