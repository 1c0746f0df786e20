package sqlnb

import (
	"context"
	"database/sql"
	"fmt"
	"math"

	"github.com/sqlnb/sqlnb/sqlnb/family/text"
	"github.com/sqlnb/sqlnb/sqlnb/nb"

	"github.com/sqlnb/sqlnb/queries"
)

// DefaultEMTol is the tolerance of semi-supervised training when none is given (Params.Float("tol")): EM stops when
// an iteration raises the log-likelihood by at most DefaultEMTol × |its previous value|.
const DefaultEMTol = 1e-6

// Column names semi-supervised training adds to the rows it reads (row id, weight, class position).
const (
	emRowID  = "__sqlnb_rid"
	emWeight = "__sqlnb_w"
	emClass  = "__sqlnb_i"
)

// emTables are semi-supervised training's temporary tables, dropped when it ends.
var emTables = []string{"nb_em_rows", "nb_em_post", "nb_em_classes"}

// trainSemiSupervised fits a naive Bayes model by expectation-maximisation over the labelled rows and the
// rows with a NULL label (Nigam, McCallum, Thrun and Mitchell, 2000):
//
//   - start: the model of the labelled rows (m0, trained as usual);
//   - E-step: the current model's posteriors p(c | x) of every unlabelled row (nb_cv_em: the scoring kernels
//     of nb_predict_proba), and its log-likelihood
//     LL = Σ_labelled w log p(x, y) + Σ_unlabelled w log p(x) (w: the sample weight, 1 without a weight
//     column; p(x, y) = p(y) Π_j p(x_j | y) and p(x) = Σ_c p(x, c) under the model's scoring rules);
//   - M-step: the statistics of a weighted source in which each labelled row has its weight and each
//     unlabelled row appears once per class c with weight w p(c | x) (em_source.tmpl.sql): the families'
//     own weighted training scans, so the model is what a weighted training on those rows gives;
//   - stop after the first M-step (from the second on) whose model raises LL by at most Tol × |previous
//     LL| (relative; a fall, possible because smoothing makes EM maximise the smoothed objective, stops
//     too), or after MaxIter M-steps (with a warning). The first step is always taken and not compared:
//     the start knows only the labelled rows' categories and terms, so its LL leaves the others out.
//
// The temporary tables live on one connection (conn); the E-step's scorer is made callable from SQL by reg.
// Only families whose statistics are weighted sums and whose scores are log-likelihoods take part: naive
// Bayes kinds, not complement (weights, not likelihoods), lda, qda or logistic.
func trainSemiSupervised(ctx context.Context, conn nb.Querier, reg FoldRegistrar, spec TrainSpec, p *nb.Plan, params nb.Params) (*nb.Model, []string, error) {
	if err := checkSemiSupervised(p, reg); err != nil {
		return nil, nil, err
	}
	m0, _, err := trainPlanned(ctx, conn, spec, p, params)
	if err != nil {
		return nil, nil, err
	}
	if m0.SkippedRows == 0 {
		return m0, []string{fmt.Sprintf("semi-supervised: source %s has no rows with a NULL label %q: trained on the labelled rows only",
			p.Src.Quoted(), p.Label.Name)}, nil
	}
	defer func() {
		for _, t := range emTables {
			stmt, err := queries.Render("em_drop.tmpl.sql", queries.TableName{Table: t})
			if err == nil {
				_, _ = conn.ExecContext(context.WithoutCancel(ctx), stmt)
			}
		}
	}()
	names := make([]string, len(p.Features))
	for i, f := range p.Features {
		names[i] = f.Name
	}
	data := queries.EMRows{From: p.Src.From, Label: p.Label.Name, Weight: p.Weight, Features: names}
	unlabelled, err := emSetUp(ctx, conn, p, data, classLabels(m0))
	if err != nil {
		return nil, nil, err
	}
	from, err := queries.Render("em_source.tmpl.sql", data)
	if err != nil {
		return nil, nil, err
	}
	mp := *p
	mp.Src = nb.Source{Text: p.Src.Text, From: from, Args: p.Src.Args}
	mp.Weight = emWeight

	cur := m0
	ll, err := emStep(ctx, conn, reg, p, data, cur, unlabelled)
	if err != nil {
		return nil, nil, err
	}
	var warnings []string
	for it := int64(1); ; it++ {
		next, _, err := trainPlanned(ctx, conn, spec, &mp, params)
		if err != nil {
			return nil, nil, fmt.Errorf("semi-supervised step %d: %w", it, err)
		}
		if err := emFinish(next, m0, p, unlabelled, it); err != nil {
			return nil, nil, err
		}
		nll, err := emStep(ctx, conn, reg, p, data, next, unlabelled)
		if err != nil {
			return nil, nil, fmt.Errorf("semi-supervised step %d: %w", it, err)
		}
		next.LogLikelihood = nll
		cur = next
		// The first step is not compared with the start: the labelled rows' model knows only their
		// categories and terms, so its likelihood leaves out the others.
		gain := nll - ll
		if it > 1 && !(gain > params.Float("tol")*math.Abs(ll)) {
			break
		}
		ll = nll
		if it >= params.Int("max_iter") {
			change := fmt.Sprintf("the last step changed it by %.3g; tol %g is relative to its magnitude", gain, params.Float("tol"))
			if it == 1 { // the first step's change is from the labelled rows' start, which is never compared
				change = fmt.Sprintf("one step is never compared with the start; tol %g is relative to the log-likelihood", params.Float("tol"))
			}
			warnings = append(warnings, fmt.Sprintf("semi-supervised: EM stopped at max_iter %d steps before the log-likelihood settled (%s): the model of the last step is stored",
				it, change))
			break
		}
	}
	return cur, warnings, nil
}

