package kde

import (
	"context"
	"database/sql"
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/sqlnb/sqlnb/queries"
	"github.com/sqlnb/sqlnb/sqlnb/nb"
)

// KDE: a numeric column whose density in each class is a Gaussian kernel density estimate, R 4.2's
// density(x, bw = "nrd0", kernel = "gaussian", n = 512, cut = 3) over the class's training values (NULL and
// NaN are missing), the convolution summed exactly (README, "Kernel-density features"):
// log p(x | c) = log(max(f_c(x), 1e-300)), f_c the 512-point curve interpolated linearly on [from, to] and 0
// outside. At scoring NULL, NaN and ±Inf are missing (add nothing); at training ±Inf is an error.
const KDE nb.Kind = "kde"

// KDEStat is one class's curve of one feature: the number of values behind it, the bandwidth h (adjust
// applied) and the curve's range [from, to] = [min - 3h, max + 3h]; its 512 points are KDEPoint rows.
type KDEStat struct {
	Feature   string  `json:"feature"`
	Class     string  `json:"class"`
	Count     int64   `json:"count"`
	Bandwidth float64 `json:"bandwidth"`
	From      float64 `json:"grid_from"`
	To        float64 `json:"grid_to"`
}

// KDEPoint is one point of a curve: the density Y at from + Point·(to - from)/511 (Point 0 .. 511; the
// ends exactly from and to).
type KDEPoint struct {
	Feature string  `json:"feature"`
	Class   string  `json:"class"`
	Point   int64   `json:"point"`
	Y       float64 `json:"y"`
}

// KDETable is the curves' heads: nb.kde.
var KDETable = &nb.Table[KDEStat]{
	Name: "kde",
	Key:  func(s *KDEStat) nb.RowKey { return nb.RowKey{Feature: s.Feature, Class: s.Class} },
	// Never used: a curve's bandwidth depends on every row, so kde models do not merge (KDEFamily refits).
	Merge: func(_, _ *KDEStat) {},
	Check: func(s *KDEStat) error {
		for _, v := range []float64{s.Bandwidth, s.From, s.To} {
			if math.IsNaN(v) || math.IsInf(v, 0) {
				return nb.ErrNotFinite
			}
		}
		if s.Count < 2 || !(s.Bandwidth > 0) || !(s.From < s.To) {
			return fmt.Errorf("count %d, bandwidth %v, range [%v, %v]: a curve needs 2 values or more, a bandwidth > 0 and from < to",
				s.Count, s.Bandwidth, s.From, s.To)
		}
		return nil
	},
	Rows: func(s *KDEStat) (int64, float64) { return s.Count, float64(s.Count) },
}

// pointNames are the points' keys, zero-padded so that they sort as numbers.
var pointNames = func() []string {
	out := make([]string, gridSize)
	for i := range out {
		out[i] = fmt.Sprintf("%03d", i)
	}
	return out
}()

// KDEGridTable is the curves' points: nb.kde_grid.
var KDEGridTable = &nb.Table[KDEPoint]{
	Name: "kde_grid",
	Key: func(p *KDEPoint) nb.RowKey {
		v := strconv.FormatInt(p.Point, 10)
		if p.Point >= 0 && p.Point < gridSize {
			v = pointNames[p.Point]
		}
		return nb.RowKey{Feature: p.Feature, Class: p.Class, Value: v}
	},
	Merge: func(_, _ *KDEPoint) {},
	Check: func(p *KDEPoint) error {
		if p.Point < 0 || p.Point >= gridSize {
			return fmt.Errorf("point %d: must be 0 to %d", p.Point, gridSize-1)
		}
		if math.IsNaN(p.Y) || math.IsInf(p.Y, 0) {
			return nb.ErrNotFinite
		}
		if p.Y < 0 {
			return fmt.Errorf("density %v: must be ≥ 0", p.Y)
		}
		return nil
	},
}

// KDEFamily is the kde kind. It refits (nb.Refitter): a curve's bandwidth and range depend on all of its
// class's values, so models do not merge, rows are not added or forgotten, and cross-validation trains each
// fold's model on the other folds' rows.
type KDEFamily struct{}

func (KDEFamily) Kinds() []nb.KindInfo {
	return []nb.KindInfo{{Kind: KDE, Doc: "a numeric column, when asked: a Gaussian kernel density per class (R's density(), bw.nrd0)",
		Accepts: func(c nb.Column) error {
			if !nb.ClassifyType(c.Type).Numeric() {
				return fmt.Errorf("%w: feature %q has type %s: a kde feature must be numeric (cast it in a --from query, or leave it out with --features)",
					nb.ErrBadType, c.Name, c.Type)
			}
			return nil
		}}}
}

