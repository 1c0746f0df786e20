package udf_test

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/sqlnb/sqlnb/sqlnb"
	"github.com/sqlnb/sqlnb/udf"
)

// emData is a synthetic semi-supervised data set: rows of numbers (Gaussian or count features) or category
// codes, a class per row (-1: unlabelled) and a sample weight.
type emData struct {
	kind   string // gaussian, categorical, multinomial
	x      [][]float64
	y      []int
	w      []float64
	labels []string
}

// emModel is the plain-Go reference's model: priors and, per class, the per-feature parameters (Gaussian
// mean and variance; categorical probability per value and of an unseen value; multinomial log θ).
type emModel struct {
	prior    []float64
	mean     [][]float64
	variance [][]float64
	prob     [][]map[float64]float64 // categorical: [class][feature][value]
	unseen   [][]float64
	logTheta [][]float64 // multinomial: [class][feature]
}

const refAlpha, refVarSmoothing = 1.0, 1e-9

// fit is the reference M-step: the model of the rows with responsibilities r[i][c] (sample weight
// included), by the scoring rules of sqlnb (README "Scoring rules"): Gaussian var = Σ r (x - μ)² / Σ r + ε,
// ε = 1e-9 × the largest feature variance over the rows taking part (all labelled rows at the start; then
// every row once with its weight); categorical θ = (n + α)/(N + αJ) over the J values seen in the rows
// taking part, unseen α/(N + αJ); multinomial θ_j = (N_j + α)/(Σ N + αV); priors Σ r / Σ w.
func (d *emData) fit(r [][]float64, all bool) *emModel {
	K, m := len(d.labels), len(d.x[0])
	part := func(i int) bool { return all || d.y[i] >= 0 }
	mod := &emModel{prior: make([]float64, K)}
	W := make([]float64, K)
	total := 0.0
	for i := range d.x {
		if !part(i) {
			continue
		}
		for c := range K {
			W[c] += r[i][c]
			total += r[i][c]
		}
	}
	for c := range K {
		mod.prior[c] = W[c] / total
	}
	switch d.kind {
	case "gaussian":
		maxVar := 0.0
		for j := range m {
			sw, s := 0.0, 0.0
			for i := range d.x {
				if part(i) {
					wi := d.w[i]
					if !all {
						wi = 1 // the labelled start is a plain training: unweighted ε, as scikit-learn
					}
					sw += wi
					s += wi * d.x[i][j]
				}
			}
			mu, ss := s/sw, 0.0
			for i := range d.x {
				if part(i) {
					wi := d.w[i]
					if !all {
						wi = 1
					}
					ss += wi * (d.x[i][j] - mu) * (d.x[i][j] - mu)
				}
			}
			maxVar = math.Max(maxVar, ss/sw)
		}
		eps := refVarSmoothing * maxVar
		for c := range K {
			mu, vr := make([]float64, m), make([]float64, m)
			for j := range m {
				s := 0.0
				for i := range d.x {
					if part(i) {
						s += r[i][c] * d.x[i][j]
					}
				}
				mu[j] = s / W[c]
				ss := 0.0
				for i := range d.x {
					if part(i) {
						ss += r[i][c] * (d.x[i][j] - mu[j]) * (d.x[i][j] - mu[j])
					}
				}
				vr[j] = ss/W[c] + eps
			}
			mod.mean, mod.variance = append(mod.mean, mu), append(mod.variance, vr)
		}
	case "categorical":
		for c := range K {
			var probs []map[float64]float64
			var unseen []float64
			for j := range m {
				n := map[float64]float64{}
				for i := range d.x {
					if part(i) {
						n[d.x[i][j]] += r[i][c]
					}
				}
				N := 0.0
				for _, v := range n {
					N += v
				}
				J := float64(len(n))
				p := map[float64]float64{}
				for v, x := range n {
					p[v] = (x + refAlpha) / (N + refAlpha*J)
				}
				probs, unseen = append(probs, p), append(unseen, refAlpha/(N+refAlpha*J))
			}
			mod.prob, mod.unseen = append(mod.prob, probs), append(mod.unseen, unseen)
		}
	case "multinomial":
		for c := range K {
			N, sum := make([]float64, m), 0.0
			for j := range m {
				for i := range d.x {
					if part(i) {
						N[j] += r[i][c] * d.x[i][j]
					}
				}
				sum += N[j]
			}
			lt := make([]float64, m)
			for j := range m {
				lt[j] = math.Log(N[j]+refAlpha) - math.Log(sum+refAlpha*float64(m))
			}
			mod.logTheta = append(mod.logTheta, lt)
		}
	}
	return mod
}

