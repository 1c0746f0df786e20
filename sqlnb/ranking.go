package sqlnb

import (
	"context"
	"database/sql"
	"math"
	"math/big"
	"math/bits"
	"slices"
	"strings"

	"github.com/sqlnb/sqlnb/sqlnb/nb"

	"github.com/sqlnb/sqlnb/queries"
)

// rankings holds, per group, each class's ranking metrics (in class order).
type rankings map[int64][]classRanking

// calibrationQuantiles are the quantiles of scikit-learn's quantile bins (n_bins=10).
var calibrationQuantiles = []float64{0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9}

// maxCurvePoints bounds the ROC and precision-recall points kept per class (curveState).
const maxCurvePoints = 1000

// readRanking computes ROC-AUC and average precision of each class of nb_eval_scored from one sort of
// its posteriors into a temporary table (eval_sorted.tmpl.sql), read in order as DuckDB produces it: the
// sort and the table spill under memory_limit and nothing here grows with the rows. With curves, the same pass gives the ROC and precision-recall points
// and the reliability-diagram bins of group 0 (in e.Curves and e.Calibration, classes in label order); their
// quantile bins need each class's row count first (eval_counts.tmpl.sql, one scan).
func readRanking(ctx context.Context, conn *sql.Conn, e *Evaluation, classes []string, grouped, curves bool) (rankings, error) {
	var counts []int64
	if curves {
		stmt, err := queries.Render("eval_counts.tmpl.sql", queries.EvalCounts{Grouped: grouped, Positions: positionsOf(classes)})
		if err != nil {
			return nil, err
		}
		counts = make([]int64, len(classes))
		dst := make([]any, len(classes))
		for i := range dst {
			dst[i] = &counts[i]
		}
		if err := conn.QueryRowContext(ctx, stmt).Scan(dst...); err != nil {
			return nil, err
		}
	}
	// The sorted table keeps its order only with preserve_insertion_order (DuckDB's default); a session
	// that turned it off gets it back when this returns.
	var keep bool
	if err := conn.QueryRowContext(ctx, queries.SQL("settings_preserve_insertion_order.sql")).Scan(&keep); err != nil {
		return nil, err
	}
	if !keep {
		if _, err := conn.ExecContext(ctx, queries.SQL("settings_preserve_insertion_order_on.sql")); err != nil {
			return nil, err
		}
		defer conn.ExecContext(context.WithoutCancel(ctx), queries.SQL("settings_preserve_insertion_order_off.sql"))
	}
	out := rankings{}
	curveOf := make([]*curveState, len(classes))
	for i := range classes {
		if err := execTemplate(ctx, conn, "eval_sorted.tmpl.sql", queries.EvalSorted{Col: i + 1, Grouped: grouped}, i+1); err != nil {
			return nil, err
		}
		stmt := queries.SQL("eval_sorted_read.sql")
		var r ranker
		finish := func() {
			if r.started {
				if out[r.g] == nil {
					out[r.g] = make([]classRanking, len(classes))
					for j := range out[r.g] {
						out[r.g][j] = classRanking{rocAUC: math.NaN(), avgPrecision: math.NaN()}
					}
				}
				out[r.g][i] = r.result()
			}
		}
		err := nb.StreamNumbers(ctx, conn, stmt, nil, func(cols [][]float64) error {
			gs, pos, s := cols[0], cols[1], cols[2]
			for k, v := range s {
				if g := int64(gs[k]); !r.started || g != r.g {
					finish()
					r = ranker{g: g, started: true}
					if curves && g == 0 && counts[i] > 0 {
						r.curve = newCurveState(counts[i])
						curveOf[i] = r.curve
					}
				}
				r.add(v, pos[k] != 0)
			}
			return nil
		})
		if err != nil {
			return nil, err
		}
		finish()
	}
	if curves {
		order := make([]int, len(classes))
		for i := range order {
			order[i] = i
		}
		slices.SortStableFunc(order, func(a, b int) int { return strings.Compare(classes[a], classes[b]) })
		for _, i := range order {
			if c := curveOf[i]; c != nil {
				e.Curves = append(e.Curves, c.points(classes[i])...)
				e.Calibration = append(e.Calibration, c.bins(classes[i])...)
			}
		}
	}
	return out, nil
}

