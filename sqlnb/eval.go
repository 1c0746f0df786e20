package sqlnb

import (
	"cmp"
	"context"
	"database/sql"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/sqlnb/sqlnb/sqlnb/nb"

	"github.com/sqlnb/sqlnb/queries"
)

// EvalSpec says what to evaluate: a stored model on a labelled source.
type EvalSpec struct {
	Model string
	// Version, when set, is the model to evaluate as loaded (Model is not read from the store), and ScoreAs
	// the name the connection's scoring functions bind it by (package udf pins the version its caller's
	// snapshot sees under such a name); empty: its name.
	Version *nb.Model
	ScoreAs string
	Source  string
	// Label is the true-class column; empty means the model's label column.
	Label string
	// Curves also reads the ROC, precision-recall and calibration data (for plots).
	Curves bool
	// NoCurves leaves out everything that sorts the scores: ROC-AUC and average precision (per class and
	// averaged) and the curve data (Curves). What is left — accuracy, log-loss, Brier score, precision,
	// recall, F1 and the confusion matrix — takes one pass over the scored rows and no temporary table.
	NoCurves bool
	// PosLabel is the positive class of a two-class model for the binary metrics (Brier score, ROC-AUC and
	// average precision without a class, the binary plots); empty: the second class. Like scikit-learn's
	// pos_label.
	PosLabel string
	// PosLabelGiven makes an empty PosLabel name the class "" (the empty string) rather than ask for the
	// default (the CLI sets it when --pos-label is given, nb_eval when pos_label is).
	PosLabelGiven bool
}

// Metric is one value of an evaluation: of class Class when PerClass (a class may be named ""), else
// overall (Class ""). NaN when undefined (for example ROC-AUC of a class without positives).
type Metric struct {
	Group    int64
	Metric   string
	Class    string
	PerClass bool
	Value    float64
}

// Cell is one cell of a confusion matrix.
type Cell struct {
	Group             int64
	Actual, Predicted string
	N                 int64
}

// CurvePoint is one point of a class's ROC and precision-recall curves: one per distinct posterior,
// descending, at most ~1,000 per class (curveState).
type CurvePoint struct {
	Class               string
	FPR, TPR, Precision float64
}

// CalibrationBin is one bin of a class's reliability diagram (one-vs-rest): the bins are quantile bins of the
// class's posteriors, as scikit-learn's calibration_curve(strategy='quantile', n_bins=10) makes them
// (curveState); Predicted is the bin's mean posterior, Observed the share of its rows of that
// class.
type CalibrationBin struct {
	Class               string
	Bin                 int
	Predicted, Observed float64
	N                   int64
}

// Evaluation holds metrics, the confusion matrix and, if asked, curve data.
type Evaluation struct {
	Model *nb.Model
	// Positive is the positive class of a two-class evaluation (EvalSpec.PosLabel or the second class), else
	// empty.
	Positive    string
	Metrics     []Metric
	Confusion   []Cell
	Curves      []CurvePoint
	Calibration []CalibrationBin
	// Unlabelled counts the source's rows with a NULL label, which no metric counts (scikit-learn's metrics
	// refuse them; training skips them too).
	Unlabelled int64
	// Warnings say what the numbers may not show: true labels that are none of the model's classes (they
	// count as errors, and their log-loss term is -ln ε).
	Warnings []string
}

// Get returns the value of metric (for class, "" for overall) in group 0, and whether it exists.
func (e *Evaluation) Get(metric, class string) (float64, bool) {
	for _, m := range e.Metrics {
		if m.Group == 0 && m.Metric == metric && m.Class == class {
			return m.Value, true
		}
	}
	return 0, false
}

