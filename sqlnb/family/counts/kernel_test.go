package counts_test

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/sqlnb/sqlnb/internal/kernel"
	"github.com/sqlnb/sqlnb/sqlnb"
	"github.com/sqlnb/sqlnb/sqlnb/family/counts"
	"github.com/sqlnb/sqlnb/sqlnb/family/gaussian"
	"github.com/sqlnb/sqlnb/sqlnb/nb"
)

// countsKernelModel is a model of V multinomial (or complement) count columns and K classes with random
// per-class totals from 0 to ~10⁶ (weights of very different sizes), plus G Gaussian features when G > 0.
func countsKernelModel(t *testing.T, r *rand.Rand, V, K, G int, kind nb.Kind) *nb.Model {
	t.Helper()
	m := &nb.Model{Name: "k", Label: "y", Params: sqlnb.DefaultParams(), Version: nb.FormatVersion, Rows: int64(10 * K)}
	for c := range K {
		m.Classes = append(m.Classes, nb.Class{Label: fmt.Sprint("c", c), Count: 10, Weight: 10})
	}
	var totals []counts.CountStat
	var gauss []gaussian.GaussianStat
	for j := range V + G {
		name := fmt.Sprint("f", j)
		if j%3 == 1 && G > 0 && len(gauss) < G*K {
			m.Features = append(m.Features, nb.Feature{Name: name, Kind: gaussian.Gaussian, Type: "DOUBLE"})
			for c := range K {
				gauss = append(gauss, gaussian.GaussianStat{Feature: name, Class: fmt.Sprint("c", c), Count: 10, Mean: float64(c), M2: 10 + float64(j),
					Weight: 10, WMean: float64(c), WM2: 10 + float64(j)})
			}
			continue
		}
		if len(totals) == V*K {
			continue
		}
		m.Features = append(m.Features, nb.Feature{Name: name, Kind: kind, Type: "INTEGER"})
		for c := range K {
			total := 0.0
			if r.IntN(5) > 0 {
				total = math.Floor(math.Pow(10, 6*r.Float64()))
			}
			totals = append(totals, counts.CountStat{Feature: name, Class: fmt.Sprint("c", c), Total: total})
		}
	}
	m.Stats = nb.Stats{"totals": totals}
	if len(gauss) > 0 {
		m.Stats["gaussian"] = gauss
	}
	return m
}

// fillCounts fills the batch's number columns with counts: mostly small (a third zeros), some large (up to
// 2⁴⁰), and in about one row in 20 per column a NULL (its slot holding garbage: NaN, ±Inf, a huge value or
// a count), NaN, +Inf or -Inf.
func fillCounts(r *rand.Rand, s *sqlnb.Scorer, b *nb.Batch, n int) {
	garbage := []float64{math.NaN(), math.Inf(1), math.Inf(-1), 1e300, -7, 3}
	for j, in := range s.Inputs {
		if in.Kind != nb.NumberInput {
			continue
		}
		x := b.Num[j][:n]
		mask := make([]uint64, (n+63)/64)
		for i := range x {
			mask[i/64] |= 1 << (i % 64)
			switch r.IntN(60) {
			case 0:
				mask[i/64] &^= 1 << (i % 64)
				x[i] = garbage[r.IntN(len(garbage))]
			case 1:
				x[i] = math.NaN()
			case 2:
				x[i] = math.Inf(1 - 2*r.IntN(2))
			case 3, 4:
				x[i] = float64(r.Int64N(1 << 40))
			default:
				x[i] = float64(r.IntN(4) * r.IntN(6))
			}
		}
		b.Valid[j] = nil
		if r.IntN(3) > 0 {
			b.Valid[j] = mask
		}
	}
}

// vectorKernels lists the kernel settings this machine can run: "go" and "avx2" where the CPU has it.
func vectorKernels() []string {
	if kernel.UseAVX2 {
		return []string{"go", "avx2"}
	}
	return []string{"go"}
}

// useKernels sets the kernels for a vectorKernels setting and returns the function that restores them.
func useKernels(name string) func() {
	old := kernel.UseAVX2
	kernel.UseAVX2 = name != "go"
	return func() { kernel.UseAVX2 = old }
}

// sameOrNaN reports whether a and b are the same float64, bit for bit, or both NaN (the payload of a NaN
// is not part of the result: the scorer rescores those rows).
func sameOrNaN(a, b float64) bool {
	return math.Float64bits(a) == math.Float64bits(b) || (math.IsNaN(a) && math.IsNaN(b))
}

// TestCountsKernelBits: countsComponent.Add (the AVX2 kernel where the CPU has it, and the blocked Go loop)
// gives the bits of addCountsRef, for 1..25 and 30..45 count columns, 2..12 classes, chunk sizes around
// multiples of 4 and 16, random counts with zeros, large counts, NULL, NaN and ±Inf values, multinomial and
// complement weights, alone and next to Gaussian features; and the scorer's scores (after the row reference
// rescored the rows with NULL, NaN or ±Inf) do not depend on the kernel.
func TestCountsKernelBits(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	kernels := vectorKernels()
	sizes := []int{1, 3, 4, 5, 15, 16, 17, 31, 33, 63, 100, 2047, 2048}
	for trial := range 160 {
		V, K := 1+trial%25, 2+trial%11
		if trial >= 150 {
			V = 30 + trial%16 // more columns than one countsAVX2 call takes (countsColumns)
		}
		G := 0
		if trial%4 == 3 {
			G = 1 + trial%3
		}
		kind := counts.Multinomial
		if trial%5 == 2 {
			kind, G = counts.Complement, 0 // a complement model takes count columns only
		}
		n := sizes[trial%len(sizes)]
		t.Run(fmt.Sprintf("V%d_K%d_G%d_%s_n%d", V, K, G, kind, n), func(t *testing.T) {
			m := countsKernelModel(t, r, V, K, G, kind)
			s, err := sqlnb.Compile(m)
			if err != nil {
				t.Fatal(err)
			}
			var cs nb.Component
			for _, comp := range s.Components {
				if counts.IsCounts(comp) {
					cs = comp
				}
			}
			b := s.NewBatch(n)
			fillCounts(r, s, b, n)
			start := make([]float64, K*n)
			for i := range start {
				start[i] = r.NormFloat64() * 100
			}
			want := append([]float64(nil), start...)
			counts.AddCountsRef(cs, b, want)
			// The reference scores: the scorer's with the Go loops, whose count kernel gives addCountsRef's
			// bits (checked below for every setting, "go" included).
			wantJLL := make([]float64, K*n)
			restoreGo := useKernels("go")
			s.JointLogLikelihood(b, wantJLL, &sqlnb.Workspace{})
			restoreGo()
			for _, avx := range kernels {
				restore := useKernels(avx)
				got := append([]float64(nil), start...)
				cs.Add(b, got)
				for k := range got {
					if !sameOrNaN(got[k], want[k]) {
						t.Fatalf("kernels %s: class %d row %d: got %v (%#x), want %v (%#x)", avx, k/n, k%n, got[k], math.Float64bits(got[k]), want[k], math.Float64bits(want[k]))
					}
				}
				jll := make([]float64, K*n)
				s.JointLogLikelihood(b, jll, &sqlnb.Workspace{})
				for k := range jll {
					if !sameOrNaN(jll[k], wantJLL[k]) {
						t.Fatalf("kernels %s: scorer: class %d row %d: got %v, want %v", avx, k/n, k%n, jll[k], wantJLL[k])
					}
				}
				restore()
			}
		})
	}
}
