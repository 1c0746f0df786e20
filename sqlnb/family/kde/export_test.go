package kde

// Test hooks: R's seq.int and approx1, and a curve's density at v by the scorer's bracket search.
var (
	Seq     = seq
	Approx1 = approx1
)

// DensityAt is the scorer's f(v) on the curve y over [from, to].
func DensityAt(from, to float64, y []float64, v float64) float64 {
	return newDensity(from, to, y).at(v)
}

// GridSize is the number of points of a curve.
const GridSize = gridSize
