package viz

import (
	"fmt"
	"image/color"
	"math"
	"slices"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

	"github.com/nmc-go/nmc/diagnostics"
)

// replicateColor draws the replicated data sets of the predictive checks.
var replicateColor = color.RGBA{R: 120, G: 170, B: 215, A: 255}

// observedColor draws the observed data of the predictive checks.
var observedColor = color.RGBA{R: 10, G: 40, B: 90, A: 255}

// PPCDensityOptions configures PPCDensity. The zero value, or a nil pointer,
// means the defaults.
type PPCDensityOptions struct {
	// Replicates is how many replicated data sets are drawn; 0 means 50. When
	// there are more, that many are taken evenly spaced through replicates
	// (deterministic, and spread over all chains when they are concatenated).
	// It must not be negative.
	Replicates int
	// Title replaces the default title "Posterior predictive check" (for example
	// "Prior predictive check").
	Title string
	// XLabel is the x-axis label; empty means "y".
	XLabel string
}

// checkData checks the observed data and the replicates of a predictive check:
// observed non-empty and finite, at least one replicate, every replicate of
// len(observed) finite values. fn names the plot in the messages.
func checkData(fn string, observed []float64, replicates [][]float64) error {
	if len(observed) == 0 {
		return fmt.Errorf("viz: %s: no observed data", fn)
	}
	for i, v := range observed {
		if !isFinite(v) {
			return fmt.Errorf("viz: %s: observation %d is %v (must be finite)", fn, i, v)
		}
	}
	if len(replicates) == 0 {
		return fmt.Errorf("viz: %s: no replicated data sets", fn)
	}
	for s, r := range replicates {
		if len(r) != len(observed) {
			return fmt.Errorf("viz: %s: replicate %d has %d values, want %d (as many as observed)", fn, s, len(r), len(observed))
		}
		for i, v := range r {
			if !isFinite(v) {
				return fmt.Errorf("viz: %s: replicate %d, value %d is %v (must be finite)", fn, s, i, v)
			}
		}
	}
	return nil
}

// kdeLine returns a Gaussian kernel density estimate of x (Silverman's bandwidth,
// as Density uses) on grid points over [lo, hi], or nil when x is constant.
func kdeLine(x []float64, lo, hi float64, grid int) plotter.XYs {
	x = slices.Clone(x)
	slices.Sort(x)
	h := silverman(x)
	if !(h > 0) {
		return nil
	}
	n := float64(len(x))
	xy := make(plotter.XYs, grid)
	for g := range xy {
		t := lo + (hi-lo)*float64(g)/float64(grid-1)
		s := 0.0
		for _, v := range x {
			z := (t - v) / h
			s += math.Exp(-0.5 * z * z)
		}
		xy[g] = plotter.XY{X: t, Y: s / (n * h * math.Sqrt(2*math.Pi))}
	}
	return xy
}

