package discriminant

import (
	"math"
	"strconv"

	"github.com/sqlnb/sqlnb/sqlnb/nb"
)

func (g *discriminantComponent) Inputs() []*nb.Input { return g.in }

// Base is b_c (lda) or -½ log|2π Σ_c| (qda).
func (g *discriminantComponent) Base(c int) float64 {
	if g.qda {
		return g.logNorm[c]
	}
	return g.b[c]
}

func (g *discriminantComponent) buffer(n int) (*[]float64, []float64) {
	bufp, _ := g.scratch.Get().(*[]float64)
	if bufp == nil || cap(*bufp) < n {
		buf := make([]float64, n)
		bufp = &buf
	}
	return bufp, (*bufp)[:n]
}

// Add: lda adds Σ_j w_cj (x_j - x̄_j), four features per pass over a class's rows; qda subtracts ½ Σ_r z_r²,
// z = L_c⁻¹ (x - μ_c), over blocks of rows that stay in the cache.
func (g *discriminantComponent) Add(b *nb.Batch, out []float64) {
	n := b.N
	if !g.qda {
		// Four features per pass over the rows of one class, as the Gaussian kernel.
		for c := range g.K {
			o, w := out[c*n:c*n+n], g.w[c]
			j := 0
			for ; len(g.in)-j >= 4; j += 4 {
				x0, x1, x2, x3 := b.Num[g.in[j].Feature][:n], b.Num[g.in[j+1].Feature][:n], b.Num[g.in[j+2].Feature][:n], b.Num[g.in[j+3].Feature][:n]
				m0, m1, m2, m3 := g.xbar[j], g.xbar[j+1], g.xbar[j+2], g.xbar[j+3]
				w0, w1, w2, w3 := w[j], w[j+1], w[j+2], w[j+3]
				for i := range o {
					o[i] += w0*(x0[i]-m0) + w1*(x1[i]-m1) + w2*(x2[i]-m2) + w3*(x3[i]-m3)
				}
			}
			for ; j < len(g.in); j++ {
				x, m0, w0 := b.Num[g.in[j].Feature][:n], g.xbar[j], w[j]
				for i := range o {
					o[i] += w0 * (x[i] - m0)
				}
			}
		}
		return
	}
	// qda, per class and block of rows: d_j = x_j - μ_cj, then z_r = Σ_{j≤r} (L⁻¹)_rj d_j four terms at a
	// time, q += z_r²; a block of d (m × 128 values) stays in the first-level cache.
	const blk = 128
	m := g.m
	bufp, buf := g.buffer(blk * (m + 2))
	defer g.scratch.Put(bufp)
	for c := range g.K {
		inv, mu := g.inv[c], g.mean[c]
		for i0 := 0; i0 < n; i0 += blk {
			nb := min(blk, n-i0)
			d := func(j int) []float64 { return buf[j*blk : j*blk+nb] }
			for j, in := range g.in {
				x, dj, mj := b.Num[in.Feature][i0:i0+nb], d(j), mu[j]
				for i := range dj {
					dj[i] = x[i] - mj
				}
			}
			z, q := buf[m*blk:m*blk+nb], buf[(m+1)*blk:(m+1)*blk+nb]
			clear(q)
			off := 0
			for r := range m {
				w := inv[off : off+r+1]
				off += r + 1
				w0, d0 := w[0], d(0)
				for i := range z {
					z[i] = w0 * d0[i]
				}
				j := 1
				for ; r+1-j >= 4; j += 4 {
					w0, w1, w2, w3 := w[j], w[j+1], w[j+2], w[j+3]
					d0, d1, d2, d3 := d(j), d(j+1), d(j+2), d(j+3)
					for i := range z {
						z[i] += w0*d0[i] + w1*d1[i] + w2*d2[i] + w3*d3[i]
					}
				}
				for ; j <= r; j++ {
					wj, dj := w[j], d(j)
					for i := range z {
						z[i] += wj * dj[i]
					}
				}
				for i := range q {
					q[i] += z[i] * z[i]
				}
			}
			o := out[c*n+i0 : c*n+i0+nb]
			for i := range o {
				o[i] -= 0.5 * q[i]
			}
		}
	}
}

// value returns feature j of row i (0 when missing: required inputs make such rows NULL before any term
// is used).
func (g *discriminantComponent) value(b *nb.Batch, i, j int) float64 {
	in := g.in[j]
	x := b.Num[in.Feature][i]
	if !nb.IsValid(b.Valid[in.Feature], i) || x-x != 0 {
		return 0
	}
	return x
}