// jll is log p(x, c) per class (multinomial: up to the multinomial coefficient, as sqlnb scores it).
func (mod *emModel) jll(x []float64) []float64 {
	out := make([]float64, len(mod.prior))
	for c := range out {
		s := math.Log(mod.prior[c])
		for j, v := range x {
			switch {
			case mod.mean != nil:
				s += -0.5*math.Log(2*math.Pi*mod.variance[c][j]) - (v-mod.mean[c][j])*(v-mod.mean[c][j])/(2*mod.variance[c][j])
			case mod.prob != nil:
				p, ok := mod.prob[c][j][v]
				if !ok {
					p = mod.unseen[c][j]
				}
				s += math.Log(p)
			default:
				s += v * mod.logTheta[c][j]
			}
		}
		out[c] = s
	}
	return out
}

// estep returns the responsibilities (labelled rows: their weight on their class; unlabelled: weight ×
// posterior) and the log-likelihood Σ w log p(x, y) + Σ w log p(x).
func (d *emData) estep(mod *emModel) ([][]float64, float64) {
	K := len(d.labels)
	r := make([][]float64, len(d.x))
	ll := 0.0
	for i, x := range d.x {
		r[i] = make([]float64, K)
		b := mod.jll(x)
		if d.y[i] >= 0 {
			r[i][d.y[i]] = d.w[i]
			ll += d.w[i] * b[d.y[i]]
			continue
		}
		top := slicesMax(b)
		s := 0.0
		for _, v := range b {
			s += math.Exp(v - top)
		}
		lse := top + math.Log(s)
		ll += d.w[i] * lse
		for c, v := range b {
			r[i][c] = d.w[i] * math.Exp(v-lse)
		}
	}
	return r, ll
}

func slicesMax(xs []float64) float64 {
	m := math.Inf(-1)
	for _, x := range xs {
		m = math.Max(m, x)
	}
	return m
}

// em is the reference EM with sqlnb's stopping rule: start from the labelled rows, always take the first
// step, then stop when a step raises the log-likelihood by at most tol × |previous| or after maxIter.
func (d *emData) em(tol float64, maxIter int) (*emModel, float64, int) {
	r, _ := d.estep(d.fit(d.labelledResp(), false))
	var ll float64
	var mod *emModel
	for it := 1; ; it++ {
		mod = d.fit(r, true)
		var nll float64
		r, nll = d.estep(mod)
		if it > 1 && !(nll-ll > tol*math.Abs(ll)) {
			return mod, nll, it
		}
		ll = nll
		if it >= maxIter {
			return mod, nll, it
		}
	}
}

func (d *emData) labelledResp() [][]float64 {
	r := make([][]float64, len(d.x))
	for i := range r {
		r[i] = make([]float64, len(d.labels))
		if d.y[i] >= 0 {
			r[i][d.y[i]] = d.w[i]
		}
	}
	return r
}

// makeEMData draws n rows of two or three overlapping classes, labelling one row in labelEvery.
func makeEMData(kind string, n, labelEvery int, weighted bool, seed uint64) *emData {
	rng := rand.New(rand.NewPCG(seed, 7))
	d := &emData{kind: kind, labels: []string{"a", "b", "c"}}
	for i := range n {
		c := rng.IntN(3)
		var x []float64
		switch kind {
		case "gaussian":
			x = []float64{float64(c) + rng.NormFloat64(), 2*float64(c%2) + 1.5*rng.NormFloat64(), 100 + 0.5*float64(c) + rng.NormFloat64()}
		case "categorical":
			for j := range 4 {
				v := rng.IntN(4)
				if rng.Float64() < 0.5 {
					v = (c + j) % 4
				}
				x = append(x, float64(v))
			}
		case "multinomial":
			for j := range 6 {
				lambda := 1.0
				if j%3 == c {
					lambda = 3
				}
				k := math.Floor(rng.ExpFloat64() * lambda) // geometric counts
				x = append(x, k)
			}
		}
		y := -1
		if i%labelEvery == 0 {
			y = c
		}
		w := 1.0
		if weighted {
			w = 0.5 + rng.Float64()
		}
		d.x, d.y, d.w = append(d.x, x), append(d.y, y), append(d.w, w)
	}
	return d
}

