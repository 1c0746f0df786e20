package sqlnb_test

import (
	"fmt"
	"testing"

	"github.com/sqlnb/sqlnb/internal/kernel"
	"github.com/sqlnb/sqlnb/sqlnb"
	"github.com/sqlnb/sqlnb/sqlnb/family/counts"
	"github.com/sqlnb/sqlnb/sqlnb/family/discriminant"
	"github.com/sqlnb/sqlnb/sqlnb/family/gaussian"
	"github.com/sqlnb/sqlnb/sqlnb/nb"
)

// BenchmarkKernel measures the pure-Go Gaussian kernel on one 2048-row vector (rows/s per thread).
func BenchmarkKernel(b *testing.B) {
	for _, mk := range [][2]int{{4, 2}, {20, 10}, {100, 3}} {
		m, k := mk[0], mk[1]
		b.Run(fmt.Sprintf("m%d_k%d", m, k), func(b *testing.B) {
			model := &sqlnb.Model{Name: "k", Label: "y", Params: sqlnb.DefaultParams(), Version: nb.FormatVersion, Rows: int64(10 * k)}
			for c := range k {
				model.Classes = append(model.Classes, sqlnb.Class{Label: fmt.Sprint("c", c), Count: 10, Weight: 10})
			}
			var stats []gaussian.GaussianStat
			for j := range m {
				name := fmt.Sprint("x", j)
				model.Features = append(model.Features, sqlnb.Feature{Name: name, Kind: sqlnb.Gaussian, Type: "DOUBLE"})
				for c := range k {
					stats = append(stats, gaussian.GaussianStat{Feature: name, Class: fmt.Sprint("c", c), Count: 10,
						Mean: float64(c), M2: 10, Weight: 10, WMean: float64(c), WM2: 10})
				}
			}
			model.Stats = nb.Stats{"gaussian": stats}
			s, err := sqlnb.Compile(model)
			if err != nil {
				b.Fatal(err)
			}
			const n = 2048
			batch := s.NewBatch(n)
			for j := range m {
				for i := range n {
					batch.Num[j][i] = float64((i*7+j)%13) / 5
				}
			}
			jll := make([]float64, n*k)
			var ws sqlnb.Workspace
			best := make([]int32, n)
			top := make([]float64, n)
			b.Run("predict", func(b *testing.B) {
				for b.Loop() {
					s.JointLogLikelihood(batch, jll, &ws)
					kernel.Argmax(jll, n, k, best, top)
				}
				b.ReportMetric(float64(n*b.N)/b.Elapsed().Seconds()/1e6, "Mrows/s")
			})
			// The posteriors nb_predict_proba returns, chunk-wide as the SQL function writes them.
			b.Run("proba", func(b *testing.B) {
				post := make([]float64, n*k)
				for b.Loop() {
					s.JointLogLikelihood(batch, jll, &ws)
					kernel.Posteriors(jll, n, k, post, top)
				}
				b.ReportMetric(float64(n*b.N)/b.Elapsed().Seconds()/1e6, "Mrows/s")
			})
		})
	}
}

// BenchmarkDiscriminantKernel measures the pure-Go lda and qda kernels on one 2048-row vector (rows/s per
// thread), with the scorer's missing-value check.
func BenchmarkDiscriminantKernel(b *testing.B) {
	for _, kind := range []sqlnb.Kind{sqlnb.LDA, sqlnb.QDA} {
		for _, mk := range [][2]int{{4, 2}, {20, 10}} {
			m, k := mk[0], mk[1]
			b.Run(fmt.Sprintf("%s_m%d_k%d", kind, m, k), func(b *testing.B) {
				model := &sqlnb.Model{Name: "k", Label: "y", Params: sqlnb.DefaultParams(), Version: nb.FormatVersion, Rows: int64(100 * k)}
				for c := range k {
					model.Classes = append(model.Classes, sqlnb.Class{Label: fmt.Sprint("c", c), Count: 100, Weight: 100})
				}
				var stats []discriminant.CoMoment
				for j := range m {
					model.Features = append(model.Features, sqlnb.Feature{Name: fmt.Sprint("x", j), Kind: kind, Type: "DOUBLE"})
				}
				for c := range k {
					for j := range m {
						for l := j; l < m; l++ {
							co := 10.0
							if j != l {
								co = 1 / float64(1+j+l)
							}
							stats = append(stats, discriminant.CoMoment{Feature: fmt.Sprint("x", j), Other: fmt.Sprint("x", l), Class: fmt.Sprint("c", c),
								Count: 100, Weight: 100, Mean: float64(c + j%2), OtherMean: float64(c + l%2), CoMoment: co * float64(1+c%3)})
						}
					}
				}
				model.Stats = nb.Stats{"comoments": stats}
				s, err := sqlnb.Compile(model)
				if err != nil {
					b.Fatal(err)
				}
				const n = 2048
				batch := s.NewBatch(n)
				for j := range m {
					for i := range n {
						batch.Num[j][i] = float64((i*7+j)%13) / 5
					}
				}
				jll := make([]float64, n*k)
				var ws sqlnb.Workspace
				best := make([]int32, n)
				top := make([]float64, n)
				for b.Loop() {
					s.JointLogLikelihood(batch, jll, &ws)
					kernel.Argmax(jll, n, k, best, top)
				}
				b.ReportMetric(float64(n*b.N)/b.Elapsed().Seconds()/1e6, "Mrows/s")
			})
		}
	}
}