// PPCDensity returns the posterior (or prior) predictive density overlay: a
// Gaussian kernel density estimate (Silverman's bandwidth) of the observed data,
// thick and dark, over the estimates of some of the replicated data sets, thin and
// translucent. replicates[s] is replicated data set s, of len(observed) values
// (yrep[s][i] is replicate s of observation i). A model that fits puts the
// observed curve among the replicated ones; systematic departures (a second mode,
// heavier tails, a shifted centre) show what the model misses. A nil opts means
// the defaults (see PPCDensityOptions). A constant replicate has no density and is
// left out.
//
// It returns an error for no observed data, no replicates, a replicate of the
// wrong length, a non-finite value, negative Replicates and constant observed
// data (no density to estimate).
func PPCDensity(observed []float64, replicates [][]float64, opts *PPCDensityOptions) (*plot.Plot, error) {
	var o PPCDensityOptions
	if opts != nil {
		o = *opts
	}
	if o.Replicates < 0 {
		return nil, fmt.Errorf("viz: predictive density: Replicates is %d, want ≥ 0", o.Replicates)
	}
	if err := checkData("predictive density", observed, replicates); err != nil {
		return nil, err
	}
	want := o.Replicates
	if want == 0 {
		want = 50
	}
	want = min(want, len(replicates))
	pick := make([]int, want)
	for j := range pick {
		pick[j] = j * len(replicates) / want
	}
	lo, hi := math.Inf(1), math.Inf(-1)
	widen := func(x []float64) {
		for _, v := range x {
			lo, hi = math.Min(lo, v), math.Max(hi, v)
		}
	}
	widen(observed)
	for _, s := range pick {
		widen(replicates[s])
	}
	obsSorted := slices.Clone(observed)
	slices.Sort(obsSorted)
	h := silverman(obsSorted)
	if !(h > 0) {
		return nil, fmt.Errorf("viz: predictive density: the %d observed values are all equal (no density to estimate)", len(observed))
	}
	lo, hi = lo-2*h, hi+2*h
	const grid = 200
	title := o.Title
	if title == "" {
		title = "Posterior predictive check"
	}
	xlabel := o.XLabel
	if xlabel == "" {
		xlabel = "y"
	}
	p := newPlot(title, xlabel, "density")
	var first *plotter.Line
	for _, s := range pick {
		xy := kdeLine(replicates[s], lo, hi, grid)
		if xy == nil {
			continue
		}
		l, err := plotter.NewLine(xy)
		if err != nil {
			return nil, fmt.Errorf("viz: predictive density: replicate %d: %w", s, err)
		}
		l.Color = withAlpha(replicateColor, 0.5)
		l.Width = vg.Points(0.6)
		p.Add(l)
		if first == nil {
			first = l
		}
	}
	l, err := plotter.NewLine(kdeLine(observed, lo, hi, grid))
	if err != nil {
		return nil, fmt.Errorf("viz: predictive density: observed: %w", err)
	}
	l.Color = observedColor
	l.Width = vg.Points(2)
	p.Add(l)
	p.Legend.Add(fmt.Sprintf("observed (n = %d)", len(observed)), l)
	if first != nil {
		p.Legend.Add(fmt.Sprintf("replicated (%d of %d)", want, len(replicates)), first)
	}
	p.Y.Min = 0
	p.X.Min, p.X.Max = lo, hi
	p.Legend.Top = true
	headroom(p, 0.25)
	return p, nil
}

