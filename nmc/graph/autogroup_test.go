package graph

import (
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/nmc-go/nmc/nmc"
)

// eightSchools declares the centred eight-schools model, with the groups
// models.EightSchools declares by hand when declare is set.
func eightSchools(declare bool) *Builder {
	y := []float64{28, 8, -3, 7, -1, 1, 18, 12}
	sd := []float64{15, 10, 16, 11, 9, 11, 10, 18}
	b := New()
	mu := b.Latent("mu", Normal(C(0), C(5)))
	tau := b.Latent("tau", HalfCauchy(C(5)))
	theta := b.Latent("theta", Normal(mu, tau), len(y))
	if declare {
		b.Group("scale(theta, tau)", DilateAbout(theta, mu, 1), Dilate(tau, 1))
		b.Group("shift(mu, theta)", Shift(mu, 1), Shift(theta, 1))
	}
	b.Observe("y", Normal(theta, Data(sd)), y)
	return b
}

// groupNames returns the names of m's groups.
func groupNames(m *Model) []string {
	var out []string
	for _, g := range m.Groups() {
		out = append(out, g.Name)
	}
	return out
}

// TestAutoGroupsEightSchools checks that the centred eight schools written
// without groups gets the two groups its hand declaration has, coordinate for
// coordinate in the same order (the data give τ̂² = 0: every rate 1), under
// automatic names, and that the declared model gets no automatic group.
func TestAutoGroupsEightSchools(t *testing.T) {
	auto, err := eightSchools(false).Build()
	if err != nil {
		t.Fatal(err)
	}
	hand, err := eightSchools(true).Build()
	if err != nil {
		t.Fatal(err)
	}
	if got, want := groupNames(auto), []string{"auto: dilate theta about mu with tau", "auto: shift mu with theta"}; !slices.Equal(got, want) {
		t.Errorf("found groups %q, want %q", got, want)
	}
	if got, want := groupNames(hand), []string{"scale(theta, tau)", "shift(mu, theta)"}; !slices.Equal(got, want) {
		t.Errorf("declared model's groups %q, want %q", got, want)
	}
	ga, gh := auto.Groups(), hand.Groups()
	for g := range min(len(ga), len(gh)) {
		if !slices.Equal(ga[g].Coords, gh[g].Coords) {
			t.Errorf("group %d: found %v, declared %v", g, ga[g].Coords, gh[g].Coords)
		}
	}
}

