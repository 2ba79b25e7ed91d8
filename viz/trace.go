package viz

import (
	"fmt"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"

	"github.com/nmc-go/nmc/draws"
)

// Trace returns a trace plot of the named quantity: its value against the draw
// number, one line per chain, coloured and labelled "chain 0", "chain 1", … in the
// legend. Non-finite draws are left out of the lines.
//
// It returns an error for nil, invalid or empty draws, an unknown name and a
// quantity with no finite draw.
func Trace(d *draws.Draws, name string) (*plot.Plot, error) {
	cols, err := paramColumn("trace", d, name)
	if err != nil {
		return nil, err
	}
	p := newPlot("Trace of "+name, "draw", name)
	for c, ch := range cols {
		xy := make(plotter.XYs, 0, len(ch))
		for i, v := range ch {
			if isFinite(v) {
				xy = append(xy, plotter.XY{X: float64(i), Y: v})
			}
		}
		if len(xy) == 0 {
			continue
		}
		l, err := plotter.NewLine(xy)
		if err != nil {
			return nil, fmt.Errorf("viz: trace: chain %d: %w", c, err)
		}
		l.Color = withAlpha(chainColor(c), 0.8)
		l.Width = vg.Points(0.8)
		p.Add(l)
		p.Legend.Add(chainLabel(c), l)
	}
	p.Legend.Top = true
	headroom(p, 0.25)
	return p, nil
}
