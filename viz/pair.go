package viz

import (
	"fmt"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

	"github.com/nmc-go/nmc/draws"
)

// Pair returns a scatter plot of the draws of quantity y against quantity x, one
// colour per chain with a legend. Draws where either value is not finite are left
// out.
//
// It returns an error for nil, invalid or empty draws, an unknown name, x equal
// to y, and a pair with no draw where both values are finite.
func Pair(d *draws.Draws, x, y string) (*plot.Plot, error) {
	if x == y {
		return nil, fmt.Errorf("viz: pair: x and y are both %q", x)
	}
	xs, err := paramColumn("pair", d, x)
	if err != nil {
		return nil, err
	}
	ys, err := paramColumn("pair", d, y)
	if err != nil {
		return nil, err
	}
	p := newPlot(y+" vs "+x, x, y)
	total := 0
	for c := range xs {
		pts := make(plotter.XYs, 0, len(xs[c]))
		for i, v := range xs[c] {
			if w := ys[c][i]; isFinite(v) && isFinite(w) {
				pts = append(pts, plotter.XY{X: v, Y: w})
			}
		}
		if len(pts) == 0 {
			continue
		}
		total += len(pts)
		s, err := plotter.NewScatter(pts)
		if err != nil {
			return nil, fmt.Errorf("viz: pair: chain %d: %w", c, err)
		}
		s.GlyphStyle = draw.GlyphStyle{Color: withAlpha(chainColor(c), 0.5), Radius: vg.Points(1.5), Shape: draw.CircleGlyph{}}
		p.Add(s)
		p.Legend.Add(chainLabel(c), s)
	}
	if total == 0 {
		return nil, fmt.Errorf("viz: pair: no draw has finite values of both %q and %q", x, y)
	}
	p.Legend.Top = true
	headroom(p, 0.25)
	return p, nil
}
