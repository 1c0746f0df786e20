// Package plots draws evaluation pictures with gonum.org/v1/plot: ROC and precision-recall curves per
// class, a reliability (calibration) diagram, a confusion-matrix heat map, and a metric-versus-smoothing
// curve for cross-validation. Every picture is written as PNG (800×600) and SVG.
package plots

import (
	"bytes"
	"fmt"
	"image/color"
	"math"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/font"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

	"github.com/sqlnb/sqlnb/internal/outfile"
	"github.com/sqlnb/sqlnb/sqlnb"
)

const dpi = 96

var (
	width  = vg.Length(800) / dpi * vg.Inch
	height = vg.Length(600) / dpi * vg.Inch
)

// set is one command's pictures, written together by commit: each rendered first (the slow part: a command
// stopped while drawing leaves the directory as it was), then every file replaced whole (outfile) in one
// quick loop at the end, so that a directory does not hold pictures of two runs (a review killed eval --plot while it
// drew and found roc.png new beside the rest old). A file of a picture's name that sqlnb did not write is
// never replaced: the directory's manifest (.sqlnb-pictures) lists the files sqlnb wrote there; a symbolic
// link of that name is followed, its file getting the picture.
type set struct {
	dir   string
	files []rendered
}

type rendered struct {
	name string
	data []byte
}

// manifestName is the file in a picture directory that lists the pictures sqlnb wrote there.
const manifestName = ".sqlnb-pictures"

// add renders p as name.png and name.svg.
func (s *set) add(p *plot.Plot, name string) error {
	for _, ext := range []string{".png", ".svg"} {
		w, err := p.WriterTo(width, height, ext[1:])
		if err != nil {
			return fmt.Errorf("draw %s: %w", name+ext, err)
		}
		var b bytes.Buffer
		if _, err := w.WriteTo(&b); err != nil {
			return fmt.Errorf("draw %s: %w", name+ext, err)
		}
		s.files = append(s.files, rendered{name + ext, b.Bytes()})
	}
	return nil
}

// commit writes the pictures into s.dir (created if need be) and returns their paths. A file there of a
// picture's name that the manifest does not list is an error naming it, and nothing is written.
func (s *set) commit() ([]string, error) {
	if err := os.MkdirAll(s.dir, 0o755); err != nil {
		return nil, err
	}
	ours := map[string]bool{}
	manifest := filepath.Join(s.dir, manifestName)
	if b, err := os.ReadFile(manifest); err == nil {
		for _, n := range strings.Split(string(b), "\n") {
			ours[n] = true
		}
	}
	for _, f := range s.files {
		path := filepath.Join(s.dir, f.name)
		// A symbolic link there is the user's way to send the picture elsewhere: written through (outfile).
		if fi, err := os.Lstat(path); err == nil && fi.Mode()&os.ModeSymlink == 0 && !ours[f.name] {
			return nil, fmt.Errorf("%w: %s is there and sqlnb did not write it (%s does not list it): choose another picture "+
				"directory, or move the file away", sqlnb.ErrBadOption, path, manifest)
		}
	}
	for _, f := range s.files {
		ours[f.name] = true
	}
	var names []string
	for n := range ours {
		if n != "" {
			names = append(names, n)
		}
	}
	slices.Sort(names)
	// The manifest first: a stop between it and the pictures leaves listed names whose files are not written
	// yet (or are the previous run's), never a file sqlnb wrote unlisted.
	if err := writeWhole(manifest, []byte(strings.Join(names, "\n")+"\n")); err != nil {
		return nil, err
	}
	var out []string
	for _, f := range s.files {
		path := filepath.Join(s.dir, f.name)
		if err := writeWhole(path, f.data); err != nil {
			return nil, err
		}
		out = append(out, path)
	}
	return out, nil
}

// single writes p alone as name.png and name.svg in dir (a set of one).
func single(p *plot.Plot, dir, name string) ([]string, error) {
	pics := &set{dir: dir}
	if err := pics.add(p, name); err != nil {
		return nil, err
	}
	return pics.commit()
}

// writeWhole replaces path with data whole; a symbolic link or a file's permissions at the path are kept
// (outfile).
func writeWhole(path string, data []byte) error {
	o, err := outfile.Create(path)
	if err != nil {
		return err
	}
	if _, err := o.Writer().Write(data); err != nil {
		o.Abort()
		return fmt.Errorf("write %s: %w", path, err)
	}
	return o.Commit()
}

