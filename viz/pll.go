package viz

import (
	"fmt"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// PLLSeries is one curve of a predictive log-likelihood plot: for example one
// method or one run, with Y[i] the predictive log-likelihood after X[i] draws.
type PLLSeries struct {
	// Label is the legend entry; empty means "series i".
	Label string
	// X holds the numbers of draws, Y the predictive log-likelihoods; they must
	// have the same non-zero length and finite values.
	X, Y []float64
}

// ChainPLLSeries returns one series per chain of running predictive
// log-likelihood curves such as diagnostics.PLLPerChain returns: series c is
// labelled "chain c", with Y = curves[c] against X = 1, 2, … draws.
func ChainPLLSeries(curves [][]float64) []PLLSeries {
	out := make([]PLLSeries, len(curves))
	for c, y := range curves {
		x := make([]float64, len(y))
		for i := range x {
			x[i] = float64(i + 1)
		}
		out[c] = PLLSeries{Label: chainLabel(c), X: x, Y: y}
	}
	return out
}

// PLLOptions configures PLL. The zero value gives a linear x axis.
type PLLOptions struct {
	// LogX draws the x axis (draws) on a log₁₀ scale; every X must then be > 0.
	LogX bool
	// Title replaces the default title "Predictive log-likelihood" if non-empty.
	Title string
}

// PLL returns a plot of predictive log-likelihood against the number of draws,
// one line with markers per series (several runs or methods on one axis), with a
// legend. At most one PLLOptions may be given; none means the zero value.
//
// It returns an error for no series, more than one PLLOptions, and naming the
// series and point for an empty series, X and Y of different lengths, a
// non-finite value, or X ≤ 0 with LogX.
func PLL(series []PLLSeries, opts ...PLLOptions) (*plot.Plot, error) {
	if len(series) == 0 {
		return nil, fmt.Errorf("viz: pll: no series given")
	}
	if len(opts) > 1 {
		return nil, fmt.Errorf("viz: pll: %d PLLOptions given, want at most 1", len(opts))
	}
	var o PLLOptions
	if len(opts) == 1 {
		o = opts[0]
	}
	title := o.Title
	if title == "" {
		title = "Predictive log-likelihood"
	}
	xlabel := "draws"
	if o.LogX {
		xlabel = "draws (log scale)"
	}
	p := newPlot(title, xlabel, "predictive log-likelihood")
	for i, s := range series {
		label := s.Label
		if label == "" {
			label = fmt.Sprintf("series %d", i)
		}
		if len(s.X) == 0 {
			return nil, fmt.Errorf("viz: pll: series %d (%q) is empty", i, label)
		}
		if len(s.X) != len(s.Y) {
			return nil, fmt.Errorf("viz: pll: series %d (%q) has %d X values and %d Y values", i, label, len(s.X), len(s.Y))
		}
		xy := make(plotter.XYs, len(s.X))
		for j := range s.X {
			x, y := s.X[j], s.Y[j]
			if !isFinite(x) || !isFinite(y) {
				return nil, fmt.Errorf("viz: pll: series %d (%q) point %d is (%v, %v), not finite", i, label, j, x, y)
			}
			if o.LogX && x <= 0 {
				return nil, fmt.Errorf("viz: pll: series %d (%q) point %d has X = %v, want > 0 on a log axis", i, label, j, x)
			}
			xy[j] = plotter.XY{X: x, Y: y}
		}
		l, pts, err := plotter.NewLinePoints(xy)
		if err != nil {
			return nil, fmt.Errorf("viz: pll: series %d (%q): %w", i, label, err)
		}
		l.Color, l.Width = chainColor(i), vg.Points(1.5)
		pts.Color, pts.Radius = chainColor(i), vg.Points(2.5)
		pts.Shape = shape(i)
		p.Add(l, pts)
		p.Legend.Add(label, l, pts)
	}
	if o.LogX {
		p.X.Scale = plot.LogScale{}
		p.X.Tick.Marker = plot.LogTicks{Prec: -1}
	}
	p.Add(plotter.NewGrid())
	return p, nil
}

// shape returns a distinct marker for series i, so series stay apart in grey print.
func shape(i int) draw.GlyphDrawer {
	shapes := []draw.GlyphDrawer{draw.CircleGlyph{}, draw.SquareGlyph{}, draw.TriangleGlyph{}, draw.CrossGlyph{}, draw.PlusGlyph{}, draw.RingGlyph{}, draw.BoxGlyph{}, draw.PyramidGlyph{}}
	return shapes[i%len(shapes)]
}
