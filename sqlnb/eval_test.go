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
