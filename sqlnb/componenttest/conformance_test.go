package componenttest_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"gonum.org/v1/gonum/mat"

	"github.com/sqlnb/sqlnb/internal/kernel"
	"github.com/sqlnb/sqlnb/queries"
	"github.com/sqlnb/sqlnb/sqlnb"
	"github.com/sqlnb/sqlnb/sqlnb/family/categorical"
	"github.com/sqlnb/sqlnb/sqlnb/family/counts"
	"github.com/sqlnb/sqlnb/sqlnb/family/discriminant"
	"github.com/sqlnb/sqlnb/sqlnb/family/gaussian"
	"github.com/sqlnb/sqlnb/sqlnb/family/kde"
	"github.com/sqlnb/sqlnb/sqlnb/family/logistic"
	"github.com/sqlnb/sqlnb/sqlnb/family/poisson"
	"github.com/sqlnb/sqlnb/sqlnb/family/text"
	"github.com/sqlnb/sqlnb/sqlnb/nb"
	"github.com/sqlnb/sqlnb/udf"
)

// kindCase makes data for one feature of a kind: training values per class (nil is NULL) and the edge
// values every scoring path must handle, and a plain-Go reference of the statistics SQL training computes.
type kindCase struct {
	colType string
	train   func(r *rand.Rand, c int) any
	edges   []any
	// noWeights: the kind does not take sample weights.
	noWeights bool
	// binarize, when set, is the threshold given at training (Bernoulli kinds).
	binarize float64
	// ref adds the kind's statistics for feature f over rows (plain Go) to stats.
	ref func(stats nb.Stats, f string, rows []row, bin float64)
	// refAll, for kinds whose statistics span every feature (lda, qda), adds them for feats over rows.
	refAll func(stats nb.Stats, feats []string, rows []row)
	// fitted: the kind's parameters are fitted (logistic): models do not merge, and fold models are
	// compared with direct training at tolerance statTol.
	fitted  bool
	statTol float64
	// regParam is the kind's regularisation in the suite (qda: the rare class of 6 rows leaves a fold with
	// two or three complete rows, whose covariance is singular).
	regParam float64
}

// row is one training or scoring row: class index (-1 when scoring), weight, feature values by name.
type row struct {
	class int
	w     float64
	vals  map[string]any
}

var classes = []string{"a", "b", "c"}

var words = [][]string{{"free", "money", "offer", "now", "win"}, {"meeting", "lunch", "report", "now", "team"}, {"ball", "goal", "win", "team", "match"}}

func doc(r *rand.Rand, c int) any {
	if r.IntN(12) == 0 {
		return nil
	}
	n := r.IntN(6)
	var w []string
	for range n {
		if r.IntN(5) == 0 {
			w = append(w, words[r.IntN(3)][r.IntN(5)])
		} else {
			w = append(w, words[c][r.IntN(5)])
		}
	}
	return strings.Join(w, " ")
}

func countValues(r *rand.Rand, c int) any {
	if r.IntN(15) == 0 {
		return nil
	}
	return float64(r.IntN(3 + 2*c))
}

var numberEdges = []any{nil, math.NaN(), math.Inf(1), math.Inf(-1), 0.0, 1e200, -1e300, 1e300}

var cases = map[sqlnb.Kind]kindCase{
	sqlnb.Gaussian: {colType: "DOUBLE", edges: numberEdges,
		train: func(r *rand.Rand, c int) any {
			if r.IntN(15) == 0 {
				return nil
			}
			return float64(3*c) + r.NormFloat64()*float64(1+c)
		}, ref: refGaussian},
	sqlnb.Poisson: {colType: "DOUBLE", edges: []any{nil, math.NaN(), math.Inf(1), -1.0, 2.5, 0.0, 1e300, 1000.0},
		train: countValues, ref: refPoisson},
	sqlnb.Categorical: {colType: "VARCHAR", edges: []any{nil, "unseen value", "u", ""},
		train: func(r *rand.Rand, c int) any {
			if r.IntN(15) == 0 {
				return nil
			}
			return []string{"u", "v", "w", "x"}[(c+r.IntN(2+c))%4]
		}, ref: refCategorical},
	sqlnb.Bernoulli: {colType: "DOUBLE", edges: []any{nil, math.NaN(), 0.0, 5.0, -1.0, math.Inf(1), 1e300}, binarize: 1,
		train: countValues, ref: refCategorical},
	sqlnb.Multinomial: {colType: "DOUBLE", edges: []any{nil, math.NaN(), math.Inf(1), 0.0, 7.0, 1e300}, train: countValues, ref: refTotals},
	sqlnb.Complement:  {colType: "DOUBLE", edges: []any{nil, math.NaN(), math.Inf(-1), 0.0, 7.0, 1e300}, train: countValues, ref: refTotals},
	sqlnb.Text: {colType: "VARCHAR", edges: []any{nil, "", "zzzz qqqq", "free free free money", "Team! MEETING, now…"},
		train: doc, ref: refTerms},
	sqlnb.TextBernoulli: {colType: "VARCHAR", edges: []any{nil, "", "zzzz", "free free win", "team lunch"}, noWeights: true, binarize: 1,
		train: doc, ref: refBernoulliTerms},
	sqlnb.TextComplement: {colType: "VARCHAR", edges: []any{nil, "", "zzzz", "goal goal match"}, train: doc, ref: refTerms},
	sqlnb.LDA:            {colType: "DOUBLE", edges: numberEdges, train: correlated, refAll: refCoMoments},
	sqlnb.QDA:            {colType: "DOUBLE", edges: numberEdges, train: correlated, refAll: refCoMoments, regParam: 0.1},
	sqlnb.Logistic:       {colType: "DOUBLE", edges: numberEdges, train: correlated, refAll: refLogistic, fitted: true, statTol: 1e-7},
	// kde: never NULL in training, so that every half and fold of the rare class keeps 2 values or more (a
	// class with fewer is an error); fitted (its curves do not merge); no weights.
	kde.KDE: {colType: "DOUBLE", edges: numberEdges, noWeights: true, fitted: true, statTol: 1e-10, ref: refKDE,
		train: func(r *rand.Rand, c int) any { return float64(3*c) + r.NormFloat64()*float64(1+c) }},
}

// correlated draws a value of class c whose scale depends on the class (its covariance with the model's
// other features comes from the shared class shift), NULL now and then.
func correlated(r *rand.Rand, c int) any {
	if r.IntN(15) == 0 {
		return nil
	}
	return float64(2*c) + r.NormFloat64()*float64(1+c)
}

// TestEveryKindHasACase: a family added to the registry without a case here fails.
func TestEveryKindHasACase(t *testing.T) {
	for _, k := range sqlnb.KindNames() {
		if _, ok := cases[sqlnb.Kind(k)]; !ok {
			t.Errorf("kind %q has no conformance case: add one to cases", k)
		}
	}
}

// spec is one model of the suite: features (name → kind, in order).
type spec struct {
	name  string
	feats [][2]string
}

func specs() []spec {
	var out []spec
	var mixed, priorless, refit [][2]string
	for _, k := range sqlnb.Kinds() {
		kind := string(k.Kind)
		feats := [][2]string{{kind + "_1", kind}, {kind + "_2", kind}}
		out = append(out, spec{name: kind, feats: feats})
		switch {
		case k.Alone != "":
			continue // a model of its own only
		case k.Priorless:
			priorless = append(priorless, feats[0])
		case cases[k.Kind].fitted:
			refit = append(refit, feats[0]) // kde: its model refuses merges, which mixed checks
		default:
			mixed = append(mixed, feats[0])
		}
	}
	out = append(out, spec{name: "mixed", feats: mixed}, spec{name: "priorless", feats: priorless})
	if len(refit) > 0 {
		// The fitted naive Bayes kinds beside summed ones: the model refits as a whole.
		out = append(out, spec{name: "mixed_refit", feats: append(refit, mixed[:min(3, len(mixed))]...)})
	}
	return out
}