// Evaluate scores spec.Source once with nb_predict_proba (the connection must have the nb_* functions:
// udf.Open) and computes every metric inside DuckDB with the definitions of scikit-learn 1.2. The scores go
// into a compact temporary table (one DOUBLE per class); the metrics that need no order come from one
// aggregation pass over it (eval_cells.tmpl.sql, eval_metrics.sql), ROC-AUC and average precision from one
// sort per class (eval_sorted.tmpl.sql, read as it streams). Sorts and the table spill to DuckDB's temp_directory under its
// memory_limit. With spec.NoCurves there is no table and no sort: the source is scored and aggregated in one
// statement. It needs a single connection for the temporary tables.
func Evaluate(ctx context.Context, conn *sql.Conn, spec EvalSpec) (*Evaluation, error) {
	m := spec.Version
	if m == nil {
		// One snapshot for the model read here and the statements that score it (the scoring functions bind
		// the version their transaction sees), unless the caller's transaction is open on conn: then it is
		// that one's.
		if _, err := conn.ExecContext(ctx, queries.SQL("store_begin.sql")); err == nil {
			defer conn.ExecContext(context.WithoutCancel(ctx), queries.SQL("store_rollback.sql"))
		}
		var err error
		if m, err = LoadTx(ctx, conn, spec.Model); err != nil {
			return nil, err
		}
	}
	as := spec.ScoreAs
	if as == "" {
		as = m.Name
	}
	label := spec.Label
	if label == "" {
		label = m.Label
	}
	pos, err := positiveClass(m, spec.PosLabel, spec.PosLabel != "" || spec.PosLabelGiven)
	if err != nil {
		return nil, err
	}
	src, err := nb.ResolveSource(ctx, conn, spec.Source)
	if err != nil {
		return nil, fmt.Errorf("evaluate %q: %w", m.Name, err)
	}
	cols, err := nb.Describe(ctx, conn, src)
	if err != nil {
		return nil, fmt.Errorf("evaluate %q: %w", m.Name, err)
	}
	if err := checkLabelType(cols, m, label); err != nil {
		return nil, fmt.Errorf("evaluate %q: %w", m.Name, err)
	}
	// The model's columns, checked before scoring (one DESCRIBE with the label's type): a missing one is
	// ErrUnknownColumn naming it (it was DuckDB's binder error from inside nb_predict_proba).
	var need []string
	for _, g := range m.By {
		need = append(need, g.Name)
	}
	for _, f := range m.Features {
		need = append(need, f.Name)
	}
	if err := nb.RequireIn(cols, src, "feature", need...); err != nil {
		return nil, fmt.Errorf("evaluate %q: %w", m.Name, err)
	}
	e, err := evaluate(ctx, conn, scoring{src: src, label: label, proba: "nb_predict_proba(" + queries.Literal(as) + ", " + queries.Row + ")",
		classes: classLabels(m), ordered: true, pos: pos, ranking: !spec.NoCurves, curves: spec.Curves && !spec.NoCurves})
	if err != nil {
		return nil, fmt.Errorf("evaluate %q: %w", m.Name, err)
	}
	e.Model = m
	if n, _ := e.Get("n", ""); n == 0 {
		// No metric is defined on no rows: say why rather than print empty tables.
		if left, err := leftOutRows(ctx, conn, m, src, label, e); err == nil && left != "" {
			return nil, fmt.Errorf("%w: evaluate %q: no row could be scored: %s", nb.ErrNoRows, m.Name, left)
		}
		return nil, fmt.Errorf("%w: evaluate %q: source %s has no rows with a non-NULL label %q: nothing to evaluate", nb.ErrNoRows, m.Name,
			src.Quoted(), label)
	}
	e.Warnings = unknownLabels(e, m)
	left, err := leftOutRows(ctx, conn, m, src, label, e)
	if err != nil {
		return nil, fmt.Errorf("evaluate %q: %w", m.Name, err)
	}
	if left != "" {
		e.Warnings = append(e.Warnings, left)
	}
	return e, nil
}

// leftOutRows warns of the labelled rows of src that an evaluation of m left out because their scores are
// NULL: a missing value (NULL, NaN, ±Inf) of a feature m's kinds require (lda, qda, logistic). The metrics'
// n counts the scored rows; one scan of the label column counts the labelled ones. Models without such
// features score every row and take no scan.
func leftOutRows(ctx context.Context, q nb.Querier, m *nb.Model, src nb.Source, label string, e *Evaluation) (string, error) {
	var kinds []string
	for _, f := range m.Features {
		if completeRowsOnly(f.Kind) && !slices.Contains(kinds, string(f.Kind)) {
			kinds = append(kinds, string(f.Kind))
		}
	}
	if len(kinds) == 0 {
		return "", nil
	}
	scored, _ := e.Get("n", "")
	stmt, err := queries.Render("eval_labelled.tmpl.sql", queries.Labelled{From: src.From, Label: label})
	if err != nil {
		return "", err
	}
	var labelled int64
	if err := q.QueryRowContext(ctx, stmt, src.Args...).Scan(&labelled); err != nil {
		return "", err
	}
	left := labelled - int64(scored)
	if left <= 0 {
		return "", nil
	}
	return fmt.Sprintf("%d of the %d labelled rows have NULL scores (a NULL, NaN or ±Inf value of a %s feature) and are "+
		"left out of the metrics: filter or impute them to score every row", left, labelled, strings.Join(kinds, ", ")), nil
}

