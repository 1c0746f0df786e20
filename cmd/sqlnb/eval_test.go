package main

import (
	"encoding/csv"
	"encoding/json"
	"fmt"
	"math"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// TestEvalOutputs: eval's three parts (--what) — table prints them all, csv one table (metrics by
// default), json one object with a key per part; bad --what, --format and --pos-label values exit 2.
func TestEvalOutputs(t *testing.T) {
	t.Chdir(t.TempDir())
	mustRun(t, "sql", "-c", `CREATE TABLE d AS SELECT ['x', 'y', 'z'][1 + i % 3] AS y, sin(i) + i % 3 AS v FROM range(90) r(i)`)
	mustRun(t, "train", "--model", "m", "--label", "y", "--from", "d")
	eval := func(args ...string) string {
		return mustRun(t, append([]string{"eval", "--model", "m", "--from", "d"}, args...)...)
	}
	out := eval()
	for _, want := range []string{"│ metric ", "│ class ", "│ precision ", "│ average_precision", "│ actual ", "│ predicted "} {
		if !strings.Contains(out, want) {
			t.Errorf("table output lacks %q:\n%s", want, out)
		}
	}
	for what, header := range map[string]string{"": "metric,value", "metrics": "metric,value",
		"per-class": "class,precision,recall,f1,support,roc_auc,average_precision", "confusion": "actual,predicted,n"} {
		args := []string{"--format", "csv"}
		if what != "" {
			args = append(args, "--what", what)
		}
		recs, err := csv.NewReader(strings.NewReader(eval(args...))).ReadAll()
		if err != nil || strings.Join(recs[0], ",") != header {
			t.Errorf("csv --what %q: %v %v, want one table with header %s", what, recs, err, header)
		}
		if what == "per-class" && (len(recs) != 4 || recs[1][0] != "x" || recs[3][0] != "z") {
			t.Errorf("per-class rows: %v", recs)
		}
	}
	var obj map[string]any
	if err := json.Unmarshal([]byte(eval("--format", "json")), &obj); err != nil {
		t.Fatal(err)
	}
	metrics, _ := obj["metrics"].(map[string]any)
	perClass, _ := obj["per_class"].([]any)
	confusion, _ := obj["confusion"].([]any)
	if obj["model"] != "m" || metrics["accuracy"] == nil || len(perClass) != 3 || len(confusion) == 0 {
		t.Errorf("json: %v", obj)
	}
	obj = nil
	if err := json.Unmarshal([]byte(eval("--format", "json", "--what", "confusion")), &obj); err != nil || obj["metrics"] != nil || obj["confusion"] == nil {
		t.Errorf("json --what confusion: %v %v", obj, err)
	}
	for _, f := range []string{"line", "markdown"} {
		if out := eval("--format", f); !strings.Contains(out, "accuracy") || !strings.Contains(out, "predicted") {
			t.Errorf("--format %s: %s", f, out)
		}
	}
	for _, c := range []struct{ args []string }{
		{[]string{"--format", "csv", "--what", "metrics,confusion"}}, {[]string{"--what", "everything"}},
		{[]string{"--format", "xml"}}, {[]string{"--pos-label", "x"}},
	} {
		_, errs, code := sqlnbRun(t, append([]string{"eval", "--model", "m", "--from", "d"}, c.args...)...)
		if code != exitUsage {
			t.Errorf("eval %v: exit %d, %s", c.args, code, errs)
		}
	}
}

// TestCVOutputs: cv prints one row per setting and metric with each fold's value (fold1 … foldK) in every
// format, json as an object with the best setting and a folds list per row; the mean is the folds' mean;
// nb_cv returns the same numbers.
func TestCVOutputs(t *testing.T) {
	t.Chdir(t.TempDir())
	mustRun(t, "sql", "-c", `CREATE TABLE d AS SELECT ['x', 'y'][1 + i % 2] AS y, sin(i) + i % 2 AS v,
		['a', 'b', 'c'][1 + (i * i) % 3] AS c FROM range(200) r(i)`)
	args := []string{"cv", "--from", "d", "--label", "y", "--folds", "4", "--alpha", "0.5,2", "--stratified"}
	// A picture of one metric against two settings at once is refused before cv runs.
	if _, errs, code := sqlnbRun(t, append(args, "--var-smoothing", "1e-9,1e-3", "--plot", "p")...); code != exitUsage || !strings.Contains(errs, "not both") {
		t.Errorf("--plot with two swept settings: exit %d, %s", code, errs)
	}
	recs, err := csv.NewReader(strings.NewReader(mustRun(t, append(args, "--format", "csv")...))).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(recs[0], ","); got != "alpha,var_smoothing,metric,mean,sd,fold1,fold2,fold3,fold4" || len(recs) != 9 {
		t.Fatalf("csv: %v", recs)
	}
	num := func(s string) float64 { v, _ := strconv.ParseFloat(s, 64); return v }
	cvRows := map[string][]float64{}
	for _, r := range recs[1:] {
		sum := 0.0
		for _, v := range r[5:] {
			sum += num(v)
		}
		if math.Abs(sum/4-num(r[3])) > 1e-12 {
			t.Errorf("%v: mean %s, folds' mean %v", r, r[3], sum/4)
		}
		cvRows[r[0]+"/"+r[2]] = []float64{num(r[3]), num(r[4]), num(r[5]), num(r[8])}
	}
	var obj struct {
		Metric  string
		Best    map[string]float64
		Results []struct {
			Alpha  float64
			Metric string
			Folds  []float64
		}
	}
	if err := json.Unmarshal([]byte(mustRun(t, append(args, "--format", "json")...)), &obj); err != nil {
		t.Fatal(err)
	}
	if obj.Metric != "accuracy" || obj.Best["alpha"] == 0 || len(obj.Results) != 8 || len(obj.Results[0].Folds) != 4 {
		t.Errorf("json: %+v", obj)
	}
	out := mustRun(t, "sql", "--format", "csv", "-c", `SELECT alpha, metric, mean, sd, folds[1], folds[4], best
		FROM nb_cv('d', 'y', folds := 4, alpha := [0.5, 2], stratified := true)`)
	recs, _ = csv.NewReader(strings.NewReader(out)).ReadAll()
	if len(recs) != 9 {
		t.Fatalf("nb_cv: %v", recs)
	}
	for _, r := range recs[1:] {
		want := cvRows[r[0]+"/"+r[1]]
		for i, v := range []float64{num(r[2]), num(r[3]), num(r[4]), num(r[5])} {
			if math.Abs(v-want[i]) > 1e-12 {
				t.Errorf("nb_cv %v, cv %v", r, want)
			}
		}
	}
	for _, bad := range [][]string{{"--metric", "auc"}, {"--folds", "1"}, {"--format", "xml"}, {"--pos-label", "q"}} {
		if _, errs, code := sqlnbRun(t, append(args, bad...)...); code != exitUsage {
			t.Errorf("cv %v: exit %d, %s", bad, code, errs)
		}
	}
}

// TestCVSemiSupervisedAlpha: cv --semi-supervised --alpha A fits each fold's EM with α = A (it fitted with
// α = 0 and scored with A whenever --alpha was given, its default 1 too), as nb_cv(alpha := [A]) does.
func TestCVSemiSupervisedAlpha(t *testing.T) {
	reuters, err := filepath.Abs("../../testdata/reuters/reuters.csv")
	if err != nil {
		t.Fatal(err)
	}
	t.Chdir(t.TempDir())
	mustRun(t, "sql", "-c", fmt.Sprintf(`CREATE TABLE few AS SELECT id, text, CASE WHEN row_number() OVER (PARTITION BY topic ORDER BY hash(id, 1)) <= 6
		THEN topic END AS topic FROM '%s'`, reuters))
	cv := []string{"cv", "-q", "--from", "few", "--label", "topic", "--features", "text", "--feature-kind", "text=text", "--key", "id", "--folds", "2",
		"--stratified", "--semi-supervised", "--format", "csv"}
	// EM's sums run in DuckDB's parallel aggregates, whose order of addition varies from run to run: the
	// same fit agrees to rounding (1e-9 relative), not bit for bit.
	if without, with := mustRun(t, cv...), mustRun(t, append(cv, "--alpha", "1")...); !sameNumbers(without, with, 1e-9) {
		t.Errorf("cv --semi-supervised without --alpha:\n%s\nwith --alpha 1:\n%s", without, with)
	}
	half := mustRun(t, append(cv, "--alpha", "0.5")...)
	sql := mustRun(t, "sql", "--format", "csv", "-c", `SELECT folds::VARCHAR FROM nb_cv('few', 'topic', features := ['text'], feature_kinds := 'text=text',
		key := 'id', folds := 2, stratified := true, semi_supervised := true, alpha := [0.5]) WHERE metric = 'log_loss'`)
	folds := strings.Trim(strings.TrimSpace(strings.SplitN(sql, "\n", 2)[1]), `"[]`)
	if !strings.Contains(half, strings.ReplaceAll(folds, " ", "")) || len(folds) < 10 {
		t.Errorf("cv --alpha 0.5 log_loss folds: %s; nb_cv: %s", half, folds)
	}
}

// TestPosLabelEmptyClass: an empty --pos-label, and pos_label := the empty string, name the class "" (they
// were taken for "not given", and the metrics were the other class's).
func TestPosLabelEmptyClass(t *testing.T) {
	t.Chdir(t.TempDir())
	mustRun(t, "sql", "-c", `CREATE TABLE d AS SELECT ['', 'yes'][i % 2 + 1] AS y, (i % 2) + (hash(i) % 1000) / 300.0 AS x FROM range(200) r(i)`)
	mustRun(t, "train", "--model", "m", "--label", "y", "--from", "d")
	ap := func(out string) string {
		for _, line := range strings.Split(out, "\n") {
			if strings.HasPrefix(line, "average_precision,") || strings.Contains(line, ",average_precision,") { // eval; cv
				return line
			}
		}
		return ""
	}
	empty := ap(mustRun(t, "eval", "--model", "m", "--from", "d", "--pos-label", "", "--format", "csv"))
	yes := ap(mustRun(t, "eval", "--model", "m", "--from", "d", "--pos-label", "yes", "--format", "csv"))
	def := ap(mustRun(t, "eval", "--model", "m", "--from", "d", "--format", "csv"))
	if empty == "" || empty == yes || yes != def {
		t.Errorf("average precision: pos '' %q, pos yes %q, default %q", empty, yes, def)
	}
	sqlEmpty := mustRun(t, "sql", "--format", "csv", "-c", `SELECT value FROM nb_eval('m', 'd', pos_label := '') WHERE metric = 'average_precision' AND class IS NULL`)
	sqlYes := mustRun(t, "sql", "--format", "csv", "-c", `SELECT value FROM nb_eval('m', 'd', pos_label := 'yes') WHERE metric = 'average_precision' AND class IS NULL`)
	if sqlEmpty == sqlYes {
		t.Errorf("nb_eval pos_label '': %q, the same as 'yes'", sqlEmpty)
	}
	cvEmpty := ap(mustRun(t, "cv", "--from", "d", "--label", "y", "--folds", "3", "--auc", "--pos-label", "", "--format", "csv"))
	cvYes := ap(mustRun(t, "cv", "--from", "d", "--label", "y", "--folds", "3", "--auc", "--pos-label", "yes", "--format", "csv"))
	if cvEmpty == "" || cvEmpty == cvYes {
		t.Errorf("cv average precision: pos '' %q, pos yes %q", cvEmpty, cvYes)
	}
}

// sameNumbers reports whether two texts are the same but for numbers (runs of digits, '.', 'e', '+', '-'
// between commas or line ends) that agree to the relative tolerance tol.
func sameNumbers(a, b string, tol float64) bool {
	la, lb := strings.Split(a, "\n"), strings.Split(b, "\n")
	if len(la) != len(lb) {
		return false
	}
	for i := range la {
		fa, fb := strings.Split(la[i], ","), strings.Split(lb[i], ",")
		if len(fa) != len(fb) {
			return false
		}
		for j := range fa {
			if fa[j] == fb[j] {
				continue
			}
			x, errA := strconv.ParseFloat(fa[j], 64)
			y, errB := strconv.ParseFloat(fb[j], 64)
			if errA != nil || errB != nil || math.Abs(x-y) > tol*math.Max(math.Abs(x), math.Abs(y)) {
				return false
			}
		}
	}
	return true
}