func positionsOf(classes []string) []int {
	p := make([]int, len(classes))
	for i := range p {
		p[i] = i + 1
	}
	return p
}

// ranker computes one class's ranking metrics in one group from its posteriors in descending order, tied
// scores taken together as one threshold:
//
//	roc_auc: the Mann-Whitney U / (np nn), ties counting 1/2, from the discordant pairs (a negative above
//	         a positive): 2D = Σ over thresholds of 2 a N + a b (a positives and b negatives at the
//	         threshold, N negatives above it), 2U = 2 np nn − 2D, exact integers (128 bits);
//	average_precision: Σ over the thresholds of ΔRecall × Precision = Σ a · tp / ge / np, tp and ge the
//	         positives and rows scoring at least as high (scikit-learn 1.2's definition), summed with
//	         Neumaier's compensation.
//
// Without positives or negatives roc_auc is NaN; without positives average_precision is too.
type ranker struct {
	g       int64
	started bool
	// the current threshold: its score and its positives and negatives
	s    float64
	a, b uint64
	// the rows above it: all of them, the positives and the negatives
	n, np, nn uint64
	// 2D as a 128-bit integer
	d2hi, d2lo uint64
	ap         neumaier
	curve      *curveState // nil: no curves
}

func (r *ranker) add(s float64, pos bool) {
	if r.a+r.b > 0 && !(s == r.s || (s != s && r.s != r.s)) {
		r.close()
	}
	if r.curve != nil {
		if r.a+r.b == 0 {
			r.curve.open()
		}
		r.curve.row(s, pos)
	}
	r.s = s
	if pos {
		r.a++
	} else {
		r.b++
	}
}

// close ends the current threshold.
func (r *ranker) close() {
	a, b := r.a, r.b
	if a+b == 0 {
		return
	}
	if a > 0 {
		ge, tp := r.n+a+b, r.np+a
		r.ap.add(float64(a) * (float64(tp) / float64(ge)))
		// 2D += 2 a N + a b
		hi, lo := bits.Mul64(2*a, r.nn)
		r.d2hi, r.d2lo = add128(r.d2hi, r.d2lo, hi, lo)
		hi, lo = bits.Mul64(a, b)
		r.d2hi, r.d2lo = add128(r.d2hi, r.d2lo, hi, lo)
	}
	r.n, r.np, r.nn = r.n+a+b, r.np+a, r.nn+b
	r.a, r.b = 0, 0
	if r.curve != nil {
		r.curve.point(r.n, r.np)
	}
}

func (r *ranker) result() classRanking {
	r.close()
	if r.curve != nil {
		r.curve.np, r.curve.nn = r.np, r.nn
	}
	c := classRanking{n: int64(r.n), np: int64(r.np), rocAUC: math.NaN(), avgPrecision: math.NaN()}
	if r.np > 0 {
		c.avgPrecision = r.ap.sum() / float64(r.np)
	}
	if r.np > 0 && r.nn > 0 {
		// 2 np nn and 2U = 2 np nn − 2D, then both as doubles (correctly rounded, as DuckDB casts HUGEINT).
		hi, lo := bits.Mul64(2*r.np, r.nn)
		uhi, ulo := sub128(hi, lo, r.d2hi, r.d2lo)
		c.rocAUC = u128Float(uhi, ulo) / u128Float(hi, lo)
	}
	return c
}

func add128(hi, lo, bhi, blo uint64) (uint64, uint64) {
	lo, carry := bits.Add64(lo, blo, 0)
	hi, _ = bits.Add64(hi, bhi, carry)
	return hi, lo
}