// TestAutoGroupsVarying checks the three rules on a varying-intercept regression
// with an uncentred predictor, against rates computed by hand: rows y = (0, 2),
// (4, 6), (1) in three groups (and a fourth group without rows), so the pooled
// within-group variance is 2, the groups' information I = (1, 1, 0.5, 0), their
// means (1, 5, 1), and τ̂² = (2·(4/3)² + (8/3)²)/2 − (1 + 1 + 2)/3 = 4; the
// prior's shares w = 1/(1 + 4I) = (1/5, 1/5, 1/3, 1); the dilation rates
// w(2 − w) = (0.36, 0.36, 5/9, 1), the shift rates w. With x = (1, 3), (2, 2), (4):
// x̄ = (2, 2, 4), κ = 1 − w = (4/5, 4/5, 2/3, 0), c = Σ κx̄ / Σ κ = (1.6 + 1.6 +
// 8/3)/(34/15) = 44/17, and the coefficient's rates −(w·c + κ·x̄) = (−(c/5 + 1.6),
// the same, −(c/3 + 8/3), −c), μ's −c. Without partial rates: dilation and shift
// at rate 1, κ = 1 for groups with rows, c = mean x̄ = 8/3.
func TestAutoGroupsVarying(t *testing.T) {
	g := []int{0, 0, 1, 1, 2}
	y := []float64{0, 2, 4, 6, 1}
	x := []float64{1, 3, 2, 2, 4}
	build := func(off ...AutoRule) *Model {
		t.Helper()
		b := New()
		mu := b.Latent("mu", Normal(C(0), C(5)))
		tau := b.Latent("tau", HalfNormal(C(2)))
		a := b.Latent("a", Normal(mu, tau), 4)
		coef := b.Latent("b", Normal(C(0), C(5)))
		sigma := b.Latent("sigma", HalfNormal(C(2)))
		b.Observe("y", Normal(Add(Index(a, g), Mul(coef, Data(x))), sigma), y)
		if off != nil {
			b.NoAutoGroups(off...)
		}
		m, err := b.Build()
		if err != nil {
			t.Fatal(err)
		}
		return m
	}
	// State: mu 0, tau 1, a 2–5, b 6, sigma 7.
	dil := func(rates ...float64) []nmc.OrbitCoord {
		var out []nmc.OrbitCoord
		for j, r := range rates {
			out = append(out, nmc.OrbitCoord{Coord: 2 + j, Kind: nmc.Dilate, Rate: r, Anchor: 0})
		}
		return append(out, nmc.OrbitCoord{Coord: 1, Kind: nmc.Dilate, Rate: 1, Anchor: -1})
	}
	shift := func(first []nmc.OrbitCoord, rates ...float64) []nmc.OrbitCoord {
		for j, r := range rates {
			first = append(first, nmc.OrbitCoord{Coord: 2 + j, Kind: nmc.Shift, Rate: r, Anchor: -1})
		}
		return first
	}
	muShift := func(r float64) nmc.OrbitCoord { return nmc.OrbitCoord{Coord: 0, Kind: nmc.Shift, Rate: r, Anchor: -1} }
	bShift := nmc.OrbitCoord{Coord: 6, Kind: nmc.Shift, Rate: 1, Anchor: -1}
	names := []string{"auto: dilate a about mu with tau", "auto: shift mu with a", "auto: shift b against a and mu"}
	cases := []struct {
		name  string
		off   []AutoRule
		names []string
		want  [][]nmc.OrbitCoord
	}{
		{"partial rates", nil, names, [][]nmc.OrbitCoord{
			dil(0.36, 0.36, 5.0/9, 1),
			shift([]nmc.OrbitCoord{muShift(1)}, 0.2, 0.2, 1.0/3, 1),
			shift([]nmc.OrbitCoord{bShift, muShift(-44.0 / 17)}, -(44.0/17/5 + 1.6), -(44.0/17/5 + 1.6), -(44.0/17/3 + 8.0/3), -44.0/17)}},
		{"rate 1", []AutoRule{AutoPartialRates}, names, [][]nmc.OrbitCoord{
			dil(1, 1, 1, 1),
			shift([]nmc.OrbitCoord{muShift(1)}, 1, 1, 1, 1),
			shift([]nmc.OrbitCoord{bShift, muShift(-8.0 / 3)}, -2, -2, -4, -8.0/3)}},
		{"no scale rule", []AutoRule{AutoScale}, names[1:], nil},
		{"no location rule", []AutoRule{AutoLocation}, []string{names[0], names[2]}, nil},
		{"no coefficient rule", []AutoRule{AutoCoefficient}, names[:2], nil},
		{"none", []AutoRule{AutoScale, AutoLocation, AutoCoefficient}, nil, nil},
	}
	for _, c := range cases {
		m := build(c.off...)
		if got := groupNames(m); !slices.Equal(got, c.names) {
			t.Errorf("%s: groups %q, want %q", c.name, got, c.names)
			continue
		}
		for gi, want := range c.want {
			got := m.Groups()[gi].Coords
			if len(got) != len(want) {
				t.Errorf("%s: group %q has coordinates %v, want %v", c.name, c.names[gi], got, want)
				continue
			}
			for k := range want {
				if got[k].Coord != want[k].Coord || got[k].Kind != want[k].Kind || got[k].Anchor != want[k].Anchor || math.Abs(got[k].Rate-want[k].Rate) > 1e-12 {
					t.Errorf("%s: group %q coordinate %d = %+v, want %+v", c.name, c.names[gi], k, got[k], want[k])
				}
			}
		}
	}
	var none Builder
	none.NoAutoGroups()
	mu := none.Latent("mu", Normal(C(0), C(5)))
	none.Latent("theta", Normal(mu, C(1)), 3)
	m, err := none.Build()
	if err != nil {
		t.Fatal(err)
	}
	if g := m.Groups(); g != nil {
		t.Errorf("NoAutoGroups(): groups %v", g)
	}
}

