package viz

import (
	"fmt"
	"math"
	"slices"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

	"github.com/nmc-go/nmc/draws"
)

// Rank returns a rank plot of the named quantity, as ArviZ's plot_rank draws it:
// the draws of all chains are ranked together (ties get their average rank), and
// for every chain a histogram of its ranks is drawn as bars in a row of its own,
// chain 0 at the bottom. A dashed line in each row marks the count expected if all
// chains sample the same distribution; well-mixed chains give flat histograms.
// The number of bins follows Sturges' rule doubled, between 5 and 50.
//
// It returns an error for nil, invalid or empty draws, an unknown name, a
// quantity with no finite draw and a NaN draw (named by chain and draw).
func Rank(d *draws.Draws, name string) (*plot.Plot, error) {
	cols, err := paramColumn("rank", d, name)
	if err != nil {
		return nil, err
	}
	counts, n, err := rankCounts(cols)
	if err != nil {
		return nil, fmt.Errorf("viz: rank: %q %w", name, err)
	}
	bins := len(counts[0])
	width := float64(n) / float64(bins)
	maxCount := 0.0
	for _, cc := range counts {
		maxCount = max(maxCount, slices.Max(cc))
	}
	p := newPlot("Rank plot of "+name, "rank (all chains pooled)", "")
	scale := 0.85 / maxCount
	var at []float64
	var labels []string
	for c := range cols {
		row := float64(c)
		bars := &rects{Color: chainColor(c), Line: &draw.LineStyle{Color: withAlpha(chainColor(c), 1), Width: vg.Points(0.3)}}
		bars.Color = withAlpha(chainColor(c), 0.75)
		for b, k := range counts[c] {
			x0 := 0.5 + float64(b)*width
			bars.R = append(bars.R, rect{X0: x0, X1: x0 + width, Y0: row, Y1: row + k*scale})
		}
		p.Add(bars)
		if len(cols[c]) > 0 {
			expected := float64(len(cols[c])) / float64(bins)
			ref, err := plotter.NewLine(plotter.XYs{{X: 0.5, Y: row + expected*scale}, {X: float64(n) + 0.5, Y: row + expected*scale}})
			if err != nil {
				return nil, fmt.Errorf("viz: rank: %w", err)
			}
			ref.Dashes = []vg.Length{vg.Points(4), vg.Points(3)}
			ref.Color = chainColor(c)
			p.Add(ref)
		}
		at = append(at, row+0.4)
		labels = append(labels, chainLabel(c))
	}
	p.X.Min, p.X.Max = 0.5, float64(n)+0.5
	p.Y.Min, p.Y.Max = 0, float64(len(cols))
	p.Y.Tick.Marker = namedTicks{At: at, Labels: labels}
	p.Y.Tick.Length = 0
	return p, nil
}

// rankCounts ranks the draws of all chains together (ties get their average rank)
// and returns, per chain, the histogram counts of its ranks over equal-width bins
// spanning ranks 1…n, and n, the number of draws pooled.
func rankCounts(cols [][]float64) (counts [][]float64, n int, err error) {
	type obs struct {
		v    float64
		c, i int
	}
	var all []obs
	for c, ch := range cols {
		for i, v := range ch {
			if math.IsNaN(v) {
				return nil, 0, fmt.Errorf("is NaN at chain %d draw %d", c, i)
			}
			all = append(all, obs{v, c, i})
		}
	}
	slices.SortFunc(all, func(a, b obs) int {
		switch {
		case a.v < b.v:
			return -1
		case a.v > b.v:
			return 1
		}
		return 0
	})
	n = len(all)
	ranks := make([][]float64, len(cols))
	for c, ch := range cols {
		ranks[c] = make([]float64, len(ch))
	}
	for i := 0; i < n; {
		j := i
		for j < n && all[j].v == all[i].v {
			j++
		}
		r := float64(i+j+1) / 2 // average of ranks i+1 … j
		for k := i; k < j; k++ {
			ranks[all[k].c][all[k].i] = r
		}
		i = j
	}
	bins := int(math.Ceil(2 * (math.Log2(float64(n)) + 1)))
	bins = max(5, min(50, bins, n))
	width := float64(n) / float64(bins)
	counts = make([][]float64, len(cols))
	for c := range cols {
		counts[c] = make([]float64, bins)
		for _, r := range ranks[c] {
			b := min(int((r-0.5)/width), bins-1)
			counts[c][b]++
		}
	}
	return counts, n, nil
}