func newPlot(title, x, y string) *plot.Plot {
	p := plot.New()
	p.Title.Text = title
	p.Title.TextStyle.Font.Size = font.Length(16)
	p.X.Label.Text, p.Y.Label.Text = x, y
	p.X.Label.TextStyle.Font.Size, p.Y.Label.TextStyle.Font.Size = 13, 13
	p.Legend.Top = true
	p.Add(plotter.NewGrid())
	return p
}

var colors = []color.Color{
	color.RGBA{31, 119, 180, 255}, color.RGBA{255, 127, 14, 255}, color.RGBA{44, 160, 44, 255},
	color.RGBA{214, 39, 40, 255}, color.RGBA{148, 103, 189, 255}, color.RGBA{140, 86, 75, 255},
	color.RGBA{227, 119, 194, 255}, color.RGBA{127, 127, 127, 255},
}

func diagonal(p *plot.Plot, x0, y0, x1, y1 float64) {
	l, _ := plotter.NewLine(plotter.XYs{{X: x0, Y: y0}, {X: x1, Y: y1}})
	l.LineStyle.Dashes = []vg.Length{vg.Points(4), vg.Points(4)}
	l.LineStyle.Color = color.Gray{Y: 140}
	p.Add(l)
}

// Evaluation writes roc, pr, calibration and confusion pictures for e into dir.
func Evaluation(e *sqlnb.Evaluation, dir string) ([]string, error) {
	classes := map[string]plotter.XYs{}
	prs := map[string]plotter.XYs{}
	var names []string
	for _, pt := range e.Curves {
		if _, ok := classes[pt.Class]; !ok {
			names = append(names, pt.Class)
			classes[pt.Class] = plotter.XYs{{X: 0, Y: 0}}
			prs[pt.Class] = nil
		}
		classes[pt.Class] = append(classes[pt.Class], plotter.XY{X: pt.FPR, Y: pt.TPR})
		prs[pt.Class] = append(prs[pt.Class], plotter.XY{X: pt.TPR, Y: pt.Precision})
	}
	sort.Strings(names)
	binary := e.Positive != ""
	pics := &set{dir: dir}
	roc := newPlot("ROC curves (one class against the rest)", "false positive rate", "true positive rate")
	pr := newPlot("Precision-recall curves", "recall", "precision")
	diagonal(roc, 0, 0, 1, 1)
	for i, c := range names {
		if binary && c != e.Positive {
			continue
		}
		auc, _ := e.Get("roc_auc", c)
		ap, _ := e.Get("average_precision", c)
		for _, x := range []struct {
			p    *plot.Plot
			pts  plotter.XYs
			name string
		}{{roc, classes[c], fmt.Sprintf("%s (AUC %.3f)", c, auc)}, {pr, prs[c], fmt.Sprintf("%s (AP %.3f)", c, ap)}} {
			l, err := plotter.NewLine(x.pts)
			if err != nil {
				return nil, err
			}
			l.LineStyle.Width = vg.Points(2)
			l.LineStyle.Color = colors[i%len(colors)]
			x.p.Add(l)
			x.p.Legend.Add(x.name, l)
		}
	}
	roc.X.Min, roc.X.Max, roc.Y.Min, roc.Y.Max = 0, 1, 0, 1.02
	pr.X.Min, pr.X.Max, pr.Y.Min, pr.Y.Max = 0, 1, 0, 1.02
	pr.Legend.Left, pr.Legend.Top = true, false
	roc.Legend.Left, roc.Legend.Top = false, false
	for _, x := range []struct {
		p    *plot.Plot
		name string
	}{{roc, "roc"}, {pr, "pr"}} {
		if err := pics.add(x.p, x.name); err != nil {
			return nil, err
		}
	}
	if err := calibration(e, pics); err != nil {
		return nil, err
	}
	if err := confusion(e, pics); err != nil {
		return nil, err
	}
	return pics.commit()
}

// curve is one class's reliability curve: the mean posterior and observed frequency of each quantile bin,
// and the bin's number of rows.
type curve struct {
	class string
	pts   plotter.XYs
	n     []int64
}

// classOrder returns the classes of e in model order, then any other label sorted.
func classOrder(e *sqlnb.Evaluation, labels []string) []string {
	var out []string
	seen := map[string]bool{}
	if e.Model != nil {
		for _, c := range e.Model.Classes {
			if slices.Contains(labels, c.Label) && !seen[c.Label] {
				out, seen[c.Label] = append(out, c.Label), true
			}
		}
	}
	rest := []string{}
	for _, l := range labels {
		if !seen[l] {
			rest, seen[l] = append(rest, l), true
		}
	}
	sort.Strings(rest)
	return append(out, rest...)
}