type execer interface {
	ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error)
}

// createEMTable writes d into table name: y (VARCHAR, NULL when unlabelled), w, and x0, x1, ... (DOUBLE,
// or VARCHAR codes 'v0', 'v1', ... for categorical features), every value a bound parameter.
func createEMTable(t *testing.T, db execer, name string, d *emData) {
	t.Helper()
	var cols []string
	for j := range d.x[0] {
		typ := "DOUBLE"
		if d.kind == "categorical" {
			typ = "VARCHAR"
		}
		cols = append(cols, fmt.Sprintf("x%d %s", j, typ))
	}
	if _, err := db.ExecContext(context.Background(), fmt.Sprintf("CREATE TABLE %s (y VARCHAR, w DOUBLE, %s)", name, strings.Join(cols, ", "))); err != nil {
		t.Fatal(err)
	}
	marks := strings.Repeat(", ?", len(d.x[0])+1)
	for i, x := range d.x {
		var y any
		if d.y[i] >= 0 {
			y = d.labels[d.y[i]]
		}
		args := []any{y, d.w[i]}
		for _, v := range x {
			if d.kind == "categorical" {
				args = append(args, fmt.Sprintf("v%d", int(v)))
			} else {
				args = append(args, v)
			}
		}
		if _, err := db.ExecContext(context.Background(), "INSERT INTO "+name+" VALUES (?"+marks+")", args...); err != nil {
			t.Fatal(err)
		}
	}
}

