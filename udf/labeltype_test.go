package udf_test

import (
	"testing"
)

// TestPredictReturnsLabelText: nb_predict returns the class as text — the label as CAST(label AS VARCHAR),
// the MAP keys' text — for every label type: DuckDB's C API fixes a scalar function's return type when it
// is registered. Cast back to the label's type, it equals the label where the model is right; a NULL row is
// NULL. (sqlnb predict and the exported macros keep the label's type: cmd/sqlnb and export tests.)
func TestPredictReturnsLabelText(t *testing.T) {
	db := mustOpenDB(t)
	// x separates the classes perfectly, so every prediction equals the label.
	mustExec(t, db, `CREATE TABLE d AS SELECT i % 3 AS k, (i % 3) * 10 + sin(i) AS x FROM range(300) r(i)`)
	for _, c := range []struct {
		cast, typ string
	}{
		{"k = 1", "BOOLEAN"},
		{"k::TINYINT - 1", "TINYINT"},
		{"k::SMALLINT * 1000", "SMALLINT"},
		{"k::INTEGER - 7", "INTEGER"},
		{"k::BIGINT * 10000000000", "BIGINT"},
		{"k::UTINYINT + 200", "UTINYINT"},
		{"k::USMALLINT", "USMALLINT"},
		{"k::UINTEGER + 4000000000", "UINTEGER"},
		{"k::UBIGINT + 18000000000000000000", "UBIGINT"},
		{"(k + 0.5)::FLOAT", "FLOAT"},
		{"k * 1.25::DOUBLE - 1", "DOUBLE"},
		{"'class ' || k", "VARCHAR"},
		{"(k / 4)::DECIMAL(5, 2)", "DECIMAL(5,2)"},
		{"DATE '2024-01-01' + k::INTEGER", "DATE"},
		{"(['a', 'b', 'c'][k + 1])::ENUM('a', 'b', 'c')", "ENUM('a', 'b', 'c')"},
	} {
		t.Run(c.typ+" "+c.cast, func(t *testing.T) {
			mustExec(t, db, `CREATE OR REPLACE TABLE l AS SELECT `+c.cast+` AS y, x FROM d`)
			mustExec(t, db, `CALL nb_train('typed', 'l', 'y')`)
			got := queryStrings(t, db, `SELECT typeof(nb_predict('typed', t)), count(*),
				count(*) FILTER (WHERE CAST(nb_predict('typed', t) AS `+c.typ+`) = y),
				count(*) FILTER (WHERE nb_predict('typed', t) = y::VARCHAR),
				any_value(typeof(map_keys(nb_predict_proba('typed', t))[1]))
				FROM l t GROUP BY ALL`)
			if len(got) != 1 || got[0][0] != "VARCHAR" || got[0][1] != "300" || got[0][2] != "300" || got[0][3] != "300" || got[0][4] != "VARCHAR" {
				t.Errorf("type, rows, equal to the label cast back, equal as text, proba key type: %v; want VARCHAR for all 300 rows and VARCHAR keys", got)
			}
			if v := one(t, db, `SELECT nb_predict('typed', NULL::STRUCT(x DOUBLE)) IS NULL`); v != "true" {
				t.Errorf("NULL row: %s", v)
			}
		})
	}
}
