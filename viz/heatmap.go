package viz

import (
	"fmt"
	"image/color"
	"math"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/palette"
	"gonum.org/v1/plot/palette/moreland"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// matrixGrid shows a row-major matrix as a plotter.GridXYZ with row 0 at the top.
type matrixGrid struct{ m [][]float64 }

func (g matrixGrid) Dims() (c, r int)   { return len(g.m[0]), len(g.m) }
func (g matrixGrid) Z(c, r int) float64 { return g.m[len(g.m)-1-r][c] }
func (g matrixGrid) X(c int) float64    { return float64(c) }
func (g matrixGrid) Y(r int) float64    { return float64(r) }

// ConfusionHeatmap returns a heat map of a matrix, such as a Dawid–Skene
// confusion matrix (row k: true class k; column l: probability of reporting
// label l), with every cell's value written in it to two decimals. Row 0 is at
// the top. The colour scale runs from white (low) to dark (high) over [0, 1] when
// every value lies in [0, 1], so an estimate and the truth drawn side by side
// share one scale, and over the values' range otherwise. rowLabels and colLabels
// name the rows (y axis, "true class") and columns (x axis, "reported label");
// nil means "0", "1", …. Change p.X.Label.Text and p.Y.Label.Text for other uses.
//
// It returns an error for an empty or ragged matrix, a non-finite value (named by
// row and column), and label slices whose length does not match the matrix.
func ConfusionHeatmap(matrix [][]float64, title string, rowLabels, colLabels []string) (*plot.Plot, error) {
	if len(matrix) == 0 || len(matrix[0]) == 0 {
		return nil, fmt.Errorf("viz: heatmap: empty matrix")
	}
	nr, nc := len(matrix), len(matrix[0])
	lo, hi := math.Inf(1), math.Inf(-1)
	for i, row := range matrix {
		if len(row) != nc {
			return nil, fmt.Errorf("viz: heatmap: row %d has %d columns, want %d", i, len(row), nc)
		}
		for j, v := range row {
			if !isFinite(v) {
				return nil, fmt.Errorf("viz: heatmap: value at row %d, column %d is %v, not finite", i, j, v)
			}
			lo, hi = math.Min(lo, v), math.Max(hi, v)
		}
	}
	rowLabels, err := defaultLabels("row", rowLabels, nr)
	if err != nil {
		return nil, err
	}
	colLabels, err = defaultLabels("column", colLabels, nc)
	if err != nil {
		return nil, err
	}
	if lo >= 0 && hi <= 1 {
		lo, hi = 0, 1
	} else if lo == hi {
		lo, hi = lo-0.5, hi+0.5
	}
	pal, err := bluesPalette()
	if err != nil {
		return nil, err
	}
	h := plotter.NewHeatMap(matrixGrid{matrix}, pal)
	h.Min, h.Max = lo, hi

	format := "%.2f"
	if lo < 0 || hi > 1 {
		format = "%.4g"
	}
	var lab plotter.XYLabels
	var styles []color.Color
	for i, row := range matrix {
		for j, v := range row {
			lab.XYs = append(lab.XYs, plotter.XY{X: float64(j), Y: float64(nr - 1 - i)})
			lab.Labels = append(lab.Labels, fmt.Sprintf(format, v))
			if (v-lo)/(hi-lo) > 0.5 {
				styles = append(styles, color.White)
			} else {
				styles = append(styles, color.Black)
			}
		}
	}
	labels, err := plotter.NewLabels(lab)
	if err != nil {
		return nil, fmt.Errorf("viz: heatmap: %w", err)
	}
	size := vg.Points(math.Max(6, math.Min(11, 90/float64(max(nr, nc)))))
	for k := range labels.TextStyle {
		labels.TextStyle[k].Color = styles[k]
		labels.TextStyle[k].XAlign = draw.XCenter
		labels.TextStyle[k].YAlign = draw.YCenter
		labels.TextStyle[k].Font.Size = size
	}

	if title == "" {
		title = "Confusion matrix"
	}
	p := newPlot(title, "reported label", "true class")
	p.Add(h, labels)
	xs := make([]float64, nc)
	for j := range xs {
		xs[j] = float64(j)
	}
	ys := make([]float64, nr)
	ylabels := make([]string, nr)
	for i := range ys {
		ys[i] = float64(nr - 1 - i)
		ylabels[i] = rowLabels[i]
	}
	p.X.Tick.Marker = namedTicks{At: xs, Labels: colLabels}
	p.Y.Tick.Marker = namedTicks{At: ys, Labels: ylabels}
	p.X.Min, p.X.Max = -0.5, float64(nc)-0.5
	p.Y.Min, p.Y.Max = -0.5, float64(nr)-0.5
	p.X.Padding, p.Y.Padding = 0, 0
	if nc > 8 {
		p.X.Tick.Label.Rotation = math.Pi / 4
		p.X.Tick.Label.XAlign = draw.XRight
		p.X.Tick.Label.YAlign = draw.YCenter
	}
	return p, nil
}

// defaultLabels checks labels against n, or makes "0", "1", … if labels is nil.
func defaultLabels(what string, labels []string, n int) ([]string, error) {
	if labels == nil {
		labels = make([]string, n)
		for i := range labels {
			labels[i] = fmt.Sprint(i)
		}
		return labels, nil
	}
	if len(labels) != n {
		return nil, fmt.Errorf("viz: heatmap: %d %s labels for %d %ss", len(labels), what, n, what)
	}
	return labels, nil
}

// bluesPalette is a sequential palette from white to dark blue, monotone in
// luminance, so cell shading reads the same in grey print.
func bluesPalette() (palette.Palette, error) {
	cmap, err := moreland.NewLuminance([]color.Color{
		color.NRGBA{R: 8, G: 48, B: 107, A: 255},
		color.NRGBA{R: 107, G: 174, B: 214, A: 255},
		color.NRGBA{R: 247, G: 251, B: 255, A: 255},
	})
	if err != nil {
		return nil, fmt.Errorf("viz: heatmap: palette: %w", err)
	}
	cmap.SetMin(0)
	cmap.SetMax(1)
	return palette.Reverse(cmap).Palette(256), nil
}
