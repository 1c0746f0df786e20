package sqlnb_test

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/sqlnb/sqlnb/queries"
	"github.com/sqlnb/sqlnb/sqlnb"
)

// TestMetricsMatchScikitLearn runs the evaluation SQL on scored rows from testdata/fixtures/gen_metrics.py
// (synthetic scores with many ties, and scikit-learn GaussianNB's own posteriors on iris and breast cancer)
// and compares every metric with sklearn.metrics 1.2.1 (metrics_expected.json) to 1e-12.
func TestMetricsMatchScikitLearn(t *testing.T) {
	raw, err := os.ReadFile(filepath.Join("..", "testdata", "fixtures", "metrics_expected.json"))
	if err != nil {
		t.Fatal(err)
	}
	var expected map[string]map[string]float64
	if err := json.Unmarshal(raw, &expected); err != nil {
		t.Fatal(err)
	}
	db := mustOpenDB(t)
	ctx := context.Background()
	conn, err := db.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	for name, want := range expected {
		t.Run(name, func(t *testing.T) {
			file := filepath.Join("..", "testdata", "fixtures", "metrics_scored_"+name+".csv")
			var classes []string
			for k := range want {
				if c, ok := strings.CutPrefix(k, "roc_auc/"); ok {
					classes = append(classes, c)
				}
			}
			slices.Sort(classes)
			keys, vals := make([]string, len(classes)), make([]string, len(classes))
			for i, c := range classes {
				keys[i], vals[i] = queries.Literal(c), queries.Ident("p_"+c)
			}
			proba := fmt.Sprintf("MAP([%s], [%s])", strings.Join(keys, ", "), strings.Join(vals, ", "))
			e, err := sqlnb.EvaluateScores(ctx, conn, file, "y", proba, "", false)
			if err != nil {
				t.Fatal(err)
			}
			got := map[string]float64{}
			for _, m := range e.Metrics {
				k := m.Metric
				if m.Class != "" {
					k += "/" + m.Class
				}
				got[k] = m.Value
			}
			for _, c := range e.Confusion {
				got["confusion/"+c.Actual+"/"+c.Predicted] = float64(c.N)
			}
			for k, w := range want {
				g, ok := got[k]
				if !ok {
					t.Errorf("%s: missing", k)
					continue
				}
				if math.Abs(g-w) > 1e-12 {
					t.Errorf("%s = %.17g, sklearn %.17g", k, g, w)
				}
			}
		})
	}
}

// TestCalibrationMatchesScikitLearn: the reliability-diagram bins of every class (one-vs-rest quantile
// bins) equal scikit-learn 1.2.1's calibration_curve(strategy="quantile", n_bins=10) on the scored rows of
// TestMetricsMatchScikitLearn (testdata/fixtures/gen_calibration.py), to 1e-12, with the same row counts.
func TestCalibrationMatchesScikitLearn(t *testing.T) {
	raw, err := os.ReadFile(filepath.Join("..", "testdata", "fixtures", "calibration_expected.json"))
	if err != nil {
		t.Fatal(err)
	}
	var expected map[string]map[string]struct {
		ProbTrue []float64 `json:"prob_true"`
		ProbPred []float64 `json:"prob_pred"`
		N        []int64   `json:"n"`
	}
	if err := json.Unmarshal(raw, &expected); err != nil {
		t.Fatal(err)
	}
	db := mustOpenDB(t)
	ctx := context.Background()
	conn, err := db.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	for name, want := range expected {
		t.Run(name, func(t *testing.T) {
			var classes []string
			for c := range want {
				classes = append(classes, c)
			}
			slices.Sort(classes)
			keys, vals := make([]string, len(classes)), make([]string, len(classes))
			for i, c := range classes {
				keys[i], vals[i] = queries.Literal(c), queries.Ident("p_"+c)
			}
			proba := fmt.Sprintf("MAP([%s], [%s])", strings.Join(keys, ", "), strings.Join(vals, ", "))
			file := filepath.Join("..", "testdata", "fixtures", "metrics_scored_"+name+".csv")
			e, err := sqlnb.EvaluateScores(ctx, conn, file, "y", proba, "", true)
			if err != nil {
				t.Fatal(err)
			}
			got := map[string][]sqlnb.CalibrationBin{}
			for _, b := range e.Calibration {
				got[b.Class] = append(got[b.Class], b)
			}
			for _, c := range classes {
				w, g := want[c], got[c]
				if len(g) != len(w.N) {
					t.Errorf("class %s: %d bins, sklearn %d", c, len(g), len(w.N))
					continue
				}
				for i, b := range g {
					if b.N != w.N[i] || math.Abs(b.Predicted-w.ProbPred[i]) > 1e-12 || math.Abs(b.Observed-w.ProbTrue[i]) > 1e-12 {
						t.Errorf("class %s bin %d: n %d, predicted %.17g, observed %.17g; sklearn %d, %.17g, %.17g",
							c, i, b.N, b.Predicted, b.Observed, w.N[i], w.ProbPred[i], w.ProbTrue[i])
					}
				}
			}
		})
	}
}
