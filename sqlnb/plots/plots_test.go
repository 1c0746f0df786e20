package plots_test

import (
	"fmt"
	"image"
	"image/png"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/sqlnb/sqlnb/sqlnb"
	"github.com/sqlnb/sqlnb/sqlnb/plots"
)

func evaluation() *sqlnb.Evaluation {
	e := &sqlnb.Evaluation{Model: &sqlnb.Model{Classes: []sqlnb.Class{{Label: "no"}, {Label: "yes"}}}, Positive: "yes",
		Metrics: []sqlnb.Metric{{Metric: "roc_auc", Class: "yes", Value: 0.9}, {Metric: "average_precision", Class: "yes", Value: 0.8}}}
	for i := 0; i <= 10; i++ {
		x := float64(i) / 10
		e.Curves = append(e.Curves, sqlnb.CurvePoint{Class: "yes", FPR: x, TPR: min(1, 2*x), Precision: 1 - x/2})
	}
	// Quantile bins of the positive class (two near 0 share a label), and the mirror bins of the other class,
	// which are not drawn.
	for i, b := range [][3]float64{{0.001, 0, 10}, {0.01, 0.02, 11}, {0.2, 0.1, 12}, {0.45, 0.5, 13}, {0.7, 0.8, 14}, {0.97, 0.95, 15}} {
		e.Calibration = append(e.Calibration, sqlnb.CalibrationBin{Class: "yes", Bin: i, Predicted: b[0], Observed: b[1], N: int64(b[2])},
			sqlnb.CalibrationBin{Class: "no", Bin: i, Predicted: 1 - b[0], Observed: 1 - b[1], N: int64(b[2]) + 100})
	}
	e.Confusion = []sqlnb.Cell{{Actual: "no", Predicted: "no", N: 50}, {Actual: "no", Predicted: "yes", N: 5},
		{Actual: "yes", Predicted: "no", N: 8}, {Actual: "yes", Predicted: "yes", N: 37}}
	return e
}

// svgText is one text drawn in an SVG picture: where (x from the left, up from the bottom, in points) and
// what. Rotated texts (the y-axis title) are left out.
type svgText struct {
	x, up float64
	text  string
}

var svgTextRe = regexp.MustCompile(`<text x="([-0-9.e]+)" y="([-0-9.e]+)" transform="scale\(1, -1\)"\s+style="[^"]*">([^<]*)</text>`)

// texts returns the texts drawn in the SVG file path, by content (the last of equal texts wins).
func texts(t *testing.T, path string) map[string]svgText {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]svgText{}
	for _, m := range svgTextRe.FindAllStringSubmatch(string(b), -1) {
		x, _ := strconv.ParseFloat(m[1], 64)
		y, _ := strconv.ParseFloat(m[2], 64)
		out[m[3]] = svgText{x: x, up: -y, text: m[3]}
	}
	return out
}

// checkPNG: an 800×600 picture with more than a handful of colours (lines, text and fills drawn).
func checkPNG(t *testing.T, path string) {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	img, err := png.Decode(f)
	if err != nil {
		t.Fatal(err)
	}
	if b := img.Bounds(); b.Dx() != 800 || b.Dy() != 600 {
		t.Errorf("%s: %v, want 800×600", path, b)
	}
	colors := map[uint32]bool{}
	nonWhite := 0
	for y := 0; y < 600; y += 3 {
		for x := 0; x < 800; x += 3 {
			r, g, b, _ := img.At(x, y).RGBA()
			colors[r<<16^g<<8^b] = true
			if r < 0xf000 || g < 0xf000 || b < 0xf000 {
				nonWhite++
			}
		}
	}
	if len(colors) < 8 || nonWhite < 500 {
		t.Errorf("%s looks empty: %d colours, %d non-white samples", path, len(colors), nonWhite)
	}
	_ = image.Point{}
}

func TestEvaluationPictures(t *testing.T) {
	dir := t.TempDir()
	files, err := plots.Evaluation(evaluation(), dir)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"roc", "pr", "calibration", "confusion"}
	if len(files) != 2*len(want) {
		t.Fatalf("files %v", files)
	}
	for _, name := range want {
		checkPNG(t, filepath.Join(dir, name+".png"))
		svg, err := os.ReadFile(filepath.Join(dir, name+".svg"))
		if err != nil || !strings.Contains(string(svg), "<svg") || len(svg) < 2000 {
			t.Errorf("%s.svg: %d bytes, %v", name, len(svg), err)
		}
	}
	svg, _ := os.ReadFile(filepath.Join(dir, "roc.svg"))
	for _, label := range []string{"false positive rate", "true positive rate", "yes (AUC 0.900)"} {
		if !strings.Contains(string(svg), label) {
			t.Errorf("roc.svg lacks %q", label)
		}
	}
}

