package nb

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"math"
	"slices"
	"strconv"
	"strings"
)

// ParamType is the type of a hyperparameter's value.
type ParamType int

const (
	// ParamFloat is a float64 (DuckDB DOUBLE).
	ParamFloat ParamType = iota
	// ParamInt is an int64 (DuckDB BIGINT).
	ParamInt
	// ParamBool is a bool (DuckDB BOOLEAN).
	ParamBool
	// ParamEnum is one of the spec's Values, in lower case (DuckDB VARCHAR).
	ParamEnum
	// ParamText is free text the spec's Check reads (DuckDB VARCHAR), e.g. a number or a rule's name.
	ParamText
)

// String names the type as DuckDB does.
func (t ParamType) String() string {
	switch t {
	case ParamFloat:
		return "DOUBLE"
	case ParamInt:
		return "BIGINT"
	case ParamBool:
		return "BOOLEAN"
	}
	return "VARCHAR"
}

// A ParamSpec declares one hyperparameter, once: the family that uses it lists it (ParamDeclarer), and
// the CLI flags, the SQL named arguments of nb_train, nb_cv and nb_set, nb_show and models show, the store
// (nb.models.params) and model JSON all derive from the declarations. Adding a hyperparameter is adding a
// spec to its family's list and reading it with Params.Float (Int, Bool, String) where it applies.
type ParamSpec struct {
	// Name is the name everywhere but the CLI: lower_snake ("var_smoothing"); the flag is --var-smoothing.
	Name string
	Type ParamType
	// Default is the value of a model that does not set it: a float64, int64, bool or string by Type.
	Default any
	// Values are a ParamEnum's allowed values (lower case).
	Values []string
	// Check validates a value of the right type beyond that (ranges, syntax); nil: any value. Its error
	// says what is allowed ("must be a finite number ≥ 0"); the caller adds the name.
	Check func(v any) error
	// Help is one line for --help and the docs.
	Help string
	// Kinds are the kinds the parameter has an effect on (nil: every kind of the declaring family).
	Kinds []Kind
	// FlagName overrides the CLI flag's name (logistic regression's --C, as scikit-learn spells it).
	FlagName string
	// Fitted marks a parameter that shapes the fit (logistic regression's C): changing it means training
	// again, so nb_set refuses it. Others are applied when the model is bound for scoring.
	Fitted bool
}

// Flag is the parameter's CLI flag name: FlagName, else Name with dashes.
func (s ParamSpec) Flag() string {
	if s.FlagName != "" {
		return s.FlagName
	}
	return strings.ReplaceAll(s.Name, "_", "-")
}

// Label is how messages name the parameter: FlagName (C) when set, else Name.
func (s ParamSpec) Label() string {
	if s.FlagName != "" {
		return s.FlagName
	}
	return s.Name
}

// ParamDeclarer is a Family with hyperparameters: Params lists them, in the order help and nb_show show
// them. Families sharing a parameter (alpha) list the same spec (AlphaParam).
type ParamDeclarer interface {
	Params() []ParamSpec
}

// ParamChecker is a Family whose parameters constrain each other (eps needs threshold; shrinkage needs
// solver lsqr): CheckParams validates p after every value passed its own spec's Check.
type ParamChecker interface {
	CheckParams(p Params) error
}

// ParamAdjuster is a Family that derives some of its parameters from others the user gave (given: the
// names set explicitly): LDA's --shrinkage implies solver lsqr.
type ParamAdjuster interface {
	AdjustParams(p Params, given map[string]bool) Params
}

// ParamSet is the declared hyperparameters of a registry (Families.ParamSet), by name, in declaration order.
type ParamSet struct {
	specs []ParamSpec
	index map[string]int
}

// NewParamSet collects specs; a name declared twice must be the same parameter (type and default), and its
// kinds are the union.
func NewParamSet(specs []ParamSpec) (*ParamSet, error) {
	ps := &ParamSet{index: map[string]int{}}
	for _, s := range specs {
		i, ok := ps.index[s.Name]
		if !ok {
			ps.index[s.Name] = len(ps.specs)
			s.Kinds = slices.Clone(s.Kinds)
			ps.specs = append(ps.specs, s)
			continue
		}
		have := &ps.specs[i]
		if have.Type != s.Type || have.Default != s.Default {
			return nil, fmt.Errorf("hyperparameter %q declared twice with different types or defaults", s.Name)
		}
		if have.Kinds == nil || s.Kinds == nil {
			have.Kinds = nil
		} else {
			for _, k := range s.Kinds {
				if !slices.Contains(have.Kinds, k) {
					have.Kinds = append(have.Kinds, k)
				}
			}
		}
	}
	return ps, nil
}

