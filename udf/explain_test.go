package udf_test

import (
	"math"
	"strconv"
	"testing"
)

// TestExplainSumsToLogOdds: nb_explain's contributions plus the prior term equal the log-odds from
// nb_joint_log_likelihood (two classes: class 2 against class 1; more: predicted against runner-up), to
// 1e-12, on a mixed model with missing and unseen values; nb_log_evidence is log Σ exp(b_c).
func TestExplainSumsToLogOdds(t *testing.T) {
	for _, k := range []int{2, 3} {
		db := mustOpenDB(t)
		mustExec(t, db, `CREATE TABLE d AS SELECT 'c' || (i % `+strconv.Itoa(k)+`) AS y,
			CASE WHEN i % 13 = 0 THEN NULL ELSE sin(i) + (i % `+strconv.Itoa(k)+`) END AS x,
			CASE WHEN i % 7 = 0 THEN NULL ELSE ['u', 'v', 'w'][1 + (i * i) % 3] END AS cat,
			i % 5 = 0 AS flag FROM range(600) r(i)`)
		mustExec(t, db, `CALL nb_train('e', 'd', 'y', feature_kinds := 'flag=bernoulli')`)
		rows := queryStrings(t, db, `SELECT
			list_sum([e.contribution FOR e IN nb_explain('e', t)]),
			nb_joint_log_likelihood('e', t)::VARCHAR, nb_predict('e', t), nb_log_evidence('e', t),
			len(nb_explain('e', t)), nb_explain('e', t)[1].feature, nb_explain('e', t)[4].feature
			FROM (SELECT * REPLACE (CASE WHEN x > 1.5 THEN 'zz' ELSE cat END AS cat) FROM d) t`)
		for _, r := range rows {
			sum, _ := strconv.ParseFloat(r[0], 64)
			jll := parseMap(t, r[1])
			var want float64
			if k == 2 {
				want = jll["c1"] - jll["c0"]
			} else {
				pred, best2 := r[2], math.Inf(-1)
				for c, v := range jll {
					if c != pred {
						best2 = math.Max(best2, v)
					}
				}
				want = jll[pred] - best2
			}
			if math.Abs(sum-want) > 1e-12*math.Max(1, math.Abs(want)) {
				t.Fatalf("k=%d: contributions sum to %v, log-odds %v (%v)", k, sum, want, r)
			}
			ev, _ := strconv.ParseFloat(r[3], 64)
			mx, s := math.Inf(-1), 0.0
			for _, v := range jll {
				mx = math.Max(mx, v)
			}
			for _, v := range jll {
				s += math.Exp(v - mx)
			}
			if math.Abs(ev-(mx+math.Log(s))) > 1e-12*math.Max(1, math.Abs(ev)) {
				t.Fatalf("log evidence %v, want %v", ev, mx+math.Log(s))
			}
			if r[4] != "4" || r[5] == "NULL" || r[6] != "NULL" {
				t.Fatalf("explain has %s entries, first feature %s, last %s (want the prior, NULL)", r[4], r[5], r[6])
			}
		}
	}
}

// TestExplainOrder: entries are sorted by |contribution|, the prior last, missing values NULL.
func TestExplainOrder(t *testing.T) {
	db := mixedDB(t)
	got := queryStrings(t, db, `SELECT e.feature, e.value, e.contribution FROM
		(SELECT unnest(nb_explain('m', {'x': 0.1, 'color': NULL, 'n': 3, 'flag': true})) AS e)`)
	if len(got) != 5 || got[4][0] != "NULL" {
		t.Fatalf("explain rows %v", got)
	}
	prev := math.Inf(1)
	for _, r := range got[:4] {
		c, _ := strconv.ParseFloat(r[2], 64)
		if math.Abs(c) > prev {
			t.Errorf("not sorted by magnitude: %v", got)
		}
		prev = math.Abs(c)
		if r[0] == "color" && (r[1] != "NULL" || c != 0) {
			t.Errorf("missing color: %v", r)
		}
	}
}