func TestSweepPicture(t *testing.T) {
	dir := t.TempDir()
	pts := []plots.SweepPoint{{X: 0, Mean: 0.8, SD: 0.02}, {X: 0.5, Mean: 0.85, SD: 0.01}, {X: 1, Mean: 0.84, SD: 0.03}, {X: 2, Mean: 0.82, SD: 0.02}}
	if _, err := plots.Sweep(pts, "accuracy", "alpha", 0.5, false, dir); err != nil {
		t.Fatal(err)
	}
	checkPNG(t, filepath.Join(dir, "cv_accuracy.png"))
	svg, _ := os.ReadFile(filepath.Join(dir, "cv_accuracy.svg"))
	if !strings.Contains(string(svg), "best: alpha = 0.5") {
		t.Errorf("sweep picture does not mark the best setting")
	}
}

// TestConfusionPicture: the first class is the top row and the left column, so the diagonal runs from the
// top left (scikit-learn's ConfusionMatrixDisplay), and each count is drawn in its cell.
func TestConfusionPicture(t *testing.T) {
	dir := t.TempDir()
	if _, err := plots.Evaluation(evaluation(), dir); err != nil {
		t.Fatal(err)
	}
	got := texts(t, filepath.Join(dir, "confusion.svg"))
	b, err := os.ReadFile(filepath.Join(dir, "confusion.svg"))
	if err != nil {
		t.Fatal(err)
	}
	var yTicks, xTicks []svgText
	for _, m := range svgTextRe.FindAllStringSubmatch(string(b), -1) {
		if m[3] != "no" && m[3] != "yes" {
			continue
		}
		x, _ := strconv.ParseFloat(m[1], 64)
		y, _ := strconv.ParseFloat(m[2], 64)
		if x < 60 {
			yTicks = append(yTicks, svgText{x, -y, m[3]})
		} else {
			xTicks = append(xTicks, svgText{x, -y, m[3]})
		}
	}
	if len(yTicks) != 2 || len(xTicks) != 2 || yTicks[0].up < yTicks[1].up == (yTicks[0].text == "no") ||
		xTicks[0].x < xTicks[1].x != (xTicks[0].text == "no") {
		t.Errorf("ticks: y %v, x %v; want no above yes and no left of yes", yTicks, xTicks)
	}
	cell := func(n string) svgText { return got[n] }
	noNo, noYes, yesNo, yesYes := cell("50"), cell("5"), cell("8"), cell("37")
	if !(noNo.up > yesNo.up && noYes.up > yesYes.up && noNo.x < noYes.x && yesNo.x < yesYes.x) {
		t.Errorf("counts: no/no %v, no/yes %v, yes/no %v, yes/yes %v; want actual no on top, predicted no on the left", noNo, noYes, yesNo, yesYes)
	}
}

// TestCalibrationPicture: a two-class evaluation draws the positive class's curve only, each quantile bin
// with its count at its point (bins at nearly the same point share one label); more classes draw one curve
// per class, each named in the legend.
func TestCalibrationPicture(t *testing.T) {
	dir := t.TempDir()
	if _, err := plots.Evaluation(evaluation(), dir); err != nil {
		t.Fatal(err)
	}
	got := texts(t, filepath.Join(dir, "calibration.svg"))
	for _, want := range []string{"Reliability diagram of class yes (quantile bins)", "yes", "n=21 (2 bins)", "n=12", "n=13", "n=14", "n=15"} {
		if _, ok := got[want]; !ok {
			t.Errorf("calibration.svg lacks %q", want)
		}
	}
	for text := range got {
		var n int
		if _, err := fmt.Sscanf(text, "n=%d", &n); err == nil && n >= 100 || text == "no" {
			t.Errorf("calibration.svg draws the negative class: %q", text)
		}
	}
	// The labels sit at their bins: left to right in order of the mean predicted probability, and higher
	// for a higher observed frequency (0.5 at bin 3, 0.8 at bin 4).
	if !(got["n=12"].x < got["n=13"].x && got["n=13"].x < got["n=14"].x && got["n=13"].up < got["n=14"].up && got["n=12"].up < got["n=13"].up) {
		t.Errorf("count labels not at their bins: %v %v %v", got["n=12"], got["n=13"], got["n=14"])
	}

	e := evaluation()
	e.Positive = ""
	e.Model.Classes = append(e.Model.Classes, sqlnb.Class{Label: "maybe"})
	e.Calibration = append(e.Calibration, sqlnb.CalibrationBin{Class: "maybe", Predicted: 0.5, Observed: 0.4, N: 300})
	if _, err := plots.Evaluation(e, dir); err != nil {
		t.Fatal(err)
	}
	got = texts(t, filepath.Join(dir, "calibration.svg"))
	for _, want := range []string{"Reliability diagram, each class against the rest (quantile bins)", "no", "yes", "maybe", "n=221 (2 bins)", "n=21 (2 bins)", "n=300"} {
		if _, ok := got[want]; !ok {
			t.Errorf("three-class calibration.svg lacks %q", want)
		}
	}
}

