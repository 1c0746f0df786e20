package bench

import (
	"context"
	"fmt"
	"math"
	"os"
	"os/exec"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"gonum.org/v1/gonum/mat"

	"github.com/sqlnb/sqlnb/queries"
	"github.com/sqlnb/sqlnb/sqlnb"
	"github.com/sqlnb/sqlnb/sqlnb/nb"
	"github.com/sqlnb/sqlnb/udf"
)

// lrFeatures is the width of the logistic regression benchmark (10M × 20).
const lrFeatures = 20

// lrData creates table d: n rows of lrFeatures features x1.. in [0, 1) and a label y of k classes,
// y = argmax_c Σ_j W_cj x_j + 3 e_c with deterministic pseudo-random uniforms (frac(sin(a)·b), the same
// formula as bench/sklearn/logreg_bench.py, so scikit-learn fits the same data).
func lrData(b *testing.B, db *udf.DB, n, k int) {
	b.Helper()
	u := func(i, j string, a, c, s float64) string {
		v := fmt.Sprintf("sin((%s + 1) * %g + %s * %g) * %g", i, a, j, c, s)
		return fmt.Sprintf("(%s - floor(%s))", v, v)
	}
	var xs, scores []string
	for j := 1; j <= lrFeatures; j++ {
		xs = append(xs, fmt.Sprintf("%s AS x%d", u("i", strconv.Itoa(j), 12.9898, 78.233, 43758.5453), j))
	}
	for c := range k {
		terms := []string{fmt.Sprintf("3 * %s", u("i", strconv.Itoa(c), 93.9898, 67.345, 24634.6345))}
		for j := 1; j <= lrFeatures; j++ {
			terms = append(terms, fmt.Sprintf("%g * x%d", float64((c+1)*(j+2)%7-3)/2, j))
		}
		scores = append(scores, strings.Join(terms, " + "))
	}
	gen := fmt.Sprintf(`CREATE OR REPLACE TABLE d AS SELECT * EXCLUDE (i, l), 'c' || (list_position(l, list_max(l)) - 1) AS y FROM (
		SELECT *, [%s] AS l FROM (SELECT i, %s FROM range(%d) r(i))) t`, strings.Join(scores, ", "), strings.Join(xs, ", "), n)
	if _, err := db.ExecContext(context.Background(), gen); err != nil {
		b.Fatal(err)
	}
}

// lrFloor is a bare aggregation pass computing the same products as one pass of a k-class logistic
// regression fit over lrFeatures columns: the gradient's Σ r_c x_j for every free class c and column j
// (with the intercept), where the pass's residuals r_c (from the softmax) are replaced by plain columns —
// no logits, exponentials or logarithms — and the log-loss's one sum.
func lrFloor(k int) string {
	m := lrFeatures
	var aggs []string
	for c := 1; c < k; c++ {
		aggs = append(aggs, fmt.Sprintf("sum(x%d)", c))
		for j := 1; j <= m; j++ {
			aggs = append(aggs, fmt.Sprintf("sum(x%d * x%d)", c, j))
		}
	}
	return fmt.Sprintf("SELECT count(*), sum(x%d), %s FROM d", m, strings.Join(aggs, ", "))
}

// sklearnLogistic runs bench/sklearn/logreg_bench.py (scikit-learn's LogisticRegression(lbfgs) on the same
// data, generated in memory by numpy) if /usr/bin/python3 has scikit-learn; it returns its summary line.
func sklearnLogistic(n, k int) string {
	py := "/usr/bin/python3"
	if _, err := os.Stat(py); err != nil {
		return "no /usr/bin/python3"
	}
	if err := exec.Command(py, "-c", "import sklearn").Run(); err != nil {
		return "python3-sklearn not installed (apt-get install python3-sklearn)"
	}
	out, err := exec.Command(py, "sklearn/logreg_bench.py", strconv.Itoa(n), strconv.Itoa(k)).CombinedOutput()
	if err != nil {
		return fmt.Sprintf("logreg_bench.py failed: %v: %s", err, out)
	}
	lines := strings.Split(strings.TrimSpace(string(out)), "\n")
	return lines[len(lines)-1]
}

