package models

import (
	"math"
	"math/rand/v2"
	"reflect"
	"testing"

	"gonum.org/v1/gonum/stat/distuv"

	"github.com/nmc-go/nmc/nmc"
)

// TestBuiltInGroups checks the group moves the built-in models declare: their names
// and coordinates (state indices, kinds, rates, anchors), the same groups on
// Built.Model and Built.Graph, scorers that score their orbits, and exact orbit
// derivatives against finite differences of the log joint (relative 1e-6 plus the
// differences' rounding error).
func TestBuiltInGroups(t *testing.T) {
	rng := rand.New(rand.NewPCG(6, 6))
	lt, _, _, err := GenerateLogistic(rng, 40, 3)
	if err != nil {
		t.Fatal(err)
	}
	rt, _, _, err := GenerateRobust(rng, 40, 3)
	if err != nil {
		t.Fatal(err)
	}
	dil := func(c, a int) nmc.OrbitCoord { return nmc.OrbitCoord{Coord: c, Kind: nmc.Dilate, Rate: 1, Anchor: a} }
	scale := func(from, to int) []nmc.OrbitCoord {
		var out []nmc.OrbitCoord
		for c := from; c < to; c++ {
			out = append(out, dil(c, -1))
		}
		return out
	}
	var schools []nmc.OrbitCoord
	for j := 0; j < 8; j++ {
		schools = append(schools, dil(2+j, 0)) // theta[j] about mu (state: mu, tau, theta)
	}
	schools = append(schools, dil(1, -1))
	level := []nmc.OrbitCoord{{Coord: 0, Kind: nmc.Shift, Rate: 1, Anchor: -1}}
	for j := 0; j < 8; j++ {
		level = append(level, nmc.OrbitCoord{Coord: 2 + j, Kind: nmc.Shift, Rate: 1, Anchor: -1})
	}
	// Robust regression: nu (state 0) at rate 1 and sigma (state 1) at 1/(ν₀+1),
	// ν₀ the median of nu's Gamma(2, rate 0.1) prior, P(ν ≤ ν₀) = 1/2.
	sigmaRate := robustGroupRate(t, rt, nil)
	if nu0 := 1/sigmaRate - 1; math.Abs(distuv.Gamma{Alpha: 2, Beta: 0.1}.CDF(nu0)-0.5) > 1e-9 {
		t.Errorf("robust: sigma's rate %v puts nu0 = %v at prior CDF %v, want the median", sigmaRate, nu0, distuv.Gamma{Alpha: 2, Beta: 0.1}.CDF(nu0))
	}
	ridge := []nmc.OrbitCoord{dil(0, -1), {Coord: 1, Kind: nmc.Dilate, Rate: sigmaRate, Anchor: -1}}
	cases := []struct {
		name  string
		build func() (*Built, error)
		want  []nmc.Group
	}{
		{"funnel", Funnel, []nmc.Group{{Name: "funnel(z, x)", Coords: []nmc.OrbitCoord{{Coord: 0, Kind: nmc.Shift, Rate: 2, Anchor: -1}, dil(1, -1)}}}},
		{"eight schools", func() (*Built, error) { return EightSchools(EightSchoolsData.Y, EightSchoolsData.Sigma, false) },
			[]nmc.Group{{Name: "scale(theta, tau)", Coords: schools}, {Name: "shift(mu, theta)", Coords: level}}},
		{"eight schools, non-centred", func() (*Built, error) { return EightSchools(EightSchoolsData.Y, EightSchoolsData.Sigma, true) }, nil},
		{"logistic", func() (*Built, error) { return Logistic(lt, nil, nil) }, []nmc.Group{{Name: "scale(alpha, beta)", Coords: scale(0, 4)}}},
		{"robust", func() (*Built, error) { return Robust(rt, nil, nil) }, []nmc.Group{{Name: "ridge(nu, sigma)", Coords: ridge}}},
		{"normal known sigma", func() (*Built, error) { return NormalKnownSigma([]float64{1, 2}, 0, 1, 1) }, nil},
	}
	for _, c := range cases {
		b, err := c.build()
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		if got := b.Graph.Groups(); !reflect.DeepEqual(got, c.want) {
			t.Errorf("%s: Graph.Groups() = %+v, want %+v", c.name, got, c.want)
		}
		gr, ok := b.Model.(nmc.Grouper)
		if !ok {
			t.Errorf("%s: Built.Model (%T) is not an nmc.Grouper", c.name, b.Model)
			continue
		}
		if got := gr.Groups(); !reflect.DeepEqual(got, c.want) {
			t.Errorf("%s: Model.Groups() = %+v, want %+v", c.name, got, c.want)
		}
		sc, ok := b.Model.NewScorer().(nmc.OrbitScorer)
		if !ok {
			t.Errorf("%s: the scorer of Built.Model is not an nmc.OrbitScorer", c.name)
			continue
		}
		lj := b.Model.NewScorer()
		x := make([]float64, nmc.Dim(b.Model.Sites()))
		xt := make([]float64, len(x))
		for trial := 0; trial < 10; trial++ {
			if err := b.Model.Init(rng, x); err != nil {
				t.Fatal(err)
			}
			for gi, g := range c.want {
				var d [2]float64
				sc.ScoreOrbit(x, gi, &d)
				fd1, fd2, r1, r2 := orbitFD(lj, x, xt, g)
				if math.Abs(d[0]-fd1) > 1e-6*max(1, math.Abs(d[0]))+r1 || math.Abs(d[1]-fd2) > 1e-6*max(1, math.Abs(d[1]))+r2 {
					t.Errorf("%s, group %q at %v: d = (%.10g, %.10g), finite differences (%.10g, %.10g)", c.name, g.Name, x, d[0], d[1], fd1, fd2)
				}
			}
		}
	}
}