// TestConformance runs every check on every model: each kind alone, every kind that keeps priors together,
// and the priorless (complement) kinds together (kinds that model the feature vector as a whole — lda, qda,
// logistic — only alone); unweighted and weighted (where the kinds take weights).
func TestConformance(t *testing.T) {
	db, err := udf.Open("")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	for _, sp := range specs() {
		for _, weighted := range []bool{false, true} {
			name := sp.name
			if weighted {
				name += "/weighted"
				skip := false
				for _, f := range sp.feats {
					skip = skip || cases[sqlnb.Kind(f[1])].noWeights
				}
				if skip {
					continue
				}
			}
			t.Run(name, func(t *testing.T) { conformance(t, db, sp, weighted) })
		}
	}
}

func conformance(t *testing.T, db *udf.DB, sp spec, weighted bool) {
	ctx := context.Background()
	r := rand.New(rand.NewPCG(uint64(len(sp.name)), 7))
	id := strings.ReplaceAll(sp.name, "/", "_")
	if weighted {
		id += "_w"
	}
	train, score := "train_"+id, "score_"+id
	// Training rows: classes of 120, 80 and 6 rows (a rare class), weights in [0.1, 3).
	var rows []row
	for c, n := range []int{120, 80, 6} {
		for range n {
			rw := row{class: c, w: 1, vals: map[string]any{}}
			if weighted {
				rw.w = 0.1 + r.Float64()*2.9
			}
			for _, f := range sp.feats {
				rw.vals[f[0]] = cases[sqlnb.Kind(f[1])].train(r, c)
			}
			rows = append(rows, rw)
		}
	}
	r.Shuffle(len(rows), func(i, j int) { rows[i], rows[j] = rows[j], rows[i] })
	load(t, db, train, sp, rows, true)
	// Scoring rows: training-like rows, each edge value of each feature among ordinary values, all NULL.
	var srows []row
	for i := range 40 {
		rw := row{class: -1, vals: map[string]any{}}
		for _, f := range sp.feats {
			rw.vals[f[0]] = cases[sqlnb.Kind(f[1])].train(r, i%3)
		}
		srows = append(srows, rw)
	}
	for _, f := range sp.feats {
		for _, e := range cases[sqlnb.Kind(f[1])].edges {
			rw := row{class: -1, vals: map[string]any{}}
			for _, g := range sp.feats {
				rw.vals[g[0]] = cases[sqlnb.Kind(g[1])].train(r, 0)
			}
			rw.vals[f[0]] = e
			srows = append(srows, rw)
		}
	}
	srows = append(srows, row{class: -1, vals: map[string]any{}})
	load(t, db, score, sp, srows, false)

	opts := trainOptions(sp, weighted)
	model := "m_" + id
	src := "SELECT * EXCLUDE (id, w) FROM " + train
	if weighted {
		src = "SELECT * EXCLUDE (id) FROM " + train
	}
	mustExec(t, db, fmt.Sprintf(`CALL nb_train(%s, %s, 'y'%s)`, queries.Literal(model), queries.Literal(src), opts))
	m, err := sqlnb.Load(ctx, db.DB, model)
	if err != nil {
		t.Fatal(err)
	}
	t.Run("reference statistics", func(t *testing.T) { checkReference(t, m, sp, rows, weighted) })
	t.Run("merge", func(t *testing.T) { checkMerge(t, db, m, src, opts, fitted(sp)) })
	t.Run("merge append forget", func(t *testing.T) {
		exclude := ", exclude := ['id', 'w']"
		if weighted {
			exclude = ", exclude := ['id']"
		}
		checkUpdates(t, db, split{name: "u_" + id, src: "SELECT * FROM " + train, label: "y", opts: opts + exclude, a: "id % 2 = 0",
			b: "id % 2 = 1", score: "SELECT * FROM " + score + " WHERE id < 40", dropClass: "c"}, fitted(sp))
	})
	t.Run("groups", func(t *testing.T) { checkGroups(t, db, sp, m, src, opts) })
	t.Run("folds", func(t *testing.T) { checkFolds(t, db, sp, src, weighted) })
	for _, alpha := range []string{"1", "0"} {
		mustExec(t, db, fmt.Sprintf(`CALL nb_set(%s, alpha := %s)`, queries.Literal(model), alpha))
		m, err := sqlnb.Load(ctx, db.DB, model)
		if err != nil {
			t.Fatal(err)
		}
		s, err := sqlnb.Compile(m)
		if err != nil {
			t.Fatal(err)
		}
		t.Run("alpha "+alpha, func(t *testing.T) {
			jll := checkKernel(t, s, sp, srows)
			checkSQL(t, db, s, score, jll, len(srows))
			checkExport(t, db, s, score)
			if os.Getenv("PGHOST") != "" {
				checkPostgres(t, db, s, sp, srows, score)
			}
		})
	}
	if os.Getenv("SQLNB_EXT") != "" {
		t.Run("extension", func(t *testing.T) { checkExtension(t, db, model, train, score, src, opts) })
	}
}

// checkExtension (when SQLNB_EXT names the loadable extension and SQLNB_EXT_HOST extension/host built with
// the tests' module file, as in make test-integration): in a plain duckdb-go program on the library's own
// DuckDB, the extension trains the model from the same rows and scores the same rows at α = 1 and 0; every
// scoring function's output is the library's, as text (the shortest digits that read back to the same
// DOUBLE), so bit for bit. The host runs the library's DuckDB because training is SQL that the host's
// DuckDB computes: 1.5 and 2.0 differ in the last bits of some aggregates (QDA's covariances, weighted text
// counts); extension/itest compares the extension across lines.
func checkExtension(t *testing.T, db *udf.DB, model, train, score, src, opts string) {
	host := os.Getenv("SQLNB_EXT_HOST")
	if host == "" {
		t.Fatal("SQLNB_EXT_HOST is not set: run make test-integration")
	}
	file := filepath.Join(t.TempDir(), "ext.duckdb")
	mustExec(t, db, fmt.Sprintf("ATTACH %s AS ext; CREATE TABLE ext.train AS FROM %s; CREATE TABLE ext.score AS FROM %s; DETACH ext",
		queries.Literal(file), train, score))
	scores := func(m, table string) string {
		lit := queries.Literal(m)
		return fmt.Sprintf(`SELECT string_agg(concat_ws(' ; ', coalesce(nb_predict(%[1]s, t)::VARCHAR, 'NULL'),
			coalesce(nb_predict_proba(%[1]s, t)::VARCHAR, 'NULL'), coalesce(nb_predict_log_proba(%[1]s, t)::VARCHAR, 'NULL'),
			coalesce(nb_joint_log_likelihood(%[1]s, t)::VARCHAR, 'NULL'), coalesce(nb_log_evidence(%[1]s, t)::VARCHAR, 'NULL'),
			coalesce(nb_explain(%[1]s, t)::VARCHAR, 'NULL')), ' | ' ORDER BY id) FROM %[2]s t`, lit, table)
	}
	stmts := []string{"LOAD " + queries.Literal(os.Getenv("SQLNB_EXT")),
		fmt.Sprintf("SELECT count(*) FROM nb_train('ext', %s, 'y'%s)", queries.Literal(strings.Replace(src, train, "train", 1)), opts)}
	var want []string
	for _, alpha := range []string{"1", "0"} {
		mustExec(t, db, fmt.Sprintf(`CALL nb_set(%s, alpha := %s)`, queries.Literal(model), alpha))
		want = append(want, query(t, db, scores(model, score))[0][0])
		stmts = append(stmts, "CALL nb_set('ext', alpha := "+alpha+")", scores("ext", "score"))
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute) // a deadlock is a failure
	defer cancel()
	out, err := exec.CommandContext(ctx, host, append([]string{file}, stmts...)...).Output()
	if err != nil {
		t.Fatalf("%s: %v\n%.2000s", host, err, out)
	}
	// Each statement's output follows a line "== N": its rows, or "error: <message>".
	res := regexp.MustCompile(`(?m)^== \d+\n`).Split(string(out), -1)[1:]
	if len(res) != len(stmts) {
		t.Fatalf("%d outputs for %d statements:\n%.2000s", len(res), len(stmts), out)
	}
	for i, r := range res {
		if strings.HasPrefix(r, "error: ") {
			t.Fatalf("extension, statement %d: %s", i, r)
		}
	}
	for i, alpha := range []string{"1", "0"} {
		if got := strings.TrimSuffix(res[3+2*i], "\n"); got != want[i] {
			at := 0
			for at < len(got) && at < len(want[i]) && got[at] == want[i][at] {
				at++
			}
			t.Errorf("alpha %s: the extension's scores differ from the library's near byte %d:\n%.300s\n%.300s", alpha, at, got[max(0, at-40):], want[i][max(0, at-40):])
		}
	}
}