func (KDEFamily) Tables() []nb.StatsTable { return []nb.StatsTable{KDETable, KDEGridTable} }
func (KDEFamily) Refits()                 {}

// Check refuses sample weights: the curves weigh every value alike (R's density() without weights).
func (KDEFamily) Check(feats, _ []nb.Feature, weighted bool) error {
	if weighted && len(feats) > 0 {
		return fmt.Errorf("%w: feature %q is kde, which does not take sample weights: drop --weight, or use another kind for it", nb.ErrBadOption, feats[0].Name)
	}
	return nil
}

// describeWidth is the number of values train_kde_describe gives per feature.
const describeWidth = 9

// curveKey identifies one class's curve of one feature during training.
type curveKey struct {
	class string
	j     int
}

// Train runs the two passes (train_kde_describe, then train_kde_bins with each curve's grid as bound
// parameters) and computes the curves in Go. Cross-validation fits each fold: Train runs without a fold
// expression.
func (KDEFamily) Train(ctx context.Context, sc *nb.Scan, feats []nb.Feature) error {
	if sc.Fold != "" {
		return fmt.Errorf("kde curves are fitted per fold, not from fold statistics")
	}
	rows, err := sc.Query(ctx, "train_kde_describe.tmpl.sql", queries.Features{Train: sc.Train(), Features: queryFeatures(feats)})
	if err != nil {
		return fmt.Errorf("compute kde statistics: %w", err)
	}
	var classes []string
	sums := map[curveKey]summary{}
	err = sc.ClassRows(rows, describeWidth*len(feats), func(_ int64, class string, v []sql.NullFloat64) error {
		classes = append(classes, class)
		for j, f := range feats {
			x := v[describeWidth*j:]
			if x[4].Float64 > 0 {
				return fmt.Errorf("%w: kde feature %q holds %d infinite values (class %q): filter them out or replace them with NULL (missing)",
					nb.ErrBadValue, f.Name, int64(x[4].Float64), class)
			}
			s := summary{n: int64(x[0].Float64), min: x[1].Float64, max: x[2].Float64, ss: x[3].Float64,
				q25lo: x[5].Float64, q25hi: x[6].Float64, q75lo: x[7].Float64, q75hi: x[8].Float64}
			if s.n < 2 {
				return fmt.Errorf("%w: kde feature %q has %d value(s) in class %q (NULL and NaN are missing): a density needs at least 2; "+
					"give the class more rows with a value, leave the class out, or use another kind for the feature (--feature-kind %s=gaussian)",
					nb.ErrBadValue, f.Name, s.n, class, f.Name)
			}
			sums[curveKey{class, j}] = s
		}
		return nil
	})
	rows.Close()
	if err != nil {
		return fmt.Errorf("compute kde statistics: %w", err)
	}
	if len(classes) == 0 {
		return nil // the trainer reports a source without labelled rows
	}
	bw, adjust := rule(sc.Plan.Params.Text("bandwidth")), sc.Plan.Params.Float("adjust")
	type grid struct{ h, from, to, lo, up float64 }
	grids := map[curveKey]grid{}
	var entries []queries.KDEGridEntry
	var args []any
	for _, class := range classes {
		for j, f := range feats {
			k := curveKey{class, j}
			s := sums[k]
			h, _, err := bandwidth(bw, s)
			if err != nil {
				return fmt.Errorf("%w: bandwidth %q: %v", nb.ErrBadOption, bw, err)
			}
			h *= adjust
			from, to, lo, up := support(s.min, s.max, h)
			if !(h > 0) || math.IsInf(h, 0) || math.IsInf(lo, 0) || math.IsInf(up, 0) {
				why := "the values' spread (sd, or IQR/1.34 for nrd) is 0: use bandwidth nrd0, which falls back, or a number"
				if h > 0 {
					why = "the values or the bandwidth reach beyond the double range: rescale the column"
				}
				return fmt.Errorf("%w: kde feature %q, class %q: bandwidth %s gives h = %v: %s, or use another kind for the feature",
					nb.ErrBadValue, f.Name, class, bw, h, why)
			}
			grids[k] = grid{h, from, to, lo, up}
			n := len(args)
			entries = append(entries, queries.KDEGridEntry{Class: sc.Param(n + 1), J: sc.Param(n + 2), Lo: sc.Param(n + 3), Delta: sc.Param(n + 4), W: sc.Param(n + 5)})
			args = append(args, class, int64(j), lo, binDelta(lo, up), 1/float64(s.n))
		}
	}
	rows, err = sc.Query(ctx, "train_kde_bins.tmpl.sql", queries.KDEBins{Train: sc.Train(), Features: queryFeatures(feats), Grid: entries}, args...)
	if err != nil {
		return fmt.Errorf("bin kde values: %w", err)
	}
	defer rows.Close()
	weights := map[curveKey][]float64{}
	for rows.Next() {
		var class string
		var j, bin int64
		var mass float64
		if err := rows.Scan(&class, &j, &bin, &mass); err != nil {
			return fmt.Errorf("bin kde values: %w", err)
		}
		k := curveKey{class, int(j)}
		if weights[k] == nil {
			weights[k] = make([]float64, gridSize)
		}
		weights[k][bin] = mass
	}
	if err := rows.Err(); err != nil {
		return fmt.Errorf("bin kde values: %w", err)
	}
	part := sc.Part(0)
	var heads []KDEStat
	var points []KDEPoint
	for j, f := range feats {
		ys := make([][]float64, len(classes))
		for c, class := range classes {
			k := curveKey{class, j}
			g, w := grids[k], weights[k]
			if w == nil {
				w = make([]float64, gridSize)
			}
			ys[c] = curve(w, g.h, g.from, g.to, g.lo, g.up)
			heads = append(heads, KDEStat{Feature: f.Name, Class: class, Count: sums[k].n, Bandwidth: g.h, From: g.from, To: g.to})
		}
		for p := range gridSize {
			for c, class := range classes {
				points = append(points, KDEPoint{Feature: f.Name, Class: class, Point: int64(p), Y: ys[c][p]})
			}
		}
	}
	nb.AddRows(part.Stats, KDETable, heads...)
	nb.AddRows(part.Stats, KDEGridTable, points...)
	return nil
}

