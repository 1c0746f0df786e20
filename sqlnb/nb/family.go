package nb

import (
	"context"
	"math/big"
	"sort"
	"strconv"
	"strings"
)

// A Family is one way of modelling features given the class: its kinds (the names users give with --kind),
// the statistics it keeps (plain rows in Tables, validated and merged exactly), the SQL scan that computes
// them inside DuckDB, and the scoring Components it compiles them into. Each family lives in one file
// (gaussian.go, categorical.go, counts.go, textfamily.go, poisson.go); families lists them. Nothing outside a
// family's file switches on its kinds: the trainer, store, scorer, explainer, exporter and the udf layer go
// through this interface and through what each Component declares it reads (Input).
type Family interface {
	// Kinds are the kinds the family implements.
	Kinds() []KindInfo
	// Tables are the statistics tables the family's features keep.
	Tables() []StatsTable
	// Check rejects a combination of features the family cannot model: feats are the family's features,
	// all every feature of the model, weighted whether the model has a sample-weight column.
	Check(feats, all []Feature, weighted bool) error
	// Train runs the family's statistics scan(s) over the source, per fold when sc.fold is set, adding the
	// statistics (and, if its scan yields them, the classes) to sc.
	Train(ctx context.Context, sc *Scan, feats []Feature) error
	// Validate checks that m holds complete statistics for feats (one per class where the family needs one).
	Validate(m *Model, feats []Feature) error
	// Compile lays feats out for scoring with the model's hyperparameters.
	Compile(cc *Compiler, feats []Feature) ([]Component, error)
}

// A Refitter is a Family whose parameters are fitted to the rows (iteratively), not summed from them:
// its statistics do not merge, so Merge refuses its models and cross-validation fits each fold's model on
// the other folds' rows (FoldModels). Its Train runs only without a fold expression.
type Refitter interface {
	Family
	Refits()
}

// A summarizer is a Family with hyperparameters of its own: summary describes those of model m in a few
// words for `sqlnb models show` (Model.ParamsSummary).
type Summarizer interface {
	Family
	Summary(m *Model) string
}

// KindInfo describes one kind.
type KindInfo struct {
	Kind Kind
	// Doc is one line for help texts and the README.
	Doc string
	// Default reports whether a column of type class t is this kind when no kind is asked for.
	Default func(t TypeClass) bool
	// Accepts returns nil if column c can be of this kind, else an error saying what to do.
	Accepts func(c Column) error
	// Binarize: the kind takes the --binarize threshold (Feature.Binarize).
	Binarize bool
	// Text: the kind takes the tokenizer settings (Feature.Text).
	Text bool
	// Priorless: the kind's scores are weights that replace the class priors (complement): a model with one
	// has only such features.
	Priorless bool
	// Alone, when set, says what couples the features of the kind ("covariance", "fit"): the kind models the
	// feature vector as a whole, and a model with one has only features of this kind.
	Alone string
	// CompleteRows: the kind trains and scores complete rows only (Input.Required): a row that misses a
	// value of such a feature (NULL; NaN or ±Inf for a number) is left out of training and scores NULL.
	CompleteRows bool
	// TypedValues: the feature's statistics are kept by value, as the column's values read as text, so the
	// parts of a merge or an update must read them alike: the same column type (integers of different
	// widths aside).
	TypedValues bool
}