// TestSemiSupervisedMatchesReferenceEM: nb_train(semi_supervised := true) gives the model, EM step count
// and log-likelihood of the plain-Go EM above (same start, E-step, M-step and stopping rule), to 1e-9, for
// Gaussian (with and without sample weights, one feature offset by 100), categorical and multinomial
// features on synthetic data with one row in six labelled. Such a model does not merge (ErrNotMergeable).
func TestSemiSupervisedMatchesReferenceEM(t *testing.T) {
	for _, c := range []struct {
		name, kind string
		weighted   bool
	}{{"gaussian", "gaussian", false}, {"gaussian_weighted", "gaussian", true}, {"categorical", "categorical", false},
		{"categorical_weighted", "categorical", true}, {"multinomial", "multinomial", false}} {
		t.Run(c.name, func(t *testing.T) {
			db := mustOpenDB(t)
			ctx := context.Background()
			d := makeEMData(c.kind, 600, 6, c.weighted, 11)
			createEMTable(t, db, "d", d)
			ref, refLL, refSteps := d.em(sqlnb.DefaultEMTol, 100)
			var feats []string
			for j := range d.x[0] {
				feats = append(feats, fmt.Sprintf("'x%d'", j))
			}
			opts := "features := [" + strings.Join(feats, ", ") + "]"
			if c.kind == "multinomial" {
				opts += ", kind := 'multinomial'"
			}
			if c.weighted {
				opts += ", weight := 'w'"
			}
			got := queryStrings(t, db, "SELECT n_rows, skipped_rows, unlabelled_rows, iterations FROM nb_train('m', 'd', 'y', semi_supervised := true, "+opts+")")
			if want := fmt.Sprintf("[[100 0 500 %d]]", refSteps); fmt.Sprint(got) != want {
				t.Fatalf("nb_train: got %v, want %s (the reference took %d EM steps)", got, want, refSteps)
			}
			m, err := sqlnb.Load(ctx, db, "m")
			if err != nil {
				t.Fatal(err)
			}
			if math.Abs(m.LogLikelihood-refLL) > 1e-9*math.Abs(refLL) {
				t.Errorf("log-likelihood %.15g, reference %.15g", m.LogLikelihood, refLL)
			}
			s, err := sqlnb.Compile(m)
			if err != nil {
				t.Fatal(err)
			}
			checked := 0
			for _, p := range sqlnb.Parameters(s) {
				c := slicesIndex(d.labels, p.Class)
				var want float64
				switch p.Parameter {
				case "prior":
					want = ref.prior[c]
				case "mean", "variance", "log_prob", "probability", "unseen":
					var j int
					fmt.Sscanf(p.Feature, "x%d", &j)
					switch p.Parameter {
					case "mean":
						want = ref.mean[c][j]
					case "variance":
						want = ref.variance[c][j]
					case "log_prob":
						want = ref.logTheta[c][j]
					case "unseen":
						want = ref.unseen[c][j]
					default:
						var v int
						fmt.Sscanf(p.Value, "v%d", &v)
						want = ref.prob[c][j][float64(v)]
					}
				default:
					t.Fatalf("unexpected parameter %+v", p)
				}
				if math.Abs(p.Estimate-want) > 1e-9*math.Max(1, math.Abs(want)) {
					t.Errorf("%s %s class %s %s: got %.15g, reference %.15g", p.Feature, p.Parameter, p.Class, p.Value, p.Estimate, want)
				}
				checked++
			}
			if _, err := sqlnb.Merge(m, nil, m); !errors.Is(err, sqlnb.ErrNotMergeable) {
				t.Errorf("merge of a semi-supervised model: %v, want ErrNotMergeable", err)
			}
			// Adding or forgetting rows would not refit EM either.
			for name, update := range map[string]func(context.Context, sqlnb.DB, sqlnb.UpdateSpec) (*sqlnb.UpdateResult, error){
				"append": sqlnb.Append, "forget": sqlnb.Forget} {
				if _, err := update(ctx, db, sqlnb.UpdateSpec{Model: "m", Source: "SELECT * FROM d WHERE y IS NOT NULL"}); !errors.Is(err, sqlnb.ErrNotMergeable) {
					t.Errorf("%s on a semi-supervised model: %v, want ErrNotMergeable", name, err)
				}
			}
			if checked < 3*len(d.x[0]) {
				t.Errorf("only %d parameters compared", checked)
			}
			t.Logf("%s: %d EM steps, log-likelihood %.10g", c.name, refSteps, refLL)
		})
	}
}

func slicesIndex(xs []string, s string) int {
	for i, x := range xs {
		if x == s {
			return i
		}
	}
	return -1
}

// TestSemiSupervisedReuters hides most labels of the bundled Reuters corpus (70 stories, 50 acq and 20
// crude; testdata/reuters): with k labelled stories per class (chosen by a seeded hash, 20 draws), a text
// model trained on the labelled stories only and one trained semi-supervised on all of them are scored on the
// stories whose labels were hidden. Nigam et al. (2000) found EM helps multinomial text models when labels
// are few; here the semi-supervised mean accuracy is higher for every k (README "Semi-supervised
// training" lists the numbers this test logs).
func TestSemiSupervisedReuters(t *testing.T) {
	db := mustOpenDB(t)
	mustExec(t, db, `CREATE TABLE stories AS SELECT * FROM '../testdata/reuters/reuters.csv'`)
	for _, k := range []int{1, 2, 5} {
		semi, lab, ge := 0.0, 0.0, 0
		const draws = 20
		for s := range draws {
			mustExec(t, db, `CREATE OR REPLACE TABLE r AS SELECT text, topic AS truth, CASE WHEN row_number() OVER (PARTITION BY topic ORDER BY hash(id, ?::BIGINT)) <= ? THEN topic END AS topic FROM stories`, s, k)
			mustExec(t, db, `CALL nb_train('semi', 'SELECT text, topic FROM r', 'topic', feature_kinds := 'text=text', semi_supervised := true)`)
			mustExec(t, db, `CALL nb_train('labelled', 'SELECT text, topic FROM r', 'topic', feature_kinds := 'text=text')`)
			got := queryStrings(t, db, `SELECT avg((nb_predict('semi', t) = truth)::INT), avg((nb_predict('labelled', t) = truth)::INT), count(*) FROM r t WHERE topic IS NULL`)
			var a, b float64
			var n int
			fmt.Sscan(got[0][0], &a)
			fmt.Sscan(got[0][1], &b)
			fmt.Sscan(got[0][2], &n)
			if n != 70-2*k {
				t.Fatalf("k %d, draw %d: %d held-out stories", k, s, n)
			}
			semi, lab = semi+a/draws, lab+b/draws
			if a >= b {
				ge++
			}
		}
		t.Logf("%d labelled per class: accuracy on the hidden labels %.3f semi-supervised, %.3f labelled only; semi-supervised ≥ in %d of %d draws", k, semi, lab, ge, draws)
		if !(semi > lab) {
			t.Errorf("%d labelled per class: semi-supervised mean accuracy %.4f, labelled only %.4f", k, semi, lab)
		}
	}
}

