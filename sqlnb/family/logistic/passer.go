package logistic

import (
	"context"
	"database/sql"
	"fmt"

	"github.com/sqlnb/sqlnb/queries"
	"github.com/sqlnb/sqlnb/sqlnb/nb"
)

// logisticPasser returns the function of one pass over the source at θ: the sums of the kernel's layout
// (lrKernel), with the Hessian when hess. It runs train_logistic_pass (the Go kernel, nb_logistic_pass) when
// the database has that function (a connection of package udf), else train_logistic_step (the same sums as
// DuckDB aggregates). Each statement is prepared once: with many classes the aggregates are thousands, and
// planning them costs. args returns the shared parameters followed by a template's own, numbered from
// shared + 1; passArgs are train_logistic_pass's (the source's, the levels' and the labels').
func logisticPasser(ctx context.Context, sc *nb.Scan, data queries.Logistic, K, dim int, args func(...any) []any, shared int, passArgs []any,
	lp *LogisticPass, token string) (pass func(theta []float64, hess bool) ([]float64, error), release func(), err error) {
	var closers []func()
	release = func() {
		for _, c := range closers {
			c()
		}
	}
	prepare := func(stmt string) (func(args ...any) *sql.Row, error) {
		pr, ok := sc.Conn.(interface {
			PrepareContext(context.Context, string) (*sql.Stmt, error)
		})
		if !ok {
			return func(args ...any) *sql.Row { return sc.Conn.QueryRowContext(ctx, stmt, args...) }, nil
		}
		prepared, err := pr.PrepareContext(ctx, stmt)
		if err != nil {
			return nil, fmt.Errorf("logistic regression step: %w", err)
		}
		closers = append(closers, func() { prepared.Close() })
		return func(args ...any) *sql.Row { return prepared.QueryRowContext(ctx, args...) }, nil
	}
	if lp != nil {
		stmt, err := queries.Render("train_logistic_pass.tmpl.sql", queries.LogisticPass{Logistic: data, Token: queries.Literal(token)})
		if err != nil {
			return nil, release, err
		}
		query, err := prepare(stmt)
		if err != nil {
			return nil, release, err
		}
		return func(theta []float64, hess bool) ([]float64, error) {
			lp.reset(theta, hess)
			var n int64
			if err := query(passArgs...).Scan(&n); err != nil {
				return nil, err
			}
			return lp.result()
		}, release, nil
	}
	// The step template: θ's parameters follow the shared ones.
	z := make([]queries.LogisticZ, K-1)
	np := shared
	param := func() string {
		np++
		return sc.Param(np)
	}
	var freeIdx, cols1 []int
	var pairsCD []queries.ClassPair
	var prods []queries.Pair
	for c := range z {
		z[c].B = param()
		for range dim - 1 {
			z[c].W = append(z[c].W, param())
		}
		freeIdx = append(freeIdx, c+1)
		for e := c + 1; e < K; e++ {
			pairsCD = append(pairsCD, queries.ClassPair{C: c + 1, D: e})
		}
	}
	for j := 1; j < dim; j++ {
		cols1 = append(cols1, j)
		for k := j; k < dim; k++ {
			prods = append(prods, queries.Pair{J: j, K: k})
		}
	}
	queriesOf := map[bool]func(args ...any) *sql.Row{}
	for _, hess := range []bool{false, true} {
		pairs := pairsCD
		if !hess {
			pairs = nil
		}
		stmt, err := queries.Render("train_logistic_step.tmpl.sql", queries.LogisticStep{Logistic: data, Z: z, Free: freeIdx, Pairs: pairs, Prods: prods, Cols1: cols1})
		if err != nil {
			return nil, release, err
		}
		if queriesOf[hess], err = prepare(stmt); err != nil {
			return nil, release, err
		}
	}
	return func(theta []float64, hess bool) ([]float64, error) {
		kr := lrKernel{K: K, dim: dim, hess: hess}
		out := make([]sql.NullFloat64, kr.width())
		ptrs := make([]any, len(out))
		for i := range out {
			ptrs[i] = &out[i]
		}
		th := make([]any, len(theta))
		for i, v := range theta {
			th[i] = v
		}
		if err := queriesOf[hess](args(th...)...).Scan(ptrs...); err != nil {
			return nil, err
		}
		sums := make([]float64, len(out))
		for i, v := range out {
			sums[i] = v.Float64
		}
		return sums, nil
	}, release, nil
}

// logisticKernel registers a pass of the Go kernel for the fit (nil when the connection does not have
// nb_logistic_pass: the fit then runs train_logistic_step's aggregates); release removes it.
func logisticKernel(ctx context.Context, sc *nb.Scan, K, dim int) (*LogisticPass, string, func(), error) {
	var has int64
	if err := sc.Conn.QueryRowContext(ctx, queries.SQL("function_exists.sql"), "nb_logistic_pass").Scan(&has); err != nil {
		return nil, "", func() {}, fmt.Errorf("logistic regression: %w", err)
	}
	if has == 0 {
		return nil, "", func() {}, nil
	}
	lp, token, release := newLogisticPass(K, dim, sc.Plan.Weight != "")
	return lp, token, release, nil
}