func sub128(hi, lo, bhi, blo uint64) (uint64, uint64) {
	lo, borrow := bits.Sub64(lo, blo, 0)
	hi, _ = bits.Sub64(hi, bhi, borrow)
	return hi, lo
}

// u128Float converts hi·2⁶⁴ + lo to the nearest double.
func u128Float(hi, lo uint64) float64 {
	if hi == 0 {
		return float64(lo)
	}
	v := new(big.Int).Lsh(new(big.Int).SetUint64(hi), 64)
	f, _ := new(big.Float).SetInt(v.Or(v, new(big.Int).SetUint64(lo))).Float64()
	return f
}

// neumaier is a compensated sum (Neumaier's variant of Kahan's).
type neumaier struct{ s, c float64 }

func (k *neumaier) add(x float64) {
	t := k.s + x
	if math.Abs(k.s) >= math.Abs(x) {
		k.c += (k.s - t) + x
	} else {
		k.c += (x - t) + k.s
	}
	k.s = t
}

func (k *neumaier) sum() float64 { return k.s + k.c }

// curveState collects, from one class's n posteriors in descending order (group 0), the ROC and
// precision-recall points and the reliability-diagram bins.
//
// Points: one per distinct posterior (threshold), descending, with tp and ge the positives and rows scoring
// at least as high: fpr = (ge − tp) / nn, tpr = tp / np, precision = tp / ge (nothing without positives). At
// most maxCurvePoints are kept: threshold i (1, 2, … m) while i is a multiple of a stride that doubles
// whenever more would be kept, and always the last.
//
// Bins: scikit-learn 1.2's calibration_curve(strategy='quantile', n_bins=10). The edges are the
// calibrationQuantiles of the posteriors, interpolated between order statistics as numpy.percentile does:
// h = (n−1) q, edge = x[⌊h⌋] + (x[⌈h⌉] − x[⌊h⌋]) (h − ⌊h⌋), x ascending; a row's bin is the number of edges
// below its posterior (numpy.searchsorted); empty bins are left out. No posterior lies strictly between
// x[⌊h⌋] and x[⌈h⌉] and the edge is in [x[⌊h⌋], x[⌈h⌉]], so the rows scoring more than the edge are exactly
// the rows above the threshold that holds x[⌊h⌋] — or, when the edge rounded to x[⌈h⌉] > x[⌊h⌋], above the
// one that holds x[⌈h⌉]. Each bin is then a run of the descending order between two thresholds: its count,
// sum of posteriors and positives are differences of running sums taken where those thresholds begin.
type curveState struct {
	n      uint64 // rows (posteriors) of the class in group 0
	np, nn uint64 // positives and negatives (set at the end)
	// points: (ge, tp) per kept threshold and its number; the stride and the last threshold seen
	ge, tp, idx  []uint64
	stride, last uint64
	lastGE       uint64
	lastTP       uint64
	// the running sums over the rows so far (k rows), and their values where the current threshold began
	k      uint64
	sum    neumaier
	hits   uint64
	open0  runSums
	values map[uint64]float64 // x at the ascending positions the edges need
	// per edge: its two ascending positions, the running sums where the thresholds holding x[⌊h⌋] and
	// x[⌈h⌉] began, and the edge's interpolation weight h − ⌊h⌋
	lo, hi           []uint64
	aboveLo, aboveHi []runSums
	weight           []float64
	seenLo, seenHi   []bool
}

type runSums struct {
	k, hits uint64
	sum     neumaier
}

func newCurveState(n int64) *curveState {
	c := &curveState{n: uint64(n), stride: 1, values: map[uint64]float64{}}
	for _, q := range calibrationQuantiles {
		h := float64(n-1) * q
		c.lo = append(c.lo, uint64(math.Floor(h)))
		c.hi = append(c.hi, uint64(math.Ceil(h)))
		c.weight = append(c.weight, h-math.Floor(h))
	}
	m := len(c.lo)
	c.aboveLo, c.aboveHi, c.seenLo, c.seenHi = make([]runSums, m), make([]runSums, m), make([]bool, m), make([]bool, m)
	return c
}

