package ports

import (
	"math"
	"math/rand/v2"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/nmc-go/nmc/models"
	"github.com/nmc-go/nmc/nmc/graph"
)

// poissonLogLPMF is Stan's poisson_log_lpmf written from its definition, with
// every constant: y·η − exp(η) − log y!.
func poissonLogLPMF(y int, eta float64) float64 {
	lf, _ := math.Lgamma(float64(y) + 1)
	return float64(y)*eta - math.Exp(eta) - lf
}

// glmmPoissonLogDensity is glmm_poisson.stan's log density at v = (b0, b1, sigma,
// a[0], …, a[J−1]).
func glmmPoissonLogDensity(d GLMMPoissonData, v []float64) float64 {
	b0, b1, sigma, a := v[0], v[1], v[2], v[3:]
	lp := normalLPDF(b0, 0, 5) + normalLPDF(b1, 0, 5) + halfNormalLPDF(sigma, 1)
	for _, x := range a {
		lp += normalLPDF(x, b0, sigma)
	}
	for i, g := range d.Group {
		lp += poissonLogLPMF(d.Y[i], a[g]+b1*d.X[i])
	}
	return lp
}

// glmmPoissonNCLogDensity is glmm_poisson_nc.stan's log density at v = (b0, b1,
// sigma, z[0], …, z[J−1]).
func glmmPoissonNCLogDensity(d GLMMPoissonData, v []float64) float64 {
	b0, b1, sigma, z := v[0], v[1], v[2], v[3:]
	lp := normalLPDF(b0, 0, 5) + normalLPDF(b1, 0, 5) + halfNormalLPDF(sigma, 1)
	for _, x := range z {
		lp += normalLPDF(x, 0, 1)
	}
	for i, g := range d.Group {
		lp += poissonLogLPMF(d.Y[i], b0+b1*d.X[i]+sigma*z[g])
	}
	return lp
}

// TestGLMMPoissonMatchesStanProgram: both forms' log joints equal their Stan
// programs' log densities at the truth and at points about it, and their scores'
// derivatives match finite differences.
func TestGLMMPoissonMatchesStanProgram(t *testing.T) {
	t.Parallel()
	d, p := SimulateGLMMPoisson(rand.New(rand.NewPCG(41, 42)), 120, 8, GLMMPoissonTruth)
	for i, c := range []struct {
		name    string
		truth   GLMMPoissonParams // the form's parameters
		effects string
		build   func(GLMMPoissonData) (*graph.Model, error)
		ref     func(GLMMPoissonData, []float64) float64
	}{
		{"glmm_poisson", GLMMPoissonParams{B0: p.B0, B1: p.B1, Sigma: p.Sigma, A: p.A}, "a", GLMMPoisson, glmmPoissonLogDensity},
		{"glmm_poisson_nc", GLMMPoissonParams{B0: p.B0, B1: p.B1, Sigma: p.Sigma, Z: p.Z}, "z", GLMMPoissonNC, glmmPoissonNCLogDensity},
	} {
		t.Run(c.name, func(t *testing.T) {
			rng := rand.New(rand.NewPCG(43, uint64(i)))
			m, err := c.build(d)
			if err != nil {
				t.Fatal(err)
			}
			names, truth := c.truth.Named()
			if want := append([]string{"b0", "b1", "sigma"}, indexed(c.effects, d.J)...); !slices.Equal(names, want) {
				t.Fatalf("names %v, want %v", names, want)
			}
			pos := make([]bool, len(truth))
			pos[2] = true
			points := [][]float64{truth}
			for range 6 {
				points = append(points, jitter(rng, truth, 0.1, pos))
			}
			checkLogDensity(t, m, points, names, func(v []float64) float64 { return c.ref(d, v) })
			for _, x := range points[:2] {
				checkDerivs(t, m, stateFrom(t, m, names, x))
			}
		})
	}
}

