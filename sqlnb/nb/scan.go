package nb

import (
	"context"
	"database/sql"
	"fmt"
	"math"
	"slices"
	"time"

	"github.com/sqlnb/sqlnb/queries"
)

// TermsSpec names a long term table: one row per (document, term) with a count, joined on Doc to the
// labelled source. The model gains the text feature Feature (default "terms"); score it with a MAP of term
// counts per document, e.g. map_from_entries(list((term, count))) grouped by the document id.
type TermsSpec struct {
	Source  string
	Doc     string
	Term    string
	Count   string
	Feature string
}

// plan is a resolved training request.
type Plan struct {
	Src        Source
	AllColumns []Column
	Terms      *TermsPlan
	Label      Column
	Weight     string
	Features   []Feature
	// params are the model's hyperparameters (families that fit iteratively use them at training), trace
	// where such a fit records its passes (nil: nowhere).
	Params Params
	Trace  *FitTrace
	// by are the group columns of a per-group model.
	By []Column
}

// zeroWeightClass is the error for a class whose rows all have weight 0 in weight column weight.
func ZeroWeightClass(label, weight string) error {
	return fmt.Errorf("%w: class %q has total weight 0 in weight column %q: it could never be predicted; give its rows positive weights or filter them out",
		ErrBadValue, label, weight)
}

// zeroWeightClassOf returns the label of the first class with rows but total weight 0 ("" if none).
func ZeroWeightClassOf(classes []Class) string {
	for _, c := range classes {
		if c.Count > 0 && c.Weight == 0 {
			return c.Label
		}
	}
	return ""
}

// termsPlan is a resolved long term table.
type TermsPlan struct {
	Src                       Source
	Doc, Term, Count, Feature string
}

// scan is one training run over a plan's source: each family's statistics scan adds, per fold (fold 0
// without cross-validation), its statistics rows and — the first family whose scan yields them — the
// classes.
type Scan struct {
	Conn  Querier
	Plan  *Plan
	Fold  string // SQL expression over the source row t giving the fold, or ""
	Parts map[int64]*Partial
	Order []string // every class in the label's own order
	// done: an earlier family recorded the classes.
	Done bool
}

// partial holds the statistics of one fold (or of the whole source: fold 0).
type Partial struct {
	Classes map[string]Class
	Skipped int64
	Stats   Stats
	// incomplete counts the labelled rows left out for a missing feature value (families that need
	// complete rows); iterations and gradNorm summarise an iterative fit.
	Incomplete int64
	Iterations int64
	GradNorm   float64
	// incompleteIn are the classes with rows left out for a missing value: one of them without a complete
	// row is not in classes (trainPlanned warns).
	IncompleteIn map[string]bool
}

// noteIncomplete counts n labelled rows of class left out for a missing feature value.
func (p *Partial) NoteIncomplete(class sql.NullString, n int64) {
	p.Incomplete += n
	if class.Valid {
		if p.IncompleteIn == nil {
			p.IncompleteIn = map[string]bool{}
		}
		p.IncompleteIn[class.String] = true
	}
}

// classList returns the classes of the partial in the global order.
func (p *Partial) ClassList(order []string) []Class {
	var out []Class
	for _, l := range order {
		if c, ok := p.Classes[l]; ok {
			out = append(out, c)
		}
	}
	return out
}

func (sc *Scan) Part(f int64) *Partial {
	if sc.Parts[f] == nil {
		sc.Parts[f] = &Partial{Classes: map[string]Class{}, Stats: Stats{}}
	}
	return sc.Parts[f]
}

// param is the placeholder of the k-th (1-based) extra argument of a query, numbered after the source's.
func (sc *Scan) Param(k int) string { return fmt.Sprintf("$%d", len(sc.Plan.Src.Args)+k) }

// Train is the part of a training template's data that names the scan's source: the plan's source, label
// and weight and the scan's fold.
func (sc *Scan) Train() queries.Train {
	return queries.Train{From: sc.Plan.Src.From, Label: sc.Plan.Label.Name, Weight: sc.Plan.Weight, Fold: sc.Fold}
}

// TemplateFeatures returns feats as the training templates' features (train_poisson, train_sums).
func TemplateFeatures(feats []Feature) []queries.Feature {
	out := make([]queries.Feature, len(feats))
	for i, f := range feats {
		out[i].Name = f.Name
	}
	return out
}