// load creates table name with columns id, y (training), w (training), and the features, and inserts rows.
func load(t *testing.T, db *udf.DB, name string, sp spec, rows []row, training bool) {
	t.Helper()
	cols := []string{"id INTEGER"}
	if training {
		cols = append(cols, "y VARCHAR", "w DOUBLE")
	}
	for _, f := range sp.feats {
		cols = append(cols, queries.Ident(f[0])+" "+cases[sqlnb.Kind(f[1])].colType)
	}
	mustExec(t, db, fmt.Sprintf("CREATE TABLE %s (%s)", name, strings.Join(cols, ", ")))
	tx, err := db.Begin()
	if err != nil {
		t.Fatal(err)
	}
	marks := strings.TrimSuffix(strings.Repeat("?, ", len(cols)), ", ")
	stmt, err := tx.Prepare(fmt.Sprintf("INSERT INTO %s VALUES (%s)", name, marks))
	if err != nil {
		t.Fatal(err)
	}
	for i, rw := range rows {
		args := []any{i}
		if training {
			args = append(args, classes[rw.class], rw.w)
		}
		for _, f := range sp.feats {
			args = append(args, rw.vals[f[0]])
		}
		if _, err := stmt.Exec(args...); err != nil {
			t.Fatal(err)
		}
	}
	stmt.Close()
	if err := tx.Commit(); err != nil {
		t.Fatal(err)
	}
}

func trainOptions(sp spec, weighted bool) string {
	var kinds []string
	bin := 0.0
	for _, f := range sp.feats {
		kinds = append(kinds, f[0]+"="+f[1])
		bin = max(bin, cases[sqlnb.Kind(f[1])].binarize)
	}
	o := ", feature_kinds := " + queries.Literal(strings.Join(kinds, ","))
	if bin > 0 {
		o += fmt.Sprintf(", binarize := %g", bin)
	}
	if r := regParam(sp); r > 0 {
		o += fmt.Sprintf(", reg_param := %g", r)
	}
	if weighted {
		o += ", weight := 'w'"
	}
	return o
}

func regParam(sp spec) float64 {
	r := 0.0
	for _, f := range sp.feats {
		r = max(r, cases[sqlnb.Kind(f[1])].regParam)
	}
	return r
}

// batch decodes rows as the scorer's inputs declare: numbers (NULL invalid), category codes, terms.
func batch(s *sqlnb.Scorer, rows []row) *nb.Batch {
	n := len(rows)
	b := s.NewBatch(n)
	for j, in := range s.Inputs {
		switch in.Kind {
		case nb.NumberInput:
			mask := make([]uint64, (n+63)/64)
			for i, rw := range rows {
				if v, ok := rw.vals[in.Name].(float64); ok {
					b.Num[j][i] = v
					mask[i/64] |= 1 << (i % 64)
				}
			}
			b.Valid[j] = mask
		case nb.CategoryInput:
			for i, rw := range rows {
				switch v := rw.vals[in.Name].(type) {
				case nil:
					b.Cat[j][i] = in.Missing()
				case float64:
					b.Cat[j][i] = in.Code(v)
				case string:
					b.Cat[j][i] = in.Lookup(v)
				}
			}
		case nb.TermsInput:
			sp := b.Sparse[j]
			sp.Reset()
			for _, rw := range rows {
				if v, ok := rw.vals[in.Name].(string); ok {
					in.AddText(sp, v)
				} else {
					sp.EndNullRow()
				}
			}
		}
	}
	return b
}

// checkKernel: the vector kernel equals the row reference on every row, explain's contributions add up to
// the log-odds, and the posteriors are finite and sum to 1. It returns the joint log-likelihoods (true
// values: shifted rows with their shift added back).
func checkKernel(t *testing.T, s *sqlnb.Scorer, sp spec, rows []row) [][]float64 {
	errorf := errs(t)
	n, K := len(rows), len(s.Labels)
	b := batch(s, rows)
	out := make([]float64, n*K)
	var ws sqlnb.Workspace
	s.JointLogLikelihood(b, out, &ws)
	ref := make([]float64, K)
	post := make([]float64, K)
	jll := make([][]float64, n)
	for i := range n {
		jll[i] = make([]float64, K)
		if s.Incomplete(b, i) {
			// A required value is missing: the row's results are NULL on every path.
			if !ws.NullOf(i) {
				errorf("row %d (%v): incomplete, but the kernel did not mark it NULL", i, rows[i].vals)
			}
			for c := range K {
				jll[i][c] = math.NaN()
			}
			if a, _, contrib := s.Explain(b, i, -1); a >= 0 || contrib != nil {
				errorf("row %d (%v): incomplete, but explained", i, rows[i].vals)
			}
			continue
		}
		if ws.NullOf(i) {
			errorf("row %d (%v): marked NULL but complete", i, rows[i].vals)
		}
		s.RowScores(b, i, ref)
		for c := range K {
			v := out[c*n+i] + ws.ShiftOf(i)
			jll[i][c] = v
			if !same(v, ref[c], 1e-12) {
				errorf("row %d (%v) class %s: vector kernel %v, row reference %v", i, rows[i].vals, s.Labels[c], v, ref[c])
			}
		}
		kernel.Posterior(out, n, K, i, post)
		sum := 0.0
		for _, p := range post {
			sum += p
			if math.IsNaN(p) || p < 0 || p > 1 {
				errorf("row %d (%v): posterior %v", i, rows[i].vals, post)
			}
		}
		if math.Abs(sum-1) > 1e-12 {
			errorf("row %d (%v): posteriors sum to %v", i, rows[i].vals, sum)
		}
		// The default comparison, then the predicted class against every class.
		for versus := -1; versus < K; versus++ {
			a, c, contrib := s.Explain(b, i, versus)
			if versus >= 0 && c != versus {
				errorf("row %d: explain against class %d compared %d with %d", i, versus, a, c)
			}
			total, scale := 0.0, 1.0
			for _, x := range contrib {
				total += x.LLR
				scale = max(scale, math.Abs(x.LLR))
			}
			if odds := ref[a] - ref[c]; !(total == odds || math.Abs(total-odds) <= 1e-12*scale) && !(math.IsNaN(odds) && math.IsInf(total, 0)) &&
				!(a == c && total == 0) {
				errorf("row %d (%v): explain %s against %s adds up to %v, log-odds %v", i, rows[i].vals, s.Labels[a], s.Labels[c], total, odds)
			}
			if len(contrib) != len(sp.feats)+1 {
				errorf("row %d: %d contributions for %d features", i, len(contrib), len(sp.feats))
			}
		}
	}
	return jll
}

