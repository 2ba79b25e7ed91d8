package graph

import (
	"context"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/nmc-go/nmc/diagnostics"
	"github.com/nmc-go/nmc/internal/special"
	"github.com/nmc-go/nmc/nmc"
	"gonum.org/v1/gonum/mat"
)

// dsData is a small Dawid-Skene data set: label j was given by labeler[j] to item[j].
type dsData struct {
	items, labelers, classes int
	item, labeler, label     []int
}

// makeDS draws a data set: every item gets perItem labels from random labelers, each
// right with probability 0.7, else uniform over the other classes.
func makeDS(rng *rand.Rand, items, labelers, classes, perItem int) dsData {
	d := dsData{items: items, labelers: labelers, classes: classes}
	for i := 0; i < items; i++ {
		truth := rng.IntN(classes)
		for range perItem {
			y := truth
			if rng.Float64() > 0.7 {
				y = (truth + 1 + rng.IntN(classes-1)) % classes
			}
			d.item = append(d.item, i)
			d.labeler = append(d.labeler, rng.IntN(labelers))
			d.label = append(d.label, y)
		}
	}
	return d
}

// buildDS declares the Dawid-Skene model on d, with the classes summed out when marg.
func buildDS(t testing.TB, d dsData, marg bool) *Model {
	t.Helper()
	b, _, z, _ := declareDS(d)
	if marg {
		b.Marginalise(z)
	}
	m, err := b.Build()
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// dsPrior returns a Dawid-Skene prior for c classes and the given labelers: the
// class weights' concentrations (all conc), the confusion rows' concentrations
// (diag on the diagonal, off elsewhere) and the class of each of the
// labelers × c confusion rows.
func dsPrior(c, labelers int, conc, off, diag float64) (concs []float64, rows [][]float64, classOf []int) {
	concs = make([]float64, c)
	rows = make([][]float64, c)
	for m := range rows {
		concs[m] = conc
		rows[m] = make([]float64, c)
		for n := range rows[m] {
			rows[m][n] = off
			if n == m {
				rows[m][n] = diag
			}
		}
	}
	classOf = make([]int, labelers*c)
	for i := range classOf {
		classOf[i] = i % c
	}
	return concs, rows, classOf
}

// declareDS declares the Dawid-Skene model on d and returns the builder and the
// nodes pi, z and theta.
func declareDS(d dsData) (b *Builder, pi, z, theta *Node) {
	c := d.classes
	conc, rows, classOf := dsPrior(c, d.labelers, 1, 1, 4)
	b = New()
	pi = b.Latent("pi", Dirichlet(Vec(conc...)))
	z = b.Latent("z", Categorical(pi), d.items)
	theta = b.Latent("theta", Dirichlet(Index(Rows(rows), classOf)), d.labelers, c)
	b.ObserveInts("y", Categorical(At(theta, By(d.labeler), ByNode(Index(z, d.item)))), d.label)
	return b, pi, z, theta
}

// buildMixture declares a two-component normal mixture with unknown weights, means
// and scale (simplex, real and positive sites), classes summed out when marg.
func buildMixture(t testing.TB, y []float64, marg bool) *Model {
	t.Helper()
	b := New()
	w := b.Latent("w", Dirichlet(Vec(2, 2)))
	mu := b.Latent("mu", Normal(C(0), C(5)), 2)
	sigma := b.Latent("sigma", HalfNormal(C(2)))
	z := b.Latent("z", Categorical(w), len(y))
	b.Observe("y", Normal(At(mu, ByNode(z)), sigma), y)
	if marg {
		b.Marginalise(z)
	}
	m, err := b.Build()
	if err != nil {
		t.Fatal(err)
	}
	return m
}

var mixtureData = []float64{-2.1, -1.4, 0.3, 2.2, 2.9}

// buildMixtureRegression declares a regression whose errors come from a two-component
// scale mixture, y_i ~ Normal(X·beta, s[z_i]) with z summed out when marg, next to a
// second data set with the same coefficients and a scale of its own, u ~ Normal(U·beta, sig),
// which the engine scores as a linear factor: the summed-out groups and the linear
// factors of one site's blanket together.
func buildMixtureRegression(t testing.TB, marg bool) *Model {
	t.Helper()
	b, z, _ := declareMixtureRegression()
	if marg {
		b.Marginalise(z)
	}
	m, err := b.Build()
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// declareMixtureRegression declares buildMixtureRegression's model and returns the
// builder and the nodes z and s (the scales the classes select).
func declareMixtureRegression() (b *Builder, z, s *Node) {
	x := mat.NewDense(5, 2, []float64{1, 0.5, -0.3, 1.2, 0.8, -1, 2, 0.1, -1.5, 0.4})
	// linMinRows rows of a fixed pattern, so that u is a linear factor.
	u := mat.NewDense(linMinRows, 2, nil)
	uy := make([]float64, linMinRows)
	for r := range uy {
		u.Set(r, 0, math.Sin(float64(r)))
		u.Set(r, 1, math.Cos(1.7*float64(r)))
		uy[r] = 0.5*u.At(r, 0) - 0.3*u.At(r, 1) + 0.2*math.Sin(3.1*float64(r))
	}
	b = New()
	w := b.Latent("w", Dirichlet(Vec(2, 2)))
	beta := b.Vector("beta", 2, Normal(C(0), C(3)))
	s = b.Latent("s", HalfNormal(C(2)), 2)
	z = b.Latent("z", Categorical(w), 5)
	b.Observe("y", Normal(MatVec(x, beta), At(s, ByNode(z))), []float64{0.4, 1.9, -0.8, 2.5, -0.1})
	sig := b.Latent("sig", HalfNormal(C(1)))
	b.Observe("u", Normal(MatVec(u, beta), sig), uy)
	return b, z, s
}

// buildTwoIndex declares categorical data read through two discrete indices, an
// explicit w (per group) and z (per item, summed out when marg): y_j ~
// Categorical(theta[w[group_j], z[item_j]]), so that the summed-out groups hold
// selections with another latent index (margProduct's general path).
func buildTwoIndex(t testing.TB, marg bool) *Model {
	t.Helper()
	group := []int{0, 1, 0, 1, 1, 0, 0}
	item := []int{0, 0, 1, 2, 3, 3, 2}
	y := []int{0, 2, 1, 1, 0, 2, 2}
	b := New()
	theta := b.Latent("theta", Dirichlet(Vec(1, 1, 1)), 2, 2)
	w := b.Latent("w", Categorical(Vec(0.5, 0.5)), 2)
	pi := b.Latent("pi", Dirichlet(Vec(2, 2)))
	z := b.Latent("z", Categorical(pi), 4)
	b.ObserveInts("y", Categorical(At(theta, ByNode(Index(w, group)), ByNode(Index(z, item)))), y)
	if marg {
		b.Marginalise(z)
	}
	m, err := b.Build()
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// zRange returns the state offset and count of the z sites.
func zRange(t testing.TB, m *Model) (off, n int) {
	t.Helper()
	off, n, err := m.Offset("z")
	if err != nil {
		t.Fatal(err)
	}
	return off, n
}

// bruteForce returns log Σ_z exp(explicit log joint) over every value of the z
// sites, at the other coordinates of x.
func bruteForce(t *testing.T, expl *Model, x []float64) float64 {
	t.Helper()
	off, n := zRange(t, expl)
	nv := expl.Sites()[expl.fams[0].first].NumValues
	for _, s := range expl.Sites() {
		if strings.HasPrefix(s.Name, "z[") {
			nv = s.NumValues
		}
	}
	y := append([]float64(nil), x...)
	sc := expl.NewScorer()
	total := 1
	for range n {
		total *= nv
	}
	terms := make([]float64, total)
	for code := range terms {
		v := code
		for i := 0; i < n; i++ {
			y[off+i] = float64(v % nv)
			v /= nv
		}
		terms[code] = sc.LogJoint(y)
	}
	return special.LogSumExp(terms)
}

// TestMarginaliseLogJointEnumeration checks the summed-out log joint against a
// brute-force sum of the explicit model's log joint over every class vector
// (2^5 and 3^6 terms), at random states, to 1e-10, and that the z sites are
// Marginalised and the others are not.
func TestMarginaliseLogJointEnumeration(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 1))
	ds := makeDS(rng, 6, 3, 3, 2)
	ds.item, ds.labeler, ds.label = append(ds.item, 0), append(ds.labeler, 0), append(ds.label, 2) // a labeler labels item 0 twice
	pairs := map[string][2]*Model{
		"dawid-skene":        {buildDS(t, ds, false), buildDS(t, ds, true)},
		"mixture":            {buildMixture(t, mixtureData, false), buildMixture(t, mixtureData, true)},
		"two indices":        {buildTwoIndex(t, false), buildTwoIndex(t, true)},
		"mixture regression": {buildMixtureRegression(t, false), buildMixtureRegression(t, true)},
	}
	for name, p := range pairs {
		expl, marg := p[0], p[1]
		if name == "mixture regression" && len(marg.linear) != 1 {
			t.Fatalf("%s: %d linear factors, want 1 (u)", name, len(marg.linear))
		}
		for i, s := range marg.Sites() {
			if want := strings.HasPrefix(s.Name, "z["); s.Marginalised != want {
				t.Errorf("%s: site %d (%s): Marginalised %v, want %v", name, i, s.Name, s.Marginalised, want)
			}
			if expl.Sites()[i].Marginalised {
				t.Errorf("%s: explicit model: site %s is Marginalised", name, s.Name)
			}
		}
		x := make([]float64, nmc.Dim(marg.Sites()))
		sc := marg.NewScorer()
		for pt := range 5 {
			if err := expl.Init(rng, x); err != nil {
				t.Fatal(err)
			}
			want := bruteForce(t, expl, x)
			got := sc.LogJoint(x)
			if !close(got, want, 1e-10) {
				t.Errorf("%s, point %d: marginal log joint %.15g, enumeration %.15g", name, pt, got, want)
			}
		}
	}
}

// TestMarginaliseDerivatives checks every continuous site's score of the
// summed-out models: score differences equal log-joint differences, the gradient
// matches fourth-order finite differences of the log joint, and H·d matches central
// differences of the gradient. For a simplex site (whose reported Hessian is steered
// off the simplex) the tangent parts are compared: directions e_i − e_j and both
// vectors projected onto Σ = 0.
func TestMarginaliseDerivatives(t *testing.T) {
	rng := rand.New(rand.NewPCG(6, 1))
	ds := makeDS(rng, 12, 3, 3, 3)
	models := map[string]*Model{
		"dawid-skene":        buildDS(t, ds, true),
		"mixture":            buildMixture(t, mixtureData, true),
		"two indices":        buildTwoIndex(t, true),
		"mixture regression": buildMixtureRegression(t, true),
	}
	for name, m := range models {
		sites := m.Sites()
		off := nmc.Offsets(sites)
		x := make([]float64, nmc.Dim(sites))
		sc := m.NewScorer()
		checked := 0
		for pt := range 4 {
			if err := m.Init(rng, x); err != nil {
				t.Fatal(err)
			}
			for i, s := range sites {
				if s.Support == nmc.Discrete {
					continue
				}
				xi := x[off[i] : off[i]+s.Size]
				saved := append([]float64(nil), xi...)
				f0, j0 := sc.Score(x, i, nil, nil), sc.LogJoint(x)
				perturb(rng, s, xi, 0.3)
				f1, j1 := sc.Score(x, i, nil, nil), sc.LogJoint(x)
				copy(xi, saved)
				if d1, d2 := f1-f0, j1-j0; !close(d1, d2, 1e-9) {
					t.Errorf("%s point %d site %s: score difference %.12g, log-joint difference %.12g", name, pt, s.Name, d1, d2)
				}
				k := s.Size
				g, h := make([]float64, k), make([]float64, k*k)
				f := sc.Score(x, i, g, h)
				if !close(f, f0, 1e-12) {
					t.Errorf("%s site %s: score with derivatives %g, without %g", name, s.Name, f, f0)
				}
				for _, d := range directions(s) {
					step := 1e-4
					for c := range d {
						if d[c] != 0 {
							step = math.Min(step, 1e-4*math.Max(math.Abs(xi[c]), 1e-2))
						}
					}
					at := func(e float64) float64 {
						for c := range d {
							xi[c] = saved[c] + e*d[c]
						}
						v := sc.LogJoint(x)
						copy(xi, saved)
						return v
					}
					fdG := (8*(at(step)-at(-step)) - (at(2*step) - at(-2*step))) / (12 * step)
					gd := 0.0
					for p := range k {
						gd += g[p] * d[p]
					}
					if !close(gd, fdG, 1e-6) {
						t.Errorf("%s point %d site %s direction %v: gradient %.10g, finite difference %.10g", name, pt, s.Name, d, gd, fdG)
					}
					gp, gm, hs := make([]float64, k), make([]float64, k), make([]float64, k*k)
					hstep := step / 10
					for c := range d {
						xi[c] = saved[c] + hstep*d[c]
					}
					sc.Score(x, i, gp, hs)
					for c := range d {
						xi[c] = saved[c] - hstep*d[c]
					}
					sc.Score(x, i, gm, hs)
					copy(xi, saved)
					hd, fd := make([]float64, k), make([]float64, k)
					for p := range k {
						for q := range k {
							hd[p] += h[p*k+q] * d[q]
						}
						fd[p] = (gp[p] - gm[p]) / (2 * hstep)
					}
					if s.Support == nmc.Simplex {
						project(hd)
						project(fd)
					}
					for p := range k {
						if !close(hd[p], fd[p], 1e-5) {
							t.Errorf("%s point %d site %s direction %v: (H·d)[%d] = %.10g, finite difference of the gradient %.10g", name, pt, s.Name, d, p, hd[p], fd[p])
						}
					}
				}
				for p := range k {
					for q := range k {
						if h[p*k+q] != h[q*k+p] {
							t.Errorf("%s site %s: Hessian not symmetric at [%d,%d]", name, s.Name, p, q)
						}
					}
				}
				checked++
			}
		}
		if checked == 0 {
			t.Errorf("%s: no continuous site checked", name)
		}
	}
}

// project removes the mean of v (the component off the simplex's tangent space).
func project(v []float64) {
	m := 0.0
	for _, x := range v {
		m += x
	}
	m /= float64(len(v))
	for i := range v {
		v[i] -= m
	}
}

// TestMarginaliseBuildErrors checks that what cannot be summed out is refused at
// Build with the latent named.
func TestMarginaliseBuildErrors(t *testing.T) {
	cases := []struct {
		name string
		decl func(b *Builder)
		want string
	}{
		{"continuous", func(b *Builder) {
			mu := b.Latent("mu", Normal(C(0), C(1)))
			b.Observe("y", Normal(mu, C(1)), []float64{1})
			b.Marginalise(mu)
		}, `Marginalise "mu": its Normal prior is not discrete`},
		{"unbounded", func(b *Builder) {
			n := b.Latent("n", Poisson(C(3)))
			b.Observe("y", Binomial(n, C(0.5)), []float64{1})
			b.Marginalise(n)
		}, `Marginalise "n": site n has an unbounded support`},
		{"not a latent", func(b *Builder) {
			mu := b.Latent("mu", Normal(C(0), C(1)))
			b.Observe("y", Normal(mu, C(1)), []float64{1})
			b.Marginalise(Add(mu, C(1)))
		}, "is not a latent variable"},
		{"twice", func(b *Builder) {
			z := b.Latent("z", Categorical(Vec(0.5, 0.5)), 2)
			b.Marginalise(z)
			b.Marginalise(z)
		}, `Marginalise "z": the latent is summed out twice`},
		{"vector", func(b *Builder) {
			v := b.Vector("v", 2, Normal(C(0), C(1)))
			b.Marginalise(v)
		}, `Marginalise "v": a Vector site is continuous`},
		{"shared element", func(b *Builder) {
			mu := b.Latent("mu", Normal(C(0), C(5)), 2, 2)
			z1 := b.Latent("z1", Categorical(Vec(0.5, 0.5)))
			z2 := b.Latent("z2", Categorical(Vec(0.5, 0.5)))
			b.Observe("y", Normal(At(mu, ByNode(z1), ByNode(z2)), C(1)), []float64{0.5})
			b.Marginalise(z1)
			b.Marginalise(z2)
		}, `Marginalise "z2": observed "y" element 0 depends on both z1 and z2`},
		{"nil", func(b *Builder) { b.Marginalise(nil) }, "Marginalise: nil node"},
	}
	for _, c := range cases {
		b := New()
		c.decl(b)
		_, err := b.Build()
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: Build error %v, want one containing %q", c.name, err, c.want)
		}
	}
}

