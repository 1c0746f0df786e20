package udf_test

import (
	"testing"
)

// TestPredictReturnsLabelType: nb_predict returns the label column's type for BOOLEAN, the integers, FLOAT,
// DOUBLE and VARCHAR labels — equal to the label itself where the model is right — and VARCHAR (the label
// as CAST(label AS VARCHAR)) for other types; a NULL row is NULL; the MAP keys of nb_predict_proba stay
// VARCHAR.
func TestPredictReturnsLabelType(t *testing.T) {
	db := mustOpenDB(t)
	// x separates the classes perfectly, so every prediction equals the label.
	mustExec(t, db, `CREATE TABLE d AS SELECT i % 3 AS k, (i % 3) * 10 + sin(i) AS x FROM range(300) r(i)`)
	for _, c := range []struct {
		cast, want string
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
		{"(k / 4)::DECIMAL(5, 2)", "VARCHAR"},
		{"DATE '2024-01-01' + k::INTEGER", "VARCHAR"},
		{"(['a', 'b', 'c'][k + 1])::ENUM('a', 'b', 'c')", "VARCHAR"},
	} {
		t.Run(c.want+" "+c.cast, func(t *testing.T) {
			mustExec(t, db, `CREATE OR REPLACE TABLE l AS SELECT `+c.cast+` AS y, x FROM d`)
			mustExec(t, db, `CALL nb_train('typed', 'l', 'y')`)
			got := queryStrings(t, db, `SELECT typeof(nb_predict('typed', t)), count(*),
				count(*) FILTER (WHERE nb_predict('typed', t) = y),
				count(*) FILTER (WHERE nb_predict('typed', t)::VARCHAR = y::VARCHAR),
				any_value(typeof(map_keys(nb_predict_proba('typed', t))[1]))
				FROM l t GROUP BY ALL`)
			if len(got) != 1 || got[0][0] != c.want || got[0][1] != "300" || got[0][2] != "300" || got[0][3] != "300" || got[0][4] != "VARCHAR" {
				t.Errorf("type, rows, equal to the label, equal as text, proba key type: %v; want %s for all 300 rows and VARCHAR keys", got, c.want)
			}
			if v := one(t, db, `SELECT nb_predict('typed', NULL::STRUCT(x DOUBLE)) IS NULL`); v != "true" {
				t.Errorf("NULL row: %s", v)
			}
			if v := one(t, db, `SELECT typeof(nb_predict('typed', {'x': 10.0}))`); v != c.want {
				t.Errorf("constant row: %s, want %s", v, c.want)
			}
		})
	}
	// A label that does not read back as its type (a hand-edited store) is returned as text.
	mustExec(t, db, `CREATE OR REPLACE TABLE l AS SELECT ['zero', 'one', 'two'][k + 1] AS y, x FROM d`)
	mustExec(t, db, `CALL nb_train('edited', 'l', 'y')`)
	mustExec(t, db, `UPDATE nb.models SET label_type = 'INTEGER' WHERE name = 'edited'`)
	if v := one(t, db, `SELECT typeof(nb_predict('edited', {'x': 20.0})) || ' ' || nb_predict('edited', {'x': 20.0})`); v != "VARCHAR two" {
		t.Errorf("labels that are not INTEGER in a model whose label_type says so: %s, want VARCHAR two", v)
	}
}
