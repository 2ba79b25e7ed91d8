package viz

import (
	"fmt"
	"math"
	"strconv"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"

	"github.com/nmc-go/nmc/draws"
)

// DefaultMaxLag is the largest lag Autocorr shows when maxLag is 0 (fewer if the
// chains are shorter).
const DefaultMaxLag = 100

// Autocorr returns the autocorrelation of the named quantity for lags 0…maxLag,
// one line with point markers per chain, with a legend. The estimate for lag k of
// a chain x of n draws with mean m is
// ρ_k = Σ_{t<n-k} (x_t − m)(x_{t+k} − m) / Σ_t (x_t − m)².
// maxLag 0 means min(DefaultMaxLag, n−1) for the shortest chain n; a larger
// maxLag than a chain allows is cut to its n−1.
//
// It returns an error for nil, invalid or empty draws, an unknown name, a
// negative maxLag, a non-finite draw (named by chain and draw), a chain with
// fewer than 2 draws and a constant chain (autocorrelation undefined).
func Autocorr(d *draws.Draws, name string, maxLag int) (*plot.Plot, error) {
	if maxLag < 0 {
		return nil, fmt.Errorf("viz: autocorr: maxLag is %d, want ≥ 0", maxLag)
	}
	cols, err := paramColumn("autocorr", d, name)
	if err != nil {
		return nil, err
	}
	shortest := len(cols[0])
	for c, ch := range cols {
		if len(ch) < 2 {
			return nil, fmt.Errorf("viz: autocorr: chain %d has %d draws of %q, want at least 2", c, len(ch), name)
		}
		for i, v := range ch {
			if !isFinite(v) {
				return nil, fmt.Errorf("viz: autocorr: %q is %v at chain %d draw %d", name, v, c, i)
			}
		}
		shortest = min(shortest, len(ch))
	}
	if maxLag == 0 {
		maxLag = min(DefaultMaxLag, shortest-1)
	}
	p := newPlot("Autocorrelation of "+name, "lag", "autocorrelation")
	for c, ch := range cols {
		rho, err := autocorrelation(ch, min(maxLag, len(ch)-1))
		if err != nil {
			return nil, fmt.Errorf("viz: autocorr: chain %d: %w", c, err)
		}
		xy := make(plotter.XYs, len(rho))
		for k, r := range rho {
			xy[k] = plotter.XY{X: float64(k), Y: r}
		}
		l, s, err := plotter.NewLinePoints(xy)
		if err != nil {
			return nil, fmt.Errorf("viz: autocorr: chain %d: %w", c, err)
		}
		l.Color = chainColor(c)
		l.Width = vg.Points(1)
		s.Color = chainColor(c)
		s.Radius = vg.Points(1.2)
		p.Add(l, s)
		p.Legend.Add(chainLabel(c), l, s)
	}
	zero, err := plotter.NewLine(plotter.XYs{{X: 0, Y: 0}, {X: float64(maxLag), Y: 0}})
	if err != nil {
		return nil, fmt.Errorf("viz: autocorr: %w", err)
	}
	zero.Color = plotter.DefaultLineStyle.Color
	zero.Width = vg.Points(0.5)
	p.Add(zero)
	p.Y.Max = 1.3
	p.Y.Min = min(p.Y.Min, -0.25)
	var ticks []plot.Tick
	for k := math.Floor(p.Y.Min / 0.25); k <= 4; k++ {
		t := plot.Tick{Value: k * 0.25}
		if int(k)%2 == 0 {
			t.Label = strconv.FormatFloat(t.Value, 'g', -1, 64)
		}
		ticks = append(ticks, t)
	}
	p.Y.Tick.Marker = plot.ConstantTicks(ticks)
	p.Legend.Top = true
	return p, nil
}

// autocorrelation returns ρ_0…ρ_maxLag of x by the direct sum (O(n·maxLag)).
func autocorrelation(x []float64, maxLag int) ([]float64, error) {
	n := len(x)
	m := 0.0
	for _, v := range x {
		m += v
	}
	m /= float64(n)
	dev := make([]float64, n)
	var v0 float64
	for i, v := range x {
		dev[i] = v - m
		v0 += dev[i] * dev[i]
	}
	if v0 == 0 {
		return nil, fmt.Errorf("chain is constant (%v); autocorrelation is undefined", x[0])
	}
	rho := make([]float64, maxLag+1)
	for k := range rho {
		s := 0.0
		for t := 0; t+k < n; t++ {
			s += dev[t] * dev[t+k]
		}
		rho[k] = s / v0
	}
	return rho, nil
}
