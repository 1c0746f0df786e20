package sqlnb

import (
	"math"
	"math/big"
	"math/rand/v2"
	"testing"
)

// bigExp is e^x to ~200 bits: the Taylor series of e^(x/2^20), squared 20 times.
func bigExp(x float64) *big.Float {
	const prec, halvings = 260, 20
	y := new(big.Float).SetPrec(prec).SetFloat64(x)
	y.SetMantExp(y, -halvings)
	sum := new(big.Float).SetPrec(prec).SetInt64(1)
	term := new(big.Float).SetPrec(prec).SetInt64(1)
	for k := 1; k < 40; k++ {
		term.Mul(term, y)
		term.Quo(term, new(big.Float).SetPrec(prec).SetInt64(int64(k)))
		sum.Add(sum, term)
	}
	for range halvings {
		sum.Mul(sum, sum)
	}
	return sum
}

// ulps is |got − want| in units of the last place of want.
func ulps(got float64, want *big.Float) float64 {
	w, _ := want.Float64()
	ulp := math.Nextafter(w, math.Inf(1)) - w
	d := new(big.Float).SetPrec(260).Sub(new(big.Float).SetFloat64(got), want)
	f, _ := d.Float64()
	return math.Abs(f) / ulp
}

// TestExpNonPositive: within 0.52 ulp of a 200-bit reference (math.Exp on amd64, its assembly version, is
// off by up to ~1.5 ulp here), within 2 ulps of math.Exp on a million arguments, and math.Exp's value
// outside its range (0, subnormal results, NaN).
func TestExpNonPositive(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	var worst, worstStd float64
	for i := range 20000 {
		var x float64
		switch i % 3 {
		case 0:
			x = -r.Float64() * 708
		case 1:
			x = -r.Float64() * 2
		default:
			x = -r.Float64() * 1e-3
		}
		want := bigExp(x)
		worst = max(worst, ulps(expNonPositive(x), want))
		worstStd = max(worstStd, ulps(math.Exp(x), want))
	}
	if worst > 0.52 {
		t.Errorf("expNonPositive is %.3f ulp from the exact value (math.Exp: %.3f)", worst, worstStd)
	}
	t.Logf("largest error: %.3f ulp (math.Exp %.3f)", worst, worstStd)
	for range 1_000_000 {
		x := -r.ExpFloat64() * 30
		got, std := expNonPositive(x), math.Exp(x)
		if ulp := math.Nextafter(std, 1) - std; math.Abs(got-std) > 2*ulp {
			t.Fatalf("e^%v: %v, math.Exp %v", x, got, std)
		}
	}
	for _, x := range []float64{0, math.Copysign(0, -1), -1e-300, -708, -708.0001, -745, -746, math.Inf(-1), math.NaN(), 1, 709.7} {
		got, std := expNonPositive(x), math.Exp(x)
		if got != std && !(math.IsNaN(got) && math.IsNaN(std)) && ulps(got, bigExp(x)) > 0.52 {
			t.Errorf("e^%v: %v, math.Exp %v", x, got, std)
		}
	}
}

func BenchmarkExp(b *testing.B) {
	xs := make([]float64, 4096)
	for i := range xs {
		xs[i] = -float64(i%200) * 0.37
	}
	b.Run("math.Exp", func(b *testing.B) {
		s := 0.0
		for b.Loop() {
			for _, x := range xs {
				s += math.Exp(x)
			}
		}
		_ = s
	})
	b.Run("expNonPositive", func(b *testing.B) {
		s := 0.0
		for b.Loop() {
			for _, x := range xs {
				s += expNonPositive(x)
			}
		}
		_ = s
	})
}

// TestPosteriorsMatchRows: the chunk-wide Posteriors and LogPosteriors give Posterior's and LogPosterior's
// values row by row, bit for bit (classes far below the best, ties, −∞ and NaN scores included; a NaN
// result is NaN in both, whatever its payload).
func TestPosteriorsMatchRows(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	for _, K := range []int{1, 2, 3, 10} {
		n := 300
		jll := make([]float64, n*K)
		for i := range jll {
			jll[i] = -r.ExpFloat64() * []float64{1, 30, 800}[i%3]
		}
		jll[5] = math.Inf(-1)
		// Ties, every class −∞, a NaN, and differences past the fast exponential's range (−708) and past
		// underflow (−745.13), in row 7..12.
		for c := range K {
			jll[c*n+7] = -3
			jll[c*n+8] = math.Inf(-1)
			jll[c*n+10] = -1 - 720*float64(c)
			jll[c*n+11] = -1 - 740*float64(c%2)
			jll[c*n+12] = -1 - 800*float64(c%2)
		}
		jll[(K-1)*n+9] = math.NaN()
		post, logp := make([]float64, n*K), make([]float64, n*K)
		mx := make([]float64, n)
		Posteriors(jll, n, K, post, mx)
		LogPosteriors(jll, n, K, logp, mx)
		row := make([]float64, K)
		for i := range n {
			Posterior(jll, n, K, i, row)
			for c := range K {
				if got := post[i*K+c]; math.Float64bits(row[c]) != math.Float64bits(got) && !(math.IsNaN(got) && math.IsNaN(row[c])) {
					t.Fatalf("K=%d row %d class %d: Posteriors %v, Posterior %v", K, i, c, post[i*K+c], row[c])
				}
			}
			LogPosterior(jll, n, K, i, row)
			for c := range K {
				if got := logp[i*K+c]; math.Float64bits(row[c]) != math.Float64bits(got) && !(math.IsNaN(got) && math.IsNaN(row[c])) {
					t.Fatalf("K=%d row %d class %d: LogPosteriors %v, LogPosterior %v", K, i, c, logp[i*K+c], row[c])
				}
			}
		}
	}
}
