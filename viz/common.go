package viz

import (
	"fmt"
	"image/color"
	"math"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotutil"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

	"github.com/nmc-go/nmc/draws"
)

// chainColor is the colour of chain c in every plot.
func chainColor(c int) color.Color { return plotutil.Color(c) }

// chainLabel is the legend entry of chain c.
func chainLabel(c int) string { return fmt.Sprintf("chain %d", c) }

// newPlot makes a plot with a title and axis labels.
func newPlot(title, x, y string) *plot.Plot {
	p := plot.New()
	p.Title.Text = title
	p.X.Label.Text = x
	p.Y.Label.Text = y
	p.Title.Padding = vg.Points(6)
	return p
}

// paramColumn checks d and returns the draws of name as [chain][draw]. It fails,
// with fn naming the plot in the message, for nil or invalid draws, no chains, no
// draws, an unknown name and a column without a single finite value.
func paramColumn(fn string, d *draws.Draws, name string) ([][]float64, error) {
	if d == nil {
		return nil, fmt.Errorf("viz: %s: nil draws", fn)
	}
	if err := d.Validate(); err != nil {
		return nil, fmt.Errorf("viz: %s: %w", fn, err)
	}
	if d.NumChains() == 0 {
		return nil, fmt.Errorf("viz: %s: draws have no chains", fn)
	}
	p, err := d.Index(name)
	if err != nil {
		return nil, fmt.Errorf("viz: %s: %w", fn, err)
	}
	cols := d.Column(p)
	total, finite := 0, 0
	for _, ch := range cols {
		total += len(ch)
		for _, v := range ch {
			if isFinite(v) {
				finite++
			}
		}
	}
	if total == 0 {
		return nil, fmt.Errorf("viz: %s: draws of %q are empty (no chain has a draw)", fn, name)
	}
	if finite == 0 {
		return nil, fmt.Errorf("viz: %s: %q has no finite draw (all %d are NaN or infinite)", fn, name, total)
	}
	return cols, nil
}

func isFinite(v float64) bool { return !math.IsNaN(v) && !math.IsInf(v, 0) }

// finiteValues returns the finite values of all chains, pooled.
func finiteValues(cols [][]float64) []float64 {
	var out []float64
	for _, ch := range cols {
		for _, v := range ch {
			if isFinite(v) {
				out = append(out, v)
			}
		}
	}
	return out
}

// rect is a filled rectangle in data coordinates.
type rect struct {
	X0, X1, Y0, Y1 float64
}

// rects is a plotter of filled rectangles of one colour (bars placed anywhere).
type rects struct {
	R     []rect
	Color color.Color
	// Line, if non-nil, outlines each rectangle.
	Line *draw.LineStyle
}

// Plot implements plot.Plotter.
func (r *rects) Plot(c draw.Canvas, p *plot.Plot) {
	trX, trY := p.Transforms(&c)
	for _, b := range r.R {
		pts := []vg.Point{
			{X: trX(b.X0), Y: trY(b.Y0)}, {X: trX(b.X1), Y: trY(b.Y0)},
			{X: trX(b.X1), Y: trY(b.Y1)}, {X: trX(b.X0), Y: trY(b.Y1)},
		}
		c.FillPolygon(r.Color, c.ClipPolygonXY(pts))
		if r.Line != nil {
			closed := append(pts, pts[0])
			c.StrokeLines(*r.Line, c.ClipLinesXY(closed)...)
		}
	}
}

// DataRange implements plot.DataRanger.
func (r *rects) DataRange() (xmin, xmax, ymin, ymax float64) {
	xmin, ymin = math.Inf(1), math.Inf(1)
	xmax, ymax = math.Inf(-1), math.Inf(-1)
	for _, b := range r.R {
		xmin, xmax = math.Min(xmin, math.Min(b.X0, b.X1)), math.Max(xmax, math.Max(b.X0, b.X1))
		ymin, ymax = math.Min(ymin, math.Min(b.Y0, b.Y1)), math.Max(ymax, math.Max(b.Y0, b.Y1))
	}
	return
}

// Thumbnail implements plot.Thumbnailer.
func (r *rects) Thumbnail(c *draw.Canvas) {
	pts := []vg.Point{
		{X: c.Min.X, Y: c.Min.Y}, {X: c.Min.X, Y: c.Max.Y},
		{X: c.Max.X, Y: c.Max.Y}, {X: c.Max.X, Y: c.Min.Y},
	}
	c.FillPolygon(r.Color, c.ClipPolygonY(pts))
}

// withAlpha returns col with opacity a in [0, 1].
func withAlpha(col color.Color, a float64) color.Color {
	r, g, b, _ := col.RGBA()
	return color.NRGBA{R: uint8(r >> 8), G: uint8(g >> 8), B: uint8(b >> 8), A: uint8(math.Round(a * 255))}
}

// headroom extends the top of the y axis by frac of its range, leaving space for
// a legend in the upper corner.
func headroom(p *plot.Plot, frac float64) {
	span := p.Y.Max - p.Y.Min
	if span <= 0 || math.IsInf(span, 0) || math.IsNaN(span) {
		return
	}
	p.Y.Max += frac * span
}

// namedTicks puts labels at given positions.
type namedTicks struct {
	At     []float64
	Labels []string
}

// Ticks implements plot.Ticker.
func (t namedTicks) Ticks(min, max float64) []plot.Tick {
	var out []plot.Tick
	for i, v := range t.At {
		if v >= min && v <= max {
			out = append(out, plot.Tick{Value: v, Label: t.Labels[i]})
		}
	}
	return out
}