// TestMarginaliseOrbitScore checks that a group's orbit score reads the summed-out
// groups: along the dilation of the mixture's means, its first and second
// derivatives match finite differences of the log joint along the orbit.
func TestMarginaliseOrbitScore(t *testing.T) {
	b := New()
	w := b.Latent("w", Dirichlet(Vec(2, 2)))
	mu := b.Latent("mu", Normal(C(0), C(5)), 2)
	z := b.Latent("z", Categorical(w), len(mixtureData))
	b.Observe("y", Normal(At(mu, ByNode(z)), C(1)), mixtureData)
	b.Marginalise(z)
	b.Group("scale(mu)", Dilate(mu, 1))
	m, err := b.Build()
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(9, 1))
	x := make([]float64, nmc.Dim(m.Sites()))
	sc := m.NewScorer().(*scorer)
	muOff, _, _ := m.Offset("mu")
	for pt := range 4 {
		if err := m.Init(rng, x); err != nil {
			t.Fatal(err)
		}
		at := func(tt float64) float64 {
			y := append([]float64(nil), x...)
			y[muOff] *= math.Exp(tt)
			y[muOff+1] *= math.Exp(tt)
			return sc.LogJoint(y)
		}
		var d [2]float64
		sc.ScoreOrbit(x, 0, &d)
		const h = 1e-3
		f := [5]float64{at(-2 * h), at(-h), at(0), at(h), at(2 * h)}
		d1 := (f[0] - 8*f[1] + 8*f[3] - f[4]) / (12 * h)
		d2 := (-f[0] + 16*f[1] - 30*f[2] + 16*f[3] - f[4]) / (12 * h * h)
		if !close(d[0], d1, 1e-7) || !close(d[1], d2, 1e-5) {
			t.Errorf("point %d: orbit derivatives %.10g, %.10g; finite differences %.10g, %.10g", pt, d[0], d[1], d1, d2)
		}
	}
}

