package udf_test

import (
	"context"
	"strings"
	"testing"

	"github.com/sqlnb/sqlnb/udf"
)

// A panic in any callback reaches the caller as a SQL error naming the function, and the database goes on
// working (a panic that reached DuckDB would end the process; the extension's tests check the same in node).
func TestPanicsBecomeErrors(t *testing.T) {
	db := mustOpenDB(t)
	mustExec(t, db, "CREATE TABLE d AS SELECT * FROM (VALUES ('a', 1.0), ('a', 2.0), ('b', 5.0), ('b', 6.5)) v(y, x)")
	mustExec(t, db, "CALL nb_train('m', 'd', 'y')")
	defer udf.SetTestPanic("")
	for _, c := range []struct{ point, sql string }{
		{"nb_predict:bind", "SELECT nb_predict('m', x) FROM d"},
		{"nb_predict:exec", "SELECT nb_predict('m', x) FROM d"},
		{"nb_models:bind", "SELECT * FROM nb_models()"},
		{"nb_models:init", "SELECT * FROM nb_models()"},
		{"nb_models:exec", "SELECT * FROM nb_models()"},
		{"nb_cv:bind", "SELECT * FROM nb_cv('d', 'y', folds := 2)"},
	} {
		udf.SetTestPanic(c.point)
		_, err := db.ExecContext(context.Background(), c.sql)
		name := strings.Split(c.point, ":")[0]
		if err == nil || !strings.Contains(err.Error(), name+": internal error: test panic") {
			t.Errorf("%s: %v, want the panic as an error naming %s", c.point, err, name)
		}
	}
	udf.SetTestPanic("")
	if got := queryStrings(t, db, "SELECT nb_predict('m', x) FROM d ORDER BY x"); len(got) != 4 || got[0][0] != "a" {
		t.Errorf("after the panics: %v", got)
	}
}
