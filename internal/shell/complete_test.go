package shell

import (
	"context"
	"os"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/sqlnb/sqlnb/internal/testdb"
)

// completionDB is a database with a table, a view in another schema, and a trained model.
func completionDB(t *testing.T) *catalogCache {
	t.Helper()
	conn := testdb.Conn(t)
	ctx := context.Background()
	for _, stmt := range []string{
		`CREATE TABLE iris AS SELECT i % 3 AS species, i * 0.1 AS sepal_length FROM range(30) r(i)`,
		`CREATE SCHEMA shop`, `CREATE VIEW shop.orders AS SELECT 1 AS order_id`,
		`CALL nb_train('iris_model', 'iris', 'species')`,
		`CALL nb_train('it''s a model', 'iris', 'species')`,
	} {
		if _, err := conn.ExecContext(ctx, stmt); err != nil {
			t.Fatal(stmt, err)
		}
	}
	cache := &catalogCache{}
	cache.setLoader(func() *catalog { return loadCatalog(ctx, conn) })
	return cache
}

// TestComplete: the candidates for a line with the cursor at its end (or at |), as Tab offers them.
func TestComplete(t *testing.T) {
	cache := completionDB(t)
	dir := t.TempDir()
	t.Chdir(dir)
	for _, f := range []string{"votes.csv", "votes.parquet", "other.json"} {
		os.WriteFile(f, nil, 0o644)
	}
	os.Mkdir("data", 0o755)
	cat := cache.get()
	for _, c := range []struct {
		name, line string
		dot        bool
		want       []string // every candidate, in order
		has        []string // or: candidates among others
	}{
		{name: "keyword, case kept", line: "SELEC", want: []string{"SELECT"}},
		{name: "keyword in lower case", line: "selec", want: []string{"select"}},
		{name: "table", line: "SELECT * FROM ir", want: []string{"iris"}},
		{name: "tables after FROM", line: "SELECT * FROM ", has: []string{"iris", "orders", "shop.orders"}},
		{name: "schema-qualified view", line: "FROM shop.o", want: []string{"shop.orders"}},
		{name: "column", line: "SELECT sepal_", has: []string{"sepal_length"}},
		{name: "alias.column", line: "SELECT t.spe", want: []string{"t.species"}},
		{name: "nb function", line: "SELECT nb_predict_p", want: []string{"nb_predict_proba("}},
		{name: "model name", line: "SELECT nb_predict('ir", want: []string{"iris_model'"}},
		{name: "model name, empty", line: "SELECT nb_predict_proba( '", want: []string{"iris_model'", "it''s a model'"}},
		{name: "model name with a quote", line: "SELECT nb_predict('it", want: []string{"it''s a model'"}},
		// Model names are case-sensitive and a completion only appends: 'IR' + 's_model' would name no model.
		{name: "model name, other case", line: "SELECT nb_predict('IR", want: nil},
		{name: "model name with a quote, typed doubled", line: "SELECT nb_predict('it''", want: []string{"it''s a model'"}},
		{name: "model name mid-line", line: "SELECT nb_explain('ir|', t) FROM iris t", want: []string{"iris_model'"}},
		{name: "file in a string", line: "SELECT * FROM 'vo", want: []string{"votes.csv", "votes.parquet"}},
		{name: "nb_import takes a file", line: "CALL nb_import('oth", want: []string{"other.json"}},
		{name: "directory", line: "FROM 'da", want: []string{"data/"}},
		{name: "dot command", line: ".ma", dot: true, want: []string{".maxrows"}},
		{name: "dot commands", line: ".o", dot: true, want: []string{".open", ".output"}},
		{name: "dot inside a statement is SQL", line: ".ma", dot: false, want: nil},
		{name: ".mode argument", line: ".mode m", dot: true, want: []string{"markdown"}},
		{name: ".open file", line: ".open vo", dot: true, want: []string{"votes.csv", "votes.parquet"}},
		{name: ".import table", line: ".import votes.csv i", dot: true, want: []string{"iris"}},
		{name: "nothing typed", line: "SELECT ", want: nil},
	} {
		t.Run(c.name, func(t *testing.T) {
			head, _, _ := strings.Cut(c.line, "|")
			got, _ := cat.complete(head, c.dot)
			if c.has != nil {
				for _, w := range c.has {
					if !slices.Contains(got, w) {
						t.Errorf("complete(%q) = %q, lacks %q", head, got, w)
					}
				}
				return
			}
			if !reflect.DeepEqual(got, c.want) {
				t.Errorf("complete(%q) = %q, want %q", head, got, c.want)
			}
		})
	}
	// Every nb_* function completes from its prefix.
	for _, f := range []string{"nb_predict", "nb_predict_proba", "nb_predict_log_proba", "nb_joint_log_likelihood", "nb_proba",
		"nb_explain", "nb_log_evidence", "nb_train", "nb_models", "nb_show", "nb_set", "nb_drop", "nb_export", "nb_import",
		"nb_eval", "nb_confusion", "nb_informative"} {
		if got, _ := cat.complete("SELECT "+f, false); !slices.Contains(got, f+"(") {
			t.Errorf("complete(%q) = %q, lacks %q", f, got, f+"(")
		}
	}
}

// TestCompleterReadline: what readline receives (the rest of each word after what is typed), and a
// catalog read again after DDL.
func TestCompleterReadline(t *testing.T) {
	cache := completionDB(t)
	c := shellCompleter{cache}
	line := []rune("SELECT * FROM ir")
	got, n := c.Do(line, len(line))
	if n != 2 || len(got) != 1 || string(got[0]) != "is" {
		t.Errorf("Do(%q) = %q, %d; want [is], 2", string(line), got, n)
	}
	if got, _ := c.Do([]rune("FROM fres"), 9); len(got) != 0 {
		t.Fatalf("a table that does not exist yet: %q", got)
	}
	// A new table appears at the next Tab once the shell marks the catalog stale (after DDL).
	stmt := "CREATE TABLE fresh_table(a INT)"
	if !changesCatalog(stmt) || changesCatalog("SELECT 1") || !changesCatalog("SELECT * FROM nb_train('m', 't', 'y')") ||
		!changesCatalog("/* x */ DROP TABLE t") {
		t.Error("changesCatalog")
	}
	conn := testdb.Conn(t) // a second database: swap the loader as .open does
	if _, err := conn.ExecContext(context.Background(), stmt); err != nil {
		t.Fatal(err)
	}
	cache.setLoader(func() *catalog { return loadCatalog(context.Background(), conn) })
	if got, _ := c.Do([]rune("FROM fres"), 9); len(got) != 1 || string(got[0]) != "h_table" {
		t.Errorf("after .open: %q", got)
	}
	if _, err := conn.ExecContext(context.Background(), "CREATE TABLE fresher(b INT)"); err != nil {
		t.Fatal(err)
	}
	cache.invalidate()
	if got, _ := c.Do([]rune("FROM fres"), 9); len(got) != 2 {
		t.Errorf("after DDL: %q", got)
	}
}
