package logistic_test

import (
	"context"
	"database/sql"
	"fmt"
	"math"
	"testing"

	"github.com/sqlnb/sqlnb/sqlnb"
	"github.com/sqlnb/sqlnb/sqlnb/family/logistic"
	"github.com/sqlnb/sqlnb/sqlnb/nb"
	"github.com/sqlnb/sqlnb/udf"
)

// lrSource is the logistic regression fixture data (testdata/fixtures/lr_synth_*.csv: 300 rows, four
// number features, three for the binary one) with a row weight and a categorical feature derived from the
// row id, so the fits below exercise weights and one-hot columns too, and with missing values (x1 NULL or
// NaN, g NULL in some rows: those rows are left out of the fit).
func lrSource(file string) string {
	return fmt.Sprintf(`(SELECT * EXCLUDE (id, x1), CASE WHEN id %% 17 = 0 THEN NULL WHEN id %% 23 = 0 THEN 'NaN'::DOUBLE ELSE x1 END AS x1,
		CASE WHEN id %% 19 = 0 THEN NULL ELSE ['p', 'q', 'r'][1 + id %% 3] END AS g, 0.5 + (id %% 4) / 2 AS w
		FROM read_csv('../../../testdata/fixtures/%s'))`, file)
}

// lrCoefs fits a logistic regression and returns its intercepts then every coefficient nb_show lists, in
// a fixed order, and the Newton steps it took.
func lrCoefs(t *testing.T, db nb.Querier, source string, weighted bool, params sqlnb.Params) ([]float64, int64) {
	t.Helper()
	return lrCoefsTrace(t, db, source, weighted, params, nil)
}

func lrCoefsTrace(t *testing.T, db nb.Querier, source string, weighted bool, params sqlnb.Params, trace *nb.FitTrace) ([]float64, int64) {
	t.Helper()
	spec := sqlnb.TrainSpec{Model: "lr", Source: source, Label: "label", Kind: sqlnb.Logistic, Params: &params, Trace: trace}
	if weighted {
		spec.Weight = "w"
	} else {
		spec.Exclude = []string{"w"}
	}
	m, err := sqlnb.Fit(context.Background(), db, spec)
	if err != nil {
		t.Fatal(err)
	}
	s, err := sqlnb.Compile(m)
	if err != nil {
		t.Fatal(err)
	}
	out := append([]float64{}, s.LogPrior...)
	for _, p := range sqlnb.Parameters(s) {
		out = append(out, p.Estimate)
	}
	return out, m.Iterations
}

// TestLogisticKernel fits the same models four ways: through the Go kernel (nb_logistic_pass, on a
// database of package udf) and through the SQL aggregates of train_logistic_step (a plain DuckDB
// connection, where nb_logistic_pass is not registered), each with the Hessian from every row (the
// source is smaller than the sample) and from a 60-row sample (sub-sampled Newton steps, BFGS-updated).
// The optimum is the same: the coefficients agree to 1e-7 (the fits stop at gradient 1e-10 per unit
// weight; the penalty-free optimum is flatter), and the two exact-Hessian fits take the same steps.
func TestLogisticKernel(t *testing.T) {
	plain, err := sql.Open("duckdb", "")
	if err != nil {
		t.Fatal(err)
	}
	plain.SetMaxOpenConns(1)
	t.Cleanup(func() { plain.Close() })
	kern, err := udf.Open("")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { kern.Close() })
	base := sqlnb.DefaultParams()
	half, none := base.With("c", 0.5), base.With("penalty", sqlnb.PenaltyNone)
	for _, tc := range []struct {
		name     string
		file     string
		weighted bool
		params   sqlnb.Params
	}{
		{"binary", "lr_synth_binary.csv", false, base},
		{"binary weighted C=0.5", "lr_synth_binary.csv", true, half},
		{"multinomial", "lr_synth_multi.csv", false, base},
		{"multinomial weighted", "lr_synth_multi.csv", true, base},
		{"multinomial penalty none", "lr_synth_multi.csv", false, none},
	} {
		t.Run(tc.name, func(t *testing.T) {
			src := lrSource(tc.file)
			want, steps := lrCoefs(t, plain, src, tc.weighted, tc.params)
			got, gotSteps := lrCoefs(t, kern, src, tc.weighted, tc.params)
			if gotSteps != steps {
				t.Errorf("kernel fit: %d Newton steps, the SQL fit %d", gotSteps, steps)
			}
			restore := logistic.SetSampleRows(60)
			defer restore()
			sampled, _ := lrCoefs(t, kern, src, tc.weighted, tc.params)
			sampledSQL, _ := lrCoefs(t, plain, src, tc.weighted, tc.params)
			for name, g := range map[string][]float64{"kernel": got, "sampled kernel": sampled, "sampled SQL": sampledSQL} {
				if len(g) != len(want) {
					t.Fatalf("%s fit: %d coefficients, want %d", name, len(g), len(want))
				}
				for i := range want {
					if math.Abs(g[i]-want[i]) > 1e-7*math.Max(1, math.Abs(want[i])) {
						t.Errorf("%s fit: coefficient %d = %.12g, the SQL fit's %.12g", name, i, g[i], want[i])
					}
				}
			}
		})
	}
}