// TestAutoGroupsShapes checks which structures the rules find and which they
// leave alone, by the names of the groups Build declares.
func TestAutoGroupsShapes(t *testing.T) {
	rows := []int{0, 0, 1, 1, 2, 2}
	yv := []float64{0.1, 0.5, 1.2, 0.9, -0.3, 0.2}
	cases := []struct {
		name string
		decl func(b *Builder)
		want []string
	}{
		{"a scale of a plate, location 0, and of a Vector", func(b *Builder) {
			tau := b.Latent("tau", Exponential(C(1)))
			b.Latent("theta", Normal(C(0), tau), 3)
			b.Vector("beta", 2, StudentT(C(3), C(0), tau))
		}, []string{"auto: dilate theta, beta with tau"}},
		{"a positive plate of a half-normal scale", func(b *Builder) {
			tau := b.Latent("tau", HalfCauchy(C(1)))
			b.Latent("s", HalfNormal(tau), 4)
		}, []string{"auto: dilate s with tau"}},
		{"a location per coordinate", func(b *Builder) {
			tau := b.Latent("tau", HalfNormal(C(1)))
			m := b.Latent("m", Normal(C(0), C(1)), 3)
			b.Latent("theta", Cauchy(m, tau), 3)
		}, []string{"auto: dilate theta about m with tau"}},
		{"the anchor dilated in the same group is left out", func(b *Builder) {
			tau := b.Latent("tau", HalfNormal(C(1)))
			mu := b.Latent("mu", Normal(C(0), tau))
			b.Latent("theta", Normal(mu, tau), 3)
		}, []string{"auto: dilate mu with tau", "auto: shift mu with theta"}},
		{"a scale on an interval", func(b *Builder) {
			tau := b.Latent("tau", Uniform(C(0), C(10)))
			b.Latent("theta", Normal(C(0), tau), 3)
		}, nil},
		{"a scale bounded below by 1", func(b *Builder) {
			tau := b.Latent("tau", NewDist(boundedBelow{}, 1, C(2), C(1)))
			b.Latent("theta", Normal(C(0), tau), 3)
		}, nil},
		{"a scale that is an expression", func(b *Builder) {
			v := b.Latent("v", Normal(C(0), C(1)))
			b.Latent("theta", Normal(C(0), Exp(v)), 3)
		}, nil},
		{"a location that is an expression or a non-zero constant", func(b *Builder) {
			tau := b.Latent("tau", HalfNormal(C(1)))
			mu := b.Latent("mu", Normal(C(0), C(1)))
			b.Latent("theta", Normal(Add(mu, C(1)), tau), 3)
			b.Latent("phi", Normal(C(2), tau), 3)
		}, nil},
		{"a prior that is not location-scale", func(b *Builder) {
			tau := b.Latent("tau", HalfNormal(C(1)))
			mu := b.Latent("mu", Normal(C(0), C(1)))
			b.Latent("theta", LogNormal(mu, tau), 3)
		}, nil},
		{"a member of a declared group", func(b *Builder) {
			tau := b.Latent("tau", HalfNormal(C(1)))
			mu := b.Latent("mu", Normal(C(0), C(1)))
			th := b.Latent("theta", Normal(mu, tau), 3)
			b.Group("mine", Dilate(tau, 1))
			b.Latent("phi", Normal(mu, C(1)), 2)
			_ = th
		}, []string{"mine", "auto: shift mu with theta, phi"}},
		{"a declared group of the automatic name", func(b *Builder) {
			tau := b.Latent("tau", HalfNormal(C(1)))
			th := b.Latent("theta", Normal(C(0), tau), 3)
			e := b.Latent("e", Normal(C(0), C(1)))
			b.Group("auto: dilate theta with tau", Shift(e, 1))
			_ = th
		}, []string{"auto: dilate theta with tau"}},
		{"crossed effects", func(b *Builder) {
			a := b.Latent("a", Normal(C(0), C(1)), 3)
			c := b.Latent("c", Normal(C(0), C(1)), 2)
			coef := b.Latent("b", Normal(C(0), C(1)))
			b.Observe("y", Normal(Add(Add(Index(a, rows), Index(c, []int{0, 1, 0, 1, 0, 1})), Mul(coef, Data([]float64{3, 4, 5, 3, 4, 5}))), C(1)), yv)
		}, nil},
		{"a predictor centred within groups", func(b *Builder) {
			a := b.Latent("a", Normal(C(0), C(1)), 3)
			coef := b.Latent("b", Normal(C(0), C(1)))
			b.Observe("y", Normal(Add(Index(a, rows), Mul(coef, Data([]float64{-1, 1, 2, -2, 0.5, -0.5}))), C(1)), yv)
		}, nil},
		{"a non-centred Gaussian process's amplitude", func(b *Builder) {
			rho := b.Latent("rho", Gamma(C(25), C(4)))
			alpha := b.Latent("alpha", HalfNormal(C(2)))
			eta := b.Vector("eta", 4, Normal(C(0), C(1)))
			K := AddDiag(ExpQuadCov(Data([]float64{0, 1, 2, 3}), alpha, rho), C(1e-10))
			b.ObserveInts("k", PoissonLog(CholeskyMul(K, eta)), []int{1, 0, 3, 2})
		}, []string{"auto: dilate alpha, contract eta"}},
		{"without a diagonal, a plate of values with a scale of their own", func(b *Builder) {
			alpha := b.Latent("alpha", Exponential(C(1)))
			tau := b.Latent("tau", HalfNormal(C(1)))
			eta := b.Latent("eta", Normal(C(0), tau), 3)
			b.Observe("y", Normal(CholeskyMul(Matern52Cov(Data([]float64{0, 1, 2}), alpha, C(2)), eta), C(1)), []float64{0.1, 0.5, 1.2})
		}, []string{"auto: dilate eta with tau", "auto: dilate alpha, contract eta"}},
		{"an amplitude that is an expression, a diagonal that is not constant", func(b *Builder) {
			v := b.Latent("v", Normal(C(0), C(1)))
			eta := b.Vector("eta", 3, Normal(C(0), C(1)))
			b.Observe("y", Normal(CholeskyMul(ExpQuadCov(Data([]float64{0, 1, 2}), Exp(v), C(2)), eta), C(1)), []float64{0.1, 0.5, 1.2})
			alpha := b.Latent("alpha", HalfNormal(C(1)))
			s := b.Latent("s", HalfNormal(C(1)))
			eta2 := b.Vector("eta2", 3, Normal(C(0), C(1)))
			b.Observe("y2", Normal(CholeskyMul(AddDiag(ExpQuadCov(Data([]float64{0, 1, 2}), alpha, C(2)), s), eta2), C(1)), []float64{0.1, 0.5, 1.2})
		}, nil},
		{"a centred Gaussian process", func(b *Builder) {
			alpha := b.Latent("alpha", HalfNormal(C(1)))
			f := b.Latent("f", MultivariateNormalCov(C(0), AddDiag(ExpQuadCov(Data([]float64{0, 1, 2}), alpha, C(2)), C(1e-10))))
			b.Observe("y", Normal(Components(f), C(1)), []float64{0.1, 0.5, 1.2})
		}, nil},
		{"a non-centred plate: its scale, the intercept and a coefficient", func(b *Builder) {
			b0 := b.Latent("b0", Normal(C(0), C(5)))
			coef := b.Latent("b", Normal(C(0), C(1)))
			tau := b.Latent("tau", HalfNormal(C(1)))
			z := b.Latent("z", Normal(C(0), C(1)), 3)
			b.ObserveInts("k", PoissonLog(Add(Add(b0, Mul(Data([]float64{3, 4, 5, 3, 4, 5}), coef)), Mul(Index(z, rows), tau))), []int{1, 0, 2, 3, 1, 1})
		}, []string{"auto: dilate tau, contract z", "auto: shift b0 against z over tau", "auto: shift b against z over tau"}},
		{"a non-centred plate read elsewhere, a predictor centred within groups", func(b *Builder) {
			b0 := b.Latent("b0", Normal(C(0), C(5)))
			coef := b.Latent("b", Normal(C(0), C(1)))
			tau := b.Latent("tau", HalfNormal(C(1)))
			z := b.Latent("z", Normal(C(0), C(1)), 3)
			b.Observe("y", Normal(Add(Add(b0, Mul(coef, Data([]float64{-1, 1, 2, -2, 0.5, -0.5}))), Mul(tau, Index(z, rows))), C(1)), yv)
			b.Observe("w", Normal(z, C(1)), []float64{0, 1, 2})
		}, []string{"auto: shift b0 against z over tau"}},
		{"non-centred shapes left out", func(b *Builder) {
			b0 := b.Latent("b0", Normal(C(0), C(5)))
			tau := b.Latent("tau", HalfNormal(C(1)))
			s := b.Latent("s", HalfNormal(C(1)))
			z := b.Latent("z", Normal(C(0), s), 3)    // a scale that is a latent
			u := b.Latent("u", Normal(C(1), C(1)), 3) // a location that is not 0
			w := b.Latent("w", Normal(C(0), C(1)), 3) // in two terms (crossed)
			v := b.Latent("v", Normal(C(0), C(1)), 2)
			b.Observe("y", Normal(Add(b0, Mul(tau, Index(z, rows))), C(1)), yv)
			b.Observe("y2", Normal(Add(b0, Mul(tau, Index(u, rows))), C(1)), yv)
			b.Observe("y3", Normal(Add(Add(b0, Mul(tau, Index(w, rows))), Mul(tau, Index(v, []int{0, 1, 0, 1, 0, 1}))), C(1)), yv)
		}, []string{"auto: dilate z with s"}},
		{"non-centred effects of one row each", func(b *Builder) {
			b0 := b.Latent("b0", Normal(C(0), C(5)))
			tau := b.Latent("tau", HalfNormal(C(1)))
			z := b.Latent("z", Normal(C(0), C(1)), 6)
			w := b.Latent("w", Normal(C(0), C(1)), 6)
			b.Observe("y", Normal(Add(b0, Mul(tau, z)), C(1)), yv)
			b.Observe("y2", Normal(Add(b0, Mul(tau, Index(w, []int{5, 4, 3, 2, 1, 0}))), C(1)), yv)
		}, nil},
		{"a predictor far from centred, logit link, At", func(b *Builder) {
			a := b.Latent("a", Normal(C(0), C(1)), 3)
			coef := b.Latent("b", Normal(C(0), C(1)))
			b.Observe("y", BernoulliLogit(Add(Mul(Data([]float64{3, 4, 5, 3, 4, 5}), coef), At(a, By(rows)))), []float64{0, 1, 1, 0, 1, 1})
		}, []string{"auto: shift b against a"}},
	}
	for _, c := range cases {
		b := New()
		c.decl(b)
		m, err := b.Build()
		if err != nil {
			t.Errorf("%s: %v", c.name, err)
			continue
		}
		if got := groupNames(m); !slices.Equal(got, c.want) {
			t.Errorf("%s: groups %q, want %q", c.name, got, c.want)
		}
	}
}

