package viz

import (
	"fmt"
	"math"
	"slices"

	"gonum.org/v1/gonum/stat"
	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

	"github.com/nmc-go/nmc/draws"
)

// DensityOptions configures Density. The zero value, or a nil pointer, draws a
// histogram only, with the default number of bins.
type DensityOptions struct {
	// Bins is the number of histogram bins; 0 means √n clamped to [10, 60] for n
	// finite draws. It must not be negative.
	Bins int
	// KDE adds a Gaussian kernel density estimate with Silverman's bandwidth
	// h = 0.9 min(sd, IQR/1.34) n^(-1/5).
	KDE bool
	// Exact, if non-nil, is a known density (for example a conjugate posterior)
	// drawn over the histogram. Points where it is not finite are left out.
	Exact func(float64) float64
	// ExactLabel is the legend entry of Exact; empty means "exact density".
	ExactLabel string
}

// Density returns a histogram of the named quantity's draws, all chains pooled,
// normalised to a probability density (bar areas sum to 1), optionally with a
// Gaussian kernel density estimate and an exact density overlaid (see
// DensityOptions). Non-finite draws are left out. A nil opts means the defaults.
//
// It returns an error for nil, invalid or empty draws, an unknown name, a
// quantity with no finite draw, negative Bins and an Exact density that is not
// finite anywhere on the plotted range.
func Density(d *draws.Draws, name string, opts *DensityOptions) (*plot.Plot, error) {
	var o DensityOptions
	if opts != nil {
		o = *opts
	}
	if o.Bins < 0 {
		return nil, fmt.Errorf("viz: density: Bins is %d, want ≥ 0", o.Bins)
	}
	cols, err := paramColumn("density", d, name)
	if err != nil {
		return nil, err
	}
	x := finiteValues(cols)
	slices.Sort(x)
	n := len(x)
	bins := o.Bins
	if bins == 0 {
		bins = min(60, max(10, int(math.Ceil(math.Sqrt(float64(n))))))
	}
	lo, hi := x[0], x[n-1]
	if lo == hi {
		lo, hi = lo-0.5, hi+0.5
	}
	col := chainColor(0)
	hist := &rects{R: densityBars(x, lo, hi, bins), Color: withAlpha(col, 0.35), Line: &draw.LineStyle{Color: withAlpha(col, 0.8), Width: vg.Points(0.5)}}
	p := newPlot("Density of "+name, name, "density")
	p.Add(hist)
	p.Legend.Add(fmt.Sprintf("draws (n = %d)", n), hist)

	xmin, xmax := lo, hi
	if o.KDE {
		h := silverman(x)
		if h > 0 {
			xmin, xmax = math.Min(xmin, x[0]-3*h), math.Max(xmax, x[n-1]+3*h)
			const grid = 256
			xy := make(plotter.XYs, grid)
			for g := range xy {
				t := xmin + (xmax-xmin)*float64(g)/float64(grid-1)
				s := 0.0
				for _, v := range x {
					z := (t - v) / h
					s += math.Exp(-0.5 * z * z)
				}
				xy[g] = plotter.XY{X: t, Y: s / (float64(n) * h * math.Sqrt(2*math.Pi))}
			}
			l, err := plotter.NewLine(xy)
			if err != nil {
				return nil, fmt.Errorf("viz: density: KDE: %w", err)
			}
			l.Color = chainColor(0)
			l.Width = vg.Points(1.5)
			p.Add(l)
			p.Legend.Add(fmt.Sprintf("KDE (h = %.3g)", h), l)
		}
	}
	if o.Exact != nil {
		label := o.ExactLabel
		if label == "" {
			label = "exact density"
		}
		pad := 0.05 * (xmax - xmin)
		a, b := xmin-pad, xmax+pad
		const grid = 400
		var segs []plotter.XYs
		var cur plotter.XYs
		for g := range grid {
			t := a + (b-a)*float64(g)/float64(grid-1)
			y := o.Exact(t)
			if !isFinite(y) {
				if len(cur) > 0 {
					segs = append(segs, cur)
					cur = nil
				}
				continue
			}
			cur = append(cur, plotter.XY{X: t, Y: y})
		}
		if len(cur) > 0 {
			segs = append(segs, cur)
		}
		if len(segs) == 0 {
			return nil, fmt.Errorf("viz: density: exact density %q is not finite anywhere on [%.4g, %.4g]", label, a, b)
		}
		for i, s := range segs {
			l, err := plotter.NewLine(s)
			if err != nil {
				return nil, fmt.Errorf("viz: density: exact density: %w", err)
			}
			l.Color = chainColor(1)
			l.Width = vg.Points(1.5)
			l.Dashes = []vg.Length{vg.Points(5), vg.Points(3)}
			p.Add(l)
			if i == 0 {
				p.Legend.Add(label, l)
			}
		}
	}
	p.Y.Min = 0
	p.Legend.Top = true
	headroom(p, 0.3)
	return p, nil
}

// silverman returns Silverman's rule-of-thumb bandwidth for sorted x, falling back
// to the standard deviation or IQR alone when the other is zero; 0 if x is constant.
func silverman(x []float64) float64 {
	n := float64(len(x))
	if len(x) < 2 {
		return 0
	}
	sd := stat.StdDev(x, nil)
	iqr := (stat.Quantile(0.75, stat.LinInterp, x, nil) - stat.Quantile(0.25, stat.LinInterp, x, nil)) / 1.34
	s := math.Min(sd, iqr)
	if s <= 0 {
		s = math.Max(sd, iqr)
	}
	return 0.9 * s * math.Pow(n, -0.2)
}

// densityBars returns the bars of a histogram of x over [lo, hi] with the given
// number of equal bins, normalised so that the bar areas sum to 1.
func densityBars(x []float64, lo, hi float64, bins int) []rect {
	width := (hi - lo) / float64(bins)
	counts := make([]float64, bins)
	for _, v := range x {
		counts[max(0, min(int((v-lo)/width), bins-1))]++
	}
	out := make([]rect, bins)
	for b, k := range counts {
		x0 := lo + float64(b)*width
		out[b] = rect{X0: x0, X1: x0 + width, Y0: 0, Y1: k / (float64(len(x)) * width)}
	}
	return out
}