// TestSemiSupervisedErrors: nb_train(semi_supervised := true) refuses, naming the feature and what to do,
// the kinds EM cannot fit here (complement weights are not likelihoods; logistic is fitted, not summed;
// text_bernoulli takes no weights), and a direct sqlnb.Train without the scoring functions.
func TestSemiSupervisedErrors(t *testing.T) {
	db := mustOpenDB(t)
	mustExec(t, db, `CREATE TABLE d AS SELECT CASE WHEN i % 4 = 0 THEN ['a', 'b'][1 + i % 8 // 4] END AS y, (i % 5)::DOUBLE AS n,
		'w' || (i % 3) || ' z' AS doc FROM range(200) r(i)`)
	for _, c := range []struct{ opts, want string }{
		{"features := ['n'], kind := 'complement'", `feature "n" is complement`},
		{"features := ['n'], kind := 'logistic'", `feature "n" is logistic`},
		{"features := ['doc'], kind := 'text_bernoulli'", `feature "doc" is text_bernoulli, which takes no row weights yet, and semi-supervised training weighs the unlabelled rows by their posteriors: use text, or drop --semi-supervised`},
	} {
		_, err := db.ExecContext(context.Background(), `CALL nb_train('m', 'd', 'y', semi_supervised := true, `+c.opts+`)`)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: got %v, want %q", c.opts, err, c.want)
		}
	}
	_, err := sqlnb.Train(context.Background(), db, sqlnb.TrainSpec{Model: "m", Source: "d", Label: "y", Features: []string{"n"}, SemiSupervised: true})
	if !errors.Is(err, sqlnb.ErrBadOption) || !strings.Contains(err.Error(), "needs the scoring functions") {
		t.Errorf("no registrar: %v", err)
	}
	got := queryStrings(t, db, `SELECT n_rows, skipped_rows, unlabelled_rows, iterations, log_likelihood IS NULL FROM nb_train('plain', 'd', 'y', features := ['n'])`)
	if fmt.Sprint(got) != "[[50 150 0 0 true]]" {
		t.Errorf("nb_train without semi_supervised: %v", got)
	}
}

// cancellationDB holds 300,000 rows, 2% of them labelled (a semi-supervised training of many EM steps),
// and a model m trained on them: the model a cancelled training must leave as it was.
func cancellationDB(t *testing.T) (*udf.DB, *sqlnb.Model) {
	t.Helper()
	db := mustOpenDB(t)
	mustExec(t, db, `CREATE TABLE d AS SELECT CASE WHEN i % 50 = 0 THEN ['a', 'b'][1 + i % 100 // 50] END AS y,
		(i % 2) * 1.2 + sin(i * 7) AS x1, ((i + 1) % 2) + cos(i * 3) AS x2, sin(i) * 3 AS x3 FROM range(300000) r(i)`)
	mustExec(t, db, `CALL nb_train('m', 'd', 'y')`)
	old, err := sqlnb.Load(context.Background(), db, "m")
	if err != nil {
		t.Fatal(err)
	}
	return db, old
}