// errs reports at most 8 errors per test (a broken rule fails every row).
func errs(t *testing.T) func(format string, args ...any) {
	n := 0
	return func(format string, args ...any) {
		t.Helper()
		if n++; n <= 8 {
			t.Errorf(format, args...)
		} else if n == 9 {
			t.Errorf("... more errors")
		}
	}
}

// same compares with a relative tolerance; equal infinities are the same.
func same(a, b, tol float64) bool {
	if math.IsNaN(a) || math.IsNaN(b) {
		return math.IsNaN(a) && math.IsNaN(b) // both none (a complement model's prior)
	}
	if math.IsInf(a, 0) || math.IsInf(b, 0) {
		return a == b
	}
	return math.Abs(a-b) <= tol*math.Max(1, math.Max(math.Abs(a), math.Abs(b)))
}

// checkSQL: the SQL scoring functions (DuckDB's vectors decoded by the udf layer) give the Go kernel's joint
// log-likelihoods; the log-evidence is their log-sum-exp; predict_proba is finite and sums to 1 and
// nb_predict is its argmax.
func checkSQL(t *testing.T, db *udf.DB, s *sqlnb.Scorer, table string, jll [][]float64, n int) {
	errorf := errs(t)
	lit := queries.Literal(s.Model.Name)
	got := query(t, db, fmt.Sprintf(`SELECT id, nb_joint_log_likelihood(%[1]s, t)::VARCHAR, nb_log_evidence(%[1]s, t),
		list_sum(map_values(nb_predict_proba(%[1]s, t))), nb_predict(%[1]s, t), nb_predict_proba(%[1]s, t)::VARCHAR FROM %[2]s t ORDER BY id`, lit, table))
	if len(got) != n {
		t.Fatalf("%d rows scored, want %d", len(got), n)
	}
	for i, r := range got {
		if math.IsNaN(jll[i][0]) {
			if r[1] != "NULL" || r[2] != "NULL" || r[3] != "NULL" || r[4] != "NULL" || r[5] != "NULL" {
				errorf("row %d: incomplete, but the SQL functions give %v", i, r[1:])
			}
			continue
		}
		m := parseMap(t, r[1])
		best := 0
		for c, l := range s.Labels {
			if !same(m[l], jll[i][c], 1e-12) {
				errorf("row %d class %s: nb_joint_log_likelihood %v, Go kernel %v", i, l, m[l], jll[i][c])
			}
			if jll[i][c] > jll[i][best] {
				best = c
			}
		}
		ev, _ := strconv.ParseFloat(r[2], 64)
		if want := logSumExp(jll[i]); !same(ev, want, 1e-12) {
			errorf("row %d: nb_log_evidence %v, log-sum-exp of the joint log-likelihoods %v", i, ev, want)
		}
		if sum, _ := strconv.ParseFloat(r[3], 64); math.Abs(sum-1) > 1e-12 || math.IsNaN(sum) {
			errorf("row %d: nb_predict_proba sums to %v: %s", i, r[3], r[5])
		}
		if allNegInf(jll[i]) {
			continue // the limit: checked by the kernel test
		}
		if r[4] != s.Labels[best] {
			errorf("row %d: nb_predict %s, argmax %s", i, r[4], s.Labels[best])
		}
	}
	// nb_proba gives the MAP's posterior of its class bit for bit, also where the scores leave the double
	// range (1e300: its former one-class form gave NaN for the classes at −∞).
	differ := make([]string, len(s.Labels))
	for c, l := range s.Labels {
		differ[c] = fmt.Sprintf("nb_proba(%[1]s, t, %[2]s) IS DISTINCT FROM nb_predict_proba(%[1]s, t)[%[2]s]", lit, queries.Literal(l))
	}
	for i, r := range query(t, db, fmt.Sprintf(`SELECT id, %s FROM %s t ORDER BY id`, strings.Join(differ, " OR "), table)) {
		if r[1] != "false" {
			errorf("row %d: nb_proba differs from nb_predict_proba's posterior (%s)", i, r[1])
		}
	}
}

func allNegInf(v []float64) bool {
	for _, x := range v {
		if !math.IsInf(x, -1) {
			return false
		}
	}
	return true
}

func logSumExp(v []float64) float64 {
	mx := math.Inf(-1)
	for _, x := range v {
		mx = max(mx, x)
	}
	if math.IsInf(mx, -1) {
		return mx
	}
	sum := 0.0
	for _, x := range v {
		sum += math.Exp(x - mx)
	}
	return mx + math.Log(sum)
}

// checkExport: the DuckDB macros of ExportSQL give nb_joint_log_likelihood's scores, nb_predict_proba's
// posteriors (1e-12) and nb_predict's labels, also where every score overflows (the limit rule); a family
// that cannot be exported says so.
func checkExport(t *testing.T, db *udf.DB, s *sqlnb.Scorer, table string) {
	errorf := errs(t)
	var b strings.Builder
	err := sqlnb.ExportSQL(&b, s, sqlnb.DialectDuckDB)
	if errors.Is(err, sqlnb.ErrNotExportable) {
		return
	}
	if err != nil {
		t.Fatal(err)
	}
	for _, o := range sqlnb.ExportedObjects(s.Model.Name) { // an earlier setting's export
		mustExec(t, db, fmt.Sprintf("DROP %s IF EXISTS %s", strings.ToUpper(o[0]), queries.Ident(o[1])))
	}
	mustExec(t, db, b.String())
	name, lit := s.Model.Name, queries.Literal(s.Model.Name)
	got := query(t, db, fmt.Sprintf(`SELECT id, %[1]s(t)::VARCHAR, nb_joint_log_likelihood(%[2]s, t)::VARCHAR, %[3]s(t)::VARCHAR,
		nb_predict_proba(%[2]s, t)::VARCHAR, %[4]s(t), nb_predict(%[2]s, t) FROM %[5]s t ORDER BY id`,
		queries.Ident(name+"_joint_log_likelihood"), lit, queries.Ident(name+"_predict_proba"), queries.Ident(name+"_predict"), table))
	for i, r := range got {
		if r[2] == "NULL" {
			if r[1] != "NULL" || r[3] != "NULL" || r[5] != "NULL" {
				errorf("row %d: nb_* give NULL, the export %v", i, r[1:])
			}
			continue
		}
		sj, nj := parseList(t, r[1]), parseMap(t, r[2])
		sp, np := parseMap(t, r[3]), parseMap(t, r[4])
		for c, l := range s.Labels {
			if !same(sj[c], nj[l], 1e-12) {
				errorf("row %d class %s: exported score %v, nb_joint_log_likelihood %v", i, l, sj[c], nj[l])
			}
			if math.Abs(sp[l]-np[l]) > 1e-12 || math.IsNaN(sp[l]) {
				errorf("row %d class %s: exported posterior %v, nb_predict_proba %v", i, l, sp[l], np[l])
			}
		}
		if r[5] != r[6] {
			errorf("row %d: exported label %s, nb_predict %s", i, r[5], r[6])
		}
	}
}

