package discriminant

import (
	"fmt"
	"math"
	"strings"

	"github.com/sqlnb/sqlnb/sqlnb/nb"
)

// linear: lda's log-odds of class 1 against class 0 are b_1 - b_0 + Σ_j (w_1j - w_0j)(x_j - x̄_j).
func (g *discriminantComponent) Linear() (float64, []nb.LinearTerm, error) {
	if g.qda {
		return 0, nil, fmt.Errorf("qda's log-odds are quadratic (a covariance per class); lda's are linear")
	}
	w0 := g.b[1] - g.b[0]
	var terms []nb.LinearTerm
	for j, in := range g.in {
		w := g.w[1][j] - g.w[0][j]
		w0 -= w * g.xbar[j]
		terms = append(terms, nb.LinearTerm{Feature: in.Name, Weight: w})
	}
	return w0, terms, nil
}

// incompleteSQL: a row with a missing feature value (NULL, NaN, ±Inf) has no score.
func (g *discriminantComponent) IncompleteSQL(x *nb.Exporter) string {
	var conds []string
	for _, in := range g.in {
		conds = append(conds, "("+x.IsMissingNumber(x.Number(in.Name))+")")
	}
	return strings.Join(conds, " OR ")
}

// SQL: lda b_c + Σ_j w_cj (x_j - x̄_j); qda -½ log|2πΣ_c| - ½ Σ_r z_r² with z = L_c⁻¹ (x - μ_c), each z_r
// bound once per row (DuckDB). PostgreSQL raises an error on overflow, so there a value with |x| ≥ 1e150
// makes the qda term -Infinity directly (the exporter's limit rule then decides, as for Gaussian NB).
func (g *discriminantComponent) SQL(x *nb.Exporter, c int) (string, error) {
	if !g.qda {
		terms := []string{x.Num(g.b[c])}
		for j, in := range g.in {
			terms = append(terms, fmt.Sprintf("%s * (%s - %s)", x.Num(g.w[c][j]), x.Number(in.Name), x.Num(g.xbar[j])))
		}
		return strings.Join(terms, " + "), nil
	}
	var squares []string
	for r, z := range g.zSQL(x, c, 1) {
		if x.Pg {
			squares = append(squares, fmt.Sprintf("power(%s, 2)", z))
			continue
		}
		id := x.Bind(fmt.Sprintf("qda%d_z%d", c, r), z)
		squares = append(squares, id+" * "+id)
	}
	t := fmt.Sprintf("%s - 0.5 * (%s)", x.Num(g.logNorm[c]), strings.Join(squares, " + "))
	if x.Pg {
		var huge []string
		for _, in := range g.in {
			huge = append(huge, fmt.Sprintf("abs(%s) >= 1e150", x.Number(in.Name)))
		}
		t = fmt.Sprintf("CASE WHEN %s THEN %s ELSE %s END", strings.Join(huge, " OR "), x.Num(math.Inf(-1)), t)
	}
	return t, nil
}

// zSQL writes z = L_c⁻¹ (x - μ_c) row by row; with s ≠ 1 (limitScale) the differences are scaled by s, and a
// feature with |x| < 1e150 counts 0 (next to one ≥ 1e154, whose square overflows, its share is below
// float64's precision, as in the row reference; and PostgreSQL raises an error where a square underflows).
func (g *discriminantComponent) zSQL(x *nb.Exporter, c int, s float64) []string {
	var out []string
	off := 0
	for r := range g.m {
		var terms []string
		for j := 0; j <= r; j++ {
			v := x.Number(g.in[j].Name)
			d := fmt.Sprintf("(%s - %s)", v, x.Num(g.mean[c][j]))
			if s != 1 {
				d = fmt.Sprintf("(CASE WHEN abs(%s) < 1e150 THEN 0 ELSE %s * %s END)", v, v, x.Num(s))
			}
			terms = append(terms, fmt.Sprintf("%s * %s", x.Num(g.inv[c][off+j]), d))
		}
		off += r + 1
		out = append(out, strings.Join(terms, " + "))
	}
	return out
}

// qdaComponent is a qda model's component: its terms can overflow for finite input (quadratic forms), so
// it writes the exporter's limit rule.
type qdaComponent struct{ *discriminantComponent }

// limitSQL is class c's quadratic term scaled by 2^-1200: -½ Σ_r z_r² with the values scaled by 2^-600,
// which does not overflow (the exporter's limit rule, where every class score is -inf).
func (g qdaComponent) LimitSQL(x *nb.Exporter, c int) string {
	var squares []string
	for _, z := range g.zSQL(x, c, nb.LimitScale) {
		squares = append(squares, fmt.Sprintf("power(%s, 2)", z))
	}
	return "-0.5 * (" + strings.Join(squares, " + ") + ")"
}
