package viz

import (
	"fmt"
	"math"

	"github.com/nmc-go/nmc/draws"
	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// AcceptancePlot returns a bar chart of the acceptance rate of each site in stats
// (nmc.Result.Sites, or their totals by family from draws.GroupSites), in the order
// given, with the number of fallback proposals written above every bar that has
// any ("3 fallbacks"). A move that made no proposals because the sampler left it
// unused (draws.SiteStats.Unused) has no bar but the label "not used". Site names
// label the x axis and are slanted when there are more than 6 sites.
//
// It returns an error for no sites, and naming the site for inconsistent counts
// (see draws.SiteStats.Check) and for a site that made no proposals and is not
// marked unused.
func AcceptancePlot(stats []draws.SiteStats) (*plot.Plot, error) {
	if len(stats) == 0 {
		return nil, fmt.Errorf("viz: acceptance: no sites given")
	}
	vals := make(plotter.Values, len(stats))
	names := make([]string, len(stats))
	var lab plotter.XYLabels
	for i, s := range stats {
		if err := s.Check(); err != nil {
			return nil, fmt.Errorf("viz: acceptance: site %d: %w", i, err)
		}
		names[i] = s.Name
		if s.Proposals == 0 && s.Unused != "" {
			lab.XYs = append(lab.XYs, plotter.XY{X: float64(i), Y: 0.02})
			lab.Labels = append(lab.Labels, "not used")
			continue
		}
		if s.Proposals == 0 {
			return nil, fmt.Errorf("viz: acceptance: site %q made no proposals", s.Name)
		}
		rate := s.AcceptRate() // in [0, 1] after Check
		vals[i] = rate
		if s.Fallbacks > 0 {
			word := "fallbacks"
			if s.Fallbacks == 1 {
				word = "fallback"
			}
			lab.XYs = append(lab.XYs, plotter.XY{X: float64(i), Y: rate + 0.02})
			lab.Labels = append(lab.Labels, fmt.Sprintf("%d %s", s.Fallbacks, word))
		}
	}
	p := newPlot("Acceptance rate per site", "site", "acceptance rate")
	width := vg.Points(math.Max(4, math.Min(40, 300/float64(len(stats)))))
	bars, err := plotter.NewBarChart(vals, width)
	if err != nil {
		return nil, fmt.Errorf("viz: acceptance: %w", err)
	}
	bars.Color = withAlpha(chainColor(0), 0.8)
	bars.LineStyle.Width = 0
	p.Add(bars)
	if len(lab.Labels) > 0 {
		l, err := plotter.NewLabels(lab)
		if err != nil {
			return nil, fmt.Errorf("viz: acceptance: %w", err)
		}
		for i := range l.TextStyle {
			l.TextStyle[i].XAlign = draw.XCenter
			l.TextStyle[i].Font.Size = vg.Points(8)
			if len(stats) > 10 {
				l.TextStyle[i].Rotation = math.Pi / 2
				l.TextStyle[i].XAlign = draw.XLeft
				l.TextStyle[i].YAlign = draw.YCenter
			}
		}
		p.Add(l)
	}
	p.NominalX(names...)
	if len(stats) > 6 {
		p.X.Tick.Label.Rotation = math.Pi / 4
		p.X.Tick.Label.XAlign = draw.XRight
		p.X.Tick.Label.YAlign = draw.YCenter
	}
	p.X.Min, p.X.Max = -0.7, float64(len(stats))-0.3
	p.Y.Min, p.Y.Max = 0, 1.15
	if len(stats) > 10 {
		p.Y.Max = 1.35
	}
	p.Y.Tick.Marker = namedTicks{At: []float64{0, 0.2, 0.4, 0.6, 0.8, 1}, Labels: []string{"0", "0.2", "0.4", "0.6", "0.8", "1"}}
	return p, nil
}
