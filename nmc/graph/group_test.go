package graph

import (
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/nmc-go/nmc/nmc"
	"github.com/nmc-go/nmc/nmc/dist"
)

// orbitPoint writes into dst the point x(t) of group g's orbit through x.
func orbitPoint(dst, x []float64, g nmc.Group, t float64) {
	copy(dst, x)
	for _, c := range g.Coords {
		switch c.Kind {
		case nmc.Dilate:
			a := 0.0
			if c.Anchor >= 0 {
				a = x[c.Anchor]
			}
			dst[c.Coord] = a + math.Exp(c.Rate*t)*(x[c.Coord]-a)
		case nmc.Shift:
			dst[c.Coord] = x[c.Coord] + c.Rate*t
		case nmc.ShiftOver:
			dst[c.Coord] = x[c.Coord] + c.Rate/x[c.Anchor]*t
		}
	}
}

// orbitModels returns models with groups covering every way a coordinate enters
// a score: scalar and plate latents, Vector sites through MatVec, dilations about
// 0 and about an anchor (scalar and coordinate by coordinate), shifts, positive
// sites, a multivariate normal value, observations tallied by value, an index
// through a discrete latent, and a blanket large enough to be scored in chunks.
func orbitModels(t *testing.T) map[string]*Model {
	t.Helper()
	rng := rand.New(rand.NewPCG(5, 14))
	out := map[string]*Model{}
	add := func(name string, b *Builder) {
		t.Helper()
		m, err := b.Build()
		if err != nil {
			t.Fatalf("%s: Build: %v", name, err)
		}
		out[name] = m
	}
	{
		b := New()
		z := b.Latent("z", Normal(C(0), C(3)))
		x := b.Latent("x", Normal(C(0), Exp(Mul(z, C(0.5)))))
		b.Group("funnel", Shift(z, 2), Dilate(x, 1))
		b.Group("x alone", Dilate(x, 1))
		add("funnel", b)
	}
	{
		y := []float64{28, 8, -3, 7, -1, 1, 18, 12}
		sd := []float64{15, 10, 16, 11, 9, 11, 10, 18}
		b := New()
		mu := b.Latent("mu", Normal(C(0), C(5)))
		tau := b.Latent("tau", HalfCauchy(C(5)))
		theta := b.Latent("theta", Normal(mu, tau), len(y))
		b.Observe("y", Normal(theta, Data(sd)), y)
		b.Group("scale", DilateAbout(theta, mu, 1), Dilate(tau, 1))
		b.Group("location", Shift(mu, 1), Shift(theta, 1))
		b.Group("tau and mu", Dilate(tau, -0.5), Shift(mu, 0.3))
		add("eight schools", b)
	}
	newX := func(n, k int, scale float64) *mat.Dense {
		x := mat.NewDense(n, k, nil)
		for i := 0; i < n; i++ {
			for j := 0; j < k; j++ {
				x.Set(i, j, scale*rng.NormFloat64())
			}
		}
		return x
	}
	{
		n, k := 50, 4
		x := newX(n, k, 1.5)
		y := make([]float64, n)
		for i := range y {
			y[i] = float64(rng.IntN(2))
		}
		b := New()
		alpha := b.Latent("alpha", Normal(C(0), C(10)))
		beta := b.Vector("beta", k, Normal(C(0), C(2.5)))
		b.Observe("y", BernoulliLogit(Add(alpha, MatVec(x, beta))), y)
		b.Group("scale", Dilate(alpha, 1), Dilate(beta, 1))
		b.Group("mixed", Dilate(alpha, 0.3), Shift(beta, -0.7))
		b.Group("beta", Dilate(beta, 1.5))
		add("logistic", b)
	}
	{
		n, k := 40, 3
		x := newX(n, k, 1)
		y := make([]float64, n)
		for i := range y {
			y[i] = 2 * rng.NormFloat64()
		}
		b := New()
		nu := b.Latent("nu", Gamma(C(2), C(0.1)))
		sigma := b.Latent("sigma", Exponential(C(0.1)))
		alpha := b.Latent("alpha", Normal(C(0), C(10)))
		beta := b.Vector("beta", k, Normal(C(0), C(2.5)))
		b.Observe("y", StudentT(nu, Add(alpha, MatVec(x, beta)), sigma), y)
		b.Group("scale", Dilate(alpha, 1), Dilate(beta, 1))
		b.Group("noise", Dilate(sigma, 1), Dilate(nu, 0.5), Shift(alpha, 0.2))
		add("robust", b)
	}
	{
		b := New()
		lambda := b.Latent("lambda", Gamma(C(2), C(1)))
		s := b.Latent("s", HalfNormal(C(2)))
		m := b.Latent("m", Normal(C(0), C(1)), 3)
		v := b.Latent("v", Normal(m, s), 3)
		w := b.Latent("w", MultivariateNormal(Vec(0, 0), mat.NewSymDense(2, []float64{1, 0.3, 0.3, 2})))
		counts := make([]int, 20)
		for i := range counts {
			counts[i] = rng.IntN(6)
		}
		b.ObserveInts("counts", Poisson(lambda), counts)
		b.Observe("obs", Normal(Index(v, []int{0, 1, 2, 2, 1}), Mul(lambda, C(0.5))), []float64{0.3, -1, 2, 1.5, 0.2})
		b.Observe("total", Normal(Sum(v), C(1)), []float64{1})
		b.Observe("pair", MultivariateNormal(Mul(w, s), mat.NewSymDense(2, []float64{1, 0, 0, 1})), []float64{0.5, -0.4})
		b.Group("plates", Dilate(lambda, 1), DilateAbout(v, m, 0.8))
		b.Group("scales", Dilate(s, 1), Dilate(w, -1))
		b.Group("shift", Shift(v, 0.5), Shift(w, 1))
		b.Group("w alone", Dilate(w, 0.7))
		add("plates", b)
	}
	{
		n := 12
		y := make([]float64, n)
		for i := range y {
			y[i] = 3*float64(i%2) + rng.NormFloat64()
		}
		b := New()
		mu := b.Latent("mu", Normal(C(0), C(3)), 2)
		s := b.Latent("s", HalfNormal(C(2)))
		z := b.Latent("z", Categorical(Vec(0.5, 0.5)), n)
		b.Observe("y", Normal(At(mu, ByNode(z)), s), y)
		b.Group("means", Shift(mu, 1))
		b.Group("scale", Dilate(mu, 1), Dilate(s, 1))
		add("mixture", b)
	}
	{
		n, k := 2*chunkedMinElems, 2
		x := newX(n, k, 0.5)
		y := make([]float64, n)
		for i := range y {
			y[i] = float64(rng.IntN(2))
		}
		b := New()
		alpha := b.Latent("alpha", Normal(C(0), C(10)))
		beta := b.Vector("beta", k, Normal(C(0), C(2.5)))
		b.Observe("y", BernoulliLogit(Add(alpha, MatVec(x, beta))), y)
		b.Group("scale", Dilate(alpha, 1), Dilate(beta, 1))
		add("chunked logistic", b)
	}
	{
		// Rates of their own per coordinate (ShiftEach, DilateEach), some 0: a
		// coordinate that stays must be constant along the orbit even after a group
		// that moved it, in the element-by-element path (a[g]) and the linear
		// factor's MatVec (beta).
		n, k := 30, 3
		x := newX(n, k, 1)
		g := make([]int, n)
		y := make([]float64, n)
		for i := range y {
			g[i] = i % 4
			y[i] = float64(g[i]) + rng.NormFloat64()
		}
		b := New()
		b.NoAutoGroups()
		mu := b.Latent("mu", Normal(C(0), C(2)))
		tau := b.Latent("tau", HalfNormal(C(1)))
		a := b.Latent("a", Normal(mu, tau), 4)
		beta := b.Vector("beta", k, Normal(C(0), C(2)))
		b.Observe("y", Normal(Add(Index(a, g), MatVec(x, beta)), C(1)), y)
		b.Group("all", Shift(a, 1), Shift(beta, 1))
		b.Group("each", ShiftEach(a, []float64{0.5, 0, -1, 2}), ShiftEach(beta, []float64{0, 1.5, -0.5}), Shift(mu, 0.3))
		b.Group("dilate each", DilateEach(a, mu, []float64{1, 0.2, 0, 0.7}), Dilate(tau, 1))
		b.Group("about 0", DilateEach(beta, nil, []float64{0, 1, 2}))
		add("rates", b)
	}
	{
		// The groups Build finds (autogroup.go) in a varying-intercept regression
		// with an uncentred predictor: the scale, location and coefficient rules,
		// at partial rates.
		sizes := []int{9, 6, 4, 2, 1, 1}
		var g []int
		var x, y []float64
		for j, nj := range sizes {
			for range nj {
				xi := 3 + rng.NormFloat64()
				g, x = append(g, j), append(x, xi)
				y = append(y, 1+0.5*rng.NormFloat64()-0.7*xi+0.6*rng.NormFloat64())
			}
		}
		b := New()
		mu := b.Latent("mu", Normal(C(0), C(5)))
		tau := b.Latent("tau", HalfNormal(C(2)))
		a := b.Latent("a", Normal(mu, tau), len(sizes))
		coef := b.Latent("b", Normal(C(0), C(5)))
		sigma := b.Latent("sigma", HalfNormal(C(2)))
		b.Observe("y", Normal(Add(Index(a, g), Mul(coef, Data(x))), sigma), y)
		add("auto varying intercept", b)

		// Its non-centred Poisson form (autogroup_nc.go): σ dilated with z
		// contracted, the intercept and the coefficient shifted with z over σ.
		counts := make([]int, len(y))
		for i := range counts {
			counts[i] = int(math.Abs(y[i])) % 7
		}
		b = New()
		b0 := b.Latent("b0", Normal(C(0), C(5)))
		coef = b.Latent("b", Normal(C(0), C(5)))
		tau = b.Latent("tau", HalfNormal(C(1)))
		z := b.Latent("z", Normal(C(0), C(1)), len(sizes))
		b.ObserveInts("k", PoissonLog(Add(Add(b0, Mul(coef, Data(x))), Mul(tau, Index(z, g)))), counts)
		add("auto non-centred", b)
	}
	{
		// A hidden Markov model whose ordered rates are dilated together.
		b := New()
		p := poissonHMMParts(b, []float64{0, 1, 7, 6, 1, 3, 2, 8}, 3)
		b.HiddenMarkov("z", p.logOmega, p.gamma, p.rho)
		b.Group("rates", Dilate(p.lam, 1), Dilate(p.delta, 1))
		add("hmm", b)
	}
	return out
}