// PPCStat returns a test-statistic predictive check: a histogram of stat over the
// replicated data sets with the statistic of the observed data as a vertical
// line. name names the statistic (for example "max" or "sd") in the title and on
// the x axis. The title also gives the predictive tail probability
// P(T(yrep) ≥ T(y)), counting ties as one half; a value near 0 or 1 means the
// model rarely reproduces the observed statistic. replicates has the layout of
// PPCDensity. Replicates whose statistic is not finite are an error, not left out
// silently.
//
// It returns an error for no observed data, no replicates, a replicate of the
// wrong length, a non-finite value, a nil stat and a statistic that is not
// finite on the observed data or on a replicate.
func PPCStat(observed []float64, replicates [][]float64, stat func([]float64) float64, name string) (*plot.Plot, error) {
	if stat == nil {
		return nil, fmt.Errorf("viz: predictive statistic %q: nil statistic function", name)
	}
	fn := fmt.Sprintf("predictive statistic %q", name)
	if err := checkData(fn, observed, replicates); err != nil {
		return nil, err
	}
	tObs := stat(slices.Clone(observed))
	if !isFinite(tObs) {
		return nil, fmt.Errorf("viz: %s: statistic of the observed data is %v", fn, tObs)
	}
	t := make([]float64, len(replicates))
	above := 0.0
	for s, r := range replicates {
		t[s] = stat(slices.Clone(r))
		if !isFinite(t[s]) {
			return nil, fmt.Errorf("viz: %s: statistic of replicate %d is %v", fn, s, t[s])
		}
		switch {
		case t[s] > tObs:
			above++
		case t[s] == tObs:
			above += 0.5
		}
	}
	pval := above / float64(len(t))
	slices.Sort(t)
	lo, hi := math.Min(t[0], tObs), math.Max(t[len(t)-1], tObs)
	if lo == hi {
		lo, hi = lo-0.5, hi+0.5
	}
	bins := min(50, max(10, int(math.Ceil(math.Sqrt(float64(len(t)))))))
	// Bins over the replicates' range, so the observed value outside it does not
	// squeeze the bars.
	blo, bhi := t[0], t[len(t)-1]
	if blo == bhi {
		blo, bhi = blo-0.5, bhi+0.5
	}
	bars := &rects{R: densityBars(t, blo, bhi, bins), Color: withAlpha(replicateColor, 0.8),
		Line: &draw.LineStyle{Color: color.White, Width: vg.Points(0.5)}}
	top := 0.0
	for _, b := range bars.R {
		top = math.Max(top, b.Y1)
	}
	p := newPlot(fmt.Sprintf("Predictive check of %s: P(T(yrep) ≥ T(y)) = %.3g", name, pval), name, "density")
	p.Add(bars)
	line, err := plotter.NewLine(plotter.XYs{{X: tObs, Y: 0}, {X: tObs, Y: 1.1 * top}})
	if err != nil {
		return nil, fmt.Errorf("viz: %s: %w", fn, err)
	}
	line.Color = observedColor
	line.Width = vg.Points(2)
	p.Add(line)
	p.Legend.Add(fmt.Sprintf("T(yrep), %d replicates", len(t)), bars)
	p.Legend.Add(fmt.Sprintf("T(y) = %.4g", tObs), line)
	pad := 0.05 * (hi - lo)
	p.X.Min, p.X.Max = lo-pad, hi+pad
	p.Y.Min, p.Y.Max = 0, 1.35*top
	p.Legend.Top = true
	return p, nil
}

// Pareto-k thresholds of loo 2.5.1: good up to 0.5, ok up to 0.7, bad up to 1.
var paretoKThresholds = []float64{0.5, 0.7, 1}