// TestAutoGroupsNotPartial checks where the partial rates do not apply: a plate
// read by two observations, or by a Student-t one, moves at rate 1.
func TestAutoGroupsNotPartial(t *testing.T) {
	rows := []int{0, 0, 1, 1, 2, 2}
	yv := []float64{0.1, 0.5, 1.2, 0.9, -0.3, 0.2}
	for _, two := range []bool{false, true} {
		b := New()
		tau := b.Latent("tau", HalfNormal(C(1)))
		a := b.Latent("a", Normal(C(0), tau), 3)
		if two {
			b.Observe("y", Normal(Index(a, rows), C(0.5)), yv)
			b.Observe("z", Normal(a, C(1)), []float64{0, 1, 2})
		} else {
			b.Observe("y", StudentT(C(4), Index(a, rows), C(0.5)), yv)
		}
		m, err := b.Build()
		if err != nil {
			t.Fatal(err)
		}
		gs := m.Groups()
		if len(gs) != 1 || !strings.HasPrefix(gs[0].Name, "auto: dilate a") {
			t.Fatalf("two observations %v: groups %v", two, gs)
		}
		for _, c := range gs[0].Coords {
			if c.Rate != 1 {
				t.Errorf("two observations %v: coordinate %d at rate %v, want 1", two, c.Coord, c.Rate)
			}
		}
	}
}