// A Component is a compiled block of a model's features: it adds its term to every class score. A naive
// Bayes family's term is its features' log-likelihood Σ_j log p(x_j | c) (seed 004: b_c = log p(c) +
// Σ_j log p(x_j | c)). A component covers one column or a vector of them.
type Component interface {
	// Inputs are the features the component reads, and how the udf layer must decode them.
	Inputs() []*Input
	// Base is the part of class c's term that does not depend on the row (folded into the kernel's start).
	Base(c int) float64
	// Add is the vector kernel: it adds the row-dependent part of the term for every row of b and class to
	// out (class-major: out[c*b.N + i]). Rows with a NULL number input may get any value: the scorer
	// rescores them, and rows whose score is not finite, with Row.
	Add(b *Batch, out []float64)
	// Row is the row reference: the whole term (Base included) for row i and class c, exact for every
	// input (missing values add nothing) and in extended range (it never overflows).
	Row(b *Batch, i, c int) XFloat
	// Explain appends, for row i, each feature's share of Row(a) - Row(c) (contributions sum to it).
	Explain(b *Batch, i, a, c int, out []Contribution) []Contribution
	// Parameters lists the compiled parameters for nb_show and `sqlnb models show`.
	Parameters(labels []string) []Parameter
	// Informative lists, for class c, candidate feature values with their log-likelihood ratio against the
	// likeliest other class.
	Informative(labels []string, c int) []Informative
	// SQL writes class c's term as an SQL expression of the exporter's dialect, or returns an error wrapping
	// ErrNotExportable.
	SQL(x *Exporter, c int) (string, error)
}

// A ModelChecker is a Family with checks of its own on a whole model: after training, and when its
// hyperparameters change (the text family refuses a feature left without a term). The parts of a model —
// cross-validation folds, learning-curve sizes, --by groups, the rows an update adds or forgets — are not
// held to them. terms is the term table the model was trained from, if any.
type ModelChecker interface {
	CheckModel(m *Model, terms *TermsSpec) error
}

// A ForgetWarner is a Family whose estimates lose digits when most of a class's rows are forgotten: for the
// features of model after, which Forget made from model before, how far each estimate may be off.
type ForgetWarner interface {
	ForgetRounding(before, after *Model) []RoundingWarning
}

// RoundingWarning is one estimate that may be off after Forget: Off relative, the more so When.
type RoundingWarning struct {
	Feature, Estimate, When string
	Off                     float64
}

// An Updater is a Family that can refuse to add rows to, merge into or forget rows from a stored model (its
// statistics were stored in an older form that the update would not keep exact): Updatable says why.
type Updater interface {
	Updatable(m *Model) error
}

// A BufferOwner is a Component whose number inputs are better copied into the batch's own buffers
// (Scorer.OwnBuffer): its kernel reads blocks of rows of every input many times, and the batch lays its
// buffers out so that they do not evict each other from the cache.
type BufferOwner interface {
	OwnsBuffers() bool
}

// A Warner is a Component with something to say about the model it was compiled from (a nearly singular
// covariance, a variance floored): training reports each warning.
type Warner interface {
	Warnings() []string
}

// priorless is implemented by components whose scores replace the class priors (complement weights).
type Priorless interface{ IgnoresPriors() bool }

// intercepter is implemented by priorless components with a fitted intercept per class (logistic
// regression): the intercept takes the place of the log-prior, so that it is the scorer's per-class
// constant, explain's prior term and the exported log_prior.
type Intercepter interface{ Intercept(c int) float64 }

// InputKind says how a feature is decoded for scoring.
type InputKind int

const (
	// NumberInput: one float64 per row in Batch.Num, with Batch.Valid for NULLs.
	NumberInput InputKind = iota
	// CategoryInput: one category code per row in Batch.Cat: 0..J-1 a training value (Input.Values),
	// Unseen() a value not seen in training, Missing() NULL.
	CategoryInput
	// TermsInput: the document's vocabulary terms in Batch.Sparse (text, or a MAP of term counts).
	TermsInput
)

// Input is one feature as a component reads it.
type Input struct {
	// Feature is the feature's position in Model.Features; Name and Type are its column name and
	// training type.
	Feature    int
	Name, Type string
	Kind       InputKind
	// keys are a number category input's lookup maps (NumberKeys), built with its values.
	keys *NumberKeys
	// Values and Index are a category input's training values, or a terms input's vocabulary.
	Values []string
	Index  map[string]int32
	// Binary category inputs (Bernoulli features) take numbers and booleans: code 1 (present) when the value
	// is > Threshold (true counts as 1), 0 otherwise, Missing for NULL and NaN. Presence terms inputs
	// (text_bernoulli) keep each term once when its count in the document is > Threshold.
	Binary, Presence bool
	Threshold        float64
	// Text are a terms input's tokenizer settings.
	Text TextOptions
	// Required: a missing value (NULL; NaN or ±Inf for a number input; NULL for a category input) makes the
	// row's result NULL instead of being skipped (models that need complete rows: lda, qda, logistic).
	Required bool
}