// fitted reports whether a spec's kinds are fitted (logistic), and the tolerance its fold models are held
// to.
func fitted(sp spec) bool {
	for _, f := range sp.feats {
		if cases[sqlnb.Kind(f[1])].fitted {
			return true
		}
	}
	return false
}

// checkMerge: models trained on two halves merge into the model of the whole (statistics 1e-12); a fitted
// model's merge is an error wrapping ErrNotMergeable.
func checkMerge(t *testing.T, db *udf.DB, whole *sqlnb.Model, src, opts string, fit bool) {
	ctx := context.Background()
	var parts []*sqlnb.Model
	for h := range 2 {
		name := fmt.Sprintf("%s_half%d", whole.Name, h)
		mustExec(t, db, fmt.Sprintf(`CALL nb_train(%s, %s, 'y'%s)`, queries.Literal(name),
			queries.Literal(fmt.Sprintf("%s WHERE id %% 2 = %d", src, h)), opts))
		m, err := sqlnb.Load(ctx, db.DB, name)
		if err != nil {
			t.Fatal(err)
		}
		parts = append(parts, m)
	}
	merged, err := sqlnb.Merge(whole, classes, parts...)
	if fit {
		if !errors.Is(err, sqlnb.ErrNotMergeable) {
			t.Errorf("merging fitted models: %v, want ErrNotMergeable", err)
		}
		return
	}
	if err != nil {
		t.Fatal(err)
	}
	compareModels(t, "merge", merged, whole, 1e-12)
}

// checkGroups: per-group models (by := ['h'], h the half of checkMerge) are the models of each half, and
// the pooled model is the model of the whole (statistics 1e-12); fitted and text models refuse by with
// ErrBadOption.
func checkGroups(t *testing.T, db *udf.DB, sp spec, whole *sqlnb.Model, src, opts string) {
	ctx := context.Background()
	name := whole.Name + "_by"
	gsrc := strings.Replace(src, " FROM ", ", id % 2 AS h FROM ", 1)
	_, err := db.ExecContext(ctx, fmt.Sprintf(`CALL nb_train(%s, %s, 'y'%s, by := ['h'])`, queries.Literal(name), queries.Literal(gsrc), opts))
	refused := fitted(sp)
	for _, f := range sp.feats {
		refused = refused || kindIsText(sqlnb.Kind(f[1]))
	}
	if refused {
		if err == nil || !strings.Contains(err.Error(), "--by with") {
			t.Errorf("by with %v: %v, want a refusal", sp.feats, err)
		}
		return
	}
	if err != nil {
		t.Fatal(err)
	}
	m, err := sqlnb.Load(ctx, db.DB, name)
	if err != nil {
		t.Fatal(err)
	}
	compareModels(t, "pooled", m.Pooled(), whole, 1e-12)
	if len(m.Groups) != 2 {
		t.Fatalf("%d groups, want 2", len(m.Groups))
	}
	for k, g := range m.Groups {
		half, err := sqlnb.Load(ctx, db.DB, fmt.Sprintf("%s_half%s", whole.Name, g.Key[0]))
		if err != nil {
			t.Fatal(err)
		}
		compareModels(t, "group "+g.Key[0], m.Member(k), half, 1e-12)
	}
}

// kindIsText reports whether kind k reads text (its vocabulary is pruned per model).
func kindIsText(k sqlnb.Kind) bool {
	for _, info := range sqlnb.Kinds() {
		if info.Kind == k {
			return info.Text
		}
	}
	return false
}

// checkFolds: every fold model of FoldModels (one scan, merged folds) equals training on the other folds.
func checkFolds(t *testing.T, db *udf.DB, sp spec, src string, weighted bool) {
	ctx := context.Background()
	ts := sqlnb.TrainSpec{Model: "cv", Source: src, Label: "y", FeatureKinds: map[string]sqlnb.Kind{}}
	for _, f := range sp.feats {
		ts.FeatureKinds[f[0]] = sqlnb.Kind(f[1])
		ts.Binarize = max(ts.Binarize, cases[sqlnb.Kind(f[1])].binarize)
	}
	if weighted {
		ts.Weight = "w"
	}
	if r := regParam(sp); r > 0 {
		p := sqlnb.DefaultParams()
		p = p.With("reg_param", r)
		ts.Params = &p
	}
	models, fold, err := sqlnb.FoldModels(ctx, db.DB, sqlnb.CVSpec{Folds: 3, Seed: 11, Train: ts})
	if err != nil {
		t.Fatal(err)
	}
	conn, err := db.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	for f, m := range models {
		d := ts
		d.Model = fmt.Sprintf("direct_%d", f)
		d.Source = fmt.Sprintf("SELECT * EXCLUDE (__f) FROM (SELECT *, %s AS __f FROM (%s) __sqlnb_row) WHERE __f <> %d", fold, src, f)
		res, err := sqlnb.Train(ctx, conn, d)
		if err != nil {
			// Training refuses a model it cannot score (qda: a class with one complete row in these folds):
			// the fold model must fail to compile with the same error.
			_, cerr := sqlnb.Compile(m)
			if cerr == nil || !strings.Contains(err.Error(), strings.TrimPrefix(cerr.Error(), fmt.Sprintf("model %q: ", m.Name))) {
				t.Fatalf("direct training of fold %d: %v; the fold model compiles with %v", f, err, cerr)
			}
			t.Logf("fold %d: direct training and the fold model both refuse: %v", f, cerr)
			continue
		}
		tol := 1e-12
		for _, f := range sp.feats {
			tol = max(tol, cases[sqlnb.Kind(f[1])].statTol)
		}
		compareModels(t, fmt.Sprint("fold ", f), m, res.Model, tol)
	}
}

// compareModels compares classes and every statistics row (numbers relative tol).
func compareModels(t *testing.T, what string, got, want *sqlnb.Model, tol float64) {
	t.Helper()
	if len(got.Classes) != len(want.Classes) {
		t.Fatalf("%s: classes %+v, want %+v", what, got.Classes, want.Classes)
	}
	for i := range got.Classes {
		g, w := got.Classes[i], want.Classes[i]
		if g.Label != w.Label || g.Count != w.Count || !same(g.Weight, w.Weight, 1e-12) {
			t.Errorf("%s: class %+v, want %+v", what, g, w)
		}
	}
	if got.IncompleteRows != want.IncompleteRows {
		t.Errorf("%s: %d incomplete rows, want %d", what, got.IncompleteRows, want.IncompleteRows)
	}
	compareStats(t, what, got.Stats, want.Stats, tol)
}

func compareStats(t *testing.T, what string, got, want nb.Stats, tol float64) {
	errorf := errs(t)
	t.Helper()
	names := map[string]bool{}
	for k := range got {
		names[k] = true
	}
	for k := range want {
		names[k] = true
	}
	for name := range names {
		g, w := keyed(got[name]), keyed(want[name])
		if len(g) != len(w) {
			errorf("%s: %d %s rows, want %d", what, len(g), name, len(w))
		}
		for k, wr := range w {
			gr, ok := g[k]
			if !ok {
				errorf("%s: no %s row %s", what, name, k)
				continue
			}
			for f := range wr.NumField() {
				a, b := gr.Field(f), wr.Field(f)
				var x, y float64
				switch a.Kind() {
				case reflect.Float64:
					x, y = a.Float(), b.Float()
				case reflect.Int64:
					x, y = float64(a.Int()), float64(b.Int())
				default:
					continue
				}
				if !same(x, y, tol) {
					errorf("%s: %s row %s field %s = %v, want %v", what, name, k, wr.Type().Field(f).Name, x, y)
				}
			}
		}
	}
}

