package logistic

import (
	"fmt"
	"math"
	"strings"

	"github.com/sqlnb/sqlnb/sqlnb/nb"
)

// linear: two classes' log-odds are b_1 - b_0 (the scorer's) + Σ_j (w_1j - w_0j) x_j.
func (l *logisticComponent) Linear() (float64, []nb.LinearTerm, error) {
	var terms []nb.LinearTerm
	for j, in := range l.in {
		if l.numeric[j] {
			terms = append(terms, nb.LinearTerm{Feature: in.Name, Weight: l.w[j][1] - l.w[j][0]})
			continue
		}
		for v, value := range in.Values {
			terms = append(terms, nb.LinearTerm{Feature: in.Name, Value: value, HasValue: true, Weight: l.level[j][1][v] - l.level[j][0][v]})
		}
	}
	return 0, terms, nil
}

// incompleteSQL: a row with a missing value (a NULL, NaN or ±Inf number, a NULL category) has no score.
func (l *logisticComponent) IncompleteSQL(x *nb.Exporter) string {
	var conds []string
	for j, in := range l.in {
		if l.numeric[j] {
			conds = append(conds, "("+x.IsMissingNumber(x.Number(in.Name))+")")
		} else {
			conds = append(conds, x.Text(in.Name)+" IS NULL")
		}
	}
	return strings.Join(conds, " OR ")
}

// SQL: Σ_j w_cj x_j, a CASE over the levels for a category (unseen: 0). PostgreSQL raises an error on
// overflow: there a product beyond DOUBLE's range is written as the ±Infinity float64 rounds it to.
func (l *logisticComponent) SQL(x *nb.Exporter, c int) (string, error) {
	var terms []string
	for j, in := range l.in {
		if !l.numeric[j] {
			v := x.Text(in.Name)
			var cases []string
			for k, value := range in.Values {
				if lv := l.level[j][c][k]; lv != 0 {
					cases = append(cases, fmt.Sprintf("WHEN %s THEN %s", x.Literal(value), x.Num(lv)))
				}
			}
			if len(cases) > 0 {
				terms = append(terms, fmt.Sprintf("CASE %s %s ELSE 0 END", v, strings.Join(cases, " ")))
			}
			continue
		}
		w := l.w[j][c]
		if w == 0 {
			continue
		}
		v := x.Number(in.Name)
		t := fmt.Sprintf("%s * %s", x.Num(w), v)
		if x.Pg {
			t = fmt.Sprintf("CASE WHEN abs(%s) > %s THEN sign(%s) * %s ELSE %s END", v, x.Num(math.MaxFloat64/math.Abs(w)), v, x.Num(math.Copysign(math.Inf(1), w)), t)
		}
		terms = append(terms, t)
	}
	if len(terms) == 0 {
		return "0", nil
	}
	return strings.Join(terms, " + "), nil
}