// checkSemiSupervised rejects what semi-supervised training cannot do: a model with a kind that does not
// score by a likelihood or whose statistics are not weighted sums, features that take no weights, a term
// table, no scorer registry, or a column named like the ones it adds.
func checkSemiSupervised(p *nb.Plan, reg FoldRegistrar) error {
	for _, f := range p.Features {
		info := families.KindInfo(f.Kind)
		if _, refits := families.FamilyOf(f.Kind).(nb.Refitter); refits || info.Alone != "" || info.Priorless {
			return fmt.Errorf("%w: semi-supervised training needs naive Bayes features, whose statistics are weighted sums of likelihood terms: feature %q is %s; "+
				"use a naive Bayes kind (gaussian, poisson, categorical, bernoulli, multinomial, text) or drop --semi-supervised", nb.ErrBadOption, f.Name, f.Kind)
		}
		if f.Kind == text.TextBernoulli { // its statistics take no weights yet, and EM's M-step is weighted
			return fmt.Errorf("%w: feature %q is text_bernoulli, which takes no row weights yet, and semi-supervised training weighs "+
				"the unlabelled rows by their posteriors: use text, or drop --semi-supervised", nb.ErrBadOption, f.Name)
		}
		if f.Name == emRowID || f.Name == emWeight {
			return fmt.Errorf("%w: feature %q has a name semi-supervised training uses for itself: rename the column", nb.ErrBadOption, f.Name)
		}
	}
	if p.Terms != nil {
		return fmt.Errorf("%w: semi-supervised training with a term table (--terms) is not supported: its unlabelled rows carry no term MAP to score; use a text column", nb.ErrBadOption)
	}
	if err := families.CheckFeatures(p.Features, true); err != nil {
		return fmt.Errorf("semi-supervised training weighs the unlabelled rows by their posteriors: %w", err)
	}
	if reg == nil {
		return fmt.Errorf("%w: semi-supervised training needs the scoring functions (open the database with package udf)", nb.ErrBadOption)
	}
	return nil
}