// second4 is the fourth-order central difference for a second derivative:
// f”(0) ≈ (−f(−2h) + 16f(−h) − 30f(0) + 16f(h) − f(2h)) / 12h².
func second4(f [5]float64, h float64) float64 {
	return (-f[0] + 16*f[1] - 30*f[2] + 16*f[3] - f[4]) / (12 * h * h)
}

// first4 is the fourth-order central difference for a first derivative.
func first4(f [5]float64, h float64) float64 {
	return (f[0] - 8*f[1] + 8*f[3] - f[4]) / (12 * h)
}

// TestScoreOrbitMatchesFiniteDifferences checks, for every group of every model of
// orbitModels at random states, ScoreOrbit's derivatives along the orbit against
// fourth-order central differences of the log joint along it (relative 1e-6), its
// value with and without derivatives, and f(x′) − f(x) = LogJoint(x′) − LogJoint(x)
// at orbit points x′ = x(t) (relative 1e-9).
func TestScoreOrbitMatchesFiniteDifferences(t *testing.T) {
	for name, m := range orbitModels(t) {
		t.Run(name, func(t *testing.T) {
			rng := rand.New(rand.NewPCG(9, uint64(len(name))))
			sc := m.NewScorer()
			os := sc.(nmc.OrbitScorer)
			groups := m.Groups()
			if len(groups) == 0 {
				t.Fatal("no groups")
			}
			dim := nmc.Dim(m.Sites())
			x, xt := make([]float64, dim), make([]float64, dim)
			points := 0
			var worst1, worst2, worstDiff float64
			for try := 0; try < 200 && points < 5; try++ {
				if err := m.Init(rng, x); err != nil {
					t.Fatal(err)
				}
				if !acceptablePoint(m, sc, x) {
					continue
				}
				points++
				for g, grp := range groups {
					var d [2]float64
					f := os.ScoreOrbit(x, g, &d)
					if fv := os.ScoreOrbit(x, g, nil); !close(f, fv, 1e-12) {
						t.Errorf("group %q: value with derivatives %.15g, without %.15g", grp.Name, f, fv)
					}
					const h = 1e-3
					var lj [5]float64
					for i := range lj {
						orbitPoint(xt, x, grp, float64(i-2)*h)
						lj[i] = sc.LogJoint(xt)
					}
					fd1, fd2 := first4(lj, h), second4(lj, h)
					e1 := math.Abs(d[0]-fd1) / math.Max(1, math.Max(math.Abs(d[0]), math.Abs(fd1)))
					e2 := math.Abs(d[1]-fd2) / math.Max(1, math.Max(math.Abs(d[1]), math.Abs(fd2)))
					worst1, worst2 = math.Max(worst1, e1), math.Max(worst2, e2)
					if !close(d[0], fd1, 1e-6) || !close(d[1], fd2, 1e-6) {
						t.Errorf("group %q at %v: d = (%.10g, %.10g), finite differences (%.10g, %.10g)", grp.Name, x, d[0], d[1], fd1, fd2)
					}
					for _, tt := range []float64{0.3, -0.45, 1.1} {
						orbitPoint(xt, x, grp, tt)
						f1, j0, j1 := os.ScoreOrbit(xt, g, nil), sc.LogJoint(x), sc.LogJoint(xt)
						if math.IsInf(j1, -1) || math.IsInf(f1, -1) {
							t.Errorf("group %q: orbit point t = %v scores %v, log joint %v", grp.Name, tt, f1, j1)
							continue
						}
						diff := math.Abs((f1 - f) - (j1 - j0))
						scale := math.Max(1, math.Max(math.Abs(j0), math.Abs(j1)))
						worstDiff = math.Max(worstDiff, diff/scale)
						if diff > 1e-9*scale {
							t.Errorf("group %q t = %v: orbit score difference %.15g, log-joint difference %.15g", grp.Name, tt, f1-f, j1-j0)
						}
					}
				}
			}
			if points < 3 {
				t.Fatalf("only %d acceptable points", points)
			}
			t.Logf("%d points × %d groups: worst relative error d[0] %.2g, d[1] %.2g, score differences %.2g", points, len(groups), worst1, worst2, worstDiff)
		})
	}
}