// unknownLabels warns of the true labels of e (group 0) that are none of model m's classes: a typo, or a
// label column whose values read otherwise (VARCHAR-trained '0' against a DOUBLE column's '0.0').
func unknownLabels(e *Evaluation, m *nb.Model) []string {
	known := m.ClassIndex()
	var names []string
	rows := 0.0
	for _, x := range e.Metrics {
		if x.Group == 0 && x.PerClass && x.Metric == "support" && x.Value > 0 {
			if _, ok := known[x.Class]; !ok {
				names = append(names, strconv.Quote(x.Class))
				rows += x.Value
			}
		}
	}
	if len(names) == 0 {
		return nil
	}
	if len(names) > 5 {
		names = append(names[:5], "…")
	}
	return []string{fmt.Sprintf("%d rows have a true label that is none of model %q's classes (%s): they count as errors; "+
		"check the label column (its values must read as the classes %s)", int64(rows), m.Name, strings.Join(names, ", "), strings.Join(quoteAll(classLabels(m)), ", "))}
}

// checkLabelType refuses a true-label column whose values do not read as the model's classes: labels are
// compared as text, so a DOUBLE 1.0 would never be the INTEGER-trained class "1" (or an INTEGER 1 the BOOLEAN
// class "true"), and every row would silently count as an error. Types whose values read alike (INTEGER and
// BIGINT, VARCHAR and ENUM), and so does text on either side. A missing column is left to the scan's own error.
func checkLabelType(cols []nb.Column, m *nb.Model, label string) error {
	if m.LabelType == "" {
		return nil
	}
	c, ok := nb.FindColumn(cols, label)
	if !ok || sameLabelText(c.Type, m.LabelType) || labelTextClass(c.Type) == "text" || labelTextClass(m.LabelType) == "text" {
		return nil // text on either side compares as the text it is: a CSV's BIGINT 1 is the class "1"
	}
	return fmt.Errorf("%w: the label column %q is %s, but model %q was trained on %s labels, and labels match as their text, which "+
		"differs between these types (1.0 is not \"1\", 1 is not \"true\", 1.50 is not \"1.5\"): "+
		"cast it in a --from query (SELECT CAST(%s AS %s) AS %s, ...)", nb.ErrBadType, c.Name, c.Type, m.Name, m.LabelType,
		queries.Ident(c.Name), m.LabelType, queries.Ident(c.Name))
}

// sameLabelText reports whether values of DuckDB types a and b read as the same text when equal.
func sameLabelText(a, b string) bool { return labelTextClass(a) == labelTextClass(b) }

// labelTextClass names how values of DuckDB type t read as text: "integer" for the integer types, HUGEINT and
// DECIMAL(w,0); "decimal s" for a DECIMAL of scale s > 0 (it writes s digits after the point); "float" for
// FLOAT and DOUBLE; "text" for VARCHAR and ENUM; else the type's name.
func labelTextClass(t string) string {
	u := strings.ToUpper(strings.TrimSpace(t))
	switch c := nb.ClassifyType(u); {
	case c == nb.TypeInteger:
		return "integer"
	case c == nb.TypeFloat:
		return "float"
	case c == nb.TypeText:
		return "text"
	case strings.HasPrefix(u, "DECIMAL"):
		_, rest, _ := strings.Cut(u, ",")
		if scale := strings.TrimSpace(strings.TrimSuffix(rest, ")")); scale != "" && scale != "0" {
			return "decimal " + scale
		}
		return "integer"
	case c == nb.TypeNumber: // HUGEINT, UHUGEINT
		return "integer"
	}
	return u
}

// PositiveClass returns the positive class of model m for the binary metrics: pos if it is one of m's
// classes, the second class if pos is empty, and "" for a model of more than two classes (where pos must be
// empty).
func PositiveClass(m *nb.Model, pos string) (string, error) {
	return positiveClass(m, pos, pos != "")
}

// positiveClass is PositiveClass where given says whether pos was given (an empty pos then names the class
// "").
func positiveClass(m *nb.Model, pos string, given bool) (string, error) {
	if len(m.Classes) != 2 {
		if given {
			return "", fmt.Errorf("%w: model %q has %d classes: a positive class (--pos-label, pos_label :=) applies to two-class models; "+
				"the other metrics are per class and averaged", nb.ErrPosLabel, m.Name, len(m.Classes))
		}
		return "", nil
	}
	if !given {
		return m.Classes[1].Label, nil
	}
	if _, ok := m.ClassIndex()[pos]; !ok {
		return "", fmt.Errorf("%w: model %q has no class %q to count as positive (classes: %s)", nb.ErrPosLabel, m.Name, pos,
			strings.Join(quoteAll(classLabels(m)), ", "))
	}
	return pos, nil
}

