package udf_test

import (
	"context"
	"fmt"
	"log"

	"github.com/sqlnb/sqlnb/udf"
)

// Open a database with the nb_* functions, train from SQL and score a batch — a whole parquet file —
// inside DuckDB: nb_predict returns the label column's type, nb_proba one class's posterior, nb_explain the
// features that decided (here the strongest one).
func ExampleOpen() {
	ctx := context.Background()
	db, err := udf.Open("") // in memory; a file path keeps the models for later sessions
	if err != nil {
		log.Fatal(err)
	}
	defer db.Close()
	if _, err := db.ExecContext(ctx, `CALL nb_train('votes', '../testdata/housevotes84/train.csv', 'party')`); err != nil {
		log.Fatal(err)
	}
	// nb_explain names the classes it compares (two classes: the second against the first); its first
	// element is the feature with the largest log-likelihood ratio.
	rows, err := db.QueryContext(ctx, `SELECT id, nb_predict('votes', t), nb_proba('votes', t, 'democrat'), e.class, e.versus,
		e.feature, e.value, e.contribution
		FROM (SELECT *, nb_explain('votes', t)[1] AS e FROM '../testdata/housevotes84/test.parquet' t) t ORDER BY id LIMIT 3`)
	if err != nil {
		log.Fatal(err)
	}
	defer rows.Close()
	for rows.Next() {
		var id int32
		var party, class, versus, feature, value string
		var p, llr float64
		if err := rows.Scan(&id, &party, &p, &class, &versus, &feature, &value, &llr); err != nil {
			log.Fatal(err)
		}
		fmt.Printf("%d: %s, p(democrat) = %.4f; %s against %s: %s = %s, %.3f\n", id, party, p, class, versus, feature, value, llr)
	}
	if err := rows.Err(); err != nil {
		log.Fatal(err)
	}
	// Output:
	// 5: democrat, p(democrat) = 0.9619; republican against democrat: physician-fee-freeze = n, -3.744
	// 10: democrat, p(democrat) = 1.0000; republican against democrat: physician-fee-freeze = n, -3.744
	// 15: republican, p(democrat) = 0.0000; republican against democrat: physician-fee-freeze = y, 2.671
}