// calibrationCurves returns the reliability curves the calibration picture draws: one per class in model
// order, one-vs-rest, or for a two-class evaluation the positive class's only (the other is its mirror).
func calibrationCurves(e *sqlnb.Evaluation) []curve {
	by := map[string]*curve{}
	var labels []string
	for _, b := range e.Calibration {
		if e.Positive != "" && b.Class != e.Positive {
			continue
		}
		c := by[b.Class]
		if c == nil {
			c = &curve{class: b.Class}
			by[b.Class] = c
			labels = append(labels, b.Class)
		}
		c.pts = append(c.pts, plotter.XY{X: b.Predicted, Y: b.Observed})
		c.n = append(c.n, b.N)
	}
	var out []curve
	for _, l := range classOrder(e, labels) {
		out = append(out, *by[l])
	}
	return out
}

// binLabels returns where a curve's bin counts are written and what: "n=N" at each bin, except that
// consecutive bins whose points lie within 0.03 of the first one's (bins of nearly equal posteriors, which
// naive Bayes's extreme posteriors make common near 0 and 1) share one label at the first, "n=N (k bins)".
func binLabels(c curve) (plotter.XYs, []string) {
	var pts plotter.XYs
	var texts []string
	for i := 0; i < len(c.pts); {
		j, n := i, int64(0)
		for ; j < len(c.pts) && math.Abs(c.pts[j].X-c.pts[i].X) < 0.03 && math.Abs(c.pts[j].Y-c.pts[i].Y) < 0.03; j++ {
			n += c.n[j]
		}
		text := fmt.Sprintf("n=%d", n)
		if j-i > 1 {
			text += fmt.Sprintf(" (%d bins)", j-i)
		}
		pts, texts = append(pts, c.pts[i]), append(texts, text)
		i = j
	}
	return pts, texts
}

// labelSlots places count labels next to their points (in data units of a unit square): just below, else
// a line above, else further below or above, up to three lines away, inside the picture; a label with no
// free slot there is left out (curves of many classes meet at 0 and 1, and pushing labels ever lower had
// stretched the axis to -6).
type labelSlots struct {
	taken []plotter.XY
}

func (ls *labelSlots) place(at plotter.XY) (plotter.XY, bool) {
	const line = 0.04
	for k := 0; k < 7; k++ {
		// Below (k even) or above (k odd), k/2 lines further: labels hang from pos (YTop).
		pos := plotter.XY{X: at.X, Y: at.Y - 0.012 - float64(k/2)*line}
		if k%2 == 1 {
			pos.Y = at.Y + 0.012 + line + float64(k/2)*line
		}
		if pos.Y-line < -0.05 || pos.Y > 1.05 {
			continue
		}
		free := true
		for _, t := range ls.taken {
			if math.Abs(t.X-pos.X) < 0.15 && math.Abs(t.Y-pos.Y) < line*0.9 {
				free = false
				break
			}
		}
		if free {
			ls.taken = append(ls.taken, pos)
			return pos, true
		}
	}
	return plotter.XY{}, false
}

func calibration(e *sqlnb.Evaluation, pics *set) error {
	title := "Reliability diagram, each class against the rest (quantile bins)"
	if e.Positive != "" {
		title = fmt.Sprintf("Reliability diagram of class %s (quantile bins)", e.Positive)
	}
	p := newPlot(title, "mean predicted probability (per bin)", "observed frequency (per bin)")
	diagonal(p, 0, 0, 1, 1)
	curves := calibrationCurves(e)
	placed := &labelSlots{}
	var counts []plot.Plotter
	for i, c := range curves {
		col := colors[i%len(colors)]
		lp, sc, err := plotter.NewLinePoints(c.pts)
		if err != nil {
			return err
		}
		lp.LineStyle.Width = vg.Points(2)
		lp.LineStyle.Color, sc.Color = col, col
		sc.Shape = draw.CircleGlyph{}
		sc.Radius = vg.Points(4)
		p.Add(lp, sc)
		p.Legend.Add(c.class, lp, sc)
		all, allTexts := binLabels(c)
		var pts []plotter.XY
		var texts []string
		for k := range all {
			if pos, ok := placed.place(all[k]); ok {
				pts, texts = append(pts, pos), append(texts, allTexts[k])
			}
		}
		if len(pts) == 0 {
			continue
		}
		l, err := plotter.NewLabels(plotter.XYLabels{XYs: pts, Labels: texts})
		if err != nil {
			return err
		}
		for k := range l.TextStyle {
			l.TextStyle[k].Color = col
			l.TextStyle[k].Font.Size = 10
			// Below the point, and to its left near the right edge.
			l.TextStyle[k].YAlign = draw.YTop
			if pts[k].X > 0.8 {
				l.TextStyle[k].XAlign = draw.XRight
			}
		}
		counts = append(counts, l)
	}
	for _, l := range counts { // over every curve
		p.Add(l)
	}
	p.X.Min, p.X.Max, p.Y.Min, p.Y.Max = -0.02, 1.02, -0.06, 1.06
	p.Legend.Left = true
	return pics.add(p, "calibration")
}