// ParetoK returns the Pareto k̂ diagnostic of PSIS-LOO by observation index (as
// diagnostics.LOOResult.ParetoK gives it), with dashed lines at loo 2.5.1's
// thresholds 0.5, 0.7 and 1. Observations above 0.7, whose leave-one-out
// estimates are unreliable, are drawn as larger red points; a k̂ of +Inf (a tail
// too short to fit) is drawn as a red triangle at the top of the plot. The title
// counts the observations above 0.7.
//
// It returns an error for no values and a k̂ that is NaN or −Inf.
func ParetoK(k []float64) (*plot.Plot, error) {
	if len(k) == 0 {
		return nil, fmt.Errorf("viz: Pareto k: no values")
	}
	top := 1.0
	for i, v := range k {
		if math.IsNaN(v) || math.IsInf(v, -1) {
			return nil, fmt.Errorf("viz: Pareto k: value %d is %v", i, v)
		}
		if !math.IsInf(v, 1) {
			top = math.Max(top, v)
		}
	}
	top += 0.1
	var good, bad, inf plotter.XYs
	for i, v := range k {
		xy := plotter.XY{X: float64(i), Y: v}
		switch {
		case math.IsInf(v, 1):
			xy.Y = top
			inf = append(inf, xy)
		case v > 0.7:
			bad = append(bad, xy)
		default:
			good = append(good, xy)
		}
	}
	p := newPlot(fmt.Sprintf("PSIS diagnostic: %d of %d observations with k̂ > 0.7", len(bad)+len(inf), len(k)),
		"observation", "Pareto k̂")
	xmax := float64(len(k) - 1)
	if xmax == 0 {
		xmax = 1
	}
	for j, th := range paretoKThresholds {
		l, err := plotter.NewLine(plotter.XYs{{X: -0.5, Y: th}, {X: xmax + 0.5, Y: th}})
		if err != nil {
			return nil, fmt.Errorf("viz: Pareto k: %w", err)
		}
		l.Color = []color.Color{color.Gray{Y: 150}, color.RGBA{R: 230, G: 150, B: 30, A: 255}, color.RGBA{R: 200, G: 30, B: 30, A: 255}}[j]
		l.Dashes = []vg.Length{vg.Points(4), vg.Points(3)}
		p.Add(l)
	}
	red := color.RGBA{R: 200, G: 30, B: 30, A: 255}
	add := func(xy plotter.XYs, c color.Color, r vg.Length, shape draw.GlyphDrawer, label string) error {
		if len(xy) == 0 {
			return nil
		}
		sc, err := plotter.NewScatter(xy)
		if err != nil {
			return fmt.Errorf("viz: Pareto k: %w", err)
		}
		sc.GlyphStyle = draw.GlyphStyle{Color: c, Radius: r, Shape: shape}
		p.Add(sc)
		p.Legend.Add(label, sc)
		return nil
	}
	if err := add(good, withAlpha(barColor, 0.8), vg.Points(2), draw.CircleGlyph{}, "k̂ ≤ 0.7"); err != nil {
		return nil, err
	}
	if err := add(bad, red, vg.Points(3.5), draw.CircleGlyph{}, "k̂ > 0.7"); err != nil {
		return nil, err
	}
	if err := add(inf, red, vg.Points(4), draw.TriangleGlyph{}, "k̂ = +Inf"); err != nil {
		return nil, err
	}
	p.X.Min, p.X.Max = -0.5, xmax+0.5
	p.Y.Max = math.Max(p.Y.Max, top+0.05)
	p.Legend.Top = true
	p.Legend.Left = true
	return p, nil
}

// LOOPITOptions configures LOOPIT. The zero value, or a nil pointer, means the
// defaults.
type LOOPITOptions struct {
	// Level is the probability of the pointwise band; 0 means 0.95. It must be in
	// (0, 1).
	Level float64
	// Title replaces the default title.
	Title string
}

// LOOPIT returns the LOO-PIT calibration plot of a model's predictive
// distributions: the empirical CDF of the leave-one-out probability integral
// transform values (computed by diagnostics.LOOPIT from the observed data, the
// replicates and the log importance weights, without randomising ties) against
// the uniform CDF (dashed diagonal), inside a grey pointwise band: at each x,
// the interval that the ECDF of as many independent uniform values lies in with
// probability Level (the binomial quantiles of Binomial(n, x)/n, computed exactly,
// not from simulated uniform samples). The band is pointwise, so about 1 − Level
// of the points of a calibrated model's curve may still lie outside it. An
// S-shaped curve below the diagonal at first and above it after means too wide
// predictive distributions; the reverse S (above, then below) too narrow ones; a
// curve entirely above or below the diagonal, a biased model.
//
// replicates has the layout of PPCDensity (replicates[s][i]); logWeights[i][s] are
// the log importance weights of observation i, for example from
// diagnostics.PSIS, or nil for equal weights (the plain predictive PIT, not
// leave-one-out). diagnostics.LOOPITLogLik computes the values from a
// log-likelihood matrix; LOOPITValues plots values computed elsewhere.
//
// It returns diagnostics.LOOPIT's errors and an error for a Level outside (0, 1).
func LOOPIT(observed []float64, replicates [][]float64, logWeights [][]float64, opts *LOOPITOptions) (*plot.Plot, error) {
	pit, err := diagnostics.LOOPIT(observed, replicates, logWeights, nil)
	if err != nil {
		return nil, fmt.Errorf("viz: LOO-PIT: %w", err)
	}
	return LOOPITValues(pit, opts)
}