// TestMarginaliseSameDawidSkenePosterior samples a small Dawid-Skene model with the
// classes explicit, summed out, and summed out with the confusion rows (and then
// also the prevalence) augmented (4 chains × 2000 draws each, fixed seeds), and
// checks that every pi, theta and z coordinate has the same posterior mean as with
// the classes explicit, within 4 combined Monte Carlo standard errors (MCSE of the
// mean, from the bulk ESS), that the summed-out z are recorded as valid classes,
// and that the augmented rows' steps, exact Gibbs draws, are all accepted.
func TestMarginaliseSameDawidSkenePosterior(t *testing.T) {
	if testing.Short() {
		t.Skip("samples four models (about 3 s)")
	}
	rng := rand.New(rand.NewPCG(8, 1))
	ds := makeDS(rng, 40, 3, 2, 3)
	opts := func(seed uint64) *nmc.Options { return &nmc.Options{Chains: 4, Draws: 2000, Warmup: 300, Seed: seed} }
	re, err := nmc.Sample(context.Background(), buildDS(t, ds, false), opts(1))
	if err != nil {
		t.Fatal(err)
	}
	for _, form := range []struct {
		name string
		m    *Model
	}{{"summed out", buildDS(t, ds, true)}, {"theta augmented", buildDSAugmented(t, ds, false)}, {"theta and pi augmented", buildDSAugmented(t, ds, true)}} {
		rm, err := nmc.Sample(context.Background(), form.m, opts(2))
		if err != nil {
			t.Fatal(err)
		}
		checked, worst := 0, 0.0
		for j, name := range re.Draws.Names {
			if rm.Draws.Names[j] != name {
				t.Fatalf("coordinate %d: %s and %s", j, name, rm.Draws.Names[j])
			}
			a, b := re.Draws.Column(j), rm.Draws.Column(j)
			if strings.HasPrefix(name, "z[") {
				for _, ch := range b {
					for _, v := range ch {
						if v != 0 && v != 1 {
							t.Fatalf("%s: %s: recorded value %v is not a class", form.name, name, v)
						}
					}
				}
			}
			ma, mb := mean2(a), mean2(b)
			sa, err1 := diagnostics.MCSEMean(a)
			sb, err2 := diagnostics.MCSEMean(b)
			if err1 != nil || err2 != nil {
				if strings.HasPrefix(name, "z[") { // a class that never changed in a run
					continue
				}
				t.Fatal(name, err1, err2)
			}
			z := (ma - mb) / math.Hypot(sa, sb)
			worst = max(worst, math.Abs(z))
			if math.Abs(z) > 4 {
				t.Errorf("%s: %s: mean %.4f explicit, %.4f: z = %.2f (MCSE %.4f, %.4f)", form.name, name, ma, mb, z, sa, sb)
			}
			checked++
		}
		if checked < 2+3*2*2 {
			t.Errorf("%s: compared %d coordinates, want at least the %d of pi and theta", form.name, checked, 2+3*2*2)
		}
		for _, st := range rm.Sites {
			if strings.HasSuffix(st.Proposer, "-augmented") && st.Accepted != st.Proposals {
				t.Errorf("%s: %s: %d of %d augmented steps accepted, want all (exact Gibbs draws)", form.name, st.Name, st.Accepted, st.Proposals)
			}
		}
		t.Logf("%s: %d means, largest |z| %.2f", form.name, checked, worst)
	}
}

