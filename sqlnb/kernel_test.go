package sqlnb_test

import (
	"math"
	"strings"
	"testing"

	"github.com/sqlnb/sqlnb/internal/kernel"
	"github.com/sqlnb/sqlnb/sqlnb"
	"github.com/sqlnb/sqlnb/sqlnb/family/categorical"
	"github.com/sqlnb/sqlnb/sqlnb/family/gaussian"
	"github.com/sqlnb/sqlnb/sqlnb/nb"
)

// toyModel: classes a (3 rows) and b (2 rows); Gaussian x; categorical c with values u (a:2, b:0) and
// w (a:1, b:2).
func toyModel(alpha float64) *sqlnb.Model {
	p := sqlnb.DefaultParams()
	p = p.With("alpha", alpha)
	return &sqlnb.Model{
		Name: "toy", Label: "y", LabelType: "VARCHAR", Params: p, Version: nb.FormatVersion, Rows: 5,
		Features: []sqlnb.Feature{{Name: "x", Kind: sqlnb.Gaussian, Type: "DOUBLE"}, {Name: "c", Kind: sqlnb.Categorical, Type: "VARCHAR"}},
		Classes:  []sqlnb.Class{{Label: "a", Count: 3, Weight: 3}, {Label: "b", Count: 2, Weight: 2}},
		Stats: nb.Stats{
			"gaussian": []gaussian.GaussianStat{
				{Feature: "x", Class: "a", Count: 3, Mean: 1, M2: 2, Weight: 3, WMean: 1, WM2: 2},
				{Feature: "x", Class: "b", Count: 2, Mean: 4, M2: 1, Weight: 2, WMean: 4, WM2: 1},
			},
			"categorical": []categorical.CategoryCount{
				{Feature: "c", Class: "a", Value: "u", Count: 2, Weight: 2}, {Feature: "c", Class: "a", Value: "w", Count: 1, Weight: 1},
				{Feature: "c", Class: "b", Value: "w", Count: 2, Weight: 2},
			},
		},
	}
}

func scoreRows(t *testing.T, s *sqlnb.Scorer, xs []float64, xValid []bool, cs []int32) [][]float64 {
	t.Helper()
	n := len(xs)
	b := s.NewBatch(n)
	copy(b.Num[0], xs)
	if xValid != nil {
		mask := make([]uint64, (n+63)/64)
		for i, ok := range xValid {
			if ok {
				mask[i/64] |= 1 << (i % 64)
			}
		}
		b.Valid[0] = mask
	}
	copy(b.Cat[1], cs)
	K := len(s.Labels)
	jll := make([]float64, n*K)
	s.JointLogLikelihood(b, jll, nil)
	out := make([][]float64, n)
	for i := range n {
		out[i] = make([]float64, K)
		for c := range K {
			out[i][c] = jll[c*n+i]
		}
	}
	return out
}

func TestKernelMissingAndUnseen(t *testing.T) {
	s := compile(t, toyModel(1))
	f := s.Inputs[1]
	nan, inf := math.NaN(), math.Inf(1)
	rows := scoreRows(t, s,
		[]float64{0.5, 0.5, 123, nan, inf, -inf, 0.5},
		[]bool{true, true, false, true, true, true, false},
		[]int32{f.Lookup("u"), f.Missing(), f.Missing(), f.Missing(), f.Missing(), f.Missing(), f.Unseen()})
	logN := func(x, mean, v float64) float64 { return -0.5*math.Log(2*math.Pi*v) - (x-mean)*(x-mean)/(2*v) }
	va, vb := param(t, s, "x", "a", "variance", ""), param(t, s, "x", "b", "variance", "")
	// Row 0: everything present: prior + Gaussian + categorical (θ(u|a) = 3/5, θ(u|b) = 1/4).
	want0 := []float64{math.Log(0.6) + logN(0.5, 1, va) + math.Log(3.0/5), math.Log(0.4) + logN(0.5, 4, vb) + math.Log(1.0/4)}
	// Row 1: c missing, marginalised (seed 004).
	want1 := []float64{math.Log(0.6) + logN(0.5, 1, va), math.Log(0.4) + logN(0.5, 4, vb)}
	// Rows 2-5: x NULL, NaN, +Inf, -Inf and c missing: the prior alone.
	prior := []float64{math.Log(0.6), math.Log(0.4)}
	// Row 6: x NULL, c unseen with α = 1: α/(n_jc + αJ) = 1/5 and 1/4.
	want6 := []float64{math.Log(0.6) + math.Log(1.0/5), math.Log(0.4) + math.Log(1.0/4)}
	for i, want := range [][]float64{want0, want1, prior, prior, prior, prior, want6} {
		for c := range want {
			if !near(rows[i][c], want[c], 1e-13) {
				t.Errorf("row %d class %d: b_c = %v, want %v", i, c, rows[i][c], want[c])
			}
		}
	}
}