// Validate: a curve per feature and class, each with its 512 points (Check keeps them in range, the table's
// keys unique).
func (KDEFamily) Validate(m *nb.Model, feats []nb.Feature) error {
	if err := nb.RequirePerClass(m, feats, nb.RowsOf(m, KDETable), KDETable.Key); err != nil {
		return err
	}
	have := map[nb.RowKey]int{}
	for _, p := range nb.RowsOf(m, KDEGridTable) {
		have[nb.RowKey{Feature: p.Feature, Class: p.Class}]++
	}
	for _, f := range feats {
		for _, c := range m.Classes {
			if n := have[nb.RowKey{Feature: f.Name, Class: c.Label}]; n != gridSize {
				return fmt.Errorf("%w: model %q: feature %q, class %q has %d kde_grid points, not %d", nb.ErrInvalidModel, m.Name, f.Name, c.Label, n, gridSize)
			}
		}
	}
	return nil
}

// kdeComponent scores the kde features of a model: per feature and class its curve.
type kdeComponent struct {
	in    []*nb.Input
	dens  [][]*density // [feature][class]
	heads [][]KDEStat
	K     int
}

func (KDEFamily) Compile(cc *nb.Compiler, feats []nb.Feature) ([]nb.Component, error) {
	m := cc.Model
	k := &kdeComponent{K: cc.K}
	pos := map[string]int{}
	for j, f := range feats {
		pos[f.Name] = j
		k.in = append(k.in, cc.Input(f, nb.NumberInput))
		k.dens = append(k.dens, make([]*density, cc.K))
		k.heads = append(k.heads, make([]KDEStat, cc.K))
	}
	ys := make([][][]float64, len(feats))
	for j := range ys {
		ys[j] = make([][]float64, cc.K)
		for c := range ys[j] {
			ys[j][c] = make([]float64, gridSize)
		}
	}
	for _, p := range nb.RowsOf(m, KDEGridTable) {
		if j, ok := pos[p.Feature]; ok {
			ys[j][cc.Class[p.Class]][p.Point] = p.Y
		}
	}
	for _, s := range nb.RowsOf(m, KDETable) {
		j, ok := pos[s.Feature]
		if !ok {
			continue
		}
		c := cc.Class[s.Class]
		k.heads[j][c] = s
		k.dens[j][c] = newDensity(s.From, s.To, ys[j][c])
	}
	for j, f := range feats {
		for c, d := range k.dens[j] {
			if d == nil {
				return nil, fmt.Errorf("%w: model %q: no kde curve for feature %q, class %q", nb.ErrInvalidModel, m.Name, f.Name, m.Classes[c].Label)
			}
		}
	}
	return []nb.Component{k}, nil
}

