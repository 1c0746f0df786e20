package sqlnb_test

import (
	"context"
	"math"
	"testing"

	"github.com/sqlnb/sqlnb/sqlnb"
)

func train(t *testing.T, db sqlnb.DB, spec sqlnb.TrainSpec) *sqlnb.Model {
	t.Helper()
	res, err := sqlnb.Train(context.Background(), db, spec)
	if err != nil {
		t.Fatal(err)
	}
	return res.Model
}

func compile(t *testing.T, m *sqlnb.Model) *sqlnb.Scorer {
	t.Helper()
	s, err := sqlnb.Compile(m)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func withParams(f func(*sqlnb.Params)) *sqlnb.Params {
	p := sqlnb.DefaultParams()
	f(&p)
	return &p
}

// TestAdditiveSmoothingSeed000 checks seed 000's additive smoothing, θ = (n_ijk + α)/(n_k + αJ), and the
// smoothed prior θ_y = (n_1 + α)/(n + αK), by hand: class a has 3 rows (x = u, u, v), class b 1 row (x = w);
// J = 3 distinct values, α = 1: θ(u|a) = 3/6, θ(v|a) = 2/6, θ(w|a) = 1/6, θ(w|b) = 2/4, θ(u|b) = 1/4;
// smoothed priors (3+1)/(4+2) = 2/3 and 1/3.
func TestAdditiveSmoothingSeed000(t *testing.T) {
	db := mustOpenDB(t)
	mustExec(t, db, `CREATE TABLE d AS SELECT * FROM (VALUES ('a','u'), ('a','u'), ('a','v'), ('b','w')) v(y, x)`)
	m := train(t, db, sqlnb.TrainSpec{Model: "s", Source: "d", Label: "y",
		Params: withParams(func(p *sqlnb.Params) { *p = p.With("priors", sqlnb.PriorsSmoothed) })})
	s := compile(t, m)
	for _, c := range []struct {
		class int
		value string
		want  float64
	}{{0, "u", 3.0 / 6}, {0, "v", 2.0 / 6}, {0, "w", 1.0 / 6}, {1, "w", 2.0 / 4}, {1, "u", 1.0 / 4}} {
		if got := param(t, s, "x", s.Labels[c.class], "probability", c.value); !near(got, c.want, 1e-15) {
			t.Errorf("θ(%s|%s) = %v, want %v", c.value, s.Labels[c.class], got, c.want)
		}
	}
	if got := param(t, s, "x", "a", "unseen", ""); !near(got, 1.0/6, 1e-15) {
		t.Errorf("unseen mass in a = %v, want α/(n_a+αJ) = 1/6", got)
	}
	if got := math.Exp(s.LogPrior[0]); !near(got, 2.0/3, 1e-15) {
		t.Errorf("smoothed prior of a = %v, want 2/3", got)
	}
	// The fitted prior n_c/n (seed 000's MLE θ_y = n_1/n) and the uniform one.
	m.Params = m.Params.With("priors", sqlnb.PriorsFit)
	if got := math.Exp(compile(t, m).LogPrior[0]); !near(got, 3.0/4, 1e-15) {
		t.Errorf("fitted prior of a = %v, want 3/4", got)
	}
	m.Params = m.Params.With("priors", sqlnb.PriorsUniform)
	if got := math.Exp(compile(t, m).LogPrior[1]); !near(got, 0.5, 1e-15) {
		t.Errorf("uniform prior = %v, want 1/2", got)
	}
}

// TestGaussianMLESeed000 checks the MLE mean and the 1/n variance of seed 000/001 plus scikit-learn's
// ε = var_smoothing × the largest whole-data variance, by hand. Class a: x = 1, 2, 3 (mean 2, var 2/3);
// class b: x = 10, 14 (mean 12, var 4). Whole data 1, 2, 3, 10, 14: mean 6, squared deviations
// 25+16+9+16+64 = 130, var 130/5 = 26.
// With var_smoothing 0.01: ε = 0.26.
func TestGaussianMLESeed000(t *testing.T) {
	db := mustOpenDB(t)
	mustExec(t, db, `CREATE TABLE d AS SELECT * FROM (VALUES ('a',1.0), ('a',2.0), ('a',3.0), ('b',10.0), ('b',14.0)) v(y, x)`)
	m := train(t, db, sqlnb.TrainSpec{Model: "g", Source: "d", Label: "y",
		Params: withParams(func(p *sqlnb.Params) { *p = p.With("var_smoothing", 0.01) })})
	s0 := compile(t, m)
	eps := 0.01 * 26.0
	for c, want := range [][2]float64{{2, 2.0/3 + eps}, {12, 4 + eps}} {
		l := s0.Labels[c]
		if mean, v := param(t, s0, "x", l, "mean", ""), param(t, s0, "x", l, "variance", ""); !near(mean, want[0], 1e-14) || !near(v, want[1], 1e-14) {
			t.Errorf("class %s: mean %v var %v, want %v %v", l, mean, v, want[0], want[1])
		}
	}
	// Pooled (seed 000: shared variance makes NB a linear discriminant): (2 + 8)/5 = 2, plus ε.
	m.Params = m.Params.With("variance", sqlnb.VariancePooled)
	s1 := compile(t, m)
	for _, l := range s1.Labels {
		if v := param(t, s1, "x", l, "variance", ""); !near(v, 2+eps, 1e-14) {
			t.Errorf("pooled variance of class %s = %v, want %v", l, v, 2+eps)
		}
	}
	// Sample (R's n - 1): class a 2/2 = 1, class b 8/1 = 8, plus ε.
	m.Params = m.Params.With("variance", sqlnb.VarianceSample)
	s2 := compile(t, m)
	for c, want := range []float64{1 + eps, 8 + eps} {
		if v := param(t, s2, "x", s2.Labels[c], "variance", ""); !near(v, want, 1e-14) {
			t.Errorf("sample variance of class %s = %v, want %v", s2.Labels[c], v, want)
		}
	}
	// log N(x; μ, σ²) at x = 2.5 for class a, written out.
	m.Params = m.Params.With("variance", sqlnb.VarianceClass)
	s := compile(t, m)
	b := s.NewBatch(1)
	b.Num[0][0] = 2.5
	jll := make([]float64, 2)
	s.JointLogLikelihood(b, jll, nil)
	v := 2.0/3 + eps
	want := math.Log(3.0/5) - 0.5*math.Log(2*math.Pi*v) - (2.5-2)*(2.5-2)/(2*v)
	if !near(jll[0], want, 1e-14) {
		t.Errorf("b_a(2.5) = %v, want %v", jll[0], want)
	}
}

// TestGivenPriors checks priors given per class, and that they must name every class and sum to 1.
func TestGivenPriors(t *testing.T) {
	db := mustOpenDB(t)
	mustExec(t, db, `CREATE TABLE d AS SELECT * FROM (VALUES ('a','u'), ('a','u'), ('b','w')) v(y, x)`)
	o := sqlnb.Options{Hyperparams: map[string]any{"priors": "a=0.2,b=0.8"}}
	spec, err := o.Spec("p", "d", "y")
	if err != nil {
		t.Fatal(err)
	}
	s := compile(t, train(t, db, spec))
	if got := math.Exp(s.LogPrior[1]); !near(got, 0.8, 1e-15) {
		t.Errorf("given prior of b = %v, want 0.8", got)
	}
	// Classes with ',', '=', '"' or spaces, in double quotes (a doubled quote for one), and '=' without.
	mustExec(t, db, `CREATE TABLE odd AS SELECT * FROM (VALUES ('x,y','u'), ('p=q','u'), ('say "hi" ','w'), ('a=b=c','w')) v(y, x)`)
	spec, err = sqlnb.Options{Hyperparams: map[string]any{"priors": ` "x,y" = 0.1, "p=q"=0.2,"say ""hi"" "=0.3 , a=b=c=0.4`}}.Spec("odd", "odd", "y")
	if err != nil {
		t.Fatal(err)
	}
	s = compile(t, train(t, db, spec))
	for c, label := range s.Labels {
		want := map[string]float64{"x,y": 0.1, "p=q": 0.2, `say "hi" `: 0.3, "a=b=c": 0.4}[label]
		if got := math.Exp(s.LogPrior[c]); !near(got, want, 1e-15) {
			t.Errorf("given prior of %q = %v, want %v", label, got, want)
		}
	}
	for _, bad := range []string{"a=0.2,b=0.7", "a=0.5,c=0.5", "a=1", "a=-1,b=2", "nonsense", `"a=0.2,b=0.8`, `"a=0.2",b=0.8`, "a=0.2,a=0.8", `"a"x=0.2,b=0.8`, `"a"=0.2 "b"=0.8`} {
		o := sqlnb.Options{Hyperparams: map[string]any{"priors": bad}}
		spec, err := o.Spec("p", "d", "y")
		if err == nil {
			_, err = sqlnb.Train(context.Background(), db, spec)
		}
		if err == nil {
			t.Errorf("priors %q: no error", bad)
		}
	}
}