// TestKernelAlphaZero: α = 0 is raised to 1e-10 (scikit-learn 1.2's rule), so an unseen value and a value
// never seen in one class have a tiny probability instead of ruling classes out, and a row that
// contradicts every class still has finite posteriors. With α = 1e-10: θ(unseen|a) = α/(3 + 2α),
// θ(unseen|b) = α/(2 + 2α), so p(a | unseen) = 0.6/3 / (0.6/3 + 0.4/2) = 1/2 up to O(α); θ(u|b) =
// α/(2 + 2α), so p(a | u) = 1 - O(α).
func TestKernelAlphaZero(t *testing.T) {
	m := toyModel(0)
	m.Features = append(m.Features, sqlnb.Feature{Name: "d", Kind: sqlnb.Categorical, Type: "VARCHAR"})
	m.Stats["categorical"] = append(nb.StatRows(m, categorical.CategoricalTable), categorical.CategoryCount{Feature: "d", Class: "a", Value: "p", Count: 3, Weight: 3},
		categorical.CategoryCount{Feature: "d", Class: "b", Value: "q", Count: 2, Weight: 2})
	if w := nb.ParamWarnings(m.Params); len(w) != 1 || !strings.Contains(w[0], "raised to 1e-10") {
		t.Errorf("warnings %q, want the alpha rule", w)
	}
	s := compile(t, m)
	c, d := s.Inputs[1], s.Inputs[2]
	b := s.NewBatch(3)
	b.Valid[0] = []uint64{0} // x missing everywhere
	copy(b.Cat[1], []int32{c.Unseen(), c.Lookup("u"), c.Lookup("u")})
	copy(b.Cat[2], []int32{d.Missing(), d.Missing(), d.Lookup("q")})
	jll := make([]float64, 6)
	s.JointLogLikelihood(b, jll, nil)
	post := make([]float64, 2)
	kernel.LogPosterior(jll, 3, 2, 0, post)
	if !near(math.Exp(post[0]), 0.5, 1e-9) {
		t.Errorf("unseen value with α=0: p(a) = %v, want 1/2", math.Exp(post[0]))
	}
	kernel.LogPosterior(jll, 3, 2, 1, post)
	if p := math.Exp(post[0]); !near(p, 1, 1e-9) || p == 1 {
		t.Errorf("u never seen in b (α=0): p(a) = %v, want 1 - O(1e-10)", p)
	}
	kernel.LogPosterior(jll, 3, 2, 2, post)
	if p := math.Exp(post[0]) + math.Exp(post[1]); math.IsNaN(p) || !near(p, 1, 1e-12) {
		t.Errorf("contradictory row: posteriors %v, want finite and summing to 1", post)
	}
}

// TestPosteriorsSumToOne on many random rows of the toy model.
func TestPosteriorsSumToOne(t *testing.T) {
	s := compile(t, toyModel(0.5))
	n := 1000
	xs := make([]float64, n)
	cs := make([]int32, n)
	for i := range n {
		xs[i] = float64(i%97) - 40
		cs[i] = int32(i % 4)
	}
	b := s.NewBatch(n)
	copy(b.Num[0], xs)
	copy(b.Cat[1], cs)
	jll := make([]float64, 2*n)
	s.JointLogLikelihood(b, jll, nil)
	post := make([]float64, 2)
	for i := range n {
		kernel.Posterior(jll, n, 2, i, post)
		if sum := post[0] + post[1]; !near(sum, 1, 1e-15) {
			t.Fatalf("row %d: posteriors sum to %v", i, sum)
		}
	}
}

// TestPureDomainPackage: sqlnb depends on database/sql only, not on the DuckDB driver, udf or cobra.
func TestPureDomainPackage(t *testing.T) {
	for _, imp := range importsOf(t) {
		for _, banned := range []string{"github.com/sqlnb/sqlnb/udf", "github.com/spf13/cobra", "github.com/duckdb/"} {
			if len(imp) >= len(banned) && imp[:len(banned)] == banned {
				t.Errorf("package sqlnb depends on %s", imp)
			}
		}
	}
}
