package counts

import (
	"math"

	"github.com/sqlnb/sqlnb/internal/kernel"
	"github.com/sqlnb/sqlnb/sqlnb/nb"
)

// IsCounts reports whether a compiled component is this family's count-column component.
func IsCounts(c nb.Component) bool {
	_, ok := c.(*countsComponent)
	return ok
}

// AddCountsRef runs addCountsRef on a count-column component.
func AddCountsRef(c nb.Component, b *nb.Batch, out []float64) {
	addCountsRef(c.(*countsComponent), b, out)
}

// addCountsRef is the straightforward count-column kernel the blocked ones replace: class by class, column
// by column, one pass over the rows each (out[c·n+i] = x_ji·w_jc + out[c·n+i], a fused multiply-add; the
// product and sum rounded each without FMA, as Add).
func addCountsRef(cs *countsComponent, b *nb.Batch, out []float64) {
	n := b.N
	for c := range cs.K {
		o := out[c*n : c*n+n]
		for r, in := range cs.in {
			w := cs.weight[r][c]
			x := b.Num[in.Feature][:n]
			for i := range o {
				if kernel.HasFMA {
					o[i] = math.FMA(x[i], w, o[i])
				} else {
					o[i] += float64(x[i] * w)
				}
			}
		}
	}
}
