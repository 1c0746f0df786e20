package kde

import (
	"fmt"
	"math"
	"math/big"
	"strconv"
	"strings"
)

// gridSize is R's n = 512: the points of the binning grid, of the kernel and of the curve.
const gridSize = 512

// cut is R's cut = 3: the curve reaches 3 bandwidths beyond the extreme values; the binning grid 4 more.
const cut = 3

// densityFloor is the smallest density a feature contributes: log(max(f, 1e-300)), so a value outside a class's
// curve lowers that class's score by ~691 instead of ruling it out (no row scores -Inf for every class).
const densityFloor = 1e-300

// The bandwidth rules (the bandwidth parameter's names; anything else is a number).
const (
	ruleNRD0  = "nrd0"
	ruleNRD   = "nrd"
	ruleScott = "scott"
)

// summary is what pass 1 computes for one class and feature: the number of values, their least and
// greatest, the sum of squared deviations about their mean, and the order statistics of the type-7
// quartiles (1-based positions floor and ceiling of 1 + (n - 1)p, p = 0.25 and 0.75).
type summary struct {
	n            int64
	min, max, ss float64
	q25lo, q25hi float64
	q75lo, q75hi float64
}

// sd is the n - 1 standard deviation, sqrt(Σ(x - mean)² / (n - 1)).
func (s summary) sd() float64 { return math.Sqrt(s.ss / float64(s.n-1)) }

// quantile7 is R's type-7 quantile (quantile.R): index = 1 + (n - 1)p, q = x[floor(index)], and when index
// is fractional and x[ceiling(index)] differs, q = (1 - h)q + h·x[ceiling(index)], h = index - floor(index).
func quantile7(n int64, p, lo, hi float64) float64 {
	index := 1 + float64(n-1)*p
	q := lo
	if l := math.Floor(index); index > l && hi != q {
		h := index - l
		q = (1-h)*q + h*hi
	}
	return q
}

// iqr is R's IQR: the type-7 quartiles' difference.
func (s summary) iqr() float64 {
	return quantile7(s.n, 0.75, s.q75lo, s.q75hi) - quantile7(s.n, 0.25, s.q25lo, s.q25hi)
}

// bandwidth returns h by rule before adjust:
//   - nrd0 (R's bw.nrd0): lo = min(sd, IQR/1.34), else sd when that is 0, else |x₁| (every value equals x₁
//     when sd is 0: the least), else 1; h = 0.9·lo·n^-0.2;
//   - nrd (R's bw.nrd): 1.06·min(sd, IQR/1.34)·n^-0.2, no fallback (0 is an error);
//   - scott: sd·n^-0.2 (scipy's gaussian_kde factor times the n - 1 standard deviation);
//   - a number: h itself.
//
// branch names the nrd0 case taken (min_sd_iqr, sd, abs_x1, one: kde_rbw.csv's lo_rule).
func bandwidth(rule string, s summary) (h float64, branch string, err error) {
	sd := s.sd()
	switch rule {
	case ruleNRD0:
		lo := math.Min(sd, s.iqr()/1.34)
		branch = "min_sd_iqr"
		if lo == 0 {
			lo, branch = sd, "sd"
			if lo == 0 {
				lo, branch = math.Abs(s.min), "abs_x1"
				if lo == 0 {
					lo, branch = 1, "one"
				}
			}
		}
		return 0.9 * lo * pow02(s.n), branch, nil
	case ruleNRD:
		return 1.06 * math.Min(sd, s.iqr()/1.34) * pow02(s.n), "", nil
	case ruleScott:
		return pow02(s.n) * sd, "", nil
	}
	v, err := parseBandwidth(rule)
	return v, "", err
}

// parseBandwidth reads a bandwidth given as a number: finite and > 0.
func parseBandwidth(text string) (float64, error) {
	v, err := strconv.ParseFloat(strings.TrimSpace(text), 64)
	if err != nil || !(v > 0) || math.IsInf(v, 1) {
		return 0, fmt.Errorf("must be nrd0, nrd, scott or a finite number > 0")
	}
	return v, nil
}

// seq is R's seq.int(from, to, length.out = len(out)) (seq.c): from + i·((to - from)/(len - 1)), the ends
// exactly from and to.
func seq(from, to float64, out []float64) {
	by := (to - from) / float64(len(out)-1)
	for i := range out {
		out[i] = from + float64(i)*by
	}
	out[0], out[len(out)-1] = from, to
}

// dnorm is R's dnorm(x, 0, sigma) (nmath/dnorm.c): beyond z = 5 the exponent is split so that the tail is
// accurate, and 0 beyond the underflow point. (The Gaussian family keeps its own copy for e1071's rule:
// families import only the shared vocabulary.)
func dnorm(x, sigma float64) float64 {
	const invSqrt2Pi = 0.398942280401432677939946059934
	z := math.Abs(x / sigma)
	if z < 5 {
		return invSqrt2Pi * math.Exp(-0.5*z*z) / sigma
	}
	if z > math.Sqrt(-2*math.Ln2*float64(-1021+1-53)) {
		return 0
	}
	x1 := math.Ldexp(math.RoundToEven(math.Ldexp(z, 16)), -16)
	x2 := z - x1
	return invSqrt2Pi / sigma * (math.Exp(-0.5*x1*x1) * math.Exp((-0.5*x2-x1)*x2))
}