// BenchmarkLogistic fits logistic regression (C = 1) on 10M × 20 (BENCH_ROWS overrides the rows), binary
// and with 10 classes, and prints the time of one pass (log-loss and gradient through the Go kernel) next
// to the bare aggregation pass computing the same products, the first pass (classes, levels, means), the rows and time of the Hessian sample (read,
// and solved on alone), the passes, the whole fit, and scikit-learn's LogisticRegression(lbfgs) on the same
// data in memory. BENCH_ONLY=lr2 or lr10 runs one.
func BenchmarkLogistic(b *testing.B) {
	n := rows()
	ctx := context.Background()
	fmt.Printf("\nlogistic regression, %d rows × %d features, 2 threads\n", n, lrFeatures)
	fmt.Println("| classes | aggregates per pass | pass (s) | bare pass (s) | pass/bare | first pass (s) | sample rows | sample (s) | passes | exact-Hessian passes | fit (s) | scikit-learn lbfgs |")
	fmt.Println("|---|---|---|---|---|---|---|---|---|---|---|---|")
	for _, k := range []int{2, 10} {
		if only := os.Getenv("BENCH_ONLY"); only != "" && only != fmt.Sprintf("lr%d", k) {
			continue
		}
		b.Run(fmt.Sprintf("k%d", k), func(b *testing.B) {
			db, err := udf.Open("")
			if err != nil {
				b.Fatal(err)
			}
			defer db.Close()
			for _, s := range []string{"SET threads = 2", "SET preserve_insertion_order = false"} {
				if _, err := db.ExecContext(ctx, s); err != nil {
					b.Fatal(err)
				}
			}
			lrData(b, db, n, k)
			for b.Loop() {
				var trace nb.FitTrace
				start := time.Now()
				if _, err := sqlnb.Train(ctx, db, sqlnb.TrainSpec{Model: "lr", Source: "d", Label: "y", Kind: sqlnb.Logistic, Trace: &trace}); err != nil {
					b.Fatal(err)
				}
				tFit := time.Since(start)
				tPass := slices.Min(trace.Passes)
				tBare := best(b, drain(db, lrFloor(k)))
				d := lrFeatures + 1
				sk := sklearnLogistic(n, k)
				fmt.Printf("| %d | %d | %.2f | %.2f | %.2f | %.1f | %d | %.1f | %d | %d | %.1f | %s |\n", k, 1+(k-1)*d, tPass.Seconds(), tBare.Seconds(),
					tPass.Seconds()/tBare.Seconds(), trace.Describe.Seconds(), trace.Sample, trace.Sampling.Seconds(), len(trace.Passes), trace.HessianPasses, tFit.Seconds(), sk)
				b.ReportMetric(tPass.Seconds()/tBare.Seconds(), "pass/bare")
				b.ReportMetric(tFit.Seconds(), "fit_s")
			}
		})
	}
}

// daInline writes an lda or qda model as plain SQL arithmetic over d's columns x1..xm, from the parameters
// nb_show lists (class means, covariances) and the log-priors: per class lda's log π_c + x·w_c + b_c
// (w_c = Σ⁻¹μ_c, b_c = -½ μ_cᵀΣ⁻¹μ_c) or qda's log π_c - ½ log|2πΣ_c| - ½ Σ_r z_r², z = L_c⁻¹(x - μ_c), and
// the predicted label is the class with the largest score.
func daInline(b *testing.B, s *sqlnb.Scorer) string {
	m, K := len(s.Model.Features), len(s.Labels)
	pos := s.Model.FeatureIndex()
	mean := make([][]float64, K)
	cov := map[string]*mat.SymDense{}
	for c := range mean {
		mean[c] = make([]float64, m)
	}
	cls := s.Model.ClassIndex()
	for _, p := range sqlnb.Parameters(s) {
		switch p.Parameter {
		case "mean":
			mean[cls[p.Class]][pos[p.Feature]] = p.Estimate
		case "covariance":
			if cov[p.Class] == nil {
				cov[p.Class] = mat.NewSymDense(m, nil)
			}
			cov[p.Class].SetSym(pos[p.Feature], pos[p.Value], p.Estimate)
		}
	}
	g := func(f float64) string { return strconv.FormatFloat(f, 'g', -1, 64) }
	scores := make([]string, K)
	for c, l := range s.Labels {
		sigma := cov[l]
		if sigma == nil {
			sigma = cov[""] // lda: shared
		}
		var ch mat.Cholesky
		if !ch.Factorize(sigma) {
			b.Fatal("singular covariance")
		}
		terms := []string{g(s.LogPrior[c])}
		if s.Model.Features[0].Kind == sqlnb.LDA {
			var w mat.VecDense
			if err := ch.SolveVecTo(&w, mat.NewVecDense(m, mean[c])); err != nil {
				b.Fatal(err)
			}
			bc := 0.0
			for j := range m {
				bc -= 0.5 * mean[c][j] * w.AtVec(j)
				terms = append(terms, fmt.Sprintf("%s * x%d", g(w.AtVec(j)), j+1))
			}
			terms = append(terms, g(bc))
		} else {
			var lo, inv mat.TriDense
			ch.LTo(&lo)
			if err := inv.InverseTri(&lo); err != nil {
				b.Fatal(err)
			}
			terms = append(terms, g(-0.5*(float64(m)*math.Log(2*math.Pi)+ch.LogDet())))
			for r := range m {
				var z []string
				for j := 0; j <= r; j++ {
					z = append(z, fmt.Sprintf("%s * (x%d - %s)", g(inv.At(r, j)), j+1, g(mean[c][j])))
				}
				zr := "(" + strings.Join(z, " + ") + ")"
				terms = append(terms, fmt.Sprintf("-0.5 * %s * %s", zr, zr))
			}
		}
		scores[c] = "(" + strings.Join(terms, " + ") + ")"
	}
	labels := make([]string, K)
	for c, l := range s.Labels {
		labels[c] = queries.Literal(l)
	}
	return fmt.Sprintf("SELECT count([%s][list_position(l, list_max(l))]) FROM (SELECT [%s] AS l FROM d)", strings.Join(labels, ", "), strings.Join(scores, ", "))
}