// Query renders the training template tmpl with data and runs it with the source's arguments then args.
// data is the template's typed data (queries.Moments, ...), whose Train part is sc.Train(); nil renders
// sc.Train() alone (train_classes).
func (sc *Scan) Query(ctx context.Context, tmpl string, data any, args ...any) (Rows, error) {
	if data == nil {
		data = sc.Train()
	}
	stmt, err := queries.Render(tmpl, data)
	if err != nil {
		return nil, err
	}
	return QueryRows(ctx, sc.Conn, stmt, append(append([]any{}, sc.Plan.Src.Args...), args...)...)
}

// classRows reads a per-class scan: each row is (fold,) class, then the class head — n and, with a weight
// column, n_weight, min_weight and the weight sum — then width values for the family, handed to fn (not
// for the NULL-label group). The classes are recorded unless an earlier family did.
func (sc *Scan) ClassRows(rows Rows, width int, fn func(fold int64, class string, vals []sql.NullFloat64) error) error {
	head := 1
	if sc.Plan.Weight != "" {
		head = 4
	}
	vals := make([]sql.NullFloat64, head+width)
	var class sql.NullString
	var fold int64
	var ptrs []any
	if sc.Fold != "" {
		ptrs = append(ptrs, &fold)
	}
	ptrs = append(ptrs, &class)
	for i := range vals {
		ptrs = append(ptrs, &vals[i])
	}
	for rows.Next() {
		if err := rows.Scan(ptrs...); err != nil {
			return err
		}
		ok, err := sc.AddClass(fold, class, vals[:head])
		if err != nil {
			return err
		}
		if ok {
			if err := fn(fold, class.String, vals[head:]); err != nil {
				return err
			}
		}
	}
	return rows.Err()
}

// addClass reads a class head (n and, weighted, n_weight, min_weight, weight; the weights are checked) and
// records the class — or, for the NULL-label group, the skipped rows — unless an earlier family did. ok is
// false for the NULL-label group.
func (sc *Scan) AddClass(fold int64, class sql.NullString, head []sql.NullFloat64) (ok bool, err error) {
	n := int64(head[0].Float64)
	part := sc.Part(fold)
	if !class.Valid {
		if !sc.Done {
			part.Skipped = n
		}
		return false, nil
	}
	cl := Class{Label: class.String, Count: n, Weight: float64(n)}
	if sc.Plan.Weight != "" {
		if err := CheckWeights(sc.Plan.Weight, n, int64(head[1].Float64), head[2]); err != nil {
			return true, err
		}
		if w := head[3].Float64; math.IsNaN(w) || math.IsInf(w, 0) {
			// min() does not see them: NaN sorts last in DuckDB, and +Inf is no minimum
			return true, fmt.Errorf("%w: weight column %q holds NaN or infinity in the rows of class %q (their sum is %v): weights must be finite and ≥ 0",
				ErrBadValue, sc.Plan.Weight, cl.Label, w)
		}
		cl.Weight = head[3].Float64
	}
	if !sc.Done {
		part.Classes[cl.Label] = cl
		sc.Order = AppendNew(sc.Order, cl.Label)
	}
	return true, nil
}

func CheckWeights(col string, n, nonNull int64, minW sql.NullFloat64) error {
	if nonNull < n {
		return fmt.Errorf("%w: weight column %q is NULL in %d rows: give every row a weight (or filter them out)", ErrBadValue, col, n-nonNull)
	}
	if minW.Valid && (minW.Float64 < 0 || math.IsNaN(minW.Float64) || math.IsInf(minW.Float64, 0)) {
		return fmt.Errorf("%w: weight column %q holds %v: weights must be finite and ≥ 0", ErrBadValue, col, minW.Float64)
	}
	return nil
}

// appendNew appends s to list unless it is already there (class labels arrive in label order, per fold).
func AppendNew(list []string, s string) []string {
	if slices.Contains(list, s) {
		return list
	}
	return append(list, s)
}

// queriesIdent quotes an identifier (queries.Ident) for expressions families build in Go.
func QueriesIdent(name string) string { return queries.Ident(name) }

// FitTrace records where an iterative fit (logistic regression) spends its time: the first pass over the
// source (classes, levels, standardisation) and every Newton pass (gradient, Hessian and log-loss at one
// point; a step that is halved takes several).
type FitTrace struct {
	Describe time.Duration
	Passes   []time.Duration
	// Sample is the number of rows whose Hessian the steps use when they are fewer than the source's
	// (a sub-sampled fit; 0: every row); Sampling is the time spent reading them and solving on them alone.
	Sample   int
	Sampling time.Duration
	// HessianPasses counts the passes that also aggregated the exact Hessian over the source (a sampled
	// fit whose steps stalled).
	HessianPasses int
}
