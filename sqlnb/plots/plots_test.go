package plots_test

import (
	"image"
	"image/png"
	"os"
	"path/filepath"
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
		e.Calibration = append(e.Calibration, sqlnb.CalibrationBin{Bin: i, Predicted: x, Observed: x * x, N: int64(10 + i)})
	}
	e.Confusion = []sqlnb.Cell{{Actual: "no", Predicted: "no", N: 50}, {Actual: "no", Predicted: "yes", N: 5},
		{Actual: "yes", Predicted: "no", N: 8}, {Actual: "yes", Predicted: "yes", N: 37}}
	return e
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
