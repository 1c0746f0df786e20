package sqlnb_test

import (
	"context"
	"fmt"
	"log"
	"strings"

	"github.com/sqlnb/sqlnb/internal/kernel"
	"github.com/sqlnb/sqlnb/sqlnb"
	"github.com/sqlnb/sqlnb/udf"
)

// votes is the bundled UCI Congressional Voting Records split (testdata/housevotes84).
const (
	votesTrain = "../testdata/housevotes84/train.csv"
	votesTest  = "../testdata/housevotes84/test.parquet"
)

// Train a model inside DuckDB: one GROUP BY pass computes the statistics, stored as tables of schema nb.
// udf.Open gives a database with the nb_* SQL functions; Train itself needs only SQL.
func ExampleTrain() {
	ctx := context.Background()
	db, err := udf.Open("") // in memory; a file path keeps the models
	if err != nil {
		log.Fatal(err)
	}
	defer db.Close()
	res, err := sqlnb.Train(ctx, db, sqlnb.TrainSpec{Model: "votes", Source: votesTrain, Label: "party"})
	if err != nil {
		log.Fatal(err)
	}
	m := res.Model
	fmt.Printf("%q: %d rows, %d features (%s), classes %s (%d) and %s (%d)\n", m.Name, m.Rows, len(m.Features),
		strings.Join(m.Kinds(), ", "), m.Classes[0].Label, m.Classes[0].Count, m.Classes[1].Label, m.Classes[1].Count)
	// Output: "votes": 348 rows, 16 features (categorical), classes democrat (211) and republican (137)
}

// Score one row from Go: the row is a map of column name to value, decoded as the SQL functions decode a
// STRUCT (nil is a missing value, skipped). No database is needed once the model is loaded.
func ExampleScorer_ScoreRow() {
	ctx := context.Background()
	db, err := udf.Open("")
	if err != nil {
		log.Fatal(err)
	}
	defer db.Close()
	if _, err := sqlnb.Train(ctx, db, sqlnb.TrainSpec{Model: "votes", Source: votesTrain, Label: "party",
		Features: []string{"physician-fee-freeze", "el-salvador-aid", "crime"}}); err != nil {
		log.Fatal(err)
	}
	m, err := sqlnb.Load(ctx, db, "votes")
	if err != nil {
		log.Fatal(err)
	}
	s, err := sqlnb.Compile(m)
	if err != nil {
		log.Fatal(err)
	}
	posterior, label, err := s.ScoreRow(map[string]any{"physician-fee-freeze": "n", "el-salvador-aid": "y", "crime": nil})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("%s: p(democrat) = %.4f, p(republican) = %.4f\n", label, posterior["democrat"], posterior["republican"])
	// Output: democrat: p(democrat) = 0.9457, p(republican) = 0.0543
}

// Score a batch from Go: BatchOf decodes the rows into columns once, JointLogLikelihood scores them all
// with the vector kernels, Posterior and Argmax turn the scores into probabilities and labels.
func ExampleScorer_BatchOf() {
	ctx := context.Background()
	db, err := udf.Open("")
	if err != nil {
		log.Fatal(err)
	}
	defer db.Close()
	if _, err := sqlnb.Train(ctx, db, sqlnb.TrainSpec{Model: "votes", Source: votesTrain, Label: "party",
		Features: []string{"physician-fee-freeze", "el-salvador-aid", "crime"}}); err != nil {
		log.Fatal(err)
	}
	m, err := sqlnb.Load(ctx, db, "votes")
	if err != nil {
		log.Fatal(err)
	}
	s, err := sqlnb.Compile(m)
	if err != nil {
		log.Fatal(err)
	}
	rows := []map[string]any{
		{"physician-fee-freeze": "y", "el-salvador-aid": "y", "crime": "y"},
		{"physician-fee-freeze": "n", "el-salvador-aid": "n", "crime": "n"},
		{"physician-fee-freeze": nil, "el-salvador-aid": nil, "crime": nil}, // the prior
	}
	b, err := s.BatchOf(rows)
	if err != nil {
		log.Fatal(err)
	}
	n, K := len(rows), len(s.Labels)
	jll := make([]float64, n*K) // class-major: jll[c*n+i]
	s.JointLogLikelihood(b, jll, nil)
	best := make([]int32, n)
	kernel.Argmax(jll, n, K, best, make([]float64, n))
	post := make([]float64, K)
	for i := range rows {
		kernel.Posterior(jll, n, K, i, post)
		fmt.Printf("row %d: %s (p = %.4f)\n", i, s.Labels[best[i]], post[best[i]])
	}
	// Output:
	// row 0: republican (p = 0.9893)
	// row 1: democrat (p = 0.9999)
	// row 2: democrat (p = 0.6063)
}

// Evaluate a stored model on a labelled source: it is scored once with nb_predict_proba and every metric is
// computed inside DuckDB with scikit-learn's definitions. Evaluate needs one connection of a database
// opened by udf.Open (the scored rows are a temporary table).
func ExampleEvaluate() {
	ctx := context.Background()
	db, err := udf.Open("")
	if err != nil {
		log.Fatal(err)
	}
	defer db.Close()
	if _, err := sqlnb.Train(ctx, db, sqlnb.TrainSpec{Model: "votes", Source: votesTrain, Label: "party"}); err != nil {
		log.Fatal(err)
	}
	conn, err := db.Conn(ctx)
	if err != nil {
		log.Fatal(err)
	}
	defer conn.Close()
	e, err := sqlnb.Evaluate(ctx, conn, sqlnb.EvalSpec{Model: "votes", Source: votesTest, PosLabel: "republican"})
	if err != nil {
		log.Fatal(err)
	}
	for _, metric := range []string{"accuracy", "f1_macro", "roc_auc", "log_loss"} {
		v, _ := e.Get(metric, "")
		fmt.Printf("%s %.4f\n", metric, v)
	}
	recall, _ := e.Get("recall", "republican")
	fmt.Printf("recall of republican %.4f\n", recall)
	// Output:
	// accuracy 0.9770
	// f1_macro 0.9753
	// roc_auc 0.9948
	// log_loss 0.1609
	// recall of republican 1.0000
}

// Cross-validate: one statistics scan gives every fold's model (exact merges), each row is scored once by
// its fold's model, and every smoothing setting is evaluated from the same statistics. The database opened
// by udf.Open registers the fold models (it is the FoldRegistrar).
func ExampleCrossValidate() {
	ctx := context.Background()
	db, err := udf.Open("")
	if err != nil {
		log.Fatal(err)
	}
	defer db.Close()
	conn, err := db.Conn(ctx)
	if err != nil {
		log.Fatal(err)
	}
	defer conn.Close()
	res, err := sqlnb.CrossValidate(ctx, conn, db, sqlnb.CVSpec{Folds: 5, Stratified: true, Alphas: []float64{0, 1, 10},
		Train: sqlnb.TrainSpec{Model: "cv", Source: votesTrain, Label: "party"}})
	if err != nil {
		log.Fatal(err)
	}
	for _, s := range res.Settings {
		fmt.Printf("alpha %g: accuracy %.4f ± %.4f\n", s.Params.Float("alpha"), s.Mean["accuracy"], s.SD["accuracy"])
	}
	fmt.Printf("best alpha: %g\n", res.Settings[res.Best].Params.Float("alpha"))
	// Output:
	// alpha 0: accuracy 0.8823 ± 0.0419
	// alpha 1: accuracy 0.8823 ± 0.0419
	// alpha 10: accuracy 0.8794 ± 0.0458
	// best alpha: 0
}