// grid is a confusion matrix as a plotter.GridXYZ: column c (x) is the predicted class, row r the actual
// class, drawn top to bottom (row 0 at the top, as scikit-learn's ConfusionMatrixDisplay), so the diagonal
// runs from the top left.
type grid struct {
	labels []string
	n      [][]float64
}

func (g grid) Dims() (int, int)   { return len(g.labels), len(g.labels) }
func (g grid) Z(c, r int) float64 { return g.n[len(g.labels)-1-r][c] }
func (g grid) X(c int) float64    { return float64(c) }
func (g grid) Y(r int) float64    { return float64(r) }

// y is where row r (an actual class) is drawn.
func (g grid) y(r int) float64 { return float64(len(g.labels) - 1 - r) }

// confusionGrid lays out e's confusion matrix (group 0) with the classes in model order.
func confusionGrid(e *sqlnb.Evaluation) grid {
	var labels []string
	for _, c := range e.Confusion {
		for _, l := range []string{c.Actual, c.Predicted} {
			if !slices.Contains(labels, l) {
				labels = append(labels, l)
			}
		}
	}
	g := grid{labels: classOrder(e, labels)}
	g.n = make([][]float64, len(g.labels))
	for i := range g.n {
		g.n[i] = make([]float64, len(g.labels))
	}
	for _, c := range e.Confusion {
		if c.Group == 0 {
			g.n[slices.Index(g.labels, c.Actual)][slices.Index(g.labels, c.Predicted)] = float64(c.N)
		}
	}
	return g
}

func confusion(e *sqlnb.Evaluation, pics *set) error {
	g := confusionGrid(e)
	minN, maxN := math.Inf(1), 0.0
	for _, row := range g.n {
		for _, v := range row {
			minN, maxN = math.Min(minN, v), math.Max(maxN, v)
		}
	}
	p := newPlot("Confusion matrix", "predicted class", "actual class")
	p.Add(plotter.NewHeatMap(g, blues{}))
	labels := plotter.XYLabels{}
	for r := range g.labels {
		for c := range g.labels {
			labels.XYs = append(labels.XYs, plotter.XY{X: float64(c), Y: g.y(r)})
			labels.Labels = append(labels.Labels, fmt.Sprintf("%.0f", g.n[r][c]))
		}
	}
	l, err := plotter.NewLabels(labels)
	if err != nil {
		return err
	}
	for i := range l.TextStyle {
		l.TextStyle[i].Font.Size = 16
		l.TextStyle[i].XAlign, l.TextStyle[i].YAlign = draw.XCenter, draw.YCenter
		l.TextStyle[i].Color = color.Black
		// White on the darker half of the colour scale, which runs from the smallest count to the largest
		// (scikit-learn's ConfusionMatrixDisplay: above (min + max)/2); 0.6·max left white counts on pale cells.
		if r, c := i/len(g.labels), i%len(g.labels); maxN > minN && g.n[r][c] > (minN+maxN)/2 {
			l.TextStyle[i].Color = color.White
		}
	}
	p.Add(l)
	p.NominalX(g.labels...)
	top := slices.Clone(g.labels)
	slices.Reverse(top)
	p.NominalY(top...)
	p.X.Min, p.X.Max = -0.5, float64(len(g.labels))-0.5
	p.Y.Min, p.Y.Max = -0.5, float64(len(g.labels))-0.5
	return pics.add(p, "confusion")
}

// SweepPoint is a metric's mean and standard deviation over folds at one smoothing value.
type SweepPoint struct {
	X, Mean, SD float64
}

