package nb

import "math"

// multinomialTable returns log θ_tc = log(N_tc + α) - log(N_c + αV) per term (or column) and class, from
// the counts n[t*K + c].
func MultinomialTable(n []float64, V, K int, alpha float64) []float64 {
	out := make([]float64, V*K)
	for c := range K {
		total := 0.0
		for i := range V {
			total += n[i*K+c]
		}
		denom := math.Log(total + alpha*float64(V))
		for i := range V {
			out[i*K+c] = math.Log(n[i*K+c]+alpha) - denom
		}
	}
	return out
}

// complementTable returns ComplementNB's weights per term (or column) and class: with C_tc = Σ_c' N_tc' -
// N_tc + α, l_tc = log(C_tc / Σ_t C_tc), w = -l, or l / Σ_t l with norm.
func ComplementTable(n []float64, V, K int, alpha float64, norm bool) []float64 {
	w := make([]float64, V*K)
	comp := make([]float64, V)
	for c := range K {
		total := 0.0
		for i := range V {
			all := 0.0
			for d := range K {
				all += n[i*K+d]
			}
			comp[i] = all + alpha - n[i*K+c]
			total += comp[i]
		}
		sum := 0.0
		for i := range V {
			w[i*K+c] = math.Log(comp[i] / total)
			sum += w[i*K+c]
		}
		for i := range V {
			if norm {
				w[i*K+c] /= sum
			} else {
				w[i*K+c] = -w[i*K+c]
			}
		}
	}
	return w
}