// TestSemiSupervisedCancelledKeepsModel: a semi-supervised training stopped in the middle (its context
// cancelled, as when the process is interrupted) stores nothing: the previous model stays, generation and
// all, and the temporary tables are gone from the connection.
func TestSemiSupervisedCancelledKeepsModel(t *testing.T) {
	db, old := cancellationDB(t)
	conn, err := db.Conn(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 700*time.Millisecond)
	defer cancel()
	p := sqlnb.DefaultParams()
	p = p.With("tol", 1e-300).With("max_iter", int64(1000))
	_, err = sqlnb.Train(ctx, conn, sqlnb.TrainSpec{Model: "m", Source: "d", Label: "y", SemiSupervised: true, Registrar: db, Params: &p})
	if err == nil {
		t.Fatal("the training finished before it was cancelled: make the data larger")
	}
	t.Logf("cancelled: %v", err)
	now, lerr := sqlnb.Load(context.Background(), db, "m")
	if lerr != nil || now.Generation != old.Generation || now.UnlabelledRows != 0 {
		t.Errorf("after a cancelled training (%v): model %+v, %v", err, now, lerr)
	}
	var n int
	if err := conn.QueryRowContext(context.Background(), `SELECT count(*) FROM duckdb_tables() WHERE table_name LIKE 'nb_em_%'`).Scan(&n); err != nil || n != 0 {
		t.Errorf("%d temporary tables left (%v)", n, err)
	}
}

// TestSemiSupervisedCrossValidation: nb_cv(semi_supervised := true) fits each fold's model by EM on the
// other folds' rows (labelled and not) and scores the fold's labelled rows: fold 0's accuracy equals that of
// nb_train(semi_supervised := true) on the rows outside fold 0, scored on fold 0.
func TestSemiSupervisedCrossValidation(t *testing.T) {
	db := mustOpenDB(t)
	mustExec(t, db, `CREATE TABLE d AS SELECT CASE WHEN i % 3 = 0 THEN ['a', 'b'][1 + i % 2] END AS y,
		(i % 2) * 1.5 + sin(i * 7) AS x1, cos(i * 3) + (i % 2) AS x2 FROM range(600) r(i)`)
	got := queryStrings(t, db, `SELECT folds[1] FROM nb_cv('d', 'y', folds := 3, seed := 5, semi_supervised := true) WHERE metric = 'accuracy'`)
	fold := sqlnb.FoldExpr(3, 5, "", "y", false)
	mustExec(t, db, `CALL nb_train('f0', 'SELECT * FROM d __sqlnb_row WHERE `+strings.ReplaceAll(fold, "'", "''")+` <> 0', 'y', semi_supervised := true)`)
	want := queryStrings(t, db, `SELECT avg((nb_predict('f0', __sqlnb_row) = y)::INT) FROM d __sqlnb_row WHERE y IS NOT NULL AND `+fold+` = 0`)
	if len(got) != 1 || got[0][0] != want[0][0] {
		t.Errorf("nb_cv fold 0 accuracy %v, direct %v", got, want)
	}
	if _, err := db.ExecContext(context.Background(), `FROM nb_cv('d', 'y', alpha := [0.5, 1], semi_supervised := true)`); err == nil || !strings.Contains(err.Error(), "one setting at a time") {
		t.Errorf("a sweep with semi_supervised: %v", err)
	}
}

// TestTableFunctionCancelledKeepsModel: cancelling a statement that calls nb_train (Ctrl-C in the CLI, a
// deadline in Go) stops the training, which runs on sqlnb's own connection, under the statement's context:
// the statement fails and the stored model is the one from before (it was replaced after the interrupt).
func TestTableFunctionCancelledKeepsModel(t *testing.T) {
	db, old := cancellationDB(t)
	for _, how := range []string{"exec", "query"} {
		var err error
		ctx, cancel := context.WithTimeout(context.Background(), 700*time.Millisecond)
		stmt := `CALL nb_train('m', 'd', 'y', semi_supervised := true, tol := 1e-300, max_iter := 1000)`
		start := time.Now()
		if how == "exec" {
			_, err = db.ExecContext(ctx, stmt)
		} else {
			var rows *sql.Rows
			if rows, err = db.QueryContext(ctx, stmt); err == nil {
				for rows.Next() {
				}
				err = rows.Err()
				rows.Close()
			}
		}
		cancel()
		if err == nil {
			t.Fatalf("%s: the training finished before it was cancelled: make the data larger", how)
		}
		if d := time.Since(start); d > 20*time.Second {
			t.Errorf("%s: the statement ran %v after its deadline of 0.7 s", how, d)
		}
		now, lerr := sqlnb.Load(context.Background(), db, "m")
		if lerr != nil || now.Generation != old.Generation || now.UnlabelledRows != 0 {
			t.Errorf("%s: after a cancelled nb_train (%v): model generation %s (was %s), %d unlabelled rows, %v",
				how, err, now.Generation, old.Generation, now.UnlabelledRows, lerr)
		}
	}
}