// TestConfusionCountColours: a count is written in white on the darker half of the colour scale, which
// runs from the smallest count to the largest (scikit-learn's ConfusionMatrixDisplay), in black on the
// paler half: with counts 305, 195, 196, 304 the two near 200 sit on pale cells and were white (0.6·max).
func TestConfusionCountColours(t *testing.T) {
	dir := t.TempDir()
	e := evaluation()
	e.Confusion = []sqlnb.Cell{{Actual: "no", Predicted: "no", N: 305}, {Actual: "no", Predicted: "yes", N: 195},
		{Actual: "yes", Predicted: "no", N: 196}, {Actual: "yes", Predicted: "yes", N: 304}}
	if _, err := plots.Evaluation(e, dir); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(filepath.Join(dir, "confusion.svg"))
	if err != nil {
		t.Fatal(err)
	}
	fill := regexp.MustCompile(`font-size:16px(;fill:#[0-9A-F]{6})?">([0-9]+)</text>`)
	got := map[string]string{}
	for _, m := range fill.FindAllStringSubmatch(string(b), -1) {
		got[m[2]] = strings.TrimPrefix(m[1], ";fill:")
		if got[m[2]] == "" {
			got[m[2]] = "#000000" // SVG's default fill
		}
	}
	for n, want := range map[string]string{"305": "#FFFFFF", "304": "#FFFFFF", "195": "#000000", "196": "#000000"} {
		if got[n] != want {
			t.Errorf("count %s drawn in %q, want %s (all: %v)", n, got[n], want, got)
		}
	}
}

// TestCalibrationManyClasses: with many classes whose curves meet at the same points, count labels that find
// no free place near their point are left out, and the axis stays the unit square (labels pushed ever lower
// had stretched it to -6, squashing the curves into the top band).
func TestCalibrationManyClasses(t *testing.T) {
	dir := t.TempDir()
	e := evaluation()
	e.Positive = ""
	e.Calibration = nil
	for c := range 25 {
		label := fmt.Sprintf("c%02d", c)
		e.Model.Classes = append(e.Model.Classes, sqlnb.Class{Label: label})
		for b, pt := range [][2]float64{{0.02, 0.01}, {0.1, 0.12}, {0.5, 0.45}, {0.97, 0.99}} {
			e.Calibration = append(e.Calibration, sqlnb.CalibrationBin{Class: label, Bin: b, Predicted: pt[0], Observed: pt[1], N: int64(100 + c)})
		}
	}
	if _, err := plots.Evaluation(e, dir); err != nil {
		t.Fatal(err)
	}
	got := texts(t, filepath.Join(dir, "calibration.svg"))
	labels := 0
	for text := range got {
		if strings.HasPrefix(text, "-") && text != "-0" {
			t.Errorf("calibration.svg has a negative tick %q: the axis left the unit square", text)
		}
		if strings.HasPrefix(text, "n=") {
			labels++
		}
	}
	if labels == 0 || labels >= 100 {
		t.Errorf("%d count labels of 100 bins: want some, not all", labels)
	}
}

// TestPicturesKeepUsersFiles: pictures replace only files sqlnb wrote (the directory's manifest lists them):
// writing again into the same directory works, and a file of a picture's name the user made is refused and
// left as it was, with nothing written (a review: eval --plot report replaced the user's report/roc.png):
// the check comes before any picture is written.
func TestPicturesKeepUsersFiles(t *testing.T) {
	dir := t.TempDir()
	if _, err := plots.Evaluation(evaluation(), dir); err != nil {
		t.Fatal(err)
	}
	if _, err := plots.Evaluation(evaluation(), dir); err != nil { // again: its own files
		t.Fatalf("writing again: %v", err)
	}
	if _, err := plots.Sweep([]plots.SweepPoint{{X: 0.5, Mean: 0.8, SD: 0.1}, {X: 1, Mean: 0.9, SD: 0.05}}, "accuracy", "alpha", 1, false, dir); err != nil {
		t.Fatalf("another picture in the same directory: %v", err)
	}
	mine := t.TempDir()
	roc := filepath.Join(mine, "roc.png")
	if err := os.WriteFile(roc, []byte("my hand-made ROC figure"), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err := plots.Evaluation(evaluation(), mine)
	if err == nil || !strings.Contains(err.Error(), roc+" is there and sqlnb did not write it") {
		t.Errorf("a user's roc.png: %v", err)
	}
	if b, _ := os.ReadFile(roc); string(b) != "my hand-made ROC figure" {
		t.Errorf("the user's file became %d bytes", len(b))
	}
	if _, err := os.Stat(filepath.Join(mine, "pr.png")); err == nil {
		t.Error("pictures written beside the refused one")
	}
}
