package viz

import (
	"fmt"
	"image/color"

	"gonum.org/v1/gonum/stat/distuv"
	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

	"github.com/nmc-go/nmc/diagnostics"
)

// bandColor fills the reference bands of the calibration plots.
var bandColor = color.RGBA{R: 215, G: 215, B: 215, A: 255}

// barColor fills the bars of the rank histogram (opaque, so the band behind them
// does not tint them).
var barColor = color.RGBA{R: 70, G: 130, B: 180, A: 255}

// RankHistogram returns the rank histogram of simulation-based calibration for the
// parameter called name (only used in the title): the ranks, each in 0 … maxRank
// (as sbc.Result.RanksOf gives them), counted in bins equal-width bins as
// diagnostics.RankChiSquare counts them, under a translucent grey band holding each bin's count
// with probability 0.99 under uniformity (the binomial 0.005 and 0.995 quantiles,
// as Talts et al. (2018) draw it) and a dashed line at the expected count. The
// title gives the χ² test's p-value. Uniform ranks stay in the band but for about
// one bin in a hundred; a ∪ shape means draws too narrow, a ∩ shape too wide, a
// slope a biased posterior.
//
// It returns RankChiSquare's errors (no ranks, a rank out of range, bins outside
// 2 … maxRank+1).
func RankHistogram(name string, ranks []int, maxRank, bins int) (*plot.Plot, error) {
	u, err := diagnostics.RankChiSquare(ranks, maxRank, bins)
	if err != nil {
		return nil, fmt.Errorf("viz: rank histogram: %w", err)
	}
	p := newPlot(fmt.Sprintf("SBC ranks of %s (χ² p = %.3g)", name, u.PValue), "rank", "simulations")
	band, bars, expected, top := rankBars(u, len(ranks))
	line, err := plotter.NewLine(expected)
	if err != nil {
		return nil, fmt.Errorf("viz: rank histogram: %w", err)
	}
	line.Dashes = []vg.Length{vg.Points(4), vg.Points(3)}
	line.Color = color.Black
	band.Color = withAlpha(bandColor, 0.45) // over the bars, so both of its edges show
	p.Add(bars, band, line)
	p.Legend.Add("99% band under uniformity", band)
	p.Legend.Add("expected", line)
	p.Legend.Top = true
	p.X.Min, p.X.Max = 0, float64(maxRank+1)
	p.Y.Min, p.Y.Max = 0, 1.15*top
	return p, nil
}

// rankBars returns the parts of a rank histogram of n ranks: the band, the bars,
// the step line of the expected counts and the top of the bars and band. Bin b spans
// the ranks from start[b] to start[b+1] − 1, drawn over [start[b], start[b+1]).
func rankBars(u diagnostics.RankUniformity, n int) (band, bars *rects, expected plotter.XYs, top float64) {
	bins, maxRank := u.Bins, u.MaxRank
	start := make([]float64, bins+1)
	for r := maxRank; r >= 0; r-- {
		start[diagnostics.RankBin(r, maxRank, bins)] = float64(r)
	}
	start[bins] = float64(maxRank + 1)
	band = &rects{Color: bandColor}
	bars = &rects{Color: barColor, Line: &draw.LineStyle{Color: color.White, Width: vg.Points(0.5)}}
	expected = make(plotter.XYs, 0, 2*bins)
	for b := range bins {
		x0, x1 := start[b], start[b+1]
		prob := (x1 - x0) / float64(maxRank+1)
		lo, hi := binomialQuantile(n, prob, 0.005), binomialQuantile(n, prob, 0.995)
		band.R = append(band.R, rect{X0: x0, X1: x1, Y0: float64(lo), Y1: float64(hi)})
		bars.R = append(bars.R, rect{X0: x0, X1: x1, Y0: 0, Y1: float64(u.Counts[b])})
		expected = append(expected, plotter.XY{X: x0, Y: u.Expected[b]}, plotter.XY{X: x1, Y: u.Expected[b]})
		top = max(top, float64(hi), float64(u.Counts[b]))
	}
	return band, bars, expected, top
}

// binomialQuantile returns the smallest c with P(X ≤ c) ≥ q for X ~ Binomial(n, p).
func binomialQuantile(n int, p, q float64) int {
	b := distuv.Binomial{N: float64(n), P: p}
	for c := 0; c < n; c++ {
		if b.CDF(float64(c)) >= q {
			return c
		}
	}
	return n
}

// ECDFDiff returns the ECDF-difference plot of simulation-based calibration
// (Säilynoja et al. 2022) for the parameter called name (only used in the title):
// the ECDF of the fractional ranks (r+1)/(maxRank+1) minus the uniform CDF, on the
// grid of diagnostics.RankECDFBand (opts nil means its defaults), inside the grey
// simultaneous band that the whole curve stays in with probability Level (0.95 by
// default) when the ranks are uniform. The title gives the level and how many grid
// points leave the band. Unlike a histogram it needs no choice of bins; a curve
// below the band in the lower half and above it in the upper half means draws too
// wide, the reverse too narrow, a curve above or below the band throughout a
// posterior shifted down or up.
//
// It returns RankECDFBand's errors (no ranks, a rank out of range, an option out of
// range).
func ECDFDiff(name string, ranks []int, maxRank int, opts *diagnostics.RankECDFOptions) (*plot.Plot, error) {
	e, err := diagnostics.RankECDFBand(ranks, maxRank, opts)
	if err != nil {
		return nil, fmt.Errorf("viz: ECDF difference: %w", err)
	}
	diff, lower, upper := e.Diff()
	outside := "inside the band"
	if e.Outside > 0 {
		outside = fmt.Sprintf("%d of %d points outside", e.Outside, e.K+1)
	}
	p := newPlot(fmt.Sprintf("SBC ECDF difference of %s (%.0f%% band; %s)", name, 100*e.Level, outside),
		"fractional rank", "ECDF − uniform CDF")
	poly := make(plotter.XYs, 0, 2*len(e.Z))
	for j, z := range e.Z {
		poly = append(poly, plotter.XY{X: z, Y: upper[j]})
	}
	for j := len(e.Z) - 1; j >= 0; j-- {
		poly = append(poly, plotter.XY{X: e.Z[j], Y: lower[j]})
	}
	band, err := plotter.NewPolygon(poly)
	if err != nil {
		return nil, fmt.Errorf("viz: ECDF difference: %w", err)
	}
	band.Color = bandColor
	band.LineStyle.Width = 0
	curve := make(plotter.XYs, len(e.Z))
	for j, z := range e.Z {
		curve[j] = plotter.XY{X: z, Y: diff[j]}
	}
	line, err := plotter.NewLine(curve)
	if err != nil {
		return nil, fmt.Errorf("viz: ECDF difference: %w", err)
	}
	line.Color = chainColor(0)
	line.Width = vg.Points(1.2)
	zero, err := plotter.NewLine(plotter.XYs{{X: 0, Y: 0}, {X: 1, Y: 0}})
	if err != nil {
		return nil, fmt.Errorf("viz: ECDF difference: %w", err)
	}
	zero.Color = color.Gray{Y: 90}
	zero.Dashes = []vg.Length{vg.Points(2), vg.Points(2)}
	p.Add(band, zero, line)
	p.Legend.Add(fmt.Sprintf("%.0f%% simultaneous band", 100*e.Level), band)
	p.Legend.Add("ECDF difference", line)
	p.Legend.Top = true
	p.X.Min, p.X.Max = 0, 1
	return p, nil
}