// BenchmarkGroupKernel measures the per-group Gaussian kernel (1,000 groups, 10 features, 3 classes, rows
// spread over the groups at random) next to one model of the same features, on one 2048-row vector.
func BenchmarkGroupKernel(b *testing.B) {
	const m, k, groups, n = 10, 3, 1000, 2048
	stats := func(shift float64) nb.Stats {
		var st []gaussian.GaussianStat
		for j := range m {
			for c := range k {
				st = append(st, gaussian.GaussianStat{Feature: fmt.Sprint("x", j), Class: fmt.Sprint("c", c), Count: 10,
					Mean: float64(c) + shift, M2: 10 + shift, Weight: 10, WMean: float64(c) + shift, WM2: 10 + shift})
			}
		}
		return nb.Stats{"gaussian": st}
	}
	model := &sqlnb.Model{Name: "k", Label: "y", Params: sqlnb.DefaultParams(), Version: nb.FormatVersion, Rows: int64(10 * k), Stats: stats(0)}
	for c := range k {
		model.Classes = append(model.Classes, sqlnb.Class{Label: fmt.Sprint("c", c), Count: 10, Weight: 10})
	}
	for j := range m {
		model.Features = append(model.Features, sqlnb.Feature{Name: fmt.Sprint("x", j), Kind: sqlnb.Gaussian, Type: "DOUBLE"})
	}
	single, err := sqlnb.Compile(model)
	if err != nil {
		b.Fatal(err)
	}
	grouped := *model
	grouped.By = []nb.GroupColumn{{Name: "g", Type: "INTEGER"}}
	for g := range groups {
		grouped.Groups = append(grouped.Groups, nb.Group{Key: []string{fmt.Sprint(g)}, Rows: model.Rows, Classes: model.Classes, Stats: stats(float64(g) / 100)})
	}
	gs, err := sqlnb.Compile(&grouped)
	if err != nil {
		b.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		s    *sqlnb.Scorer
	}{{"single", single}, {"grouped", gs}} {
		b.Run(tc.name, func(b *testing.B) {
			batch := tc.s.NewBatch(n)
			for j := range m {
				for i := range n {
					batch.Num[j][i] = float64((i*7+j)%13) / 5
				}
			}
			for _, in := range tc.s.GroupInputs {
				for i := range n {
					batch.Cat[in.Feature][i] = int32((i * 7919) % groups)
				}
			}
			jll := make([]float64, n*k)
			var ws sqlnb.Workspace
			for b.Loop() {
				tc.s.JointLogLikelihood(batch, jll, &ws)
			}
			b.ReportMetric(float64(n*b.N)/b.Elapsed().Seconds()/1e6, "Mrows/s")
		})
	}
}