// Row: the class term in extended range (values near 1e200 square without overflow).
func (g *discriminantComponent) Row(b *nb.Batch, i, c int) nb.XFloat {
	if !g.qda {
		s := nb.X(g.b[c])
		for j := range g.in {
			s = s.Add(nb.X(g.w[c][j]).Mul(nb.X(g.value(b, i, j)).Sub(nb.X(g.xbar[j]))))
		}
		return s
	}
	d := make([]nb.XFloat, g.m)
	for j := range d {
		d[j] = nb.X(g.value(b, i, j)).Sub(nb.X(g.mean[c][j]))
	}
	var q nb.XFloat
	off := 0
	for r := range g.m {
		var z nb.XFloat
		for j := 0; j <= r; j++ {
			z = z.Add(nb.X(g.inv[c][off+j]).Mul(d[j]))
		}
		off += r + 1
		q = q.Add(z.Mul(z))
	}
	return nb.X(g.logNorm[c]).Sub(q.Mul(nb.X(0.5)))
}

// contributions splits Row(a) - Row(c) at x by feature. lda: δ_j (x_j - (μ_aj + μ_cj)/2) with δ = w_a - w_c
// = Σ⁻¹(μ_a - μ_c) (seed 003's linear discriminant). qda: -½ [d_aj (P_a d_a)_j - d_cj (P_c d_c)_j]
// - (log L_a,jj - log L_c,jj), d_k = x - μ_k, P_k = Σ_k⁻¹: the quadratic forms split by their rows and the
// log-determinants by the Cholesky diagonal (so the split depends on the feature order; the sum does not).
func (g *discriminantComponent) contributions(x []float64, a, c int) []float64 {
	out := make([]float64, g.m)
	if !g.qda {
		for j := range out {
			mid := nb.X(g.mean[a][j]).Add(nb.X(g.mean[c][j])).Mul(nb.X(0.5))
			out[j] = nb.X(g.w[a][j] - g.w[c][j]).Mul(nb.X(x[j]).Sub(mid)).Float()
		}
		return out
	}
	half := func(k int) []nb.XFloat {
		d := make([]nb.XFloat, g.m)
		for j := range d {
			d[j] = nb.X(x[j]).Sub(nb.X(g.mean[k][j]))
		}
		h := make([]nb.XFloat, g.m)
		for j := range h {
			var pd nb.XFloat
			for l := range g.m {
				pd = pd.Add(nb.X(g.prec[k].At(j, l)).Mul(d[l]))
			}
			h[j] = d[j].Mul(pd).Mul(nb.X(0.5))
		}
		return h
	}
	ha, hc := half(a), half(c)
	for j := range out {
		out[j] = hc[j].Sub(ha[j]).Sub(nb.X(g.logDiag[a][j] - g.logDiag[c][j])).Float()
	}
	return out
}

func (g *discriminantComponent) Explain(b *nb.Batch, i, a, c int, out []nb.Contribution) []nb.Contribution {
	x := make([]float64, g.m)
	for j := range x {
		x[j] = g.value(b, i, j)
	}
	for j, v := range g.contributions(x, a, c) {
		out = append(out, nb.Contribution{Feature: g.in[j].Name, Input: g.in[j], LLR: v})
	}
	return out
}

// Parameters lists the class means and the covariance entries j ≤ k (Value names the second feature):
// per class for qda (regularised), once with no class for lda.
func (g *discriminantComponent) Parameters(labels []string) []nb.Parameter {
	kind := LDA
	if g.qda {
		kind = QDA
	}
	var out []nb.Parameter
	for c, l := range labels {
		for j, in := range g.in {
			out = append(out, nb.Parameter{Feature: in.Name, Kind: kind, Class: l, Parameter: "mean", Estimate: g.mean[c][j], Count: g.weight[c]})
		}
	}
	for k, cov := range g.cov {
		class, count := "", 0.0
		if g.qda {
			class, count = labels[k], g.weight[k]
		} else {
			for _, w := range g.weight {
				count += w
			}
		}
		for j := range g.m {
			for l := j; l < g.m; l++ {
				out = append(out, nb.Parameter{Feature: g.in[j].Name, Kind: kind, Class: class, NoClass: !g.qda, Value: g.in[l].Name, HasValue: true,
					Parameter: "covariance", Estimate: cov.At(j, l), Count: count})
			}
		}
	}
	return out
}

// Informative rates each feature at the class mean: its share of the log-odds of class c against the
// likeliest other class there.
func (g *discriminantComponent) Informative(labels []string, c int) []nb.Informative {
	x := g.mean[c]
	score := func(d int) float64 {
		if !g.qda {
			s := g.b[d]
			for j := range x {
				s += g.w[d][j] * (x[j] - g.xbar[j])
			}
			return s
		}
		s := g.logNorm[d]
		for j := range x {
			for l := range x {
				s -= 0.5 * (x[j] - g.mean[d][j]) * g.prec[d].At(j, l) * (x[l] - g.mean[d][l])
			}
		}
		return s
	}
	best, top := -1, math.Inf(-1)
	for d := range g.K {
		if d != c && score(d) > top {
			best, top = d, score(d)
		}
	}
	var out []nb.Informative
	for j, v := range g.contributions(x, c, best) {
		out = append(out, nb.Informative{Class: labels[c], Feature: g.in[j].Name, Value: "mean " + strconv.FormatFloat(x[j], 'g', 6, 64), LLR: v})
	}
	return out
}