// TestLogisticSubsampled fits 30,000 generated rows (four features uniform in [0, 1) from frac(sin(...)),
// a class drawn by a softmax of a linear form, and a weight) once with every row's Hessian and once with a
// ~3,000-row sample's: the sub-sampled fit solves on the sample, then takes BFGS-updated steps with the
// exact gradient of every row, without falling back to the exact Hessian, and lands on the same optimum
// (coefficients within 1e-7).
func TestLogisticSubsampled(t *testing.T) {
	db, err := udf.Open("")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	u := func(j int) string {
		return fmt.Sprintf("(sin((i + 1) * 12.9898 + %d * 78.233) * 43758.5453 - floor(sin((i + 1) * 12.9898 + %d * 78.233) * 43758.5453))", j, j)
	}
	if _, err := db.ExecContext(context.Background(), fmt.Sprintf(`CREATE TABLE gen AS SELECT x1, x2, x3, x4, 0.5 + (i %% 3) / 2 AS w,
		CASE WHEN r < 1 / (1 + exp(2 - 3 * x1 + x2) + exp(x3 - x4)) THEN 'a'
		     WHEN r < (1 + exp(2 - 3 * x1 + x2)) / (1 + exp(2 - 3 * x1 + x2) + exp(x3 - x4)) THEN 'b' ELSE 'c' END AS label,
		x1 > 0.5 AS bin
		FROM (SELECT i, %s AS x1, %s AS x2, %s AS x3, %s AS x4, %s AS r FROM range(30000) t(i))`, u(1), u(2), u(3), u(4), u(5))); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name, source string
		weighted     bool
	}{
		{"multinomial", "(SELECT x1, x2, x3, x4, w, label FROM gen)", false},
		{"multinomial weighted", "(SELECT x1, x2, x3, x4, w, label FROM gen)", true},
		{"binary", "(SELECT x2, x3, x4, w, bin AS label FROM gen)", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			want, _ := lrCoefs(t, db, tc.source, tc.weighted, sqlnb.DefaultParams())
			restore := logistic.SetSampleRows(3000)
			defer restore()
			var trace nb.FitTrace
			got, _ := lrCoefsTrace(t, db, tc.source, tc.weighted, sqlnb.DefaultParams(), &trace)
			if trace.Sample < 2000 || trace.Sample > 4000 || trace.HessianPasses != 0 {
				t.Errorf("sampled fit: %d sample rows, %d exact-Hessian passes; want ~3000 and 0", trace.Sample, trace.HessianPasses)
			}
			for i := range want {
				if math.Abs(got[i]-want[i]) > 1e-7*math.Max(1, math.Abs(want[i])) {
					t.Errorf("coefficient %d = %.12g, the exact-Hessian fit's %.12g", i, got[i], want[i])
				}
			}
		})
	}
}
