package paper

import (
	"errors"
	"fmt"
	"io"
	"math"
	"path/filepath"

	"gonum.org/v1/gonum/stat/distuv"
	"gonum.org/v1/plot"
	"gonum.org/v1/plot/vg"

	"github.com/nmc-go/nmc/draws"
	"github.com/nmc-go/nmc/internal/fileio"
	"github.com/nmc-go/nmc/viz"
)

// FigureWidth and FigureHeight are the size of a single-plot figure: wide enough
// for axis labels and legends to stay readable.
const (
	FigureWidth  = 7 * vg.Inch
	FigureHeight = 4.5 * vg.Inch
)

// Figure is one figure of a Report: a single plot or a grid of plots, rendered at
// Width × Height.
type Figure struct {
	// Name is the figure's file name without the extension ("pll_blr").
	Name string
	// Plot is the figure's plot; nil for a grid.
	Plot *plot.Plot
	// Grid holds the plots of a grid figure by row and column (a nil entry is an
	// empty tile); nil for a single plot.
	Grid [][]*plot.Plot
	// Width and Height are the figure's size.
	Width, Height vg.Length
}

// PNG renders f as a PNG image.
func (f Figure) PNG() ([]byte, error) {
	if f.Grid != nil {
		return viz.Grid(f.Grid, f.Width, f.Height)
	}
	if f.Plot == nil {
		return nil, errors.New("paper: figure " + f.Name + " has no plot")
	}
	return viz.PNG(f.Plot, f.Width, f.Height)
}

// WritePNG renders f and writes it as dir/Name.png; it returns the path.
func (f Figure) WritePNG(dir string) (string, error) {
	b, err := f.PNG()
	if err != nil {
		return "", fmt.Errorf("paper: figure %s: %w", f.Name, err)
	}
	path := filepath.Join(dir, f.Name+".png")
	err = fileio.WriteFile(path, func(w io.Writer) error {
		_, err := w.Write(b)
		return err
	})
	if err != nil {
		return "", err
	}
	return path, nil
}

// curvePoints picks about max points of a running curve of n values (1-based
// x = 1 … n), spaced evenly on a log scale, always including the first and last.
func curvePoints(curve []float64, maxPts int) (x, y []float64) {
	n := len(curve)
	last := -1
	for i := range maxPts {
		// geometric spacing from 1 to n
		v := math.Exp(math.Log(float64(n)) * float64(i) / float64(maxPts-1))
		k := int(math.Round(v)) - 1
		k = min(max(k, 0), n-1)
		if k == last {
			continue
		}
		last = k
		if math.IsInf(curve[k], 0) || math.IsNaN(curve[k]) {
			continue
		}
		x = append(x, float64(k+1))
		y = append(y, curve[k])
	}
	return x, y
}

// PLLPlot returns the running predictive log-likelihood plot of one or more
// curves (label → curve), with a log x axis. The y axis starts at a bound that
// keeps the converged part legible: a start from the prior can lie orders of
// magnitude below the final value.
func PLLPlot(title string, labels []string, curves [][]float64) (*plot.Plot, error) {
	var series []viz.PLLSeries
	lo, hi := math.Inf(1), math.Inf(-1)
	for i, c := range curves {
		x, y := curvePoints(c, 60)
		if len(x) == 0 {
			return nil, fmt.Errorf("pll plot %q: curve %q has no finite point", title, labels[i])
		}
		series = append(series, viz.PLLSeries{Label: labels[i], X: x, Y: y})
		final := c[len(c)-1]
		// Show at least 25% of |final| (or 10 nats) below the smallest final value.
		lo = math.Min(lo, final-math.Max(0.25*math.Abs(final), 10))
		for _, v := range y {
			hi = math.Max(hi, v)
		}
	}
	p, err := viz.PLL(series, viz.PLLOptions{LogX: true, Title: title})
	if err != nil {
		return nil, err
	}
	p.X.Label.Text = "draws, all chains interleaved (log scale)"
	p.Y.Label.Text = "joint predictive log-likelihood (nats)"
	p.Legend.Top = true
	p.Legend.Left = true
	minY := math.Inf(1)
	for _, s := range series {
		for _, v := range s.Y {
			minY = math.Min(minY, v)
		}
	}
	if minY < lo {
		p.Y.Min = lo
		p.Y.Max = hi + 0.05*(hi-lo)
		p.Title.Text += " (y axis clipped below)"
	}
	return p, nil
}

// ExactDensityPlot returns the density of name's draws with an exact density pdf
// overlaid, labelled label.
func ExactDensityPlot(d *draws.Draws, name string, pdf func(float64) float64, label string) (*plot.Plot, error) {
	return viz.Density(d, name, &viz.DensityOptions{Exact: pdf, ExactLabel: label})
}

// FunnelZPlot is the paper's funnel figure: the marginal of z's draws with the exact
// N(0, 3).
func FunnelZPlot(d *draws.Draws) (*plot.Plot, error) {
	n := distuv.Normal{Mu: 0, Sigma: 3}
	p, err := ExactDensityPlot(d, "z", n.Prob, "exact N(0, 3)")
	if err != nil {
		return nil, err
	}
	p.Title.Text = "Neal's funnel: marginal of z"
	return p, nil
}

// relativePLLPlot plots curves already scaled as (PLL − final)/|final|.
func relativePLLPlot(labels []string, rel [][]float64) (*plot.Plot, error) {
	var series []viz.PLLSeries
	hi := 0.0
	for i, c := range rel {
		x, y := curvePoints(c, 50)
		// Clip the start (it can be hundreds of times the final value away).
		for j := range y {
			y[j] = math.Max(y[j], -1)
			hi = math.Max(hi, y[j])
		}
		series = append(series, viz.PLLSeries{Label: labels[i], X: x, Y: y})
	}
	p, err := viz.PLL(series, viz.PLLOptions{LogX: true, Title: "Running PLL relative to its final value (clipped at −1)"})
	if err != nil {
		return nil, err
	}
	p.X.Label.Text = "draws, all chains interleaved (log scale)"
	p.Y.Label.Text = "(PLL − final PLL) / |final PLL|"
	// The curves end at 0, at the top right; the bottom right stays free.
	p.Legend.Top = false
	p.Legend.Left = false
	p.Y.Min, p.Y.Max = -1.05, hi+0.05
	return p, nil
}