// Specs lists the parameters in declaration order.
func (ps *ParamSet) Specs() []ParamSpec { return ps.specs }

// Spec returns the parameter called name.
func (ps *ParamSet) Spec(name string) (ParamSpec, bool) {
	i, ok := ps.index[name]
	if !ok {
		return ParamSpec{}, false
	}
	return ps.specs[i], true
}

// Defaults returns every parameter's default.
func (ps *ParamSet) Defaults() Params {
	v := make(map[string]any, len(ps.specs))
	for _, s := range ps.specs {
		v[s.Name] = s.Default
	}
	return Params{v: v}
}

// Complete returns p with the declared parameters it lacks set to their defaults and its values converted
// to their declared types (JSON numbers are float64); a name no family declares is an error, as is a value
// of the wrong type.
func (ps *ParamSet) Complete(p Params) (Params, error) {
	out := ps.Defaults()
	for _, name := range p.Names() {
		s, ok := ps.Spec(name)
		if !ok {
			return p, fmt.Errorf("%w: unknown hyperparameter %q (known: %s)", ErrBadOption, name, strings.Join(ps.names(), ", "))
		}
		v, err := convertParam(s, p.v[name])
		if err != nil {
			return p, err
		}
		out.v[name] = v
	}
	return out, nil
}

// Validate checks every value against its spec (type, Values, Check).
func (ps *ParamSet) Validate(p Params) error {
	for _, s := range ps.specs {
		v, ok := p.v[s.Name]
		if !ok {
			return fmt.Errorf("%w: hyperparameter %s is not set (build Params from sqlnb.DefaultParams())", ErrBadOption, s.Name)
		}
		if err := checkParam(s, v); err != nil {
			return err
		}
	}
	for _, name := range p.Names() {
		if _, ok := ps.index[name]; !ok {
			return fmt.Errorf("%w: unknown hyperparameter %q (known: %s)", ErrBadOption, name, strings.Join(ps.names(), ", "))
		}
	}
	return nil
}

// Parse reads the text of a value as typed on the command line for the parameter name.
func (ps *ParamSet) Parse(name, text string) (any, error) {
	s, ok := ps.Spec(name)
	if !ok {
		return nil, fmt.Errorf("%w: unknown hyperparameter %q (known: %s)", ErrBadOption, name, strings.Join(ps.names(), ", "))
	}
	text = strings.TrimSpace(text)
	var v any
	var err error
	switch s.Type {
	case ParamFloat:
		v, err = strconv.ParseFloat(text, 64)
	case ParamInt:
		v, err = strconv.ParseInt(text, 10, 64)
	case ParamBool:
		v, err = strconv.ParseBool(text)
	case ParamEnum:
		v = strings.ToLower(text)
	default:
		v = text
	}
	if err != nil {
		return nil, fmt.Errorf("%w: %s %q: must be a %s", ErrBadOption, s.Label(), text, strings.ToLower(s.Type.String()))
	}
	if err := checkParam(s, v); err != nil {
		return nil, err
	}
	return v, nil
}

// Value checks a value given for the parameter name: a value of its type (float64, int64, bool, string;
// an int is taken for an int64 or float64), or, for a number or bool, its text (Parse).
func (ps *ParamSet) Value(name string, v any) (any, error) {
	s, ok := ps.Spec(name)
	if !ok {
		return nil, fmt.Errorf("%w: unknown hyperparameter %q (known: %s)", ErrBadOption, name, strings.Join(ps.names(), ", "))
	}
	if text, ok := v.(string); ok && s.Type != ParamEnum && s.Type != ParamText {
		return ps.Parse(name, text)
	}
	val, err := convertParam(s, v)
	if err != nil {
		return nil, err
	}
	if err := checkParam(s, val); err != nil {
		return nil, err
	}
	return val, nil
}

func (ps *ParamSet) names() []string {
	out := make([]string, len(ps.specs))
	for i, s := range ps.specs {
		out[i] = s.Name
	}
	return out
}