// LOOPITValues returns the plot of LOOPIT from probability integral transform
// values already computed (for example by diagnostics.LOOPITLogLik). It returns
// an error for no values, a value outside [0, 1] or NaN, and a Level outside
// (0, 1).
func LOOPITValues(pit []float64, opts *LOOPITOptions) (*plot.Plot, error) {
	var o LOOPITOptions
	if opts != nil {
		o = *opts
	}
	level := o.Level
	if level == 0 {
		level = 0.95
	}
	if !(level > 0 && level < 1) {
		return nil, fmt.Errorf("viz: LOO-PIT: Level is %v, want in (0, 1)", o.Level)
	}
	n := len(pit)
	if n == 0 {
		return nil, fmt.Errorf("viz: LOO-PIT: no values")
	}
	for i, v := range pit {
		if !(v >= 0 && v <= 1) {
			return nil, fmt.Errorf("viz: LOO-PIT: value %d is %v, want in [0, 1]", i, v)
		}
	}
	x := slices.Clone(pit)
	slices.Sort(x)
	const grid = 200
	alpha := (1 - level) / 2
	upper := make(plotter.XYs, 0, grid+1)
	lower := make(plotter.XYs, 0, grid+1)
	outside := 0
	j := 0
	for g := range grid + 1 {
		z := float64(g) / grid
		for j < n && x[j] <= z {
			j++
		}
		lo, hi := z, z // the ECDF of uniforms is 0 at 0 and 1 at 1
		if z > 0 && z < 1 {
			lo = float64(binomialQuantile(n, z, alpha)) / float64(n)
			hi = float64(binomialQuantile(n, z, 1-alpha)) / float64(n)
		}
		e := float64(j) / float64(n)
		if e < lo || e > hi {
			outside++
		}
		upper = append(upper, plotter.XY{X: z, Y: hi})
		lower = append(lower, plotter.XY{X: z, Y: lo})
	}
	poly := append(upper, make(plotter.XYs, 0, len(lower))...)
	for g := len(lower) - 1; g >= 0; g-- {
		poly = append(poly, lower[g])
	}
	band, err := plotter.NewPolygon(poly)
	if err != nil {
		return nil, fmt.Errorf("viz: LOO-PIT: %w", err)
	}
	band.Color = bandColor
	band.LineStyle.Width = 0
	// The ECDF as a step line.
	steps := make(plotter.XYs, 0, 2*n+2)
	steps = append(steps, plotter.XY{X: 0, Y: 0})
	for i, v := range x {
		steps = append(steps, plotter.XY{X: v, Y: float64(i) / float64(n)}, plotter.XY{X: v, Y: float64(i+1) / float64(n)})
	}
	steps = append(steps, plotter.XY{X: 1, Y: 1})
	ecdf, err := plotter.NewLine(steps)
	if err != nil {
		return nil, fmt.Errorf("viz: LOO-PIT: %w", err)
	}
	ecdf.Color = observedColor
	ecdf.Width = vg.Points(1.5)
	diag, err := plotter.NewLine(plotter.XYs{{X: 0, Y: 0}, {X: 1, Y: 1}})
	if err != nil {
		return nil, fmt.Errorf("viz: LOO-PIT: %w", err)
	}
	diag.Color = color.Gray{Y: 90}
	diag.Dashes = []vg.Length{vg.Points(3), vg.Points(3)}
	title := o.Title
	if title == "" {
		title = fmt.Sprintf("LOO-PIT (n = %d; %d of %d grid points outside the band)", n, outside, grid+1)
	}
	p := newPlot(title, "LOO-PIT value", "ECDF")
	p.Add(band, diag, ecdf)
	p.Legend.Add(fmt.Sprintf("%.0f%% pointwise band of uniform ECDF", 100*level), band)
	p.Legend.Add("uniform CDF", diag)
	p.Legend.Add("LOO-PIT ECDF", ecdf)
	p.Legend.Top = true
	p.Legend.Left = true
	p.X.Min, p.X.Max = 0, 1
	p.Y.Min, p.Y.Max = 0, 1
	return p, nil
}
