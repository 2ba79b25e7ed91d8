package viz

import (
	"fmt"
	"slices"

	"gonum.org/v1/gonum/stat"
	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

	"github.com/nmc-go/nmc/draws"
)

// Forest returns a forest plot: one row per parameter, the first at the top, with
// the median of its draws (all chains pooled) as a dot, the 25–75% interval as a
// thick bar and the 5–95% interval as a thin line. Quantiles interpolate linearly
// between order statistics (gonum stat.LinInterp); non-finite draws are left out.
// Each entry of names is an exact name or an indexed family, as in
// draws.Draws.Match ("beta" gives beta[0], beta[1], …); a parameter named twice
// is shown once.
//
// It returns an error for nil, invalid or empty draws, no names, a name that
// matches nothing and a parameter with no finite draw.
func Forest(d *draws.Draws, names []string) (*plot.Plot, error) {
	if d == nil {
		return nil, fmt.Errorf("viz: forest: nil draws")
	}
	if len(names) == 0 {
		return nil, fmt.Errorf("viz: forest: no parameter names given")
	}
	var params []string
	for _, sel := range names {
		m, err := d.Match(sel)
		if err != nil {
			return nil, fmt.Errorf("viz: forest: %w", err)
		}
		for _, n := range m {
			if !slices.Contains(params, n) {
				params = append(params, n)
			}
		}
	}
	p := newPlot("Forest plot: median, 50% (thick) and 90% (thin) intervals", "value", "")
	col := chainColor(0)
	grid := plotter.NewGrid()
	grid.Vertical.Color = withAlpha(grid.Vertical.Color, 0.5)
	grid.Horizontal.Color = withAlpha(grid.Horizontal.Color, 0.5)
	p.Add(grid)
	rows := len(params)
	var at []float64
	for i, name := range params {
		cols, err := paramColumn("forest", d, name)
		if err != nil {
			return nil, err
		}
		x := finiteValues(cols)
		slices.Sort(x)
		q := func(f float64) float64 { return stat.Quantile(f, stat.LinInterp, x, nil) }
		y := float64(rows - 1 - i)
		thin, err := plotter.NewLine(plotter.XYs{{X: q(0.05), Y: y}, {X: q(0.95), Y: y}})
		if err != nil {
			return nil, fmt.Errorf("viz: forest: %q: %w", name, err)
		}
		thin.Color, thin.Width = col, vg.Points(1.2)
		thick, err := plotter.NewLine(plotter.XYs{{X: q(0.25), Y: y}, {X: q(0.75), Y: y}})
		if err != nil {
			return nil, fmt.Errorf("viz: forest: %q: %w", name, err)
		}
		thick.Color, thick.Width = col, vg.Points(4.5)
		med, err := plotter.NewScatter(plotter.XYs{{X: q(0.5), Y: y}})
		if err != nil {
			return nil, fmt.Errorf("viz: forest: %q: %w", name, err)
		}
		med.GlyphStyle = draw.GlyphStyle{Color: col, Radius: vg.Points(3.5), Shape: draw.CircleGlyph{}}
		p.Add(thin, thick, med)
		at = append(at, y)
	}
	labels := slices.Clone(params)
	p.Y.Tick.Marker = namedTicks{At: at, Labels: labels}
	p.Y.Min, p.Y.Max = -0.6, float64(rows)-0.4
	if pad := 0.04 * (p.X.Max - p.X.Min); pad > 0 {
		p.X.Min, p.X.Max = p.X.Min-pad, p.X.Max+pad
	}
	return p, nil
}