// convertParam converts v (from JSON, SQL or Go) to the spec's type.
func convertParam(s ParamSpec, v any) (any, error) {
	bad := func() (any, error) {
		return nil, fmt.Errorf("%w: %s %v: must be a %s", ErrBadOption, s.Label(), v, strings.ToLower(s.Type.String()))
	}
	switch s.Type {
	case ParamFloat:
		switch x := v.(type) {
		case float64:
			return x, nil
		case int64:
			return float64(x), nil
		case int:
			return float64(x), nil
		case json.Number:
			f, err := x.Float64()
			if err != nil {
				return bad()
			}
			return f, nil
		}
	case ParamInt:
		switch x := v.(type) {
		case int64:
			return x, nil
		case int:
			return int64(x), nil
		case float64:
			if x == math.Trunc(x) && math.Abs(x) < 1<<53 {
				return int64(x), nil
			}
		case json.Number:
			i, err := x.Int64()
			if err != nil {
				return bad()
			}
			return i, nil
		}
	case ParamBool:
		if b, ok := v.(bool); ok {
			return b, nil
		}
	default:
		if t, ok := v.(string); ok {
			if s.Type == ParamEnum {
				t = strings.ToLower(strings.TrimSpace(t))
			}
			return t, nil
		}
	}
	return bad()
}

// checkParam checks a value of the spec's type against its Values and Check.
func checkParam(s ParamSpec, v any) error {
	v, err := convertParam(s, v)
	if err != nil {
		return err
	}
	if s.Type == ParamEnum && !slices.Contains(s.Values, v.(string)) {
		return fmt.Errorf("%w: %s %q: use %s", ErrBadOption, s.Label(), v, orList(s.Values))
	}
	if s.Check != nil {
		if err := s.Check(v); err != nil {
			return fmt.Errorf("%w: %s %v: %v", ErrBadOption, s.Label(), v, err)
		}
	}
	return nil
}

// orList writes "a, b or c".
func orList(vs []string) string {
	if len(vs) < 2 {
		return strings.Join(vs, "")
	}
	return strings.Join(vs[:len(vs)-1], ", ") + " or " + vs[len(vs)-1]
}

// Params are a model's hyperparameters by name, each declared by a family (ParamSpec). A Params is a value:
// With returns a changed copy. Build one from sqlnb.DefaultParams().
type Params struct {
	v map[string]any
}

// Float returns the float64 parameter name (0 if unset).
func (p Params) Float(name string) float64 {
	switch v := p.v[name].(type) {
	case float64:
		return v
	case int64:
		return float64(v)
	case json.Number:
		f, _ := v.Float64()
		return f
	}
	return 0
}

// Int returns the int64 parameter name (0 if unset).
func (p Params) Int(name string) int64 {
	switch v := p.v[name].(type) {
	case int64:
		return v
	case float64:
		return int64(v)
	case json.Number:
		i, _ := v.Int64()
		return i
	}
	return 0
}

// Bool returns the bool parameter name (false if unset).
func (p Params) Bool(name string) bool { b, _ := p.v[name].(bool); return b }

// Text returns the text or enum parameter name ("" if unset).
func (p Params) Text(name string) string { s, _ := p.v[name].(string); return s }

// Value returns the parameter name's value and whether it is set.
func (p Params) Value(name string) (any, bool) { v, ok := p.v[name]; return v, ok }

// With returns a copy of p with name set to v (a float64, int64, bool or string by the parameter's type).
func (p Params) With(name string, v any) Params {
	out := make(map[string]any, len(p.v)+1)
	maps.Copy(out, p.v)
	if i, ok := v.(int); ok {
		v = int64(i)
	}
	out[name] = v
	return Params{v: out}
}

// Names lists the names set, sorted.
func (p Params) Names() []string { return slices.Sorted(maps.Keys(p.v)) }

// Equal reports whether p and q set the same names to the same values.
func (p Params) Equal(q Params) bool { return maps.EqualFunc(p.v, q.v, sameValue) }

// Same reports whether p and q give the parameter name the same value (both unset counts as the same).
func (p Params) Same(q Params, name string) bool {
	a, aok := p.v[name]
	b, bok := q.v[name]
	return aok == bok && (!aok || sameValue(a, b))
}

// sameValue compares two parameter values: floats bit for bit, an integral float equal to the int64.
func sameValue(a, b any) bool {
	switch x := a.(type) {
	case float64:
		y, ok := b.(float64)
		if i, isInt := b.(int64); isInt {
			y, ok = float64(i), true
		}
		return ok && math.Float64bits(x) == math.Float64bits(y)
	case int64:
		if y, ok := b.(float64); ok {
			return float64(x) == y
		}
	}
	return a == b
}