// TestScoreOrbitOfOneSiteMatchesScore checks, for groups that move a single site,
// the orbit derivatives against the site's own gradient g and Hessian H from
// Score: d[0] = g·u and d[1] = uᵀHu + g·w, where u and w are the first and second
// derivatives of the site's coordinates along the orbit.
func TestScoreOrbitOfOneSiteMatchesScore(t *testing.T) {
	ms := orbitModels(t)
	cases := []struct{ model, group string }{
		{"logistic", "beta"}, {"funnel", "x alone"}, {"plates", "w alone"},
	}
	for _, c := range cases {
		m := ms[c.model]
		sc := m.NewScorer()
		groups := m.Groups()
		g := -1
		for i, grp := range groups {
			if grp.Name == c.group {
				g = i
			}
		}
		if g < 0 {
			t.Fatalf("%s: no group %q", c.model, c.group)
		}
		grp := groups[g]
		sites := m.Sites()
		off := nmc.Offsets(sites)
		site := siteOfCoord(off, grp.Coords[0].Coord)
		k := sites[site].Size
		rng := rand.New(rand.NewPCG(3, uint64(g)))
		x := make([]float64, nmc.Dim(sites))
		for trial := 0; trial < 5; trial++ {
			if err := m.Init(rng, x); err != nil {
				t.Fatal(err)
			}
			grad, hess := make([]float64, k), make([]float64, k*k)
			sc.Score(x, site, grad, hess)
			u, w := make([]float64, k), make([]float64, k)
			for _, oc := range grp.Coords {
				if siteOfCoord(off, oc.Coord) != site {
					t.Fatalf("%s: group %q moves more than one site", c.model, c.group)
				}
				j := oc.Coord - off[site]
				switch oc.Kind {
				case nmc.Dilate:
					a := 0.0
					if oc.Anchor >= 0 {
						a = x[oc.Anchor]
					}
					u[j], w[j] = oc.Rate*(x[oc.Coord]-a), oc.Rate*oc.Rate*(x[oc.Coord]-a)
				case nmc.Shift:
					u[j] = oc.Rate
				}
			}
			want0, want1 := 0.0, 0.0
			for p := 0; p < k; p++ {
				want0 += grad[p] * u[p]
				want1 += grad[p] * w[p]
				for q := 0; q < k; q++ {
					want1 += u[p] * hess[p*k+q] * u[q]
				}
			}
			var d [2]float64
			sc.(nmc.OrbitScorer).ScoreOrbit(x, g, &d)
			if !close(d[0], want0, 1e-10) || !close(d[1], want1, 1e-10) {
				t.Errorf("%s group %q: d = (%.12g, %.12g), from Score (%.12g, %.12g)", c.model, c.group, d[0], d[1], want0, want1)
			}
		}
	}
}

