package udf_test

import (
	"fmt"
	"strconv"
	"strings"
	"testing"
)

// TestGroupScoring: every scoring function of a per-group model (nb_train(..., by := [...])) gives, for each
// group's rows, what the model trained on that group's rows alone gives, and for rows of an unseen or NULL
// group what the model of every row gives (the pooled model).
func TestGroupScoring(t *testing.T) {
	db := mustOpenDB(t)
	// 40 groups (g text × h integer) of ~50 rows, classes a, b, c; x, z Gaussian, c categorical.
	mustExec(t, db, `CREATE TABLE d AS SELECT 'r' || (i % 8) AS g, ((i // 8) % 5)::INTEGER AS h,
		['a', 'b', 'c'][1 + (hash(i, 1) % 3)::BIGINT] AS y,
		(hash(i, 2) % 1000) / 100.0 + (i % 8) + (hash(i, 1) % 3) * 2 AS x,
		CASE WHEN i % 13 = 0 THEN NULL ELSE (hash(i, 3) % 997) / 50.0 - ((i // 8) % 5) * (hash(i, 1) % 3) END AS z,
		CASE WHEN i % 7 = 0 THEN NULL ELSE ['u', 'v', 'w', 'q'][1 + ((hash(i, 4) + i % 8) % 4)::BIGINT] END AS c
		FROM range(2000) r(i)`)
	mustExec(t, db, `CALL nb_train('grp', 'd', 'y', by := ['g', 'h'])`)
	mustExec(t, db, `CALL nb_train('pooled', 'd', 'y', exclude := ['g', 'h'])`)
	// Rows to score: the training rows, plus rows of unseen groups and NULL group values.
	mustExec(t, db, `CREATE TABLE s AS SELECT * FROM d UNION ALL
		SELECT CASE WHEN i % 3 = 0 THEN NULL ELSE 'r' || (i % 11) END, CASE WHEN i % 4 = 0 THEN NULL ELSE (i % 7)::INTEGER END,
		'a', i * 0.1, i * -0.2, ['u', 'v', 'nope'][1 + i % 3] FROM range(200) r(i)`)
	check := func(where, ref string) {
		t.Helper()
		q := strings.NewReplacer("$ref", ref, "$where", where).Replace(`SELECT
			count(*),
			count(*) FILTER (WHERE nb_predict('grp', t) IS DISTINCT FROM nb_predict('$ref', t)),
			max(abs(nb_proba('grp', t, 'a') - nb_proba('$ref', t, 'a'))) + max(abs(nb_proba('grp', t, 'c') - nb_proba('$ref', t, 'c'))),
			max(abs(nb_predict_proba('grp', t)['b'] - nb_predict_proba('$ref', t)['b'])),
			max(abs(nb_predict_log_proba('grp', t)['b'] - nb_predict_log_proba('$ref', t)['b'])),
			max(abs(nb_joint_log_likelihood('grp', t)['c'] - nb_joint_log_likelihood('$ref', t)['c']) / abs(nb_joint_log_likelihood('$ref', t)['c'])),
			max(abs(nb_log_evidence('grp', t) - nb_log_evidence('$ref', t)) / abs(nb_log_evidence('$ref', t))),
			count(*) FILTER (WHERE nb_explain('grp', t)[1].feature IS DISTINCT FROM nb_explain('$ref', t)[1].feature),
			max(abs(nb_explain('grp', t)[1].contribution - nb_explain('$ref', t)[1].contribution)),
			max(abs(nb_explain('grp', t, 'b')[1].contribution - nb_explain('$ref', t, 'b')[1].contribution))
			FROM s t WHERE $where`)
		row := queryStrings(t, db, q)[0]
		if row[0] == "0" {
			t.Fatalf("%s: no rows", where)
		}
		if row[1] != "0" || row[7] != "0" {
			t.Errorf("%s: %s of %s predictions and %s explanations differ from model %s", where, row[1], row[0], row[7], ref)
		}
		for i, what := range map[int]string{2: "nb_proba", 3: "nb_predict_proba", 4: "nb_predict_log_proba", 5: "nb_joint_log_likelihood",
			6: "nb_log_evidence", 8: "nb_explain", 9: "nb_explain versus"} {
			if d, err := strconv.ParseFloat(row[i], 64); err != nil || d > 1e-12 {
				t.Errorf("%s: %s differs from model %s by %s", where, what, ref, row[i])
			}
		}
	}
	groups := queryStrings(t, db, `SELECT DISTINCT g, h FROM d ORDER BY ALL`)
	if len(groups) != 40 {
		t.Fatalf("%d groups, want 40", len(groups))
	}
	for k, g := range groups {
		ref := fmt.Sprint("ref", k)
		mustExec(t, db, fmt.Sprintf(`CALL nb_train('%s', 'SELECT * EXCLUDE (g, h) FROM d WHERE g = ''%s'' AND h = %s', 'y')`, ref, g[0], g[1]))
		check(fmt.Sprintf("g = '%s' AND h = %s", g[0], g[1]), ref)
	}
	check("g IS NULL OR h IS NULL OR (g, h) NOT IN (SELECT (g, h) FROM d)", "pooled")
	// The group columns are bound from the struct by name; a missing one is an error naming it.
	if err := queryErr(db, `SELECT nb_predict('grp', {'x': 1.0, 'z': 2.0, 'c': 'u', 'g': 'r1'})`); err == nil || !strings.Contains(err.Error(), `group column "h"`) {
		t.Errorf("missing group column: %v", err)
	}
	if err := queryErr(db, `SELECT nb_predict('grp', 1.0, 2.0, 'u')`); err == nil || !strings.Contains(err.Error(), "struct") {
		t.Errorf("positional arguments: %v", err)
	}
}