// BenchmarkDiscriminant trains lda and qda on 10M rows (BENCH_ROWS) of m correlated features and k classes
// and prints rows/s of training next to the bare co-moment GROUP BY (count, avg, covar_pop of every pair
// per class) and of nb_predict next to the same model as inline SQL arithmetic. BENCH_ONLY=da4,2 or
// da20,10 runs one configuration.
func BenchmarkDiscriminant(b *testing.B) {
	n := rows()
	ctx := context.Background()
	fmt.Printf("\nlda and qda, %d rows, 2 threads, best of %d (M rows/s)\n", n, repeats)
	fmt.Println("| (m,k) | co-moment GROUP BY | train | train time× | lda inline SQL | lda nb_predict | lda pred/inline | qda inline SQL | qda nb_predict | qda pred/inline |")
	fmt.Println("|---|---|---|---|---|---|---|---|---|---|")
	for _, mk := range [][2]int{{4, 2}, {20, 10}} {
		m, k := mk[0], mk[1]
		if only := os.Getenv("BENCH_ONLY"); only != "" && only != fmt.Sprintf("da%d,%d", m, k) {
			continue
		}
		b.Run(fmt.Sprintf("m%d_k%d", m, k), func(b *testing.B) {
			db, err := udf.Open("")
			if err != nil {
				b.Fatal(err)
			}
			defer db.Close()
			for _, s := range []string{"SET threads = 2", "SET preserve_insertion_order = false"} {
				if _, err := db.ExecContext(ctx, s); err != nil {
					b.Fatal(err)
				}
			}
			// x_j = (1 + c/10) (r_j + r_{j-1}/2) + c (j mod 3 + 1)/20: correlated, class-dependent means and spread.
			gen := fmt.Sprintf(`CREATE TABLE d AS SELECT 'c' || c AS y, %s FROM (SELECT i %% %d AS c, %s FROM range(%d) r(i))`,
				cols(m, func(j int) string {
					return fmt.Sprintf("(1 + c / 10.0) * (r%d + r%d / 2) + c * %g AS x%d", j, j-1, 0.05*float64(j%3+1), j)
				}, ", "), k, cols(m+1, func(j int) string { return fmt.Sprintf("random() AS r%d", j-1) }, ", "), n)
			if _, err := db.ExecContext(ctx, gen); err != nil {
				b.Fatal(err)
			}
			var moments []string
			for j := 1; j <= m; j++ {
				moments = append(moments, fmt.Sprintf("avg(x%d)", j))
				for l := j; l <= m; l++ {
					moments = append(moments, fmt.Sprintf("covar_pop(x%d, x%d)", j, l))
				}
			}
			groupBy := "SELECT y, count(*), " + strings.Join(moments, ", ") + " FROM d GROUP BY y"
			args := cols(m, func(j int) string { return fmt.Sprintf("x%d", j) }, ", ")
			rate := func(d time.Duration) float64 { return float64(n) / d.Seconds() / 1e6 }
			for b.Loop() {
				tGroup := best(b, drain(db, groupBy))
				tTrain := best(b, func() error {
					_, err := sqlnb.Train(ctx, db, sqlnb.TrainSpec{Model: "lda", Source: "d", Label: "y", Kind: sqlnb.LDA})
					return err
				})
				if _, err := sqlnb.Train(ctx, db, sqlnb.TrainSpec{Model: "qda", Source: "d", Label: "y", Kind: sqlnb.QDA}); err != nil {
					b.Fatal(err)
				}
				row := fmt.Sprintf("| (%d,%d) | %.2f | %.2f | %.2f", m, k, rate(tGroup), rate(tTrain), tTrain.Seconds()/tGroup.Seconds())
				for _, kind := range []string{"lda", "qda"} {
					model, err := sqlnb.Load(ctx, db, kind)
					if err != nil {
						b.Fatal(err)
					}
					s, err := sqlnb.Compile(model)
					if err != nil {
						b.Fatal(err)
					}
					tInline := best(b, drain(db, daInline(b, s)))
					tPredict := best(b, drain(db, "SELECT count(nb_predict('"+kind+"', "+args+")) FROM d"))
					row += fmt.Sprintf(" | %.2f | %.2f | %.1f", rate(tInline), rate(tPredict), rate(tPredict)/rate(tInline))
					b.ReportMetric(rate(tPredict)/rate(tInline), kind+"_predict/inline")
				}
				fmt.Println(row + " |")
				b.ReportMetric(tTrain.Seconds()/tGroup.Seconds(), "train/groupby")
			}
		})
	}
}
