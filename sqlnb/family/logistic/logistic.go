package logistic

import (
	"context"
	"fmt"
	"math"
	"time"

	"github.com/sqlnb/sqlnb/sqlnb/nb"
)

// Logistic: the class given the features by logistic regression (seed 004), the discriminative twin of
// naive Bayes: p(c | x) = exp(z_c) / Σ_c' exp(z_c'), z_c = b_c + Σ_j w_cj x_j. Two classes: scikit-learn's
// binary LogisticRegression (one weight vector, a sigmoid: class 0's z is 0); more: the multinomial
// (softmax). A number column enters as its value; a VARCHAR, ENUM or BOOLEAN column one-hot encoded, one
// indicator per level but the first in sorted order (the reference level, coefficient 0; false for a
// BOOLEAN).
const Logistic nb.Kind = "logistic"

// LogisticCoef is one fitted coefficient: class Class's weight of a number feature (Value empty) or of a
// category level (Value the level; the reference level's is 0), or the class's intercept (Feature empty),
// in the units of the data. Multinomial coefficients are centred over the classes (they sum to 0 for every
// feature and for the intercepts), as scikit-learn's; binary ones are all 0 for the first class.
type LogisticCoef struct {
	Feature string  `json:"feature"`
	Class   string  `json:"class"`
	Value   string  `json:"value"`
	Coef    float64 `json:"coef"`
}

// LogisticTable is a logistic regression's fitted coefficients: nb.logistic.
var LogisticTable = &nb.Table[LogisticCoef]{
	Name:      "logistic",
	ModelRows: true,
	Key:       func(r *LogisticCoef) nb.RowKey { return nb.RowKey{Feature: r.Feature, Class: r.Class, Value: r.Value} },
	// Never used: fitted coefficients do not merge (Merge refuses models of a refitter family).
	Merge: func(_, _ *LogisticCoef) {},
	Check: func(r *LogisticCoef) error {
		if math.IsNaN(r.Coef) || math.IsInf(r.Coef, 0) {
			return fmt.Errorf("coefficient %v is not finite", r.Coef)
		}
		return nil
	},
}

type LogisticFamily struct{}

func (LogisticFamily) Kinds() []nb.KindInfo {
	return []nb.KindInfo{{Kind: Logistic, Doc: "numbers, and categories one-hot encoded: logistic regression fitted by Newton steps in SQL (LogisticRegression)",
		Priorless: true, Alone: "fit", CompleteRows: true,
		Accepts: func(c nb.Column) error {
			switch nb.ClassifyType(c.Type) {
			case nb.TypeText, nb.TypeBool:
				return nil
			}
			if nb.ClassifyType(c.Type).Numeric() {
				return nil
			}
			return fmt.Errorf("%w: feature %q has type %s: a logistic feature must be numeric, VARCHAR, ENUM or BOOLEAN (leave it out with --features, or cast it)",
				nb.ErrBadType, c.Name, c.Type)
		}}}
}

func (LogisticFamily) Tables() []nb.StatsTable               { return []nb.StatsTable{LogisticTable} }
func (LogisticFamily) Check(_, _ []nb.Feature, _ bool) error { return nil }
func (LogisticFamily) Refits()                               {}

// isNumeric reports whether a logistic feature enters as its value (else: one-hot encoded).
func isNumeric(f nb.Feature) bool { return nb.ClassifyType(f.Type).Numeric() }

func (LogisticFamily) Summary(m *nb.Model) string {
	p := m.Params
	pen := fmt.Sprintf("penalty l2, C %g", p.Float("c"))
	if p.Text("penalty") == nb.PenaltyNone {
		pen = "penalty none"
	}
	return fmt.Sprintf("%s, tol %g, max_iter %d: %d Newton steps, final gradient %.3g", pen, p.Float("tol"), p.Int("max_iter"), m.Iterations, m.GradNorm)
}

// Train fits the model by Newton's method (IRLS, seed 004): a first pass (train_logistic_describe) finds the
// classes, the levels of categorical features and the mean and spread of number features; then every step
// is one aggregation pass (train_logistic_step) returning the log-loss, gradient and Hessian at the current
// parameters, and gonum's Cholesky solves for the step. Rows with a missing feature value (NULL, NaN) are
// left out and counted; infinite values are an error naming the column. Cross-validation fits each fold
// (FoldModels): Train runs without a fold expression.
func (f LogisticFamily) Train(ctx context.Context, sc *nb.Scan, feats []nb.Feature) error {
	if sc.Fold != "" {
		return fmt.Errorf("logistic regression is fitted per fold, not from fold statistics")
	}
	start := time.Now()
	d, err := describeLogistic(ctx, sc, feats)
	if err != nil {
		return err
	}
	if sc.Plan.Trace != nil {
		sc.Plan.Trace.Describe = time.Since(start)
	}
	if len(d.labels) < 2 {
		return nil // the trainer reports no rows or a single class
	}
	fit, err := newtonFit(ctx, sc, feats, d)
	if err != nil {
		return err
	}
	part := sc.Part(0)
	nb.AddRows(part.Stats, LogisticTable, fit.coefs...)
	part.Iterations, part.GradNorm = fit.iterations, fit.gradNorm
	return nil
}