// countsModel returns a compiled multinomial model of m count columns and k classes (weights from made-up
// per-class totals) and a batch of n rows of small counts (about a third zeros), as bench-compare's data.
func countsModel(tb testing.TB, m, k, n int) (*sqlnb.Scorer, *nb.Batch) {
	tb.Helper()
	model := &sqlnb.Model{Name: "k", Label: "y", Params: sqlnb.DefaultParams(), Version: nb.FormatVersion, Rows: int64(10 * k)}
	for c := range k {
		model.Classes = append(model.Classes, sqlnb.Class{Label: fmt.Sprint("c", c), Count: 10, Weight: 10})
	}
	var totals []counts.CountStat
	for j := range m {
		name := fmt.Sprint("n", j)
		model.Features = append(model.Features, sqlnb.Feature{Name: name, Kind: sqlnb.Multinomial, Type: "INTEGER"})
		for c := range k {
			totals = append(totals, counts.CountStat{Feature: name, Class: fmt.Sprint("c", c), Total: float64(1 + (c+j)%5)})
		}
	}
	model.Stats = nb.Stats{"totals": totals}
	s, err := sqlnb.Compile(model)
	if err != nil {
		tb.Fatal(err)
	}
	batch := s.NewBatch(n)
	for j := range m {
		for i := range n {
			batch.Num[j][i] = float64((i*7 + j) % 13 / 4)
		}
	}
	return s, batch
}

// BenchmarkCountsKernel measures the multinomial (count columns) kernel on one 2048-row vector (rows/s per
// thread): the scores alone (also with the columns in allocations of their own), the argmax alone, the
// scores with the argmax nb_predict takes and with the posteriors nb_predict_proba writes.
func BenchmarkCountsKernel(b *testing.B) {
	for _, mk := range [][2]int{{20, 10}, {5, 3}} {
		m, k := mk[0], mk[1]
		b.Run(fmt.Sprintf("m%d_k%d", m, k), func(b *testing.B) {
			const n = 2048
			s, batch := countsModel(b, m, k, n)
			jll := make([]float64, n*k)
			var ws sqlnb.Workspace
			best := make([]int32, n)
			top := make([]float64, n)
			post := make([]float64, n*k)
			s.JointLogLikelihood(batch, jll, &ws)
			// The same values in columns of their own allocation each (16 KB apart, as DuckDB's vectors):
			// the layout Batch.Num had before NewBatch staggered its columns.
			apart := *batch
			apart.Num = make([][]float64, m)
			for j := range m {
				apart.Num[j] = append(make([]float64, 0, n), batch.Num[j]...)
			}
			b.Run("jll_columns_apart", func(b *testing.B) {
				for b.Loop() {
					s.JointLogLikelihood(&apart, jll, &ws)
				}
				b.ReportMetric(float64(n*b.N)/b.Elapsed().Seconds()/1e6, "Mrows/s")
			})
			for _, op := range []string{"jll", "argmax", "predict", "proba"} {
				b.Run(op, func(b *testing.B) {
					for b.Loop() {
						if op == "argmax" {
							kernel.Argmax(jll, n, k, best, top)
							continue
						}
						s.JointLogLikelihood(batch, jll, &ws)
						switch op {
						case "predict":
							kernel.Argmax(jll, n, k, best, top)
						case "proba":
							kernel.Posteriors(jll, n, k, post, top)
						}
					}
					b.ReportMetric(float64(n*b.N)/b.Elapsed().Seconds()/1e6, "Mrows/s")
				})
			}
		})
	}
}

// BenchmarkInt32sToFloats measures the reading of 20 INTEGER columns of a 2048-row vector into float64 (rows/s
// per thread).
func BenchmarkInt32sToFloats(b *testing.B) {
	const n, m = 2048, 20
	src := make([]int32, n*m)
	for i := range src {
		src[i] = int32(i % 13)
	}
	dst := make([]float64, n*m)
	for b.Loop() {
		for j := range m {
			kernel.Int32sToFloats(dst[j*n:j*n+n], src[j*n:j*n+n])
		}
	}
	b.ReportMetric(float64(n*b.N)/b.Elapsed().Seconds()/1e6, "Mrows/s")
}

// BenchmarkInt64sToFloats: as BenchmarkInt32sToFloats for BIGINT columns.
func BenchmarkInt64sToFloats(b *testing.B) {
	const n, m = 2048, 20
	src := make([]int64, n*m)
	for i := range src {
		src[i] = int64(i % 13)
	}
	dst := make([]float64, n*m)
	for b.Loop() {
		for j := range m {
			kernel.Int64sToFloats(dst[j*n:j*n+n], src[j*n:j*n+n])
		}
	}
	b.ReportMetric(float64(n*b.N)/b.Elapsed().Seconds()/1e6, "Mrows/s")
}
