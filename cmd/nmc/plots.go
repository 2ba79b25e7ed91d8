package main

import (
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"

	"gonum.org/v1/gonum/stat/distuv"
	"gonum.org/v1/plot"
	"gonum.org/v1/plot/vg"

	"github.com/nmc-go/nmc/draws"
	"github.com/nmc-go/nmc/viz"
)

// Figure sizes: wide enough for axis labels and legends to stay readable.
const (
	figW = 7 * vg.Inch
	figH = 4.5 * vg.Inch
)

// fileSafe turns a quantity name into a file name part: "theta[0,1]" is "theta_0_1".
func fileSafe(name string) string {
	r := strings.NewReplacer("[", "_", "]", "", ",", "_", " ", "")
	return r.Replace(name)
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

// pllPlot returns the running predictive log-likelihood plot of one or more
// curves (label → curve), with a log x axis. The y axis starts at a bound that
// keeps the converged part legible: a start from the prior can lie orders of
// magnitude below the final value.
func pllPlot(title string, labels []string, curves [][]float64) (*plot.Plot, error) {
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

// exactDensityPlot returns the density of name's draws with an exact density
// overlaid.
func exactDensityPlot(d *draws.Draws, name string, pdf func(float64) float64, label string) (*plot.Plot, error) {
	return viz.Density(d, name, &viz.DensityOptions{Exact: pdf, ExactLabel: label})
}

// funnelZPlot is the paper's funnel figure: z's marginal with the exact N(0, 3).
func funnelZPlot(d *draws.Draws) (*plot.Plot, error) {
	n := distuv.Normal{Mu: 0, Sigma: 3}
	p, err := exactDensityPlot(d, "z", n.Prob, "exact N(0, 3)")
	if err != nil {
		return nil, err
	}
	p.Title.Text = "Neal's funnel: marginal of z"
	return p, nil
}

// savePNG writes p as dir/name.png and returns the path.
func savePNG(p *plot.Plot, dir, name string) (string, error) {
	path := filepath.Join(dir, name+".png")
	if err := viz.SavePNG(p, path, figW, figH); err != nil {
		return "", err
	}
	return path, nil
}

// makeDir creates dir (and its parents) for output files.
func makeDir(flagName, dir string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("%s: %v", flagName, err)
	}
	return nil
}
