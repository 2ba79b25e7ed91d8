package viz

import (
	"bytes"
	"image/png"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"gonum.org/v1/gonum/stat/distuv"
	"gonum.org/v1/plot"
	"gonum.org/v1/plot/vg"

	"github.com/nmc-go/nmc/draws"
)

// ar1Draws makes 4 chains of AR(1) draws x_t = μ + φ(x_{t-1} − μ) + σε_t of the
// parameters mu (μ=1, φ=0.7), sigma (exp of an AR(1), positive) and beta[0..2].
func ar1Draws(chains, n int, seed uint64) *draws.Draws {
	names := []string{"mu", "sigma", "beta[0]", "beta[1]", "beta[2]"}
	means := []float64{1, -0.5, 0, 2, -3}
	phis := []float64{0.7, 0.9, 0.3, 0.5, 0.95}
	d := &draws.Draws{Names: names}
	for c := range chains {
		rng := rand.New(rand.NewPCG(seed, uint64(c)))
		ch := make([]float64, n*len(names))
		state := make([]float64, len(names))
		for p := range state {
			state[p] = means[p] + rng.NormFloat64()
		}
		for t := range n {
			for p := range names {
				state[p] = means[p] + phis[p]*(state[p]-means[p]) + math.Sqrt(1-phis[p]*phis[p])*rng.NormFloat64()
				v := state[p]
				if names[p] == "sigma" {
					v = math.Exp(v)
				}
				ch[t*len(names)+p] = v
			}
		}
		d.Chains = append(d.Chains, ch)
	}
	return d
}