func mean2(x [][]float64) float64 {
	m, _ := diagnostics.Mean(x) // NaN for a malformed x, which fails every comparison
	return m
}

// TestMarginalCacheNeverStale scores the summed-out Dawid-Skene model through one
// scorer along a random walk of states (moves of single sites, accepted or undone,
// scores with and without derivatives, log joints, enumerations) and checks every
// value, gradient and Hessian against a fresh scorer's at the same state, bit for
// bit: the product cache depends only on the state, not on the calls before.
func TestMarginalCacheNeverStale(t *testing.T) {
	rng := rand.New(rand.NewPCG(21, 1))
	m := buildDS(t, makeDS(rng, 30, 4, 3, 3), true)
	sites := m.Sites()
	off := nmc.Offsets(sites)
	x := make([]float64, nmc.Dim(sites))
	if err := m.Init(rng, x); err != nil {
		t.Fatal(err)
	}
	sc := m.NewScorer()
	same := func(a, b float64) bool { return math.Float64bits(a) == math.Float64bits(b) }
	for step := range 400 {
		i := rng.IntN(len(sites))
		s := sites[i]
		xi := x[off[i] : off[i]+s.Size]
		saved := append([]float64(nil), xi...)
		perturb(rng, s, xi, 0.5)
		fresh := m.NewScorer()
		switch {
		case s.Support == nmc.Discrete:
			a, b := make([]float64, s.NumValues), make([]float64, s.NumValues)
			sc.(nmc.ValuesScorer).ScoreValues(x, i, a)
			fresh.(nmc.ValuesScorer).ScoreValues(x, i, b)
			for v := range a {
				if !same(a[v], b[v]) {
					t.Fatalf("step %d site %s: ScoreValues[%d] %v, fresh %v", step, s.Name, v, a[v], b[v])
				}
			}
		case rng.IntN(3) == 0:
			if a, b := sc.LogJoint(x), fresh.LogJoint(x); !same(a, b) {
				t.Fatalf("step %d: log joint %v, fresh %v", step, a, b)
			}
		default:
			k := s.Size
			ga, ha, gb, hb := make([]float64, k), make([]float64, k*k), make([]float64, k), make([]float64, k*k)
			a, b := sc.Score(x, i, ga, ha), fresh.Score(x, i, gb, hb)
			if !same(a, b) {
				t.Fatalf("step %d site %s: score %v, fresh %v", step, s.Name, a, b)
			}
			for c := range ga {
				if !same(ga[c], gb[c]) {
					t.Fatalf("step %d site %s: gradient[%d] %v, fresh %v", step, s.Name, c, ga[c], gb[c])
				}
			}
			for c := range ha {
				if !same(ha[c], hb[c]) {
					t.Fatalf("step %d site %s: Hessian[%d] %v, fresh %v", step, s.Name, c, ha[c], hb[c])
				}
			}
		}
		if rng.IntN(2) == 0 {
			copy(xi, saved) // rejected
		}
	}
}