// support returns the curve's range [from, to] = [min - 3h, max + 3h] and the binning grid's [lo, up] =
// [from - 4h, to + 4h] (density.R).
func support(min, max, h float64) (from, to, lo, up float64) {
	from, to = min-cut*h, max+cut*h
	return from, to, from - 4*h, to + 4*h
}

// binDelta is the binning grid's spacing (massdist.c BinDist): (up - lo)/511.
func binDelta(lo, up float64) float64 { return (up - lo) / (gridSize - 1) }

// curve computes the density on the 512 points of [from, to] from the binned weights w (BinDist's, over
// [lo, up]) and bandwidth h, as R 4.2's density.default with the circular FFT convolution summed exactly:
// c[i] = Σ_j w[j]·K[|i - j|] (j ascending), K[d] = dnorm(d·2(up - lo)/1023, 0, h) (R ≤ 4.3's kernel spacing),
// then y = approx(seq(lo, up, 512), c, seq(from, to, 512)). No clamp at 0 is needed: every term is ≥ 0.
func curve(w []float64, h, from, to, lo, up float64) []float64 {
	var kern, c, xords, xout [gridSize]float64
	kby := 2 * (up - lo) / (2*gridSize - 1)
	for d := range kern {
		kern[d] = dnorm(float64(d)*kby, h)
	}
	for i := range c {
		s := 0.0
		for j, wj := range w {
			d := i - j
			if d < 0 {
				d = -d
			}
			s += wj * kern[d]
		}
		c[i] = s
	}
	seq(lo, up, xords[:])
	seq(from, to, xout[:])
	y := make([]float64, gridSize)
	for k, v := range xout {
		y[k] = approx1(xords[:], c[:], v)
	}
	return y
}

// approx1 is R's linear interpolation (approx.c approx1) at v inside [x[0], x[n-1]]: the bracket i, j = i+1
// with x[i] ≤ v < x[j] (j = n-1 at the last point), found by bisection; y[j] if v == x[j], y[i] if v == x[i],
// else y[i] + (y[j] - y[i])·((v - x[i])/(x[j] - x[i])).
func approx1(x, y []float64, v float64) float64 {
	i, j := 0, len(x)-1
	for i < j-1 {
		m := (i + j) / 2
		if v < x[m] {
			j = m
		} else {
			i = m
		}
	}
	return interpolate(x, y, i, j, v)
}

func interpolate(x, y []float64, i, j int, v float64) float64 {
	switch v {
	case x[j]:
		return y[j]
	case x[i]:
		return y[i]
	}
	return y[i] + (y[j]-y[i])*((v-x[i])/(x[j]-x[i]))
}

// density is one class's curve of one feature, ready to score: the grid x (seq(from, to, 512)) and y.
type density struct {
	from, to, by float64
	x, y         []float64
}

func newDensity(from, to float64, y []float64) *density {
	d := &density{from: from, to: to, by: (to - from) / (gridSize - 1), x: make([]float64, gridSize), y: y}
	seq(from, to, d.x)
	return d
}

// at is the density at v: approx1 over the curve inside [from, to], 0 outside. The bracket is found from
// the grid's spacing and corrected against the grid points, so it is approx1's bisection's (tested).
func (d *density) at(v float64) float64 {
	if !(v >= d.from && v <= d.to) {
		return 0
	}
	i := int((v - d.from) / d.by)
	i = min(max(i, 0), gridSize-2)
	for i > 0 && v < d.x[i] {
		i--
	}
	for i < gridSize-2 && v >= d.x[i+1] {
		i++
	}
	return interpolate(d.x, d.y, i, i+1, v)
}

// logAt is feature's contribution log(max(f(v), 1e-300)).
func (d *density) logAt(v float64) float64 { return math.Log(math.Max(d.at(v), densityFloor)) }

// pow02 is n^-0.2 (the double nearest -0.2) correctly rounded, as C's pow gives it to R (R's
// length(x)^(-0.2)); Go's math.Pow is off by an ulp for some n (38, 37). r = n^(-1/5) by Newton's method on
// n·r⁵ = 1 in 256-bit floats, then n^-0.2 = r·n^(-ε) ≈ r·(1 - ε ln n), ε = 0.2 (as a double) - 1/5.
func pow02(n int64) float64 {
	const prec = 256
	nf := new(big.Float).SetPrec(prec).SetInt64(n)
	r := new(big.Float).SetPrec(prec).SetFloat64(math.Pow(float64(n), -0.2))
	one, five := big.NewFloat(1).SetPrec(prec), big.NewFloat(5).SetPrec(prec)
	for range 4 {
		r4 := new(big.Float).SetPrec(prec).Mul(r, r)
		r4.Mul(r4, r4)
		num := new(big.Float).SetPrec(prec).Mul(nf, r4)
		num.Mul(num, r).Sub(num, one) // n r⁵ - 1
		den := new(big.Float).SetPrec(prec).Mul(five, nf)
		den.Mul(den, r4) // 5 n r⁴
		r.Sub(r, num.Quo(num, den))
	}
	var eps big.Rat
	eps.SetFloat64(0.2)
	eps.Sub(&eps, big.NewRat(1, 5))
	e, _ := eps.Float64()
	shift := new(big.Float).SetPrec(prec).Mul(r, big.NewFloat(e*math.Log(float64(n))))
	y, _ := r.Sub(r, shift).Float64()
	return y
}