// TestCrossValidationMissingValues: cross-validation of lda, qda and logistic regression on rows where a
// feature is NULL (10% of them) leaves those rows out of each fold's metrics, as eval does: fold 0's
// accuracy and log-loss equal those of the model trained on the other folds, scored on fold 0's complete
// rows, run after run (a NULL struct's fields were left unwritten: cv crashed or counted them as errors).
func TestCrossValidationMissingValues(t *testing.T) {
	db := mustOpenDB(t)
	mustExec(t, db, `CREATE TABLE d AS SELECT ['a', 'b', 'c'][1 + i % 3] AS y,
		CASE WHEN i % 10 = 0 THEN NULL ELSE (i % 3) + sin(i * 7) END AS x1, cos(i * 3) AS x2 FROM range(1200) r(i)`)
	fold := sqlnb.FoldExpr(3, 5, "", "y", false)
	for _, kind := range []string{"lda", "qda", "logistic"} {
		mustExec(t, db, `CALL nb_train('f0', 'SELECT * FROM d __sqlnb_row WHERE `+strings.ReplaceAll(fold, "'", "''")+` <> 0', 'y', kind := '`+kind+`')`)
		want := queryStrings(t, db, `SELECT avg((nb_predict('f0', __sqlnb_row) = y)::INT), avg(-ln(nb_proba('f0', __sqlnb_row, y))) FROM d __sqlnb_row
			WHERE x1 IS NOT NULL AND `+fold+` = 0`)
		for run := range 3 {
			got := queryStrings(t, db, `SELECT metric, folds[1] FROM nb_cv('d', 'y', folds := 3, seed := 5, kind := '`+kind+`')
				WHERE metric IN ('accuracy', 'log_loss') ORDER BY metric`)
			acc, _ := strconv.ParseFloat(got[0][1], 64)
			ll, _ := strconv.ParseFloat(got[1][1], 64)
			wantAcc, _ := strconv.ParseFloat(want[0][0], 64)
			wantLL, _ := strconv.ParseFloat(want[0][1], 64)
			if math.Abs(acc-wantAcc) > 1e-12 || math.Abs(ll-wantLL) > 1e-9 {
				t.Errorf("%s run %d: nb_cv fold 0 accuracy %v, log-loss %v; direct %v, %v", kind, run, acc, ll, wantAcc, wantLL)
			}
		}
	}
}

// TestPreparedCallAfterCancel: a prepared CALL nb_train runs under its own execution's context, not under
// the cancelled context of the statement that ran on the connection before it (it failed with "no such
// table", the cancelled lookup of its source).
func TestPreparedCallAfterCancel(t *testing.T) {
	db := mustOpenDB(t)
	mustExec(t, db, `CREATE TABLE d AS SELECT ['a', 'b'][1 + i % 2] AS y, sin(i) + i % 2 AS x FROM range(100) r(i)`)
	conn, err := db.Conn(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	ctx, cancel := context.WithCancel(context.Background())
	if _, err := conn.ExecContext(ctx, "SELECT 1"); err != nil {
		t.Fatal(err)
	}
	cancel()
	st, err := conn.PrepareContext(context.Background(), `CALL nb_train('m', 'd', 'y')`)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	if _, err := st.ExecContext(context.Background()); err != nil {
		t.Errorf("a prepared CALL nb_train after a cancelled statement: %v", err)
	}
}