// TestWeighValues: the weights of the summed-out classes of Dawid-Skene
// (nmc.ValuesWeigher) are the conditional of ScoreValues — w_v / Σw within 1e-12 of
// softmax(ScoreValues) — at states walked as in TestMarginalCacheNeverStale, bit
// for bit those of a fresh scorer; a site whose products leave [prodMin, prodMax],
// a site that is not summed out and the groups that are not simple (Normal
// mixture, two indices) are refused.
func TestWeighValues(t *testing.T) {
	rng := rand.New(rand.NewPCG(22, 1))
	m := buildDS(t, makeDS(rng, 30, 4, 3, 3), true)
	sites := m.Sites()
	off := nmc.Offsets(sites)
	x := make([]float64, nmc.Dim(sites))
	if err := m.Init(rng, x); err != nil {
		t.Fatal(err)
	}
	var zs []int
	for i, s := range sites {
		if s.Marginalised {
			zs = append(zs, i)
		}
	}
	sc := m.NewScorer()
	w, wf := make([]float64, 3*len(zs)), make([]float64, 3*len(zs))
	ok, okf := make([]bool, len(zs)), make([]bool, len(zs))
	lp := make([]float64, 3)
	for step := range 200 {
		i := rng.IntN(len(sites))
		s := sites[i]
		if s.Support != nmc.Discrete {
			perturb(rng, s, x[off[i]:off[i]+s.Size], 0.5)
			sc.Score(x, i, make([]float64, s.Size), make([]float64, s.Size*s.Size))
		}
		sc.(nmc.ValuesWeigher).WeighValues(x, zs, w, ok)
		m.NewScorer().(nmc.ValuesWeigher).WeighValues(x, zs, wf, okf)
		for n, z := range zs {
			if !ok[n] || !okf[n] {
				t.Fatalf("step %d: %s refused (ok %v, fresh %v)", step, sites[z].Name, ok[n], okf[n])
			}
			sc.(nmc.ValuesScorer).ScoreValues(x, z, lp)
			lse := special.LogSumExp(lp)
			sum := w[3*n] + w[3*n+1] + w[3*n+2]
			for v := range 3 {
				if math.Float64bits(w[3*n+v]) != math.Float64bits(wf[3*n+v]) {
					t.Fatalf("step %d %s: weight %d %v, fresh %v", step, sites[z].Name, v, w[3*n+v], wf[3*n+v])
				}
				if got, want := w[3*n+v]/sum, math.Exp(lp[v]-lse); math.Abs(got-want) > 1e-12 {
					t.Fatalf("step %d %s: P(%d) %v from the weights, %v from ScoreValues", step, sites[z].Name, v, got, want)
				}
			}
		}
	}

	// Products below prodMin: the items with a label of labeler 0 are refused, the others kept.
	toff, _, err := m.Offset("theta")
	if err != nil {
		t.Fatal(err)
	}
	d := makeDS(rand.New(rand.NewPCG(22, 1)), 30, 4, 3, 3)
	for c := range 9 {
		x[toff+c] = 1e-130
	}
	sc.(nmc.ValuesWeigher).WeighValues(x, zs, w, ok)
	refused := 0
	for n := range zs {
		if d.item[3*n] != n {
			t.Fatal("makeDS: items not in order")
		}
		nZero := 0
		for j := 3 * n; j < 3*n+3; j++ {
			if d.labeler[j] == 0 {
				nZero++
			}
		}
		if want := nZero < 2; ok[n] != want {
			t.Errorf("%s with %d labels by labeler 0 (θ entries 1e-130): ok %v, want %v", sites[zs[n]].Name, nZero, ok[n], want)
		}
		if !ok[n] {
			refused++
		}
	}
	if refused == 0 {
		t.Error("no site refused: the data set has no item labelled twice by labeler 0")
	}

	// Not summed out, not simple.
	for name, mm := range map[string]*Model{"explicit": buildDS(t, d, false), "mixture": buildMixture(t, mixtureData, true), "two indices": buildTwoIndex(t, true)} {
		sites := mm.Sites()
		y := make([]float64, nmc.Dim(sites))
		if err := mm.Init(rng, y); err != nil {
			t.Fatal(err)
		}
		var zs []int
		n := 0
		for i, s := range sites {
			if s.Support == nmc.Discrete && strings.HasPrefix(s.Name, "z[") {
				zs = append(zs, i)
				n += s.NumValues
			}
		}
		ok := make([]bool, len(zs))
		for n := range ok {
			ok[n] = true
		}
		mm.NewScorer().(nmc.ValuesWeigher).WeighValues(y, zs, make([]float64, n), ok)
		if len(zs) == 0 || slices.Contains(ok, true) {
			t.Errorf("%s: %d sites, ok %v, want all refused", name, len(zs), ok)
		}
	}
}