// emSetUp materialises the unlabelled rows (nb_em_rows; their weights are checked as training checks them)
// and the classes (nb_em_classes), and returns the number of unlabelled rows.
func emSetUp(ctx context.Context, conn nb.Querier, p *nb.Plan, data queries.EMRows, labels []string) (int64, error) {
	stmt, err := queries.Render("em_rows.tmpl.sql", data)
	if err != nil {
		return 0, err
	}
	if _, err := conn.ExecContext(ctx, stmt, p.Src.Args...); err != nil {
		return 0, fmt.Errorf("read the unlabelled rows: %w", err)
	}
	var n, nonNull int64
	var minW sql.NullFloat64
	var total float64
	if err := conn.QueryRowContext(ctx, queries.SQL("em_rows_summary.sql")).Scan(&n, &nonNull, &minW, &total); err != nil {
		return 0, fmt.Errorf("read the unlabelled rows: %w", err)
	}
	if p.Weight != "" {
		if err := nb.CheckWeights(p.Weight, n, nonNull, minW); err != nil {
			return 0, fmt.Errorf("unlabelled rows: %w", err)
		}
	}
	if stmt, err = queries.Render("em_classes.tmpl.sql", queries.EMClasses{From: data.From, Label: data.Label, Param: len(p.Src.Args) + 1}); err != nil {
		return 0, err
	}
	if _, err := conn.ExecContext(ctx, stmt, append(append([]any{}, p.Src.Args...), labels)...); err != nil {
		return 0, fmt.Errorf("list the classes: %w", err)
	}
	return n, nil
}

// emStep runs an E-step with model m: the unlabelled rows' posteriors into nb_em_post, and m's
// log-likelihood of the training rows (trainSemiSupervised).
func emStep(ctx context.Context, conn nb.Querier, reg FoldRegistrar, p *nb.Plan, data queries.EMRows, m *nb.Model, unlabelled int64) (float64, error) {
	s, err := Compile(m)
	if err != nil {
		return 0, err
	}
	name, release := reg.RegisterFolds([]*Scorer{s})
	defer release()
	d := queries.EMEStep{Score: "nb_cv_em(" + queries.Literal(name) + ", 0::BIGINT, NULL::VARCHAR, " + queries.Row + ")"}
	stmt, err := queries.Render("em_estep.tmpl.sql", d)
	if err != nil {
		return 0, err
	}
	if _, err := conn.ExecContext(ctx, stmt); err != nil {
		return 0, fmt.Errorf("score the unlabelled rows: %w", err)
	}
	var llU float64
	var scored int64
	if err := conn.QueryRowContext(ctx, queries.SQL("em_post_summary.sql")).Scan(&llU, &scored); err != nil {
		return 0, fmt.Errorf("score the unlabelled rows: %w", err)
	}
	if scored != unlabelled {
		return 0, fmt.Errorf("%w: %d of %d unlabelled rows could not be scored", nb.ErrBadValue, unlabelled-scored, unlabelled)
	}
	ld := queries.EMLabelled{From: data.From, Label: data.Label, Weight: data.Weight,
		Score: "nb_cv_em(" + queries.Literal(name) + ", 0::BIGINT, CAST(" + queries.Ident(p.Label.Name) + " AS VARCHAR), " + queries.Row + ")"}
	if stmt, err = queries.Render("em_labelled_ll.tmpl.sql", ld); err != nil {
		return 0, err
	}
	var llL float64
	var rows, scoredL int64
	if err := conn.QueryRowContext(ctx, stmt, p.Src.Args...).Scan(&llL, &rows, &scoredL); err != nil {
		return 0, fmt.Errorf("score the labelled rows: %w", err)
	}
	if scoredL != rows {
		return 0, fmt.Errorf("%w: %d of %d labelled rows could not be scored", nb.ErrBadValue, rows-scoredL, rows)
	}
	return llL + llU, nil
}

// emFinish turns the M-step's model m (trained on the expanded rows) into a semi-supervised model: the
// weight column and row counts of the labelled rows (m0), the unlabelled rows and the steps taken. Its
// classes keep their weights (labelled weight plus posteriors). It is validated again.
func emFinish(m, m0 *nb.Model, p *nb.Plan, unlabelled, steps int64) error {
	m.Weight = p.Weight
	m.UnlabelledRows, m.SkippedRows, m.Iterations = unlabelled, 0, steps
	counts := map[string]int64{}
	for _, c := range m0.Classes {
		counts[c.Label] = c.Count
	}
	m.Rows = 0
	for i := range m.Classes {
		m.Classes[i].Count = counts[m.Classes[i].Label]
		m.Rows += m.Classes[i].Count
	}
	if len(m.Classes) != len(m0.Classes) {
		return fmt.Errorf("%w: semi-supervised step %d has %d classes, the labelled rows %d", nb.ErrInvalidModel, steps, len(m.Classes), len(m0.Classes))
	}
	return families.Validate(m)
}
