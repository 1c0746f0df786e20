package sqlnb

import (
	"context"
	"database/sql"
	"fmt"
	"math"
	"strings"

	"github.com/sqlnb/sqlnb/queries"
)

// EvalSpec says what to evaluate: a stored model on a labelled source.
type EvalSpec struct {
	Model  string
	Source string
	// Label is the true-class column; empty means the model's label column.
	Label string
	// Curves also reads the ROC, precision-recall and calibration data (for plots).
	Curves bool
	// PosLabel is the positive class of a two-class model for the binary metrics (Brier score, ROC-AUC and
	// average precision without a class, the binary plots); empty: the second class. Like scikit-learn's
	// pos_label.
	PosLabel string
}

// Metric is one value of an evaluation; Class is empty for overall metrics. NaN when undefined (for
// example ROC-AUC of a class without positives).
type Metric struct {
	Group  int64
	Metric string
	Class  string
	Value  float64
}

// Cell is one cell of a confusion matrix.
type Cell struct {
	Group             int64
	Actual, Predicted string
	N                 int64
}

// CurvePoint is one point of a class's ROC and precision-recall curves.
type CurvePoint struct {
	Class               string
	FPR, TPR, Precision float64
}

// CalibrationBin is one bin of a class's reliability diagram (one-vs-rest): the bins are quantile bins of the
// class's posteriors, as scikit-learn's calibration_curve(strategy='quantile', n_bins=10) makes them
// (eval_calibration.sql); Predicted is the bin's mean posterior, Observed the share of its rows of that
// class.
type CalibrationBin struct {
	Class               string
	Bin                 int
	Predicted, Observed float64
	N                   int64
}

// Evaluation holds metrics, the confusion matrix and, if asked, curve data.
type Evaluation struct {
	Model *Model
	// Positive is the positive class of a two-class evaluation (EvalSpec.PosLabel or the second class), else
	// empty.
	Positive    string
	Metrics     []Metric
	Confusion   []Cell
	Curves      []CurvePoint
	Calibration []CalibrationBin
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
// udf.Open) into a temporary table and computes every metric inside DuckDB (eval_metrics.sql: the
// definitions of scikit-learn 1.2). It needs a single connection for the temporary table.
func Evaluate(ctx context.Context, conn *sql.Conn, spec EvalSpec) (*Evaluation, error) {
	m, err := Load(ctx, conn, spec.Model)
	if err != nil {
		return nil, err
	}
	label := spec.Label
	if label == "" {
		label = m.Label
	}
	pos, err := PositiveClass(m, spec.PosLabel)
	if err != nil {
		return nil, err
	}
	e, err := EvaluateScores(ctx, conn, spec.Source, label, "nb_predict_proba("+queries.Literal(m.Name)+", t)", pos, spec.Curves)
	if err != nil {
		return nil, fmt.Errorf("evaluate %q: %w", m.Name, err)
	}
	e.Model = m
	return e, nil
}

// PositiveClass returns the positive class of model m for the binary metrics: pos if it is one of m's
// classes, the second class if pos is empty, and "" for a model of more than two classes (where pos must be
// empty).
func PositiveClass(m *Model, pos string) (string, error) {
	if len(m.Classes) != 2 {
		if pos != "" {
			return "", fmt.Errorf("%w: model %q has %d classes: a positive class (--pos-label, pos_label :=) applies to two-class models; "+
				"the other metrics are per class and averaged", ErrPosLabel, m.Name, len(m.Classes))
		}
		return "", nil
	}
	if pos == "" {
		return m.Classes[1].Label, nil
	}
	if _, ok := m.ClassIndex()[pos]; !ok {
		return "", fmt.Errorf("%w: model %q has no class %q to count as positive (classes: %s)", ErrPosLabel, m.Name, pos,
			strings.Join(classLabels(m), ", "))
	}
	return pos, nil
}

// EvaluateScores evaluates posteriors given by proba, an SQL expression over the source row t that
// yields MAP(VARCHAR, DOUBLE) in class order (Evaluate passes nb_predict_proba(model, t)), against the
// true labels in column label of source. pos is the positive class of two-class scores (empty: the second
// class).
func EvaluateScores(ctx context.Context, conn *sql.Conn, source, label, proba, pos string, curves bool) (*Evaluation, error) {
	src, err := ResolveSource(ctx, conn, source)
	if err != nil {
		return nil, err
	}
	if err := RequireColumns(ctx, conn, src, "label", label); err != nil {
		return nil, err
	}
	if err := scoreInto(ctx, conn, src, label, "0", proba); err != nil {
		return nil, err
	}
	defer conn.ExecContext(context.WithoutCancel(ctx), queries.SQL("eval_drop.sql"))
	e := &Evaluation{Positive: pos}
	if e.Metrics, err = readMetrics(ctx, conn, pos); err != nil {
		return nil, err
	}
	if e.Confusion, err = readConfusion(ctx, conn); err != nil {
		return nil, err
	}
	if curves {
		if err := readCurves(ctx, conn, e); err != nil {
			return nil, err
		}
	}
	return e, nil
}

// scoreInto creates nb_eval_scored from src: group expression g and scoring expression proba.
func scoreInto(ctx context.Context, conn *sql.Conn, src Source, label, group, proba string) error {
	stmt, err := queries.Render("eval_scored.tmpl.sql", map[string]any{"From": src.From, "Label": label, "Group": group, "Proba": proba})
	if err != nil {
		return err
	}
	_, err = conn.ExecContext(ctx, stmt, src.Args...)
	return err
}

// readMetrics computes the metrics of nb_eval_scored with pos as the positive class of two-class scores
// (empty: the second class).
func readMetrics(ctx context.Context, conn *sql.Conn, pos string) ([]Metric, error) {
	var positive any
	if pos != "" {
		positive = pos
	}
	return scanMetrics(ctx, conn, true, queries.SQL("eval_metrics.sql"), positive)
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
		m.Class, m.Value = class.String, v.Float64
		if !v.Valid {
			m.Value = math.NaN()
		}
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

func readCurves(ctx context.Context, conn *sql.Conn, e *Evaluation) error {
	rows, err := conn.QueryContext(ctx, queries.SQL("eval_curves.sql"))
	if err != nil {
		return err
	}
	for rows.Next() {
		var p CurvePoint
		if err := rows.Scan(&p.Class, &p.FPR, &p.TPR, &p.Precision); err != nil {
			rows.Close()
			return err
		}
		e.Curves = append(e.Curves, p)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return err
	}
	rows, err = conn.QueryContext(ctx, queries.SQL("eval_calibration.sql"))
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		var b CalibrationBin
		if err := rows.Scan(&b.Class, &b.Bin, &b.Predicted, &b.Observed, &b.N); err != nil {
			return err
		}
		e.Calibration = append(e.Calibration, b)
	}
	return rows.Err()
}