// TestGroupExplainPair: in a per-group model of three classes, a group that lacks one still explains its
// predicted class against the runner-up (it used the two-class rule, the second of its classes against the
// first, even when the first was predicted), and explaining against the class it lacks is NULL.
func TestGroupExplainPair(t *testing.T) {
	db := mustOpenDB(t)
	mustExec(t, db, `CREATE TABLE d3 AS SELECT CASE WHEN i % 2 = 0 THEN 'A' ELSE 'B' END AS grp, ['p', 'q', 'r'][i % 3 + 1] AS y,
		(i % 3)::DOUBLE + (i % 17) / 10.0 AS v FROM range(600) t(i) WHERE NOT (i % 2 = 0 AND i % 3 = 2)`)
	mustExec(t, db, `CALL nb_train('g3', 'd3', 'y', by := ['grp'])`)
	// 53 rows: v = 0 is i ≡ 0 (mod 51), 12 rows; 1.1 is i ≡ 1 or 45 (mod 51), 12 + 11; 2.3 is i ≡ 13 (mod 51),
	// 12, and i ≡ 20 (mod 51) for odd i only (class r of group B), 6.
	rows := queryStrings(t, db, `SELECT grp, v, nb_predict('g3', t), nb_explain('g3', t)[1].class, nb_explain('g3', t, 'r') IS NULL
		FROM d3 t WHERE v IN (0, 1.1, 2.3)`)
	if len(rows) != 53 {
		t.Fatalf("%d rows, want 53", len(rows))
	}
	for _, row := range rows {
		if row[2] != row[3] {
			t.Errorf("group %s, v %s: predicted %s, explained %s", row[0], row[1], row[2], row[3])
		}
		if want := map[string]string{"A": "true", "B": "false"}[row[0]]; row[4] != want {
			t.Errorf("group %s: explanation against r IS NULL = %s, want %s", row[0], row[4], want)
		}
	}
}

// TestGroupGivenPriorsSet: nb_set with given priors on a per-group model is the same clear refusal as
// training with them (it failed validating one group's model).
func TestGroupGivenPriorsSet(t *testing.T) {
	db := mustOpenDB(t)
	mustExec(t, db, `CREATE TABLE d AS SELECT CASE WHEN i % 2 = 0 THEN 'A' ELSE 'B' END AS g, ['p', 'q'][i % 3 % 2 + 1] AS y, (i % 7)::DOUBLE AS v FROM range(100) t(i)`)
	mustExec(t, db, `CALL nb_train('gm', 'd', 'y', by := ['g'])`)
	if err := queryErr(db, `CALL nb_set('gm', priors := 'p=0.3,q=0.7')`); err == nil || !strings.Contains(err.Error(), "given priors are not supported") {
		t.Errorf("nb_set given priors on a per-group model: %v", err)
	}
}