func siteOfCoord(off []int, j int) int {
	s := 0
	for i, o := range off {
		if o <= j {
			s = i
		}
	}
	return s
}

// TestGroupsLayout checks the coordinates Groups reports: state indices, kinds,
// rates and anchors (a scalar anchor for every coordinate, or coordinate by
// coordinate), and that the result is a copy.
func TestGroupsLayout(t *testing.T) {
	b := New()
	mu := b.Latent("mu", Normal(C(0), C(5)))
	tau := b.Latent("tau", HalfCauchy(C(5)))
	theta := b.Latent("theta", Normal(mu, tau), 3)
	m0 := b.Latent("m0", Normal(C(0), C(1)), 3)
	b.Group("scale", DilateAbout(theta, mu, 1), Dilate(tau, 2))
	b.Group("pairs", DilateAbout(theta, m0, 0.5), Shift(mu, -1))
	m, err := b.Build()
	if err != nil {
		t.Fatal(err)
	}
	// State: mu 0, tau 1, theta 2–4, m0 5–7.
	want := []nmc.Group{
		{Name: "scale", Coords: []nmc.OrbitCoord{
			{Coord: 2, Kind: nmc.Dilate, Rate: 1, Anchor: 0}, {Coord: 3, Kind: nmc.Dilate, Rate: 1, Anchor: 0},
			{Coord: 4, Kind: nmc.Dilate, Rate: 1, Anchor: 0}, {Coord: 1, Kind: nmc.Dilate, Rate: 2, Anchor: -1}}},
		{Name: "pairs", Coords: []nmc.OrbitCoord{
			{Coord: 2, Kind: nmc.Dilate, Rate: 0.5, Anchor: 5}, {Coord: 3, Kind: nmc.Dilate, Rate: 0.5, Anchor: 6},
			{Coord: 4, Kind: nmc.Dilate, Rate: 0.5, Anchor: 7}, {Coord: 0, Kind: nmc.Shift, Rate: -1, Anchor: -1}}},
	}
	got := m.Groups()
	if len(got) != len(want) {
		t.Fatalf("Groups() = %+v, want %+v", got, want)
	}
	for g := range want {
		if got[g].Name != want[g].Name || len(got[g].Coords) != len(want[g].Coords) {
			t.Fatalf("group %d = %+v, want %+v", g, got[g], want[g])
		}
		for c := range want[g].Coords {
			if got[g].Coords[c] != want[g].Coords[c] {
				t.Errorf("group %q coordinate %d = %+v, want %+v", want[g].Name, c, got[g].Coords[c], want[g].Coords[c])
			}
		}
	}
	got[0].Coords[0].Rate = 99
	if m.Groups()[0].Coords[0].Rate != 1 {
		t.Error("Groups returns the model's own slices")
	}
	// Blanket of "scale": priors of tau and the three thetas (mu's prior does not move).
	if n := m.OrbitBlanket(0); n != 4 {
		t.Errorf("OrbitBlanket(scale) = %d, want 4", n)
	}
	var none Builder
	none.Latent("a", Normal(C(0), C(1)))
	m2, err := none.Build()
	if err != nil {
		t.Fatal(err)
	}
	if g := m2.Groups(); g != nil {
		t.Errorf("a model without groups: Groups() = %v, want nil", g)
	}
	if v := m2.NewScorer().(nmc.OrbitScorer).ScoreOrbit([]float64{0}, 0, nil); !math.IsNaN(v) {
		t.Errorf("ScoreOrbit of an unknown group = %v, want NaN", v)
	}
}