// TestAutoGroupsWidePrior checks that a plate whose constant prior scale is so
// wide that the data's information times its square overflows (the prior's
// share of every coordinate's precision 0) still builds, its location group at
// rate 1, instead of a group whose every rate is 0, which Build refuses.
func TestAutoGroupsWidePrior(t *testing.T) {
	b := New()
	mu := b.Latent("mu", Normal(C(0), C(1)))
	th := b.Latent("theta", Normal(mu, C(1e300)), 2)
	b.Observe("y", Normal(Index(th, []int{0, 0, 1}), C(1)), []float64{1, 2, 3})
	m, err := b.Build()
	if err != nil {
		t.Fatal(err)
	}
	gs := m.Groups()
	if len(gs) != 1 || gs[0].Name != "auto: shift mu with theta" {
		t.Fatalf("groups %v, want the location group", gs)
	}
	for _, c := range gs[0].Coords {
		if c.Rate != 1 {
			t.Errorf("coordinate %d at rate %v, want 1", c.Coord, c.Rate)
		}
	}
}

// TestAutoGroupsAmplitude checks the orbit of a non-centred Gaussian process's
// amplitude coordinate by coordinate (α dilated at rate 1, every coordinate of
// η at rate −1, both about 0), that it leaves f = L·η where it was, and that
// NoAutoGroups(AutoScale) turns it off.
func TestAutoGroupsAmplitude(t *testing.T) {
	build := func(off bool) *Model {
		b := New()
		rho := b.Latent("rho", Gamma(C(25), C(4)))
		alpha := b.Latent("alpha", HalfNormal(C(2)))
		eta := b.Vector("eta", 3, Normal(C(0), C(1)))
		f := CholeskyMul(AddDiag(ExpQuadCov(Data([]float64{0, 1, 2}), alpha, rho), C(1e-10)), eta)
		b.Deterministic("f", f)
		b.ObserveInts("k", PoissonLog(f), []int{1, 0, 3})
		if off {
			b.NoAutoGroups(AutoScale)
		}
		m, err := b.Build()
		if err != nil {
			t.Fatal(err)
		}
		return m
	}
	g := build(false).Groups()
	want := []nmc.OrbitCoord{{Coord: 1, Kind: nmc.Dilate, Rate: 1, Anchor: -1},
		{Coord: 2, Kind: nmc.Dilate, Rate: -1, Anchor: -1}, {Coord: 3, Kind: nmc.Dilate, Rate: -1, Anchor: -1}, {Coord: 4, Kind: nmc.Dilate, Rate: -1, Anchor: -1}}
	if len(g) != 1 || !slices.Equal(g[0].Coords, want) {
		t.Errorf("groups %+v, want one of coordinates %+v", g, want)
	}
	// Along the orbit f is unchanged but for the diagonal's share.
	m := build(false)
	x := []float64{1.5, 2, 0.3, -1.2, 0.8}
	f0, f1 := make([]float64, 3), make([]float64, 3)
	m.Derive(x, f0)
	e := math.Exp(0.7)
	m.Derive([]float64{x[0], x[1] * e, x[2] / e, x[3] / e, x[4] / e}, f1)
	for i := range f0 {
		if math.Abs(f1[i]-f0[i]) > 1e-8 {
			t.Errorf("f[%d] = %.12g at t = 0.7 along the orbit, %.12g at 0", i, f1[i], f0[i])
		}
	}
	if g := build(true).Groups(); len(g) != 0 {
		t.Errorf("with NoAutoGroups(AutoScale): groups %+v, want none", g)
	}
}