// EvaluateScores evaluates posteriors given by proba, an SQL expression over the source row, which the query
// names __sqlnb_row (queries.Row; it was t, which a source column of that name took over), that yields
// MAP(VARCHAR, DOUBLE) in class order (Evaluate passes nb_predict_proba(model, __sqlnb_row)), against the
// true labels in column label of source. The classes are the keys of the first row's MAP. pos is the
// positive class of two-class scores (empty: the second class).
func EvaluateScores(ctx context.Context, conn *sql.Conn, source, label, proba, pos string, curves bool) (*Evaluation, error) {
	src, err := nb.ResolveSource(ctx, conn, source)
	if err != nil {
		return nil, err
	}
	stmt, err := queries.Render("eval_classes.tmpl.sql", queries.EvalClasses{From: src.From, Label: label, Proba: proba})
	if err != nil {
		return nil, err
	}
	var keys []any
	if err := conn.QueryRowContext(ctx, stmt, src.Args...).Scan(&keys); err != nil && err != sql.ErrNoRows {
		return nil, err
	}
	classes := make([]string, len(keys))
	for i, k := range keys {
		classes[i] = fmt.Sprint(k)
	}
	if len(classes) == 2 && pos == "" {
		pos = classes[1]
	}
	if pos != "" && !slices.Contains(classes, pos) {
		return nil, fmt.Errorf("%w: the scores have no class %q to count as positive (classes: %s)", nb.ErrPosLabel, pos, strings.Join(quoteAll(classes), ", "))
	}
	return evaluate(ctx, conn, scoring{src: src, label: label, proba: proba, classes: classes, pos: pos, ranking: true, curves: curves})
}

// scoring says what evaluate scores and what it computes.
type scoring struct {
	src   nb.Source
	label string
	// group is SQL over the source row t for the group of each row (the fold), "" for none (group 0);
	// proba yields the posteriors, MAP(VARCHAR, DOUBLE), over t.
	group, proba string
	// classes are the labels of the posteriors, in order; ordered says that every MAP has exactly these keys
	// in this order (nb_predict_proba's), so values are taken by position; pos is the positive class when
	// there are two.
	classes []string
	ordered bool
	pos     string
	// ranking computes ROC-AUC and average precision (one sort per class); curves (group 0) the curve
	// and calibration data too.
	ranking, curves bool
}

// evaluate scores s.src once and computes the metrics of every group: the confusion cells with the log-loss
// and Brier terms in one aggregation pass, then, with s.ranking, ROC-AUC and average precision per class
// from one sort each of a compact temporary table of the scores.
func evaluate(ctx context.Context, conn *sql.Conn, s scoring) (*Evaluation, error) {
	if err := nb.RequireColumns(ctx, conn, s.src, "label", s.label); err != nil {
		return nil, err
	}
	e := &Evaluation{Positive: s.pos}
	if len(s.classes) == 0 {
		return e, nil
	}
	positions := positionsOf(s.classes)
	pos := 0
	if len(s.classes) == 2 {
		pos = slices.Index(s.classes, s.pos) + 1
	}
	grouped := s.group != ""
	data := queries.EvalCells{EvalScored: queries.EvalScored{From: s.src.FromAt(2), Label: s.label, Grouped: grouped, Group: s.group,
		Proba: s.proba, Ordered: s.ordered, Positions: positions}, Pos: pos, Table: s.ranking}
	scoreArgs := append([]any{s.classes}, s.src.Args...)
	cleanup := context.WithoutCancel(ctx)
	defer conn.ExecContext(cleanup, queries.SQL("eval_drop_cells.sql"))
	cellArgs := scoreArgs
	if s.ranking {
		defer conn.ExecContext(cleanup, queries.SQL("eval_drop.sql"))
		if err := execTemplate(ctx, conn, "eval_score_table.tmpl.sql", data.EvalScored, scoreArgs...); err != nil {
			return nil, err
		}
		cellArgs = scoreArgs[:1]
	}
	if err := execTemplate(ctx, conn, "eval_cells.tmpl.sql", data, cellArgs...); err != nil {
		return nil, err
	}
	var err error
	if e.Metrics, err = scanMetrics(ctx, conn, true, queries.SQL("eval_metrics.sql")); err != nil {
		return nil, err
	}
	// The count of rows with a NULL label is no metric: kept apart (group 0's).
	e.Metrics = slices.DeleteFunc(e.Metrics, func(m Metric) bool {
		if m.Metric != "unlabelled" {
			return false
		}
		if m.Group == 0 {
			e.Unlabelled = int64(m.Value)
		}
		return true
	})
	if e.Confusion, err = readConfusion(ctx, conn); err != nil {
		return nil, err
	}
	if !s.ranking {
		return e, nil
	}
	ranks, err := readRanking(ctx, conn, e, s.classes, grouped, s.curves)
	if err != nil {
		return nil, err
	}
	e.Metrics = append(e.Metrics, ranks.metrics(s.classes, s.pos)...)
	slices.SortStableFunc(e.Metrics, func(a, b Metric) int {
		return cmp.Or(cmp.Compare(a.Group, b.Group), strings.Compare(a.Metric, b.Metric), strings.Compare(a.Class, b.Class))
	})
	return e, nil
}