// Sweep writes cv_<metric> pictures: metric against the smoothing parameter (log axis when logX) with ±1
// sd bars over folds and the best setting marked.
func Sweep(points []SweepPoint, metric, param string, best float64, logX bool, dir string) ([]string, error) {
	p := newPlot(fmt.Sprintf("Cross-validated %s against %s", metric, param), param, metric+" (mean ± sd over folds)")
	pts := make(plotter.XYs, len(points))
	errs := make(plotter.YErrors, len(points))
	for i, s := range points {
		x := s.X
		if logX {
			x = math.Log10(math.Max(s.X, 1e-300))
		}
		pts[i] = plotter.XY{X: x, Y: s.Mean}
		errs[i] = struct{ Low, High float64 }{s.SD, s.SD}
	}
	if logX {
		p.X.Label.Text = "log10 " + param
	}
	lp, sc, err := plotter.NewLinePoints(pts)
	if err != nil {
		return nil, err
	}
	lp.LineStyle.Width = vg.Points(2)
	lp.Color, sc.Color = colors[0], colors[0]
	sc.Shape, sc.Radius = draw.CircleGlyph{}, vg.Points(4)
	bars, err := plotter.NewYErrorBars(struct {
		plotter.XYer
		plotter.YErrorer
	}{pts, errs})
	if err != nil {
		return nil, err
	}
	p.Add(lp, sc, bars)
	p.Legend.Add(metric, lp, sc)
	lo, hi := math.Inf(1), math.Inf(-1)
	for _, s := range points {
		lo, hi = math.Min(lo, s.Mean-s.SD), math.Max(hi, s.Mean+s.SD)
	}
	if pad := 0.15 * math.Max(hi-lo, 1e-9); !math.IsInf(lo, 0) {
		p.Y.Min, p.Y.Max = lo-pad, hi+pad
	}
	for i, s := range points {
		if s.X == best {
			m, _ := plotter.NewScatter(plotter.XYs{pts[i]})
			m.Shape, m.Radius, m.Color = draw.RingGlyph{}, vg.Points(9), colors[3]
			p.Add(m)
			p.Legend.Add(fmt.Sprintf("best: %s = %g", param, best), m)
		}
	}
	return single(p, dir, "cv_"+metric)
}

// Curve is one learning curve: a name (the kind) and its points (X the training rows, Mean the test error,
// SD its standard deviation over repeats).
type Curve struct {
	Name   string
	Points []SweepPoint
}

// LearningCurves writes the test error of each curve against the training set size (log scale), seed
// 004's Ng and Jordan figure, as learning_curves.png and .svg in dir.
func LearningCurves(curves []Curve, dir string) ([]string, error) {
	p := newPlot("Learning curves: held-out error against training size", "training rows (log scale)", "test error (1 - accuracy)")
	p.X.Scale = plot.LogScale{}
	var ticks []plot.Tick
	seen := map[float64]bool{}
	for _, c := range curves {
		for _, s := range c.Points {
			if x := math.Max(s.X, 1); !seen[x] {
				seen[x] = true
				ticks = append(ticks, plot.Tick{Value: x, Label: strconv.FormatFloat(x, 'g', 6, 64)})
			}
		}
	}
	p.X.Tick.Marker = plot.ConstantTicks(ticks)
	p.Legend.Left = false
	for i, c := range curves {
		if len(c.Points) == 0 {
			continue
		}
		pts := make(plotter.XYs, len(c.Points))
		errs := make(plotter.YErrors, len(c.Points))
		for k, s := range c.Points {
			pts[k] = plotter.XY{X: math.Max(s.X, 1), Y: s.Mean}
			errs[k] = struct{ Low, High float64 }{s.SD, s.SD}
		}
		lp, sc, err := plotter.NewLinePoints(pts)
		if err != nil {
			return nil, err
		}
		col := colors[i%len(colors)]
		lp.LineStyle.Width = vg.Points(2)
		lp.Color, sc.Color = col, col
		sc.Shape, sc.Radius = draw.CircleGlyph{}, vg.Points(3.5)
		p.Add(lp, sc)
		if hasSpread(c.Points) {
			bars, err := plotter.NewYErrorBars(struct {
				plotter.XYer
				plotter.YErrorer
			}{pts, errs})
			if err != nil {
				return nil, err
			}
			bars.Color = col
			p.Add(bars)
		}
		p.Legend.Add(c.Name, lp, sc)
	}
	p.Y.Min = 0
	return single(p, dir, "learning_curves")
}

func hasSpread(points []SweepPoint) bool {
	for _, s := range points {
		if s.SD > 0 {
			return true
		}
	}
	return false
}

// blues is a white-to-dark-blue palette for counts.
type blues struct{}

func (blues) Colors() []color.Color {
	out := make([]color.Color, 64)
	for i := range out {
		t := float64(i) / 63
		out[i] = color.RGBA{uint8(247 - t*(247-8)), uint8(251 - t*(251-48)), uint8(255 - t*(255-107)), 255}
	}
	return out
}