// TestGLMMPoissonData: the default data have 600 rows in 30 groups of 20, row i in
// group i mod 30, and are the same for both forms, whose truths hold their own
// parameters; the data survive CmdStan JSON with 1-based groups; the reader and
// the builders name what is wrong.
func TestGLMMPoissonData(t *testing.T) {
	t.Parallel()
	c, err := models.Generate("glmm_poisson", 0, 0, 5)
	if err != nil {
		t.Fatal(err)
	}
	nc, err := models.Generate("glmm_poisson_nc", 0, 0, 5)
	if err != nil {
		t.Fatal(err)
	}
	vars := c.Port.StanVars()
	if !reflect.DeepEqual(vars, nc.Port.StanVars()) {
		t.Error("the two forms' data differ at the same seed")
	}
	d, err := ReadGLMMPoisson(roundTrip(t, vars))
	if err != nil {
		t.Fatal(err)
	}
	if len(d.Y) != GLMMPoissonN || d.J != GLMMPoissonJ || c.Size() != 600 || d.Describe() != "600 rows in 30 groups" {
		t.Fatalf("%d rows in %d groups (%s), want 600 in 30", len(d.Y), d.J, d.Describe())
	}
	for i, g := range d.Group {
		if g != i%d.J {
			t.Fatalf("row %d in group %d, want %d", i, g, i%d.J)
		}
	}
	var g []int
	for _, v := range vars {
		if v.Name == "g" {
			g = v.Ints
		}
	}
	if slices.Min(g) != 1 || slices.Max(g) != d.J {
		t.Errorf("Stan's groups run from %d to %d, want 1 to %d", slices.Min(g), slices.Max(g), d.J)
	}
	if !reflect.DeepEqual(d.StanVars(), vars) {
		t.Error("read back other data")
	}
	wantC := append([]string{"b0", "b1", "sigma"}, indexed("a", 30)...)
	wantNC := append([]string{"b0", "b1", "sigma"}, indexed("z", 30)...)
	if !slices.Equal(c.TruthNames, wantC) || !slices.Equal(nc.TruthNames, wantNC) {
		t.Errorf("truths %v and %v, want %v and %v", c.TruthNames, nc.TruthNames, wantC, wantNC)
	}
	if tc, tn := c.TruthValues, nc.TruthValues; tc[0] != 0.5 || tc[1] != 0.3 || tc[2] != 0.8 || !slices.Equal(tc[:3], tn[:3]) {
		t.Errorf("b0, b1, sigma: %v and %v, want 0.5, 0.3, 0.8", tc[:3], tn[:3])
	} else {
		for j := range 30 {
			if a, z := tc[3+j], tn[3+j]; math.Abs(a-(0.5+0.8*z)) > 1e-12 {
				t.Errorf("a[%d] = %g, b0 + sigma·z[%d] = %g", j, a, j, 0.5+0.8*z)
			}
		}
	}
	mean := 0.0
	for _, y := range d.Y {
		mean += float64(y) / float64(len(d.Y))
	}
	if mean < 1 || mean > 10 { // E y = exp(b0 + b1 + (b1² + sigma²)/2) ≈ 3.1
		t.Errorf("mean count %g, want about 3", mean)
	}

	for _, c := range []struct {
		json, want string
	}{
		{`{"N": 2, "J": 2, "x": [0, 1], "g": [1, 3], "y": [1, 2]}`, `"g": element [1] is 3, want in 1…2`},
		{`{"N": 2, "J": 2, "x": [0, 1], "g": [0, 1], "y": [1, 2]}`, `"g": element [0] is 0, want in 1…2`},
		{`{"N": 2, "J": 2, "x": [0, 1], "g": [1, 2], "y": [1, -2]}`, `"y": element [1] is -2, want at least 0`},
		{`{"N": 2, "J": 2, "x": [0, 1], "g": [1, 2], "y": [1, 2.5]}`, `"y": element [1] is 2.5, want an integer`},
		{`{"N": 2, "J": 2, "x": [0, 1, 2], "g": [1, 2], "y": [1, 2]}`, `"x": has 3 values, want N = 2`},
		{`{"N": 2, "J": 2, "x": [0, 1], "g": [1], "y": [1, 2]}`, `"g": has 1 values, want N = 2`},
		{`{"N": 2, "J": 2, "x": [0, 1], "g": [1, 2], "y": [1]}`, `"y": has 1 values, want N = 2`},
		{`{"N": 0, "J": 2, "x": [], "g": [], "y": []}`, `"N": is 0, want at least 1`},
		{`{"N": 2, "J": 0, "x": [0, 1], "g": [1, 1], "y": [1, 2]}`, `"J": is 0, want at least 1`},
	} {
		if _, err := ReadGLMMPoisson(readJSON(t, c.json)); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want an error containing %q", c.json, err, c.want)
		}
	}

	ok := GLMMPoissonData{J: 2, Group: []int{0, 1, 1}, X: []float64{0, 1, 2}, Y: []int{1, 0, 3}}
	for _, c := range []struct {
		edit func(*GLMMPoissonData)
		want string
	}{
		{func(d *GLMMPoissonData) { d.X = d.X[:2] }, "3 groups g, 2 x and 3 counts y, want the same number of each, at least 1"},
		{func(d *GLMMPoissonData) { *d = GLMMPoissonData{J: 2} }, "0 groups g, 0 x and 0 counts y"},
		{func(d *GLMMPoissonData) { d.J = 0 }, "J = 0, want at least 1"},
		{func(d *GLMMPoissonData) { d.Group = []int{0, 2, 1} }, "g[1] = 2, want a group in 0…1"},
		{func(d *GLMMPoissonData) { d.Group = []int{0, -1, 1} }, "g[1] = -1, want a group in 0…1"},
		{func(d *GLMMPoissonData) { d.Y = []int{1, 0, -3} }, "y[2] = -3, want a count ≥ 0"},
	} {
		bad := GLMMPoissonData{J: ok.J, Group: slices.Clone(ok.Group), X: slices.Clone(ok.X), Y: slices.Clone(ok.Y)}
		c.edit(&bad)
		for name, build := range map[string]func(GLMMPoissonData) (*graph.Model, error){"glmm_poisson": GLMMPoisson, "glmm_poisson_nc": GLMMPoissonNC} {
			if _, err := build(bad); err == nil || !strings.HasPrefix(err.Error(), "ports: "+name+": ") || !strings.Contains(err.Error(), c.want) {
				t.Errorf("%s of %+v: %v, want an error naming the model and containing %q", name, bad, err, c.want)
			}
		}
	}
	for _, build := range []func(GLMMPoissonData) (*graph.Model, error){GLMMPoisson, GLMMPoissonNC} {
		if _, err := build(ok); err != nil {
			t.Errorf("good data: %v", err)
		}
	}
}

// TestGLMMPoissonAgainstStan: the posterior means of GLMMPoisson and
// GLMMPoissonNC (4 × 1000 draws each) agree with Stan's (4 × 5000,
// testdata/glmm_poisson_stan.csv and glmm_poisson_nc_stan.csv) on
// testdata/glmm_poisson.json (N = 600, J = 30, nmc gen -model glmm_poisson -seed
// 11; scripts/stan/reference.sh) within 4.5 combined MCSE, and every quantity
// mixes.
func TestGLMMPoissonAgainstStan(t *testing.T) {
	if testing.Short() {
		t.Skip("sampling runs")
	}
	t.Parallel()
	d, err := ReadGLMMPoisson(readJSONFile(t, "glmm_poisson.json"))
	if err != nil {
		t.Fatal(err)
	}
	for _, form := range []struct {
		name  string
		build func(GLMMPoissonData) (*graph.Model, error)
	}{{"glmm_poisson", GLMMPoisson}, {"glmm_poisson_nc", GLMMPoissonNC}} {
		m, err := form.build(d)
		if err != nil {
			t.Fatal(err)
		}
		checkAgainstStan(t, m, form.name, 1000, 5, nil, mixes)
	}
}