// MarshalJSON writes the parameters as one object, names sorted.
func (p Params) MarshalJSON() ([]byte, error) {
	var b bytes.Buffer
	b.WriteByte('{')
	for i, name := range p.Names() {
		if i > 0 {
			b.WriteByte(',')
		}
		k, _ := json.Marshal(name)
		v, err := json.Marshal(p.v[name])
		if err != nil {
			return nil, fmt.Errorf("hyperparameter %s: %w", name, err)
		}
		b.Write(k)
		b.WriteByte(':')
		b.Write(v)
	}
	b.WriteByte('}')
	return b.Bytes(), nil
}

// UnmarshalJSON reads an object of parameters; numbers stay json.Number until ParamSet.Complete gives
// them their declared types.
func (p *Params) UnmarshalJSON(data []byte) error {
	d := json.NewDecoder(bytes.NewReader(data))
	d.UseNumber()
	var v map[string]any
	if err := d.Decode(&v); err != nil {
		return err
	}
	p.v = v
	return nil
}

// The parameters several families share, declared once here and listed by each family that uses them.
var (
	// AlphaParam is the additive smoothing of categorical, Bernoulli, count and text features.
	AlphaParam = ParamSpec{Name: "alpha", Type: ParamFloat, Default: 1.0, Check: finiteNonNegative,
		Help: "additive smoothing α of categorical, Bernoulli, count and text features (≥ 0; below 1e-10 scored as 1e-10, as scikit-learn)"}
	// ThresholdParam turns on e1071's prediction rule (with EpsParam).
	ThresholdParam = ParamSpec{Name: "threshold", Type: ParamFloat, Default: 0.0, Check: finiteNonNegative,
		Help: "e1071's rule: a probability or density ≤ eps counts as threshold (0: off; e1071's default 0.001)"}
	// EpsParam is e1071's eps.
	EpsParam = ParamSpec{Name: "eps", Type: ParamFloat, Default: 0.0, Check: finiteNonNegative,
		Help: "e1071's eps: with threshold, probabilities and standard deviations ≤ eps are replaced"}
	// NormParam normalises complement weights (counts' complement, text's text_complement: each family
	// sets its Kinds).
	NormParam = ParamSpec{Name: "norm", Type: ParamBool, Default: false,
		Help: "complement models: normalise the weights (scikit-learn's ComplementNB norm)"}
	// PriorsParam is the rule for class priors (sqlnb declares it for every model).
	PriorsParam = ParamSpec{Name: "priors", Type: ParamEnum, Default: PriorsFit,
		Values: []string{PriorsFit, PriorsSmoothed, PriorsUniform, PriorsGiven},
		Help:   "class priors: fit, smoothed, uniform, or class=p,class=p,... (given)"}
)

// TolParam and MaxIterParam bound iterative fits: logistic regression's Newton steps and semi-supervised
// EM (whose tolerance, when not given, is sqlnb.DefaultEMTol).
var (
	TolParam = ParamSpec{Name: "tol", Type: ParamFloat, Default: 1e-10, Check: finitePositive, Fitted: true,
		Help: "iterative fits stop when the largest gradient component (logistic) or the relative log-likelihood gain (EM) is ≤ tol"}
	MaxIterParam = ParamSpec{Name: "max_iter", Type: ParamInt, Default: int64(100), Fitted: true,
		Check: func(v any) error {
			if v.(int64) < 1 {
				return fmt.Errorf("must be ≥ 1")
			}
			return nil
		},
		Help: "iteration limit of logistic regression's Newton steps and of semi-supervised EM"}
)

// finitePositive is the Check of a float that must be finite and > 0.
func finitePositive(v any) error {
	if f := v.(float64); !(f > 0) || math.IsInf(f, 1) {
		return fmt.Errorf("must be a finite number > 0")
	}
	return nil
}

// FiniteNonNegative is the Check of a float that must be finite and ≥ 0.
func FiniteNonNegative(v any) error { return finiteNonNegative(v) }

// finiteNonNegative is the Check of a float that must be finite and ≥ 0.
func finiteNonNegative(v any) error {
	if f := v.(float64); !(f >= 0) || math.IsInf(f, 1) {
		return fmt.Errorf("must be a finite number ≥ 0")
	}
	return nil
}

// CheckThreshold is the ParamChecker rule of the families with e1071's rule: eps needs threshold.
func CheckThreshold(p Params) error {
	if p.Float("eps") > 0 && p.Float("threshold") == 0 {
		return fmt.Errorf("%w: eps %v without a threshold: eps only applies with e1071's rule (set threshold, e.g. 0.001)", ErrBadOption, p.Float("eps"))
	}
	return nil
}