// execTemplate renders the template name with data and runs it.
func execTemplate(ctx context.Context, conn *sql.Conn, name string, data any, args ...any) error {
	stmt, err := queries.Render(name, data)
	if err != nil {
		return err
	}
	_, err = conn.ExecContext(ctx, stmt, args...)
	return err
}

// classRanking is one class's ranking metrics in one group (NaN where undefined).
type classRanking struct {
	n, np                int64
	rocAUC, avgPrecision float64
}

func nullNaN(v sql.NullFloat64) float64 {
	if !v.Valid {
		return math.NaN()
	}
	return v.Float64
}

// metrics lists the ranking metrics of every group: roc_auc and average_precision per class; for two
// classes, those of the positive class pos without a class; for more, their macro means and
// prevalence-weighted means over the classes with positives and negatives (roc_auc defined).
func (r rankings) metrics(classes []string, pos string) []Metric {
	var out []Metric
	for g, cs := range r {
		var sumAUC, sumAP, wAUC, wAP, np float64
		k := 0
		for i, c := range cs {
			out = append(out, Metric{Group: g, Metric: "roc_auc", Class: classes[i], PerClass: true, Value: c.rocAUC},
				Metric{Group: g, Metric: "average_precision", Class: classes[i], PerClass: true, Value: c.avgPrecision})
			if len(classes) == 2 && classes[i] == pos {
				out = append(out, Metric{Group: g, Metric: "roc_auc", Value: c.rocAUC}, Metric{Group: g, Metric: "average_precision", Value: c.avgPrecision})
			}
			if len(classes) > 2 && !math.IsNaN(c.rocAUC) {
				k++
				sumAUC, sumAP = sumAUC+c.rocAUC, sumAP+c.avgPrecision
				wAUC, wAP, np = wAUC+c.rocAUC*float64(c.np), wAP+c.avgPrecision*float64(c.np), np+float64(c.np)
			}
		}
		if k > 0 {
			out = append(out, Metric{Group: g, Metric: "roc_auc_macro", Value: sumAUC / float64(k)},
				Metric{Group: g, Metric: "roc_auc_weighted", Value: wAUC / np},
				Metric{Group: g, Metric: "average_precision_macro", Value: sumAP / float64(k)},
				Metric{Group: g, Metric: "average_precision_weighted", Value: wAP / np})
		}
	}
	return out
}

// scanMetrics reads rows (group, metric, [class,] value) of stmt; a NULL value is NaN.
func scanMetrics(ctx context.Context, conn *sql.Conn, withClass bool, stmt string, args ...any) ([]Metric, error) {
	rows, err := conn.QueryContext(ctx, stmt, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []Metric
	for rows.Next() {
		var m Metric
		var class sql.NullString
		var v sql.NullFloat64
		dst := []any{&m.Group, &m.Metric, &class, &v}
		if !withClass {
			dst = []any{&m.Group, &m.Metric, &v}
		}
		if err := rows.Scan(dst...); err != nil {
			return nil, err
		}
		m.Class, m.PerClass, m.Value = class.String, class.Valid, nullNaN(v)
		out = append(out, m)
	}
	return out, rows.Err()
}

func readConfusion(ctx context.Context, conn *sql.Conn) ([]Cell, error) {
	rows, err := conn.QueryContext(ctx, queries.SQL("eval_confusion.sql"))
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []Cell
	for rows.Next() {
		var c Cell
		if err := rows.Scan(&c.Group, &c.Actual, &c.Predicted, &c.N); err != nil {
			return nil, err
		}
		out = append(out, c)
	}
	return out, rows.Err()
}