// keyed indexes a slice of statistics rows by their string fields (feature, class, value or term).
func keyed(rows any) map[string]reflect.Value {
	out := map[string]reflect.Value{}
	if rows == nil {
		return out
	}
	v := reflect.ValueOf(rows)
	for i := range v.Len() {
		r := v.Index(i)
		var key []string
		for f := range r.NumField() {
			if r.Field(f).Kind() == reflect.String {
				key = append(key, r.Field(f).String())
			}
		}
		out[strings.Join(key, "|")] = r
	}
	return out
}

// checkReference: the statistics SQL training computed equal the plain-Go reference's.
func checkReference(t *testing.T, m *sqlnb.Model, sp spec, rows []row, weighted bool) {
	want := nb.Stats{}
	for i := range rows {
		if !weighted {
			rows[i].w = 1
		}
	}
	var all []string
	for _, f := range sp.feats {
		all = append(all, f[0])
	}
	done := map[sqlnb.Kind]bool{}
	for _, f := range sp.feats {
		k := cases[sqlnb.Kind(f[1])]
		if k.refAll != nil {
			if !done[sqlnb.Kind(f[1])] {
				k.refAll(want, all, rows)
			}
			done[sqlnb.Kind(f[1])] = true
			continue
		}
		k.ref(want, f[0], rows, k.binarize)
	}
	tol := 1e-12
	for _, f := range sp.feats {
		tol = max(tol, cases[sqlnb.Kind(f[1])].statTol)
	}
	compareStats(t, "reference", m.Stats, want, tol)
}

func refGaussian(stats nb.Stats, f string, rows []row, _ float64) {
	for c, cl := range classes {
		var xs, ws []float64
		for _, r := range rows {
			if x, ok := r.vals[f].(float64); ok && r.class == c {
				xs, ws = append(xs, x), append(ws, r.w)
			}
		}
		g := gaussian.GaussianStat{Feature: f, Class: cl, Count: int64(len(xs))}
		var sw, swx float64
		for i, x := range xs {
			g.Mean += x / float64(len(xs))
			sw += ws[i]
			swx += ws[i] * x
		}
		g.Weight = sw
		if sw > 0 {
			g.WMean = swx / sw
		}
		for i, x := range xs {
			g.M2 += (x - g.Mean) * (x - g.Mean)
			g.WM2 += ws[i] * (x - g.WMean) * (x - g.WMean)
		}
		stats["gaussian"] = append(asRows[gaussian.GaussianStat](stats["gaussian"]), g)
	}
}

// refCoMoments: per class over the complete rows (every feature a number), the weight, the weighted means
// and the co-moments Σ w (x_j - mean_j)(x_k - mean_k), by the two-pass definition.
func refCoMoments(stats nb.Stats, feats []string, rows []row) {
	for c, cl := range classes {
		var xs [][]float64
		var ws []float64
		for _, r := range rows {
			if r.class != c {
				continue
			}
			x := make([]float64, len(feats))
			ok := true
			for j, f := range feats {
				v, isNum := r.vals[f].(float64)
				ok = ok && isNum && !math.IsNaN(v)
				x[j] = v
			}
			if ok {
				xs, ws = append(xs, x), append(ws, r.w)
			}
		}
		sw := 0.0
		mean := make([]float64, len(feats))
		for i, x := range xs {
			sw += ws[i]
			for j := range x {
				mean[j] += ws[i] * x[j]
			}
		}
		for j := range mean {
			mean[j] /= sw
		}
		for j := range feats {
			for k := j; k < len(feats); k++ {
				co := 0.0
				for i, x := range xs {
					co += ws[i] * (x[j] - mean[j]) * (x[k] - mean[k])
				}
				stats["comoments"] = append(asRows[discriminant.CoMoment](stats["comoments"]), discriminant.CoMoment{Feature: feats[j], Class: cl, Other: feats[k],
					Count: int64(len(xs)), Weight: sw, Mean: mean[j], OtherMean: mean[k], CoMoment: co})
			}
		}
	}
}

// refLogistic fits scikit-learn's multinomial LogisticRegression(C=1) to the complete rows by plain Newton
// steps over every class's weights and the intercepts of classes 1..K-1 (class 0's is 0; the weights'
// penalty ½ Σ_c ‖w_c‖² makes them sum to 0 over the classes), then centres the intercepts, as scikit-learn
// reports them; to a gradient of 1e-13 per unit weight.
func refLogistic(stats nb.Stats, feats []string, rows []row) {
	var xs [][]float64
	var ws []float64
	var ys []int
	for _, r := range rows {
		x := []float64{1}
		ok := true
		for _, f := range feats {
			v, isNum := r.vals[f].(float64)
			ok = ok && isNum && !math.IsNaN(v)
			x = append(x, v)
		}
		if ok {
			xs, ws, ys = append(xs, x), append(ws, r.w), append(ys, r.class)
		}
	}
	K, d := len(classes), len(feats)+1
	D := K * d
	theta := make([]float64, D)                            // class c, column j (0 the intercept) at c*d + j
	free := func(i int) bool { return i >= d || i%d != 0 } // class 0's intercept stays 0
	objective := func(th []float64) (float64, []float64, *mat.SymDense) {
		f, g, h := 0.0, make([]float64, D), mat.NewSymDense(D, nil)
		total := 0.0
		for i, x := range xs {
			z := make([]float64, K)
			for c := range K {
				for j := range d {
					z[c] += th[c*d+j] * x[j]
				}
			}
			lse := logSumExp(z)
			f += ws[i] * (lse - z[ys[i]])
			total += ws[i]
			for c := range K {
				mu := math.Exp(z[c] - lse)
				y := 0.0
				if c == ys[i] {
					y = 1
				}
				for j := range d {
					g[c*d+j] += ws[i] * (mu - y) * x[j]
				}
				for e := range K {
					me := math.Exp(z[e] - lse)
					s := -mu * me
					if e == c {
						s += mu
					}
					for j := range d {
						for k := range d {
							if c*d+j <= e*d+k {
								h.SetSym(c*d+j, e*d+k, h.At(c*d+j, e*d+k)+ws[i]*s*x[j]*x[k])
							}
						}
					}
				}
			}
		}
		for i := range D {
			if i%d != 0 {
				f += 0.5 * th[i] * th[i]
				g[i] += th[i]
				h.SetSym(i, i, h.At(i, i)+1)
			}
			if !free(i) {
				g[i] = 0
				for k := range D {
					h.SetSym(i, k, 0)
				}
				h.SetSym(i, i, 1)
			}
		}
		return f, g, h
	}
	total := 0.0
	for _, w := range ws {
		total += w
	}
	for range 100 {
		f, g, h := objective(theta)
		mx := 0.0
		for _, v := range g {
			mx = math.Max(mx, math.Abs(v))
		}
		if mx/total < 1e-13 {
			break
		}
		var ch mat.Cholesky
		if !ch.Factorize(h) {
			panic("reference logistic regression: singular Hessian")
		}
		var step mat.VecDense
		if err := ch.SolveVecTo(&step, mat.NewVecDense(D, g)); err != nil {
			panic(err)
		}
		for t := 1.0; t > 1e-12; t /= 2 {
			cand := make([]float64, D)
			for i := range D {
				cand[i] = theta[i] - t*step.AtVec(i)
			}
			if fc, _, _ := objective(cand); fc <= f {
				theta = cand
				break
			}
		}
	}
	mean := 0.0
	for c := range K {
		mean += theta[c*d] / float64(K)
	}
	for c, cl := range classes {
		stats["logistic"] = append(asRows[logistic.LogisticCoef](stats["logistic"]), logistic.LogisticCoef{Class: cl, Coef: theta[c*d] - mean})
		for j, f := range feats {
			stats["logistic"] = append(asRows[logistic.LogisticCoef](stats["logistic"]), logistic.LogisticCoef{Feature: f, Class: cl, Coef: theta[c*d+j+1]})
		}
	}
}

