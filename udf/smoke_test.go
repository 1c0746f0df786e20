package udf_test

import "testing"

func TestSmoke(t *testing.T) {
	db := mustOpenDB(t)
	mustExec(t, db, `CREATE TABLE t AS SELECT CASE WHEN i % 3 = 0 THEN 'a' ELSE 'b' END AS y,
		(i % 3) * 1.5 + (i % 7) * 0.1 AS x, CASE WHEN i % 2 = 0 THEN 'red' ELSE 'blue' END AS color FROM range(100) r(i)`)
	t.Log(queryStrings(t, db, `CALL nb_train('m', 't', 'y')`))
	t.Log(queryStrings(t, db, `SELECT y, x::DOUBLE, color, nb_predict('m', t), nb_predict_proba('m', t)::VARCHAR, nb_proba('m', t, 'a') FROM t LIMIT 5`))
	t.Log(queryStrings(t, db, `SELECT nb_predict('m', 1.0, 'red'), nb_predict('m', {'x': NULL, 'color': NULL}), nb_predict('m', NULL::STRUCT(x DOUBLE, color VARCHAR))`))
	t.Log(queryStrings(t, db, `FROM nb_show('m')`))
	t.Log(queryStrings(t, db, `FROM nb_models()`))
}