// robustGroupRate returns the rate of sigma in the ridge group of robust regression
// on data d with the given prior, failing the test when the model declares another
// group layout.
func robustGroupRate(t *testing.T, d RegressionData, prior *RobustPrior) float64 {
	t.Helper()
	b, err := Robust(d, nil, prior)
	if err != nil {
		t.Fatal(err)
	}
	g := b.Graph.Groups()
	if len(g) != 1 || len(g[0].Coords) != 2 || g[0].Coords[1].Coord != 1 {
		t.Fatalf("robust: groups %+v, want one group of nu and sigma", g)
	}
	return g[0].Coords[1].Rate
}

// TestRobustRidgeRateFollowsPrior checks that sigma's rate in robust regression's
// ridge group is 1/(ν₀+1) at the median ν₀ of the prior the model is given, for
// priors whose medians lie far apart.
func TestRobustRidgeRateFollowsPrior(t *testing.T) {
	d, _, _, err := GenerateRobust(rand.New(rand.NewPCG(3, 3)), 40, 2)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range []RobustPrior{{NuShape: 2, NuRate: 1}, {NuShape: 0.5, NuRate: 0.01}, {NuShape: 30, NuRate: 0.5}} {
		r := robustGroupRate(t, d, &p)
		nu0 := 1/r - 1
		if cdf := (distuv.Gamma{Alpha: p.NuShape, Beta: p.NuRate}).CDF(nu0); !(r > 0 && r <= 1) || math.Abs(cdf-0.5) > 1e-9 {
			t.Errorf("prior Gamma(%v, %v): sigma's rate %v, nu0 = %v at prior CDF %v, want the median", p.NuShape, p.NuRate, r, nu0, cdf)
		}
	}
}

// orbitAt writes into dst the point x(t) of group g's orbit through x.
func orbitAt(dst, x []float64, g nmc.Group, t float64) {
	copy(dst, x)
	for _, c := range g.Coords {
		if c.Kind == nmc.Shift {
			dst[c.Coord] = x[c.Coord] + c.Rate*t
			continue
		}
		a := 0.0
		if c.Anchor >= 0 {
			a = x[c.Anchor]
		}
		dst[c.Coord] = a + math.Exp(c.Rate*t)*(x[c.Coord]-a)
	}
}

// orbitFD returns the first and second derivatives of the log joint along group
// g's orbit through x at t = 0 by fourth-order central differences (step 1e-3),
// with bounds on their rounding errors (from the largest |log joint| of the
// stencil): log joints of 10³–10⁴ lose about 1e-6 in a second difference.
func orbitFD(sc nmc.Scorer, x, xt []float64, g nmc.Group) (d1, d2, round1, round2 float64) {
	const h = 1e-3
	var lj [5]float64
	big := 0.0
	for i := range lj {
		orbitAt(xt, x, g, float64(i-2)*h)
		lj[i] = sc.LogJoint(xt)
		big = max(big, math.Abs(lj[i]))
	}
	d1 = (lj[0] - 8*lj[1] + 8*lj[3] - lj[4]) / (12 * h)
	d2 = (-lj[0] + 16*lj[1] - 30*lj[2] + 16*lj[3] - lj[4]) / (12 * h * h)
	// Each log joint is off by at most a few ulps of the largest (n terms summed
	// carry more: allow 8); the stencils' absolute coefficients sum to 18 and 64.
	const ulps = 8 * 0x1p-52
	return d1, d2, 18 * ulps * big / (12 * h), 64 * ulps * big / (12 * h * h)
}