// refKDE computes each class's curve of feature f from its values in row order, plainly, as R 4.2's
// density(x) (bw.nrd0, n = 512, cut = 3; testdata/fixtures/README.md, "Kernel-density naive Bayes"): the
// n - 1 sd, type-7 quartiles, BinDist's linear binning, the convolution summed, approx onto [from, to].
func refKDE(stats nb.Stats, f string, rows []row, _ float64) {
	const N = 512
	seq := func(a, b float64) []float64 {
		out := make([]float64, N)
		for i := range out {
			out[i] = a + float64(i)*((b-a)/(N-1))
		}
		out[0], out[N-1] = a, b
		return out
	}
	for c, cl := range classes {
		var xs []float64
		for _, r := range rows {
			if x, ok := r.vals[f].(float64); ok && r.class == c && !math.IsNaN(x) {
				xs = append(xs, x)
			}
		}
		n := float64(len(xs))
		mean := 0.0
		for _, x := range xs {
			mean += x / n
		}
		ss := 0.0
		for _, x := range xs {
			ss += (x - mean) * (x - mean)
		}
		sd := math.Sqrt(ss / (n - 1))
		sorted := append([]float64{}, xs...)
		sort.Float64s(sorted)
		q := func(p float64) float64 {
			index := 1 + (n-1)*p
			lo, hi := sorted[int(math.Floor(index))-1], sorted[int(math.Ceil(index))-1]
			h := index - math.Floor(index)
			return (1-h)*lo + h*hi
		}
		lo := math.Min(sd, (q(0.75)-q(0.25))/1.34)
		if lo == 0 {
			lo = sd
		}
		h := 0.9 * lo * math.Pow(n, -0.2)
		from, to := sorted[0]-3*h, sorted[len(sorted)-1]+3*h
		glo, gup := from-4*h, to+4*h
		w := make([]float64, N)
		for _, x := range xs {
			pos := (x - glo) / ((gup - glo) / (N - 1))
			ix := int(math.Floor(pos))
			fx := pos - float64(ix)
			w[ix] += (1 - fx) / n
			w[ix+1] += fx / n
		}
		conv := make([]float64, N)
		for i := range conv {
			for j := range w {
				d := float64(i-j) * (2 * (gup - glo) / (2*N - 1))
				conv[i] += w[j] * math.Exp(-0.5*(d/h)*(d/h)) / (h * math.Sqrt(2*math.Pi))
			}
		}
		xords, xout := seq(glo, gup), seq(from, to)
		stats["kde"] = append(asRows[kde.KDEStat](stats["kde"]), kde.KDEStat{Feature: f, Class: cl, Count: int64(n), Bandwidth: h, From: from, To: to})
		for k, v := range xout {
			i := sort.SearchFloat64s(xords, v)
			if i == N || xords[i] > v {
				i--
			}
			y := conv[i]
			if i < N-1 && v != xords[i] {
				y += (conv[i+1] - conv[i]) * ((v - xords[i]) / (xords[i+1] - xords[i]))
			}
			stats["kde_grid"] = append(asRows[kde.KDEPoint](stats["kde_grid"]), kde.KDEPoint{Feature: f, Class: cl, Point: int64(k), Y: y})
		}
	}
}

func refPoisson(stats nb.Stats, f string, rows []row, _ float64) {
	for c, cl := range classes {
		p := poisson.PoissonStat{Feature: f, Class: cl}
		var sum, swx float64
		for _, r := range rows {
			if x, ok := r.vals[f].(float64); ok && r.class == c {
				p.Count++
				sum += x
				p.Weight += r.w
				swx += r.w * x
			}
		}
		if p.Count > 0 {
			p.Mean = sum / float64(p.Count)
		}
		if p.Weight > 0 {
			p.WMean = swx / p.Weight
		}
		stats["poisson"] = append(asRows[poisson.PoissonStat](stats["poisson"]), p)
	}
}

// refCategorical counts values as DuckDB casts them to text; a number of a Bernoulli feature is "true"
// when > the threshold.
func refCategorical(stats nb.Stats, f string, rows []row, bin float64) {
	type key struct{ c, v string }
	n, w := map[key]int64{}, map[key]float64{}
	var order []key
	for _, r := range rows {
		var v string
		switch x := r.vals[f].(type) {
		case nil:
			continue
		case string:
			v = x
		case float64:
			v = strconv.FormatBool(x > bin)
		}
		k := key{classes[r.class], v}
		if n[k] == 0 {
			order = append(order, k)
		}
		n[k]++
		w[k] += r.w
	}
	for _, k := range order {
		stats["categorical"] = append(asRows[categorical.CategoryCount](stats["categorical"]), categorical.CategoryCount{Feature: f, Class: k.c, Value: k.v, Count: n[k], Weight: w[k]})
	}
}

func refTotals(stats nb.Stats, f string, rows []row, _ float64) {
	for c, cl := range classes {
		total := 0.0
		for _, r := range rows {
			if x, ok := r.vals[f].(float64); ok && r.class == c {
				total += r.w * x
			}
		}
		stats["totals"] = append(asRows[counts.CountStat](stats["totals"]), counts.CountStat{Feature: f, Class: cl, Total: total})
	}
}

// refTerms counts each document's terms (sqlnb's Go tokenizer, held equal to the training SQL by
// TestTextOptionsAgreeWithSQL): occurrences, documents, documents with more than bin occurrences, weight.
func refTerms(stats nb.Stats, f string, rows []row, bin float64) {
	type key struct{ c, t string }
	agg := map[key]*text.TermCount{}
	var order []key
	for _, r := range rows {
		d, ok := r.vals[f].(string)
		if !ok {
			continue
		}
		hist := map[string]int64{}
		for _, term := range (sqlnb.TextOptions{}).Terms(d) {
			hist[term]++
		}
		for term, n := range hist {
			k := key{classes[r.class], term}
			if agg[k] == nil {
				agg[k] = &text.TermCount{Feature: f, Class: k.c, Term: term}
				order = append(order, k)
			}
			a := agg[k]
			a.Count += n
			a.Docs++
			if float64(n) > bin {
				a.Present++
			}
			a.Weight += r.w * float64(n)
		}
	}
	sort.Slice(order, func(i, j int) bool { return order[i].c+order[i].t < order[j].c+order[j].t })
	for _, k := range order {
		stats["terms"] = append(asRows[text.TermCount](stats["terms"]), *agg[k])
	}
}

// refBernoulliTerms: refTerms, and per class with a non-NULL document the DocsTerm row counting those
// documents (empty ones too: BernoulliNB's n_c over the rows whose text is not missing).
func refBernoulliTerms(stats nb.Stats, f string, rows []row, bin float64) {
	refTerms(stats, f, rows, bin)
	for c, cl := range classes {
		var n int64
		for _, r := range rows {
			if _, ok := r.vals[f].(string); ok && r.class == c {
				n++
			}
		}
		if n > 0 {
			stats["terms"] = append(asRows[text.TermCount](stats["terms"]), text.TermCount{Feature: f, Class: cl, Term: text.DocsTerm, Docs: n})
		}
	}
}