// TestAutoGroupsNonCentredRates checks the coordinates of the non-centred rules'
// groups against rates computed by hand: rows in groups (0, 0, 1, 1, 2, 2) of a
// plate z of four (z[3] has no rows) with x = (3, 4, 5, 3, 4, 5), so x̄ = (3.5,
// 4, 4.5); the intercept's ridge moves z[0..2] at −1/τ, the coefficient's at
// −x̄_j/τ, z[3] stays in both; the dilation moves τ at 1 and every z at −1.
func TestAutoGroupsNonCentredRates(t *testing.T) {
	build := func(off ...AutoRule) (*Model, error) {
		b := New()
		b0 := b.Latent("b0", Normal(C(0), C(5)))
		coef := b.Latent("b", Normal(C(0), C(1)))
		tau := b.Latent("tau", HalfNormal(C(1)))
		z := b.Latent("z", Normal(C(0), C(1)), 4)
		b.ObserveInts("k", PoissonLog(Add(Add(b0, Mul(coef, Data([]float64{3, 4, 5, 3, 4, 5}))), Mul(tau, Index(z, []int{0, 0, 1, 1, 2, 2})))), []int{1, 0, 2, 3, 1, 1})
		if len(off) > 0 {
			b.NoAutoGroups(off...)
		}
		return b.Build()
	}
	m, err := build()
	if err != nil {
		t.Fatal(err)
	}
	// State layout: b0 0, b 1, tau 2, z 3 … 6.
	dil := func(c int, r float64) nmc.OrbitCoord {
		return nmc.OrbitCoord{Coord: c, Kind: nmc.Dilate, Rate: r, Anchor: -1}
	}
	shift := func(c int) nmc.OrbitCoord { return nmc.OrbitCoord{Coord: c, Kind: nmc.Shift, Rate: 1, Anchor: -1} }
	over := func(c int, r float64) nmc.OrbitCoord {
		return nmc.OrbitCoord{Coord: c, Kind: nmc.ShiftOver, Rate: r, Anchor: 2}
	}
	want := []nmc.Group{
		{Name: "auto: dilate tau, contract z", Coords: []nmc.OrbitCoord{dil(2, 1), dil(3, -1), dil(4, -1), dil(5, -1), dil(6, -1)}},
		{Name: "auto: shift b0 against z over tau", Coords: []nmc.OrbitCoord{shift(0), over(3, -1), over(4, -1), over(5, -1)}},
		{Name: "auto: shift b against z over tau", Coords: []nmc.OrbitCoord{shift(1), over(3, -3.5), over(4, -4), over(5, -4.5)}},
	}
	got := m.Groups()
	if len(got) != len(want) {
		t.Fatalf("groups %v, want %v", got, want)
	}
	for g := range want {
		if got[g].Name != want[g].Name || !slices.Equal(got[g].Coords, want[g].Coords) {
			t.Errorf("group %d: %v, want %v", g, got[g], want[g])
		}
	}
	// The rules follow the flags of their centred forms.
	for _, c := range []struct {
		off  AutoRule
		want []string
	}{
		{AutoScale, []string{want[1].Name, want[2].Name}},
		{AutoLocation, []string{want[0].Name, want[2].Name}},
		{AutoCoefficient, []string{want[0].Name, want[1].Name}},
	} {
		m, err := build(c.off)
		if err != nil {
			t.Fatal(err)
		}
		if got := groupNames(m); !slices.Equal(got, c.want) {
			t.Errorf("without rule %d: groups %q, want %q", c.off, got, c.want)
		}
	}
}