// open marks the start of a threshold.
func (c *curveState) open() { c.open0 = runSums{k: c.k, hits: c.hits, sum: c.sum} }

// row takes the next row (descending): its ascending position is n−1−k.
func (c *curveState) row(s float64, pos bool) {
	at := c.n - 1 - c.k
	for e := range c.lo {
		if c.lo[e] == at {
			c.values[at], c.aboveLo[e], c.seenLo[e] = s, c.open0, true
		}
		if c.hi[e] == at {
			c.values[at], c.aboveHi[e], c.seenHi[e] = s, c.open0, true
		}
	}
	c.k++
	c.sum.add(s)
	if pos {
		c.hits++
	}
}

// point ends a threshold with ge rows and tp positives at or above it.
func (c *curveState) point(ge, tp uint64) {
	c.last++
	c.lastGE, c.lastTP = ge, tp
	if c.last%c.stride != 0 {
		return
	}
	c.ge, c.tp, c.idx = append(c.ge, ge), append(c.tp, tp), append(c.idx, c.last)
	if len(c.idx) > maxCurvePoints {
		c.stride *= 2
		j := 0
		for i, x := range c.idx {
			if x%c.stride == 0 {
				c.ge[j], c.tp[j], c.idx[j] = c.ge[i], c.tp[i], x
				j++
			}
		}
		c.ge, c.tp, c.idx = c.ge[:j], c.tp[:j], c.idx[:j]
	}
}

func (c *curveState) points(class string) []CurvePoint {
	if c.np == 0 {
		return nil
	}
	ge, tp := c.ge, c.tp
	if n := len(c.idx); n == 0 || c.idx[n-1] != c.last {
		ge, tp = append(ge, c.lastGE), append(tp, c.lastTP)
	}
	out := make([]CurvePoint, len(ge))
	for i := range ge {
		out[i] = CurvePoint{Class: class, FPR: float64(ge[i]-tp[i]) / float64(max(c.nn, 1)), TPR: float64(tp[i]) / float64(max(c.np, 1)),
			Precision: float64(tp[i]) / float64(ge[i])}
	}
	return out
}

func (c *curveState) bins(class string) []CalibrationBin {
	// above[e]: the rows scoring more than edge e; bin b holds the rows above edge b−1 but not above edge b
	// (all rows above "edge −1", none above "edge 9").
	bounds := make([]runSums, 0, len(c.lo)+2)
	bounds = append(bounds, runSums{k: c.k, hits: c.hits, sum: c.sum})
	for e := range c.lo {
		if !c.seenLo[e] || !c.seenHi[e] {
			return nil // fewer rows than counted (cannot happen: the same table)
		}
		lo, hi := c.values[c.lo[e]], c.values[c.hi[e]]
		edge := lo
		if d := c.weight[e]; d != 0 {
			edge = lo + (hi-lo)*d
		}
		above := c.aboveLo[e]
		if edge == hi && lo < hi {
			above = c.aboveHi[e]
		}
		bounds = append(bounds, above)
	}
	bounds = append(bounds, runSums{})
	var out []CalibrationBin
	for b := 0; b+1 < len(bounds); b++ {
		hi, lo := bounds[b], bounds[b+1]
		n := hi.k - lo.k
		if n == 0 {
			continue
		}
		sum := (hi.sum.s - lo.sum.s) + (hi.sum.c - lo.sum.c)
		out = append(out, CalibrationBin{Class: class, Bin: b, Predicted: sum / float64(n), Observed: float64(hi.hits-lo.hits) / float64(n), N: int64(n)})
	}
	return out
}