func asRows[T any](v any) []T {
	r, _ := v.([]T)
	return r
}

func mustExec(t *testing.T, db *udf.DB, stmt string) {
	t.Helper()
	if _, err := db.Exec(stmt); err != nil {
		t.Fatalf("%.300s: %v", stmt, err)
	}
}

func query(t *testing.T, db *udf.DB, stmt string) [][]string {
	t.Helper()
	rows, err := db.Query(stmt)
	if err != nil {
		t.Fatalf("%.300s: %v", stmt, err)
	}
	defer rows.Close()
	cols, _ := rows.Columns()
	var out [][]string
	for rows.Next() {
		vals := make([]any, len(cols))
		ptrs := make([]any, len(cols))
		for i := range vals {
			ptrs[i] = &vals[i]
		}
		if err := rows.Scan(ptrs...); err != nil {
			t.Fatal(err)
		}
		r := make([]string, len(cols))
		for i, v := range vals {
			switch x := v.(type) {
			case nil:
				r[i] = "NULL"
			case float64:
				r[i] = strconv.FormatFloat(x, 'g', -1, 64)
			default:
				r[i] = fmt.Sprint(x)
			}
		}
		out = append(out, r)
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

// parseMap reads DuckDB's text form of a MAP(VARCHAR, DOUBLE): {a=1.5, b=-inf}.
func parseMap(t *testing.T, s string) map[string]float64 {
	t.Helper()
	out := map[string]float64{}
	s = strings.TrimSuffix(strings.TrimPrefix(s, "{"), "}")
	for _, kv := range strings.Split(s, ", ") {
		k, v, ok := strings.Cut(kv, "=")
		if !ok {
			t.Fatalf("bad map %q", s)
		}
		out[k] = parseFloat(t, v)
	}
	return out
}

// parseList reads DuckDB's text form of a DOUBLE list: [1.5, -inf].
func parseList(t *testing.T, s string) []float64 {
	t.Helper()
	var out []float64
	for _, v := range strings.Split(strings.TrimSuffix(strings.TrimPrefix(s, "["), "]"), ", ") {
		out = append(out, parseFloat(t, v))
	}
	return out
}

func parseFloat(t *testing.T, v string) float64 {
	t.Helper()
	switch strings.ToLower(v) {
	case "-inf", "-infinity":
		return math.Inf(-1)
	case "inf", "+inf", "infinity":
		return math.Inf(1)
	}
	f, err := strconv.ParseFloat(v, 64)
	if err != nil {
		t.Fatalf("bad number %q", v)
	}
	return f
}

// checkPostgres (when PGHOST names a PostgreSQL server, as in make test-integration): the PostgreSQL functions
// of ExportSQL give nb_joint_log_likelihood's scores and nb_predict_proba's posteriors (1e-12) and
// nb_predict's labels on the same rows, given as jsonb (NaN and ±Inf as the strings PostgreSQL's float8
// reads).
func checkPostgres(t *testing.T, db *udf.DB, s *sqlnb.Scorer, sp spec, rows []row, table string) {
	var b strings.Builder
	err := sqlnb.ExportSQL(&b, s, sqlnb.DialectPostgres)
	if errors.Is(err, sqlnb.ErrNotExportable) {
		return
	}
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	script, data := filepath.Join(dir, "export.sql"), filepath.Join(dir, "rows.txt")
	if err := os.WriteFile(script, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	var lines []string
	for i, rw := range rows {
		obj := map[string]any{}
		for _, f := range sp.feats {
			switch v := rw.vals[f[0]].(type) {
			case float64:
				switch {
				case math.IsNaN(v):
					obj[f[0]] = "NaN"
				case math.IsInf(v, 1):
					obj[f[0]] = "Infinity"
				case math.IsInf(v, -1):
					obj[f[0]] = "-Infinity"
				default:
					obj[f[0]] = json.Number(strconv.FormatFloat(v, 'g', -1, 64))
				}
			default:
				obj[f[0]] = v
			}
		}
		j, err := json.Marshal(obj)
		if err != nil {
			t.Fatal(err)
		}
		// COPY text format: backslashes escaped.
		lines = append(lines, fmt.Sprintf("%d\t%s", i, strings.ReplaceAll(string(j), `\`, `\\`)))
	}
	if err := os.WriteFile(data, []byte(strings.Join(lines, "\n")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	psql := func(args ...string) string {
		out, err := exec.Command("psql", append([]string{"-X", "-v", "ON_ERROR_STOP=1", "-q"}, args...)...).CombinedOutput()
		if err != nil {
			t.Fatalf("psql %v: %v\n%s", args, err, out)
		}
		return string(out)
	}
	// A fresh schema per model and setting: the export creates its objects and replaces nothing.
	schema := pgIdent(s.Model.Name + "_" + strconv.FormatFloat(s.Model.Params.Float("alpha"), 'g', -1, 64))
	psql("-c", `DROP SCHEMA IF EXISTS `+schema+` CASCADE; CREATE SCHEMA `+schema+`; CREATE TABLE `+schema+`.conf (id integer, f jsonb)`)
	t.Setenv("PGOPTIONS", "-c search_path="+schema)
	psql("-c", `\copy conf FROM '`+data+`'`)
	psql("-f", script)
	name := s.Model.Name
	out := psql("-At", "-F", "|", "-c", fmt.Sprintf(`SELECT id, array_to_string(%s(f), ','), %s(f)::text, %s(f) FROM conf ORDER BY id`,
		pgIdent(name+"_joint_log_likelihood"), pgIdent(name+"_predict_proba"), pgIdent(name+"_predict")))
	want := query(t, db, fmt.Sprintf(`SELECT id, nb_joint_log_likelihood(%[1]s, t)::VARCHAR, nb_predict_proba(%[1]s, t)::VARCHAR,
		nb_predict(%[1]s, t) FROM %[2]s t ORDER BY id`, queries.Literal(name), table))
	errorf := errs(t)
	got := strings.Split(strings.TrimSpace(out), "\n")
	if len(got) != len(want) {
		t.Fatalf("PostgreSQL scored %d rows, want %d", len(got), len(want))
	}
	for i, line := range got {
		f := strings.SplitN(line, "|", 4)
		if want[i][1] == "NULL" {
			if f[1] != "" || f[2] != "" || f[3] != "" {
				errorf("row %d: nb_* give NULL, PostgreSQL %q", i, line)
			}
			continue
		}
		jll := parseList(t, "["+strings.ReplaceAll(f[1], ",", ", ")+"]")
		var proba map[string]float64
		if err := json.Unmarshal([]byte(f[2]), &proba); err != nil {
			t.Fatalf("row %d: %v in %q", i, err, f[2])
		}
		nj, np := parseMap(t, want[i][1]), parseMap(t, want[i][2])
		for c, l := range s.Labels {
			if !same(jll[c], nj[l], 1e-12) {
				errorf("row %d class %s: PostgreSQL score %v, nb_joint_log_likelihood %v", i, l, jll[c], nj[l])
			}
			if math.Abs(proba[l]-np[l]) > 1e-12 {
				errorf("row %d class %s: PostgreSQL posterior %v, nb_predict_proba %v", i, l, proba[l], np[l])
			}
		}
		if f[3] != want[i][3] {
			errorf("row %d: PostgreSQL label %s, nb_predict %s", i, f[3], want[i][3])
		}
	}
}

func pgIdent(s string) string { return `"` + strings.ReplaceAll(s, `"`, `""`) + `"` }