// The value classes of a category input (Input.ValueClass): what a scoring argument must be.
const (
	ValuesText    = "text"    // VARCHAR or ENUM
	ValuesBoolean = "boolean" // BOOLEAN
	ValuesNumber  = "number"  // integers, floats, DECIMAL, HUGEINT
)

// ValueClass says what the input's training column held: ValuesText, ValuesBoolean or ValuesNumber. A
// categorical feature is scored from arguments of the same class only (DuckDB casts none of them to another
// implicitly), so a BOOLEAN-trained feature given 0/1 or 'yes' is an error, not a silently unseen value.
func (in *Input) ValueClass() string {
	switch t := ClassifyType(in.Type); {
	case t == TypeBool:
		return ValuesBoolean
	case t.Numeric():
		return ValuesNumber
	}
	return ValuesText
}

// Unseen is the category code of a value not seen in training.
func (in *Input) Unseen() int32 { return int32(len(in.Values)) }

// Missing is the category code of a NULL value.
func (in *Input) Missing() int32 { return int32(len(in.Values)) + 1 }

// Present is the one binarize rule of Bernoulli features and text_bernoulli counts: x > threshold. Its SQL
// twin is presentSQL.
func Present(x, threshold float64) bool { return x > threshold }

// presentSQL is Present as SQL over the expressions x and threshold (training scans and the SQL export).
func PresentSQL(x, threshold string) string { return "(" + x + " > " + threshold + ")" }

// Code returns the category code of a binary input's number x.
func (in *Input) Code(x float64) int32 {
	switch {
	case x != x:
		return in.Missing()
	case Present(x, in.Threshold):
		return 1
	}
	return 0
}

// Lookup returns the category code of value v (Unseen if v was not seen in training).
func (in *Input) Lookup(v string) int32 {
	if i, ok := in.Index[v]; ok {
		return i
	}
	return in.Unseen()
}

// A number category input (Input.ValueClass() == ValuesNumber) matches a number argument to its training
// values (their text as DuckDB cast them to VARCHAR: "3", "-1.50", "1e+20") by value, as SQL's = compares
// numbers of two types (the SQL functions, Scorer.ScoreRow and the exported SQL alike):
//   - an input trained on FLOAT or DOUBLE (FloatTrained) takes every number argument as that float type's value
//     (Keys.F32 for FLOAT, Keys.F64 for DOUBLE: a FLOAT argument widens), converted as DuckDB casts it;
//   - an input trained on integers or DECIMALs takes an integer or DECIMAL argument exactly (Keys.Exact, by
//     value × 10^scale), a DOUBLE argument as a DOUBLE (Keys.F64) and a FLOAT one as a float32 (Keys.F32).
// Where two training values have the same key the first keeps it.

// NumberKeys are the lookup maps of a number category input, built once with its values.
type NumberKeys struct {
	// Exact: integer values (scale 0) within int64; Big: integer values beyond, by their decimal text.
	Exact map[int64]int32
	Big   map[string]int32
	// F64 and F32: the values as the DOUBLE and the float32 they read as (F32's keys widened to float64).
	F64, F32 map[float64]int32
}

// NumberKeys returns the input's lookup maps (nil unless it is a number category input).
func (in *Input) NumberKeys() *NumberKeys {
	if in.keys == nil { // an Input not made by setValues
		return in.numberKeys()
	}
	return in.keys
}

// numberKeys builds the lookup maps of a number category input (nil for other inputs).
func (in *Input) numberKeys() *NumberKeys {
	if in.Kind != CategoryInput || in.ValueClass() != ValuesNumber {
		return nil
	}
	k := &NumberKeys{F64: in.floatKeys(64), F32: in.floatKeys(32)}
	k.Exact, k.Big = in.ScaledKeys(0)
	return k
}