// boundedBelow is a Gamma family whose support starts at 1: a positive site with a
// non-zero lower bound, which no dilation about 0 keeps inside.
type boundedBelow struct{ dist.Gamma }

func (boundedBelow) Support([]float64, int) (nmc.Support, float64, float64, int) {
	return nmc.Positive, 1, math.Inf(1), 0
}

// TestGroupBadInput checks that every kind of bad group is a Build error naming
// the group and the latent or site at fault.
func TestGroupBadInput(t *testing.T) {
	other := New().Latent("o", Normal(C(0), C(1)))
	cases := []struct {
		name string
		decl func(b *Builder)
		want []string
	}{
		{"node twice", func(b *Builder) {
			a := b.Latent("a", Normal(C(0), C(1)))
			b.Group("g", Dilate(a, 1), Shift(a, 1))
		}, []string{`group "g"`, `latent "a"`, "twice"}},
		{"anchor inside the group", func(b *Builder) {
			mu := b.Latent("mu", Normal(C(0), C(1)))
			th := b.Latent("theta", Normal(mu, C(1)), 3)
			b.Group("g", DilateAbout(th, mu, 1), Shift(mu, 1))
		}, []string{`group "g"`, `anchor "mu"`, `latent "theta"`, "in the group"}},
		{"non-latent node", func(b *Builder) {
			a := b.Latent("a", Normal(C(0), C(1)))
			b.Group("g", Dilate(Add(a, C(1)), 1))
		}, []string{`group "g"`, "member 0", "not a latent node"}},
		{"latent of another builder", func(b *Builder) {
			b.Latent("a", Normal(C(0), C(1)))
			b.Group("g", Dilate(other, 1))
		}, []string{`group "g"`, "not a latent node of this model"}},
		{"nil node", func(b *Builder) {
			b.Latent("a", Normal(C(0), C(1)))
			b.Group("g", Dilate(nil, 1))
		}, []string{`group "g"`, "nil node"}},
		{"node with an error", func(b *Builder) {
			b.Latent("a", Normal(C(0), C(1)))
			b.Group("g", Dilate(C(math.NaN()), 1))
		}, []string{`group "g"`, "NaN"}},
		{"shift of a positive site", func(b *Builder) {
			s := b.Latent("sigma", HalfNormal(C(1)))
			b.Group("g", Shift(s, 1))
		}, []string{`group "g"`, `site "sigma"`, "shift", "positive"}},
		{"dilation of a positive site about an anchor", func(b *Builder) {
			a := b.Latent("a", Normal(C(0), C(1)))
			s := b.Latent("sigma", Gamma(C(2), C(1)), 2)
			b.Group("g", DilateAbout(s, a, 1))
		}, []string{`group "g"`, `site "sigma[0]"`, "about an anchor"}},
		{"dilation of a positive site with a non-zero lower bound", func(b *Builder) {
			b.Latent("a", Normal(C(0), C(1)))
			s := b.Latent("s", NewDist(boundedBelow{}, 1, C(2), C(1)))
			b.Group("g", Dilate(s, 1))
		}, []string{`group "g"`, `site "s"`, "lower bound is 1"}},
		{"dilation of an interval site", func(b *Builder) {
			p := b.Latent("p", Beta(C(2), C(2)))
			b.Group("g", Dilate(p, 1))
		}, []string{`group "g"`, `site "p"`, "interval"}},
		{"shift of a simplex site", func(b *Builder) {
			p := b.Latent("pi", Dirichlet(Vec(1, 1, 1)))
			b.Group("g", Shift(p, 1))
		}, []string{`group "g"`, `site "pi"`, "simplex"}},
		{"dilation of a discrete site", func(b *Builder) {
			z := b.Latent("z", Poisson(C(3)))
			b.Group("g", Dilate(z, 1))
		}, []string{`group "g"`, `site "z"`, "discrete"}},
		{"zero rate", func(b *Builder) {
			a := b.Latent("a", Normal(C(0), C(1)))
			b.Group("g", Dilate(a, 0))
		}, []string{`group "g"`, `latent "a"`, "rate 0"}},
		{"NaN rate", func(b *Builder) {
			a := b.Latent("a", Normal(C(0), C(1)))
			b.Group("g", Shift(a, math.NaN()))
		}, []string{`group "g"`, `latent "a"`, "rate NaN"}},
		{"rates of the wrong length", func(b *Builder) {
			a := b.Latent("a", Normal(C(0), C(1)), 3)
			b.Group("g", ShiftEach(a, []float64{1, 2}))
		}, []string{`group "g"`, `latent "a"`, "3 coordinates and 2 rates"}},
		{"an infinite rate", func(b *Builder) {
			a := b.Latent("a", Normal(C(0), C(1)), 2)
			b.Group("g", DilateEach(a, nil, []float64{1, math.Inf(1)}))
		}, []string{`group "g"`, `latent "a"`, "rate 1 is +Inf"}},
		{"every rate 0", func(b *Builder) {
			a := b.Latent("a", Normal(C(0), C(1)), 2)
			b.Group("g", ShiftEach(a, []float64{0, 0}))
		}, []string{`group "g"`, `latent "a"`, "every rate is 0"}},
		{"a shift of a positive site at rates of its own", func(b *Builder) {
			s := b.Latent("s", HalfNormal(C(1)), 2)
			b.Group("g", ShiftEach(s, []float64{1, 0}))
		}, []string{`group "g"`, `site "s[0]"`, "shift"}},
		{"a shift over a nil scale", func(b *Builder) {
			a := b.Latent("a", Normal(C(0), C(1)), 2)
			b.Group("g", ShiftOver(a, nil, 1))
		}, []string{`group "g"`, `latent "a"`, "nil scale"}},
		{"a shift over a real scale", func(b *Builder) {
			a := b.Latent("a", Normal(C(0), C(1)), 2)
			c := b.Latent("c", Normal(C(0), C(1)))
			b.Group("g", ShiftOver(a, c, 1))
		}, []string{`group "g"`, `scale "c"`, `latent "a"`, "not a positive scalar latent"}},
		{"a shift over a scale of two coordinates", func(b *Builder) {
			a := b.Latent("a", Normal(C(0), C(1)), 2)
			s := b.Latent("s", HalfNormal(C(1)), 2)
			b.Group("g", ShiftOverEach(a, s, []float64{1, 2}))
		}, []string{`group "g"`, `scale "s"`, "not a positive scalar latent"}},
		{"a shift over a scale in the group", func(b *Builder) {
			a := b.Latent("a", Normal(C(0), C(1)), 2)
			s := b.Latent("s", HalfNormal(C(1)))
			b.Group("g", ShiftOver(a, s, 1), Dilate(s, 1))
		}, []string{`group "g"`, `anchor "s"`, "in the group"}},
		{"a shift over a scale of a positive site", func(b *Builder) {
			s := b.Latent("s", HalfNormal(C(1)))
			w := b.Latent("w", HalfNormal(C(1)))
			b.Group("g", ShiftOver(w, s, 1))
		}, []string{`group "g"`, `site "w"`, "shift"}},
		{"empty name", func(b *Builder) {
			a := b.Latent("a", Normal(C(0), C(1)))
			b.Group("", Dilate(a, 1))
		}, []string{"empty name"}},
		{"duplicate name", func(b *Builder) {
			a := b.Latent("a", Normal(C(0), C(1)))
			c := b.Latent("c", Normal(C(0), C(1)))
			b.Group("g", Dilate(a, 1))
			b.Group("g", Dilate(c, 1))
		}, []string{`duplicate group name "g"`}},
		{"no members", func(b *Builder) {
			b.Latent("a", Normal(C(0), C(1)))
			b.Group("g")
		}, []string{`group "g"`, "no members"}},
		{"discrete anchor", func(b *Builder) {
			z := b.Latent("z", Poisson(C(3)))
			a := b.Latent("a", Normal(C(0), C(1)))
			b.Group("g", DilateAbout(a, z, 1))
		}, []string{`group "g"`, `anchor "z"`, "discrete"}},
		{"anchor of the wrong size", func(b *Builder) {
			m := b.Latent("m", Normal(C(0), C(1)), 2)
			a := b.Latent("a", Normal(C(0), C(1)), 3)
			b.Group("g", DilateAbout(a, m, 1))
		}, []string{`group "g"`, `anchor "m"`, "2 coordinates", `latent "a"`}},
		{"anchor not a latent", func(b *Builder) {
			a := b.Latent("a", Normal(C(0), C(1)))
			b.Group("g", DilateAbout(a, C(1), 1))
		}, []string{`group "g"`, `latent "a"`, "not a latent node"}},
	}
	for _, c := range cases {
		err := buildErr(t, c.decl)
		if err == nil {
			t.Errorf("%s: Build succeeded", c.name)
			continue
		}
		for _, w := range c.want {
			if !strings.Contains(err.Error(), w) {
				t.Errorf("%s: error %q does not mention %q", c.name, err, w)
			}
		}
	}
}

// TestScoreOrbitDoesNotAllocate checks that a warm scorer scores orbits without
// allocating, as site scores do (serial and chunked blankets alike would allocate
// only goroutines; the logistic model here is serial).
func TestScoreOrbitDoesNotAllocate(t *testing.T) {
	m := orbitModels(t)["logistic"]
	sc := m.NewScorer().(nmc.OrbitScorer)
	x := make([]float64, nmc.Dim(m.Sites()))
	if err := m.Init(rand.New(rand.NewPCG(1, 2)), x); err != nil {
		t.Fatal(err)
	}
	var d [2]float64
	sc.ScoreOrbit(x, 0, &d)
	if a := testing.AllocsPerRun(20, func() { sc.ScoreOrbit(x, 0, &d) }); a != 0 {
		t.Errorf("ScoreOrbit allocates %v times per call", a)
	}
}
