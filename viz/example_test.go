package viz_test

import (
	"bytes"
	"fmt"
	"image/png"
	"math"
	"math/rand/v2"

	"gonum.org/v1/gonum/stat/distuv"
	"gonum.org/v1/plot"
	"gonum.org/v1/plot/vg"

	"github.com/nmc-go/nmc/draws"
	"github.com/nmc-go/nmc/viz"
)

// exampleDraws returns 2 chains of 200 AR(1) draws of "mu" (stationary N(1, 1))
// and "tau".
func exampleDraws() *draws.Draws {
	d := &draws.Draws{Names: []string{"mu", "tau"}}
	for c := range 2 {
		rng := rand.New(rand.NewPCG(42, uint64(c)))
		x, y := 1.0, 0.0
		var ch []float64
		for range 200 {
			x = 1 + 0.5*(x-1) + math.Sqrt(0.75)*rng.NormFloat64()
			y = 0.9*y + rng.NormFloat64()
			ch = append(ch, x, y)
		}
		d.Chains = append(d.Chains, ch)
	}
	return d
}

// pngSize decodes a PNG and returns its size in pixels.
func pngSize(b []byte) string {
	img, err := png.Decode(bytes.NewReader(b))
	if err != nil {
		return err.Error()
	}
	return fmt.Sprintf("%dx%d", img.Bounds().Dx(), img.Bounds().Dy())
}

func ExampleTrace() {
	p, err := viz.Trace(exampleDraws(), "mu")
	if err != nil {
		fmt.Println(err)
		return
	}
	b, err := viz.PNG(p, 6*vg.Inch, 3*vg.Inch)
	fmt.Println(p.Title.Text, pngSize(b), err)
	_, err = viz.Trace(exampleDraws(), "sigma")
	fmt.Println(err)
	// Output:
	// Trace of mu 576x288 <nil>
	// viz: trace: draws: unknown parameter "sigma"
}

func ExampleRank() {
	p, err := viz.Rank(exampleDraws(), "tau")
	fmt.Println(p.Title.Text, err)
	// Output:
	// Rank plot of tau <nil>
}

func ExampleDensity() {
	exact := distuv.Normal{Mu: 1, Sigma: 1}
	p, err := viz.Density(exampleDraws(), "mu", &viz.DensityOptions{KDE: true, Exact: exact.Prob, ExactLabel: "N(1, 1)"})
	fmt.Println(p.Title.Text, err)
	// Output:
	// Density of mu <nil>
}

func ExamplePair() {
	p, err := viz.Pair(exampleDraws(), "mu", "tau")
	fmt.Println(p.Title.Text, err)
	// Output:
	// tau vs mu <nil>
}

func ExampleAutocorr() {
	p, err := viz.Autocorr(exampleDraws(), "tau", 40)
	fmt.Println(p.Title.Text, p.X.Max, err)
	// Output:
	// Autocorrelation of tau 40 <nil>
}

func ExampleForest() {
	p, err := viz.Forest(exampleDraws(), []string{"mu", "tau"})
	fmt.Println(p.Title.Text, err)
	// Output:
	// Forest plot: median, 50% (thick) and 90% (thin) intervals <nil>
}

func ExamplePLL() {
	series := []viz.PLLSeries{
		{Label: "NMC", X: []float64{10, 100, 1000}, Y: []float64{-1300, -1050, -1040}},
		{Label: "RWMH", X: []float64{10, 100, 1000}, Y: []float64{-1400, -1250, -1060}},
	}
	p, err := viz.PLL(series, viz.PLLOptions{LogX: true})
	fmt.Println(p.X.Label.Text, err)
	// Output:
	// draws (log scale) <nil>
}

func ExampleAcceptancePlot() {
	// In a program the statistics come from the sampler: res.Sites, or
	// draws.GroupSites(res.Sites) for one bar per family of sites.
	sites := []draws.SiteStats{
		{Name: "mu", Proposer: "newton-gaussian", Sites: 1, Proposals: 1000, Accepted: 930},
		{Name: "z[0]", Proposer: "enumerate", Sites: 1, Proposals: 1000, Accepted: 1000},
		{Name: "z[1]", Proposer: "enumerate", Sites: 1, Proposals: 1000, Accepted: 1000, Fallbacks: 4},
	}
	p, err := viz.AcceptancePlot(draws.GroupSites(sites))
	fmt.Println(p.Title.Text, err)
	_, err = viz.AcceptancePlot([]draws.SiteStats{{Name: "mu", Proposals: 10, Accepted: 12}})
	fmt.Println(err)
	// Output:
	// Acceptance rate per site <nil>
	// viz: acceptance: site 0: draws: site "mu": 12 accepted of 10 proposals
}

func ExampleConfusionHeatmap() {
	est := [][]float64{{0.9, 0.1}, {0.25, 0.75}}
	p, err := viz.ConfusionHeatmap(est, "Annotator 0 (estimate)", []string{"neg", "pos"}, []string{"neg", "pos"})
	fmt.Println(p.Title.Text, err)
	// Output:
	// Annotator 0 (estimate) <nil>
}

func ExampleGrid() {
	d := exampleDraws()
	t, _ := viz.Trace(d, "mu")
	r, _ := viz.Rank(d, "mu")
	b, err := viz.Grid([][]*plot.Plot{{t, r}}, 8*vg.Inch, 3*vg.Inch)
	fmt.Println(pngSize(b), err)
	// Output:
	// 768x288 <nil>
}

func ExampleSVG() {
	p, _ := viz.Trace(exampleDraws(), "mu")
	b, err := viz.SVG(p, 4*vg.Inch, 3*vg.Inch)
	fmt.Println(bytes.Contains(b, []byte("<svg")), err)
	// Output:
	// true <nil>
}

func ExampleDisplay() {
	// In a GoNB notebook this shows the plot; elsewhere it does nothing.
	p, _ := viz.Trace(exampleDraws(), "mu")
	defer viz.Flush()
	fmt.Println(viz.Display(p, 6*vg.Inch, 3*vg.Inch))
	// Output:
	// <nil>
}