// FloatTrained reports whether a number category input was trained on FLOAT or DOUBLE.
func (in *Input) FloatTrained() bool { return ClassifyType(in.Type) == TypeFloat }

// Float32 reports whether the input's training column was FLOAT (REAL): its values are float32.
func (in *Input) Float32() bool {
	u := strings.ToUpper(in.Type)
	return u == "FLOAT" || u == "REAL" || u == "FLOAT4"
}

// ScaledKeys maps the training values to codes by value × 10^scale where that is an integer: within int64
// (exact), else by its decimal text (big). These are the keys of an integer (scale 0) or DECIMAL(w, scale)
// argument of an input trained on integers or DECIMALs.
func (in *Input) ScaledKeys(scale int) (exact map[int64]int32, beyond map[string]int32) {
	exact = make(map[int64]int32, len(in.Values))
	pow := new(big.Rat).SetInt(new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(scale)), nil))
	var x big.Rat
	for i, v := range in.Values {
		if k, err := strconv.ParseInt(v, 10, 64); err == nil && scale == 0 { // the common case, without big.Rat
			if _, dup := exact[k]; !dup {
				exact[k] = int32(i)
			}
			continue
		}
		if _, ok := x.SetString(v); !ok {
			continue // inf, nan
		}
		x.Mul(&x, pow)
		if !x.IsInt() {
			continue
		}
		if x.Num().IsInt64() {
			k := x.Num().Int64()
			if _, dup := exact[k]; !dup {
				exact[k] = int32(i)
			}
			continue
		}
		if beyond == nil {
			beyond = map[string]int32{}
		}
		k := x.Num().String()
		if _, dup := beyond[k]; !dup {
			beyond[k] = int32(i)
		}
	}
	return exact, beyond
}

// floatKeys maps the training values to codes by the float they read as (bits 32: the float32, widened).
func (in *Input) floatKeys(bits int) map[float64]int32 {
	out := make(map[float64]int32, len(in.Values))
	for i, v := range in.Values {
		if x, err := strconv.ParseFloat(v, bits); err == nil {
			if _, dup := out[x]; !dup {
				out[x] = int32(i)
			}
		}
	}
	return out
}

// FloatCode returns the code of number x given as a float argument (f32: a FLOAT one) or, for a float-trained
// input, as any number argument: compared as a float32 for a FLOAT-trained input or a FLOAT argument of an
// integer- or DECIMAL-trained one, else as a DOUBLE.
func (k *NumberKeys) FloatCode(in *Input, x float64, f32 bool) int32 {
	m := k.F64
	if in.Float32() || (f32 && !in.FloatTrained()) { // a FLOAT argument widens to a DOUBLE-trained input's type
		x, m = float64(float32(x)), k.F32
	}
	if c, ok := m[x]; ok {
		return c
	}
	return in.Unseen()
}

// setValues sets a category or terms input's values (sorted by the caller) and their index.
func (in *Input) SetValues(values []string) {
	in.Values = values
	in.Index = make(map[string]int32, len(values))
	for i, v := range values {
		in.Index[v] = int32(i)
	}
	in.keys = in.numberKeys()
}

// sortedKeys returns the keys of set, sorted.
func SortedKeys[V any](set map[string]V) []string {
	out := make([]string, 0, len(set))
	for k := range set {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// A LinearComponent is a Component by components whose term can be linear in their inputs for two classes:
// Linear returns w0 and the terms with Row(1) - Row(0) = w0 + Σ_j w_j x_j on every row without a missing
// value, or an error saying why this component's term is not linear (a variance per class, e1071's rule).
type LinearComponent interface {
	Linear() (w0 float64, terms []LinearTerm, err error)
}

// A QuadraticComponent is a Component whose row-dependent term for class c is -Σ_k (x_k - a_ck)² b_ck over
// number inputs cols, with params (a_ck, b_ck) per class then input (Gaussian features). Per-group models made
// of one such component are scored row by row (rowwiseJLL).
type QuadraticComponent interface {
	Quadratic() (cols []int, params []float64, ok bool)
}
