package sqlnb_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/sqlnb/sqlnb/sqlnb"
)

// TestColumnWarnings: a feature with a different value in every row, or (chosen by default) named like an
// identifier, draws a warning naming it and --exclude; --exclude leaves it out (an unknown column is an
// error); a label with more distinct values than half the rows draws a warning, more than MaxClasses is
// refused unless forced.
func TestColumnWarnings(t *testing.T) {
	db := mustOpenDB(t)
	ctx := context.Background()
	mustExec(t, db, `CREATE TABLE wine AS SELECT i AS id, 'r' || (i * 7919 % 1000) AS ref, i % 4 AS customer_id,
		sin(i) + (i % 3) AS acidity, ['a', 'b', 'c'][1 + i % 3] AS grade, i * 0.37 AS alcohol FROM range(1, 301) r(i)`)
	train := func(spec sqlnb.TrainSpec) (*sqlnb.TrainResult, error) {
		spec.Model, spec.Source = "w", "wine"
		return sqlnb.Train(ctx, db, spec)
	}
	res, err := train(sqlnb.TrainSpec{Label: "grade", Exclude: []string{"alcohol"}})
	if err != nil {
		t.Fatal(err)
	}
	want := []string{
		`feature "id" has a different value in every row (300 distinct values in 300 rows read) and is named like an identifier: if it identifies rows it only adds noise; leave it out with --exclude id (exclude := ['id'])`,
		`feature "ref" has a different value in every row (300 distinct values in 300 rows read)`,
		`feature "customer_id" is named like an identifier`,
	}
	if len(res.Warnings) != len(want) {
		t.Fatalf("warnings %q, want %d", res.Warnings, len(want))
	}
	for i, w := range want {
		if !strings.HasPrefix(res.Warnings[i], w) {
			t.Errorf("warning %d: %q, want it to start with %q", i, res.Warnings[i], w)
		}
	}
	if n := len(res.Model.Features); n != 4 {
		t.Errorf("%d features with alcohol excluded, want 4", n)
	}
	// Chosen by name, a feature is not warned about its name, only about its values.
	res, err = train(sqlnb.TrainSpec{Label: "grade", Features: []string{"customer_id", "acidity"}})
	if err != nil || len(res.Warnings) != 0 {
		t.Errorf("explicit features: warnings %q, %v", res.Warnings, err)
	}
	res, err = train(sqlnb.TrainSpec{Label: "grade", Exclude: []string{"ID", "ref", "customer_id"}})
	if err != nil || len(res.Warnings) != 0 || len(res.Model.Features) != 2 {
		t.Errorf("excluded (case-insensitive): warnings %q, %v", res.Warnings, err)
	}
	if _, err := train(sqlnb.TrainSpec{Label: "grade", Exclude: []string{"nope"}}); !errors.Is(err, sqlnb.ErrUnknownColumn) ||
		!strings.Contains(err.Error(), `excluded column "nope" is not in the source (columns: id, ref,`) {
		t.Errorf("unknown excluded column: %v", err)
	}
	// A label with a class for every other row: a warning; more than MaxClasses classes: refused, or a
	// warning when forced.
	res, err = train(sqlnb.TrainSpec{Label: "customer_id", Features: []string{"acidity"}})
	if err != nil || len(res.Warnings) != 0 {
		t.Errorf("4 classes in 300 rows: %q, %v", res.Warnings, err)
	}
	mustExec(t, db, `CREATE OR REPLACE TABLE wine AS SELECT i % 200 AS batch, sin(i) AS acidity FROM range(300) r(i)`)
	res, err = train(sqlnb.TrainSpec{Label: "batch"})
	if err != nil || len(res.Warnings) != 1 || !strings.Contains(res.Warnings[0], `label column "batch" has 200 distinct values in 300 rows (67%)`) {
		t.Errorf("200 classes in 300 rows: %q, %v", res.Warnings, err)
	}
	mustExec(t, db, `CREATE OR REPLACE TABLE wine AS SELECT i * 0.5 AS alcohol, sin(i) AS acidity FROM range(20000) r(i)`)
	_, err = train(sqlnb.TrainSpec{Label: "alcohol"})
	if !errors.Is(err, sqlnb.ErrTooManyClasses) || !strings.Contains(err.Error(), `label column "alcohol" has at least 10000 distinct values (in its first 10000 rows), more than 1000 classes`) ||
		!strings.Contains(err.Error(), "--force (force := true)") {
		t.Errorf("20000 classes: %v", err)
	}
	// Sorted so that the first rows hold few classes: the count after training refuses it.
	mustExec(t, db, `CREATE OR REPLACE TABLE wine AS SELECT (i // 10) AS batch, sin(i) AS acidity FROM range(20000) r(i) ORDER BY i`)
	if _, err = train(sqlnb.TrainSpec{Label: "batch"}); !errors.Is(err, sqlnb.ErrTooManyClasses) || !strings.Contains(err.Error(), "has 2000 distinct values in 20000 rows") {
		t.Errorf("2000 classes: %v", err)
	}
	mustExec(t, db, `CREATE OR REPLACE TABLE wine AS SELECT (i % 1500) AS batch, sin(i) AS acidity FROM range(2000) r(i)`)
	res, err = train(sqlnb.TrainSpec{Label: "batch", Force: true})
	if err != nil || len(res.Model.Classes) != 1500 || len(res.Warnings) != 1 {
		t.Errorf("forced: %v, warnings %q", err, res.Warnings)
	}
}

// TestIdentifierNames: the names that count as identifiers.
func TestIdentifierNames(t *testing.T) {
	for name, want := range map[string]bool{
		"id": true, "ID": true, "uuid": true, "row_id": true, "rowid": true, "index": true, "Unnamed: 0": true,
		"customer_id": true, "order-id": true, "user id": true, "customerId": true, "customerID": true, "id_card": true,
		"api_key": true, "paid": false, "valid": false, "VALID": false, "idle": false, "width": false, "acid": false,
		"grid": false, "keyboard": false, "identity": false,
	} {
		if got := sqlnb.LooksLikeIdentifier(name); got != want {
			t.Errorf("%q: %v, want %v", name, got, want)
		}
	}
}

// TestWideIntegerIdentifiers: an account number kept as HUGEINT, UHUGEINT or DECIMAL(18,0) with a different
// value in every row draws the warning a BIGINT one does (those types were not looked at, and such a column
// then set the Gaussian variance floor and hid the other features: accuracy 0.584 fell to 0.5); a DECIMAL
// with a fraction is a measurement and draws none.
func TestWideIntegerIdentifiers(t *testing.T) {
	db := mustOpenDB(t)
	ctx := context.Background()
	mustExec(t, db, `CREATE TABLE b AS SELECT i AS id, (i % 2 = 0) AS y, (i % 2) * 0.5 + sin(i) AS x FROM range(1000) r(i)`)
	for typ, warned := range map[string]bool{"BIGINT": true, "HUGEINT": true, "UHUGEINT": true, "DECIMAL(18,0)": true, "DECIMAL(18,2)": false} {
		res, err := sqlnb.Train(ctx, db, sqlnb.TrainSpec{Model: "k", Source: fmt.Sprintf("SELECT y, x, (id * 1000)::%s AS acct FROM b", typ), Label: "y"})
		if err != nil {
			t.Fatal(err)
		}
		got := len(res.Warnings) == 1 && strings.Contains(res.Warnings[0], `feature "acct" has a different value in every row`)
		if got != warned || len(res.Warnings) > 1 {
			t.Errorf("%s: warnings %q, want one: %v", typ, res.Warnings, warned)
		}
	}
}