func (k *kdeComponent) Inputs() []*nb.Input { return k.in }
func (k *kdeComponent) Base(int) float64    { return 0 }

// missing reports whether a value adds nothing: NULL, NaN or ±Inf (as Gaussian features).
func missing(mask []uint64, i int, v float64) bool {
	return !nb.IsValid(mask, i) || math.IsNaN(v) || math.IsInf(v, 0)
}

// Add: per feature and class, log(max(f_c(x), 1e-300)) for every row with a value.
func (k *kdeComponent) Add(b *nb.Batch, out []float64) {
	n := b.N
	for j, in := range k.in {
		x, mask := b.Num[in.Feature][:n], b.Valid[in.Feature]
		for c := range k.K {
			d, o := k.dens[j][c], out[c*n:c*n+n]
			for i, v := range x {
				if !missing(mask, i, v) {
					o[i] += d.logAt(v)
				}
			}
		}
	}
}

// term is feature j's log-density for row i and class c, 0 when the value is missing.
func (k *kdeComponent) term(b *nb.Batch, i, j, c int) float64 {
	in := k.in[j]
	v := b.Num[in.Feature][i]
	if missing(b.Valid[in.Feature], i, v) {
		return 0
	}
	return k.dens[j][c].logAt(v)
}

func (k *kdeComponent) Row(b *nb.Batch, i, c int) nb.XFloat {
	var s nb.XFloat
	for j := range k.in {
		s = s.Add(nb.X(k.term(b, i, j, c)))
	}
	return s
}

func (k *kdeComponent) Explain(b *nb.Batch, i, a, c int, out []nb.Contribution) []nb.Contribution {
	for j, in := range k.in {
		out = append(out, nb.Contribution{Feature: in.Name, Input: in, LLR: k.term(b, i, j, a) - k.term(b, i, j, c)})
	}
	return out
}

// Parameters lists each curve's bandwidth and range, with the number of values behind it.
func (k *kdeComponent) Parameters(labels []string) []nb.Parameter {
	var out []nb.Parameter
	for j, in := range k.in {
		for c, l := range labels {
			s := k.heads[j][c]
			n := float64(s.Count)
			out = append(out,
				nb.Parameter{Feature: in.Name, Kind: KDE, Class: l, Parameter: "bandwidth", Estimate: s.Bandwidth, Count: n},
				nb.Parameter{Feature: in.Name, Kind: KDE, Class: l, Parameter: "from", Estimate: s.From, Count: n},
				nb.Parameter{Feature: in.Name, Kind: KDE, Class: l, Parameter: "to", Estimate: s.To, Count: n})
		}
	}
	return out
}

// Informative rates each feature at the mode of the class's curve (its highest grid point):
// log f_c(mode) - max over other classes d of log f_d(mode).
func (k *kdeComponent) Informative(labels []string, c int) []nb.Informative {
	var out []nb.Informative
	for j, in := range k.in {
		d := k.dens[j][c]
		best := 0
		for p, y := range d.y {
			if y > d.y[best] {
				best = p
			}
		}
		x := d.x[best]
		at := func(e int) float64 { return k.dens[j][e].logAt(x) }
		out = append(out, nb.Informative{Class: labels[c], Feature: in.Name, Value: "mode " + strconv.FormatFloat(x, 'g', 6, 64),
			LLR: at(c) - nb.BestOther(k.K, c, at)})
	}
	return out
}

// SQL refuses: a curve is 512 points per feature and class, interpolated by a search over the grid, which
// the exporter's scalar expressions do not hold.
func (k *kdeComponent) SQL(*nb.Exporter, int) (string, error) {
	names := make([]string, len(k.in))
	for j, in := range k.in {
		names[j] = strconv.Quote(in.Name)
	}
	return "", fmt.Errorf("%w: kde feature %s: each class's density is a 512-point curve interpolated at the value, which the SQL export does not "+
		"write; score kde models with nb_predict on a connection sqlnb opens, or as the loadable extension", nb.ErrNotExportable, strings.Join(names, ", "))
}

// queryFeatures names feats for the training templates.
func queryFeatures(feats []nb.Feature) []queries.Feature {
	out := make([]queries.Feature, len(feats))
	for i, f := range feats {
		out[i] = queries.Feature{Name: f.Name}
	}
	return out
}