// checkPNG renders p and checks that it decodes to the requested pixel size; with
// VIZCHECK set it also writes the image to that directory to be looked at.
func checkPNG(t *testing.T, p *plot.Plot, name string, w, h vg.Length) {
	t.Helper()
	b, err := PNG(p, w, h)
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	img, err := png.Decode(bytes.NewReader(b))
	if err != nil {
		t.Fatalf("%s: decoding PNG: %v", name, err)
	}
	wantW, wantH := int(math.Round(float64(w/vg.Inch)*DPI)), int(math.Round(float64(h/vg.Inch)*DPI))
	if sz := img.Bounds().Size(); sz.X != wantW || sz.Y != wantH {
		t.Errorf("%s: PNG is %dx%d, want %dx%d", name, sz.X, sz.Y, wantW, wantH)
	}
	if dir := os.Getenv("VIZCHECK"); dir != "" {
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, name+".png"), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

func wantErr(t *testing.T, what string, err error, contains string) {
	t.Helper()
	if err == nil {
		t.Errorf("%s: no error", what)
		return
	}
	if !strings.HasPrefix(err.Error(), "viz: ") || !strings.Contains(err.Error(), contains) {
		t.Errorf("%s: error %q, want one starting \"viz: \" containing %q", what, err, contains)
	}
}

const w, h = 6 * vg.Inch, 4 * vg.Inch

func TestTrace(t *testing.T) {
	t.Parallel()
	d := ar1Draws(4, 500, 1)
	p, err := Trace(d, "mu")
	if err != nil {
		t.Fatal(err)
	}
	if p.Title.Text != "Trace of mu" || p.X.Label.Text != "draw" || p.Y.Label.Text != "mu" {
		t.Errorf("labels %q %q %q", p.Title.Text, p.X.Label.Text, p.Y.Label.Text)
	}
	if p.X.Min != 0 || p.X.Max != 499 {
		t.Errorf("x range [%v, %v], want [0, 499]", p.X.Min, p.X.Max)
	}
	checkPNG(t, p, "trace", w, h)
	// A NaN draw is left out, not fatal.
	d.Chains[1][5*10] = math.NaN()
	if _, err := Trace(d, "mu"); err != nil {
		t.Error(err)
	}
}

func TestRank(t *testing.T) {
	t.Parallel()
	d := ar1Draws(4, 500, 2)
	p, err := Rank(d, "beta[2]")
	if err != nil {
		t.Fatal(err)
	}
	// Per chain, the rank counts add up to its draws; chains of one AR(1) process mix,
	// so every bin holds some of every chain.
	cols, _ := d.Param("beta[2]")
	counts, n, err := rankCounts(cols)
	if err != nil || n != 2000 || len(counts) != 4 {
		t.Fatalf("rankCounts: %d chains, n = %d, err %v", len(counts), n, err)
	}
	for c, cc := range counts {
		total := 0.0
		for _, k := range cc {
			total += k
		}
		if total != 500 {
			t.Errorf("chain %d: counts add up to %v, want 500", c, total)
		}
	}
	if p.Y.Max != 4 || p.X.Max != 2000.5 {
		t.Errorf("ranges y max %v x max %v", p.Y.Max, p.X.Max)
	}
	checkPNG(t, p, "rank", w, h)
	d.Chains[3][1*5+4] = math.NaN() // beta[2], draw 1
	_, err = Rank(d, "beta[2]")
	wantErr(t, "rank with NaN", err, "chain 3 draw 1")
}

func TestRankTiesAndUniformity(t *testing.T) {
	t.Parallel()
	// Two chains of identical values: all ranks tie at (n+1)/2 and fall in the middle bin.
	d := &draws.Draws{Names: []string{"x"}, Chains: [][]float64{{1, 1, 1, 1}, {1, 1, 1, 1}}}
	if _, err := Rank(d, "x"); err != nil {
		t.Fatal(err)
	}
	counts, n, err := rankCounts([][]float64{{1, 1, 1, 1}, {1, 1, 1, 1}})
	if err != nil || n != 8 {
		t.Fatal(n, err)
	}
	for c, cc := range counts {
		nonzero := 0
		for _, k := range cc {
			if k > 0 {
				nonzero++
			}
		}
		if nonzero != 1 {
			t.Errorf("chain %d: tied ranks spread over %d bins, want 1", c, nonzero)
		}
	}
	// Chains that do not overlap: chain 0 takes the low ranks, chain 1 the high ones.
	counts, _, _ = rankCounts([][]float64{{1, 2, 3, 4, 5}, {6, 7, 8, 9, 10}})
	if counts[0][0] == 0 || counts[0][len(counts[0])-1] != 0 || counts[1][0] != 0 {
		t.Errorf("separated chains: counts %v", counts)
	}
}

func TestDensity(t *testing.T) {
	t.Parallel()
	d := ar1Draws(4, 1000, 3)
	exact := distuv.Normal{Mu: 1, Sigma: 1}
	p, err := Density(d, "mu", &DensityOptions{KDE: true, Exact: exact.Prob, ExactLabel: "N(1, 1)"})
	if err != nil {
		t.Fatal(err)
	}
	// The histogram is a density: bar areas sum to 1, and every value is counted,
	// the maximum included.
	x := []float64{0, 0.1, 0.5, 0.5, 0.99, 1}
	bars := densityBars(x, 0, 1, 4)
	area := 0.0
	for _, b := range bars {
		area += (b.X1 - b.X0) * (b.Y1 - b.Y0)
	}
	if math.Abs(area-1) > 1e-12 {
		t.Errorf("histogram area %v, want 1", area)
	}
	if want := 2 / (6 * 0.25); bars[0].Y1 != want || bars[3].Y1 != want {
		t.Errorf("bar heights %v and %v, want %v", bars[0].Y1, bars[3].Y1, want)
	}
	checkPNG(t, p, "density", w, h)
	// Histogram only, defaults, a positive quantity with an exact density undefined below 0.
	lognormal := distuv.LogNormal{Mu: -0.5, Sigma: 1}
	p, err = Density(d, "sigma", &DensityOptions{Bins: 40, Exact: func(x float64) float64 {
		if x <= 0 {
			return math.NaN()
		}
		return lognormal.Prob(x)
	}})
	if err != nil {
		t.Fatal(err)
	}
	checkPNG(t, p, "density_sigma", w, h)
	if _, err := Density(d, "mu", nil); err != nil {
		t.Error(err)
	}
	_, err = Density(d, "mu", &DensityOptions{Bins: -1})
	wantErr(t, "negative bins", err, "Bins is -1")
	_, err = Density(d, "mu", &DensityOptions{Exact: func(float64) float64 { return math.Inf(1) }})
	wantErr(t, "infinite exact", err, "not finite anywhere")
	// Constant draws still plot.
	c := &draws.Draws{Names: []string{"k"}, Chains: [][]float64{{2, 2, 2}}}
	if _, err := Density(c, "k", &DensityOptions{KDE: true}); err != nil {
		t.Error(err)
	}
}

func TestSilverman(t *testing.T) {
	t.Parallel()
	// For n standard normal draws the bandwidth is near 0.9·n^(-1/5)·min(1, 1.349/1.34).
	rng := rand.New(rand.NewPCG(9, 9))
	x := make([]float64, 20000)
	for i := range x {
		x[i] = rng.NormFloat64()
	}
	sortFloats(x)
	got := silverman(x)
	want := 0.9 * math.Pow(20000, -0.2)
	if math.Abs(got/want-1) > 0.03 { // sd and IQR of 2e4 normals are within ~1-2% of their values
		t.Errorf("silverman = %v, want about %v", got, want)
	}
}

func sortFloats(x []float64) {
	for i := 1; i < len(x); i++ {
		for j := i; j > 0 && x[j] < x[j-1]; j-- {
			x[j], x[j-1] = x[j-1], x[j]
		}
	}
}

func TestPair(t *testing.T) {
	t.Parallel()
	d := ar1Draws(4, 300, 4)
	p, err := Pair(d, "mu", "sigma")
	if err != nil {
		t.Fatal(err)
	}
	if p.X.Label.Text != "mu" || p.Y.Label.Text != "sigma" {
		t.Errorf("axis labels %q %q", p.X.Label.Text, p.Y.Label.Text)
	}
	checkPNG(t, p, "pair", w, w)
	_, err = Pair(d, "mu", "mu")
	wantErr(t, "same x and y", err, `both "mu"`)
	_, err = Pair(d, "mu", "nope")
	wantErr(t, "unknown y", err, `"nope"`)
}

func TestAutocorr(t *testing.T) {
	t.Parallel()
	d := ar1Draws(4, 2000, 5)
	p, err := Autocorr(d, "mu", 30)
	if err != nil {
		t.Fatal(err)
	}
	checkPNG(t, p, "autocorr", w, h)
	// The estimate matches the AR(1) truth ρ_k = φ^k within Monte Carlo error
	// (Bartlett: sd of ρ̂_1 ≈ √((1−φ²)/n) ≈ 0.016 for φ = 0.7, n = 2000).
	col, _ := d.Param("mu")
	rho, err := autocorrelation(col[0], 5)
	if err != nil {
		t.Fatal(err)
	}
	if rho[0] != 1 {
		t.Errorf("ρ_0 = %v, want 1", rho[0])
	}
	if z := math.Abs(rho[1]-0.7) / 0.016; z > 4.5 {
		t.Errorf("ρ_1 = %v, want 0.7 (z = %.1f)", rho[1], z)
	}
	if p, err := Autocorr(d, "mu", 0); err != nil || p.X.Max != DefaultMaxLag {
		t.Errorf("default maxLag: x max %v, err %v", p.X.Max, err)
	}
	_, err = Autocorr(d, "mu", -1)
	wantErr(t, "negative lag", err, "maxLag is -1")
	c := &draws.Draws{Names: []string{"k"}, Chains: [][]float64{{1, 2, 3}, {2, 2, 2}}}
	_, err = Autocorr(c, "k", 2)
	wantErr(t, "constant chain", err, "chain 1: chain is constant")
	d.Chains[2][10*5] = math.Inf(1)
	_, err = Autocorr(d, "mu", 5)
	wantErr(t, "infinite draw", err, "+Inf at chain 2 draw 10")
}

func TestForest(t *testing.T) {
	t.Parallel()
	d := ar1Draws(4, 500, 6)
	p, err := Forest(d, []string{"mu", "beta", "sigma", "beta[1]"})
	if err != nil {
		t.Fatal(err)
	}
	ticks := p.Y.Tick.Marker.Ticks(p.Y.Min, p.Y.Max)
	var labels []string
	for _, tk := range ticks {
		labels = append(labels, tk.Label)
	}
	if got := strings.Join(labels, ","); got != "mu,beta[0],beta[1],beta[2],sigma" {
		t.Errorf("rows %s", got)
	}
	checkPNG(t, p, "forest", w, h)
	_, err = Forest(d, nil)
	wantErr(t, "no names", err, "no parameter names")
	_, err = Forest(d, []string{"gamma"})
	wantErr(t, "unknown", err, `"gamma"`)
}

func TestPLL(t *testing.T) {
	t.Parallel()
	x := []float64{10, 20, 50, 100, 200, 500, 1000, 2000}
	mk := func(scale, rate float64) []float64 {
		y := make([]float64, len(x))
		for i, v := range x {
			y[i] = -1000 - scale*math.Exp(-v/rate)
		}
		return y
	}
	series := []PLLSeries{{Label: "NMC", X: x, Y: mk(300, 50)}, {Label: "RWMH", X: x, Y: mk(400, 600)}, {Label: "ADVI", X: x, Y: mk(350, 200)}}
	p, err := PLL(series)
	if err != nil {
		t.Fatal(err)
	}
	checkPNG(t, p, "pll", w, h)
	p, err = PLL(series, PLLOptions{LogX: true})
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := p.X.Scale.(plot.LogScale); !ok {
		t.Errorf("x scale %T, want plot.LogScale", p.X.Scale)
	}
	checkPNG(t, p, "pll_logx", w, h)
	_, err = PLL(nil)
	wantErr(t, "no series", err, "no series")
	_, err = PLL([]PLLSeries{{Label: "a"}})
	wantErr(t, "empty series", err, `series 0 ("a") is empty`)
	_, err = PLL([]PLLSeries{{X: []float64{1, 2}, Y: []float64{1}}})
	wantErr(t, "length mismatch", err, "2 X values and 1 Y values")
	_, err = PLL([]PLLSeries{{X: []float64{0, 2}, Y: []float64{1, 2}}}, PLLOptions{LogX: true})
	wantErr(t, "zero on log axis", err, "point 0 has X = 0")
	_, err = PLL([]PLLSeries{{X: []float64{1, 2}, Y: []float64{1, math.NaN()}}})
	wantErr(t, "NaN", err, "point 1 is (2, NaN)")
	_, err = PLL(series, PLLOptions{}, PLLOptions{})
	wantErr(t, "two options", err, "2 PLLOptions")
}

func TestAcceptancePlot(t *testing.T) {
	t.Parallel()
	stats := []draws.SiteStats{
		{Name: "mu", Sites: 1, Proposals: 100, Accepted: 91},
		{Name: "sigma", Sites: 1, Proposals: 100, Accepted: 62, Fallbacks: 3},
		{Name: "beta", Sites: 1, Proposals: 200, Accepted: 90, Fallbacks: 1},
		{Name: "z", Sites: 100, Proposals: 10000, Accepted: 9900},
	}
	p, err := AcceptancePlot(stats)
	if err != nil {
		t.Fatal(err)
	}
	checkPNG(t, p, "acceptance", w, h)
	var many []draws.SiteStats
	for i := range 24 {
		many = append(many, draws.SiteStats{Name: "theta[" + string(rune('a'+i)) + "]", Sites: 1, Proposals: 50, Accepted: 25 + i, Fallbacks: i % 4 * 7})
	}
	p, err = AcceptancePlot(many)
	if err != nil {
		t.Fatal(err)
	}
	checkPNG(t, p, "acceptance_many", w, h)
	_, err = AcceptancePlot(nil)
	wantErr(t, "no sites", err, "no sites")
	_, err = AcceptancePlot([]draws.SiteStats{{Name: "a", Proposals: 2, Accepted: 3}})
	wantErr(t, "accepted > proposals", err, `site "a": 3 accepted of 2 proposals`)
	_, err = AcceptancePlot([]draws.SiteStats{{Name: "a", Proposals: 2, Fallbacks: -1}})
	wantErr(t, "negative fallbacks", err, "negative count")
	_, err = AcceptancePlot([]draws.SiteStats{{Name: "a"}})
	wantErr(t, "no proposals", err, `site "a" made no proposals`)
	// A move the sampler left unused has no bar but a "not used" label.
	p, err = AcceptancePlot([]draws.SiteStats{{Name: "a", Proposals: 10, Accepted: 5}, {Name: "fitted(a)", Unused: "left to its sites' own steps"}})
	if err != nil {
		t.Fatalf("unused move: %v", err)
	}
	checkPNG(t, p, "acceptance_unused", w, h)
	_, err = AcceptancePlot([]draws.SiteStats{{Proposals: 1}})
	wantErr(t, "empty site", err, "site 0: draws: site stats with an empty name")
}

func TestConfusionHeatmap(t *testing.T) {
	t.Parallel()
	m := [][]float64{{0.8, 0.15, 0.05}, {0.1, 0.7, 0.2}, {0.02, 0.08, 0.9}}
	p, err := ConfusionHeatmap(m, "Annotator 3: estimate", []string{"cat", "dog", "bird"}, []string{"cat", "dog", "bird"})
	if err != nil {
		t.Fatal(err)
	}
	// Row 0 is at the top: its tick is the highest.
	ticks := p.Y.Tick.Marker.Ticks(p.Y.Min, p.Y.Max)
	top := ticks[0]
	for _, tk := range ticks {
		if tk.Value > top.Value {
			top = tk
		}
	}
	if top.Label != "cat" {
		t.Errorf("top row is %q, want cat", top.Label)
	}
	checkPNG(t, p, "confusion", w*0.8, w*0.8)
	// Values outside [0, 1] (counts) and default labels.
	counts := [][]float64{{50, 3}, {7, 40}}
	p, err = ConfusionHeatmap(counts, "", nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	checkPNG(t, p, "confusion_counts", w*0.6, w*0.6)
	_, err = ConfusionHeatmap(nil, "x", nil, nil)
	wantErr(t, "empty", err, "empty matrix")
	_, err = ConfusionHeatmap([][]float64{{1, 2}, {3}}, "x", nil, nil)
	wantErr(t, "ragged", err, "row 1 has 1 columns, want 2")
	_, err = ConfusionHeatmap([][]float64{{1, math.NaN()}}, "x", nil, nil)
	wantErr(t, "NaN", err, "row 0, column 1 is NaN")
	_, err = ConfusionHeatmap(m, "x", []string{"a"}, nil)
	wantErr(t, "labels", err, "1 row labels for 3 rows")
	// A constant matrix outside [0, 1] renders.
	p, err = ConfusionHeatmap([][]float64{{5, 5}, {5, 5}}, "", nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	checkPNG(t, p, "confusion_constant", w*0.5, w*0.5)
}

func TestInvalidDraws(t *testing.T) {
	t.Parallel()
	d := ar1Draws(2, 50, 7)
	nan := &draws.Draws{Names: []string{"x", "y"}, Chains: [][]float64{{math.NaN(), 1, math.NaN(), 2}}}
	empty := &draws.Draws{Names: []string{"x"}, Chains: [][]float64{{}, {}}}
	noChains := &draws.Draws{Names: []string{"x"}}
	plots := map[string]func(*draws.Draws, string) (*plot.Plot, error){
		"trace":    Trace,
		"rank":     Rank,
		"density":  func(d *draws.Draws, n string) (*plot.Plot, error) { return Density(d, n, nil) },
		"pair":     func(d *draws.Draws, n string) (*plot.Plot, error) { return Pair(d, n, "y") },
		"autocorr": func(d *draws.Draws, n string) (*plot.Plot, error) { return Autocorr(d, n, 10) },
		"forest":   func(d *draws.Draws, n string) (*plot.Plot, error) { return Forest(d, []string{n}) },
	}
	for name, f := range plots {
		_, err := f(nil, "x")
		wantErr(t, name+" nil", err, "nil draws")
		_, err = f(d, "nope")
		wantErr(t, name+" unknown", err, `"nope"`)
		_, err = f(nan, "x")
		wantErr(t, name+" NaN-only", err, "x")
		_, err = f(empty, "x")
		wantErr(t, name+" empty", err, "x")
		_, err = f(noChains, "x")
		wantErr(t, name+" no chains", err, "")
		_, err = f(&draws.Draws{Names: []string{"x", "x"}, Chains: [][]float64{{1, 2}}}, "x")
		wantErr(t, name+" invalid", err, "twice")
	}
}

func TestOutputs(t *testing.T) {
	t.Parallel()
	d := ar1Draws(2, 100, 8)
	p, err := Trace(d, "sigma")
	if err != nil {
		t.Fatal(err)
	}
	svg, err := SVG(p, w, h)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(svg, []byte("<svg")) || !bytes.Contains(svg, []byte("Trace of sigma")) {
		t.Error("SVG lacks <svg or the title")
	}
	dir := t.TempDir()
	if err := SavePNG(p, filepath.Join(dir, "a.png"), w, h); err != nil {
		t.Fatal(err)
	}
	if err := SaveSVG(p, filepath.Join(dir, "a.svg"), w, h); err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(filepath.Join(dir, "a.png"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := png.Decode(f); err != nil {
		t.Errorf("saved PNG: %v", err)
	}
	_, err = PNG(nil, w, h)
	wantErr(t, "nil plot", err, "nil plot")
	_, err = PNG(p, 0, h)
	wantErr(t, "zero width", err, "want positive")
	err = SavePNG(p, filepath.Join(dir, "missing", "a.png"), w, h)
	wantErr(t, "missing dir", err, "missing")
	// A log axis over non-positive data makes gonum/plot panic; we return an error.
	bad, _ := Trace(d, "mu")
	bad.Y.Scale = plot.LogScale{}
	bad.Y.Min = -1
	_, err = PNG(bad, w, h)
	wantErr(t, "panicking render", err, "rendering failed")

	// Grid of four plots.
	p2, _ := Rank(d, "sigma")
	p3, _ := Density(d, "sigma", &DensityOptions{KDE: true})
	p4, _ := Autocorr(d, "sigma", 20)
	b, err := Grid([][]*plot.Plot{{p, p2}, {p3, p4}}, 10*vg.Inch, 7*vg.Inch)
	if err != nil {
		t.Fatal(err)
	}
	img, err := png.Decode(bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	if sz := img.Bounds().Size(); sz.X != 960 || sz.Y != 672 {
		t.Errorf("grid is %v, want 960x672", sz)
	}
	if dir := os.Getenv("VIZCHECK"); dir != "" {
		os.WriteFile(filepath.Join(dir, "grid.png"), b, 0o644)
	}
	_, err = Grid(nil, w, h)
	wantErr(t, "empty grid", err, "no plots")
	_, err = Grid([][]*plot.Plot{{p, p2}, {p3}}, w, h)
	wantErr(t, "ragged grid", err, "row 1 has 1 plots")
}

func TestNotebookOutside(t *testing.T) {
	// Not parallel: reads the environment. Outside GoNB every call is a no-op.
	if os.Getenv("GONB_PIPE") != "" {
		t.Skip("running inside GoNB")
	}
	if InNotebook() {
		t.Fatal("InNotebook() = true outside a notebook")
	}
	p, _ := Trace(ar1Draws(1, 10, 9), "mu")
	if err := Display(p, w, h); err != nil {
		t.Error(err)
	}
	if err := DisplaySVG(p, w, h); err != nil {
		t.Error(err)
	}
	Flush()
}

func TestChainPLLSeries(t *testing.T) {
	s := ChainPLLSeries([][]float64{{-3, -2, -1}, {-5, -4}})
	if len(s) != 2 || s[1].Label != "chain 1" || len(s[0].X) != 3 || s[0].X[2] != 3 || s[1].Y[1] != -4 || len(s[1].X) != 2 {
		t.Fatalf("series %+v", s)
	}
	if _, err := PLL(s, PLLOptions{LogX: true}); err != nil {
		t.Error(err)
	}
}
