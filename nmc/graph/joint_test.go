package graph

import (
	"maps"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/nmc-go/nmc/nmc"
)

// continuousSites returns the continuous sites of m that are not summed out, in
// state order.
func continuousSites(m *Model) []int {
	var out []int
	for i, s := range m.Sites() {
		if s.Support != nmc.Discrete && !s.Marginalised {
			out = append(out, i)
		}
	}
	return out
}

// sitesSize returns the number of coordinates of the sites listed.
func sitesSize(m *Model, sites []int) int {
	n := 0
	for _, i := range sites {
		n += m.Sites()[i].Size
	}
	return n
}

// makeDSRagged draws a Dawid-Skene data set whose items have 0 to 11 labels, with
// repeated labelers within an item, many single labels by the same labeler with the
// same value, and items that repeat an earlier item's labels exactly (groups that
// the fast path merges).
func makeDSRagged(rng *rand.Rand, items, labelers, classes int) dsData {
	d := dsData{items: items, labelers: labelers, classes: classes}
	var last []int // the labels of the last item with two or more, as (labeler, label) pairs
	for i := range items {
		truth := rng.IntN(classes)
		switch n := rng.IntN(12); {
		case n >= 2 && len(last) > 0 && rng.IntN(4) == 0:
			for p := 0; p < len(last); p += 2 {
				d.item, d.labeler, d.label = append(d.item, i), append(d.labeler, last[p]), append(d.label, last[p+1])
			}
		case n == 1 && rng.IntN(2) == 0:
			d.item, d.labeler, d.label = append(d.item, i), append(d.labeler, 0), append(d.label, truth%2)
		default:
			if n >= 2 {
				last = last[:0]
			}
			for range n {
				y := truth
				if rng.Float64() > 0.7 {
					y = rng.IntN(classes)
				}
				l := rng.IntN(labelers)
				if rng.IntN(5) == 0 && len(d.item) > 0 && d.item[len(d.item)-1] == i {
					l = d.labeler[len(d.labeler)-1] // the same labeler twice
				}
				d.item, d.labeler, d.label = append(d.item, i), append(d.labeler, l), append(d.label, y)
				if n >= 2 {
					last = append(last, l, y)
				}
			}
		}
	}
	return d
}

// buildDSTwoWeights is Dawid-Skene with two class-weight vectors, pi[0] for the
// even items and pi[1] for the odd ones: the summed-out groups do not share their
// live element (Model.sharedLive is nil).
func buildDSTwoWeights(t testing.TB, d dsData) *Model {
	t.Helper()
	c := d.classes
	conc, rows, classOf := dsPrior(c, d.labelers, 1.5, 1, 4)
	parity := make([]int, d.items)
	for i := range parity {
		parity[i] = i % 2
	}
	b := New()
	pi := b.Latent("pi", Dirichlet(Vec(conc...)), 2)
	z := b.Latent("z", Categorical(At(pi, By(parity))), d.items)
	theta := b.Latent("theta", Dirichlet(Index(Rows(rows), classOf)), d.labelers, c)
	b.ObserveInts("y", Categorical(At(theta, By(d.labeler), ByNode(Index(z, d.item)))), d.label)
	b.Marginalise(z)
	m, err := b.Build()
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// buildDSExtras is Dawid-Skene with classes summed out where the weights also have
// observations of their own (items whose class is known) and the confusion rows a
// latent concentration scale: sites that read simple summed-out groups but whose
// other blanket is more than a constant prior, and a site (the scale) that reads
// no group.
func buildDSExtras(t testing.TB, d dsData) *Model {
	t.Helper()
	c := d.classes
	classOf := make([]int, d.labelers*c)
	rows := make([][]float64, c)
	for m := range rows {
		rows[m] = make([]float64, c)
		for n := range rows[m] {
			rows[m][n] = 0.5
			if n == m {
				rows[m][n] = 2
			}
		}
	}
	for i := range classOf {
		classOf[i] = i % c
	}
	known := make([]int, 7)
	for i := range known {
		known[i] = i % c
	}
	b := New()
	pi := b.Latent("pi", Dirichlet(Vec(slices.Repeat([]float64{1.2}, c)...)))
	z := b.Latent("z", Categorical(pi), d.items)
	scale := b.Latent("scale", Gamma(C(4), C(2)))
	theta := b.Latent("theta", Dirichlet(Mul(scale, Index(Rows(rows), classOf))), d.labelers, c)
	b.ObserveInts("known", Categorical(pi), known)
	b.ObserveInts("y", Categorical(At(theta, By(d.labeler), ByNode(Index(z, d.item)))), d.label)
	b.Marginalise(z)
	m, err := b.Build()
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// buildRegressionBounded declares a regression with a Positive (sigma) and an
// Interval (rho) site: y ~ Normal(alpha + rho·x, sigma).
func buildRegressionBounded(t testing.TB) *Model {
	t.Helper()
	xs := []float64{-1.2, 0.3, 0.8, 1.9, -0.4, 2.2}
	ys := []float64{-0.9, 0.1, 0.9, 1.2, -0.2, 1.5}
	b := New()
	alpha := b.Latent("alpha", Normal(C(0), C(3)))
	sigma := b.Latent("sigma", HalfNormal(C(2)))
	rho := b.Latent("rho", Uniform(C(-1), C(1)))
	b.Observe("y", Normal(Add(alpha, Mul(rho, Data(xs))), sigma), ys)
	m, err := b.Build()
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// jointTestModels returns the models JointGrad is checked on, and whether the fast
// path must apply to each.
func jointTestModels(t *testing.T) (map[string]*Model, map[string]bool) {
	rng := rand.New(rand.NewPCG(24, 1))
	ds := makeDS(rng, 12, 3, 3, 3)
	models := map[string]*Model{
		"dawid-skene summed":    buildDS(t, ds, true),
		"dawid-skene explicit":  buildDS(t, ds, false),
		"dawid-skene ragged":    buildDS(t, makeDSRagged(rng, 40, 4, 3), true),
		"dawid-skene 2 classes": buildDS(t, makeDSRagged(rng, 30, 3, 2), true),
		"dawid-skene 4 classes": buildDS(t, makeDSRagged(rng, 30, 3, 4), true),
		"dawid-skene 2 weights": buildDSTwoWeights(t, makeDSRagged(rng, 30, 3, 3)),
		"dawid-skene extras":    buildDSExtras(t, makeDSRagged(rng, 30, 3, 3)),
		"mixture summed":        buildMixture(t, mixtureData, true),
		"mixture regression":    buildMixtureRegression(t, true),
		"two indices":           buildTwoIndex(t, true),
		"regression bounded":    buildRegressionBounded(t),
	}
	for name, m := range testModels(t) {
		models["testModels "+name] = m
	}
	fast := map[string]bool{}
	for name := range models {
		fast[name] = strings.HasPrefix(name, "dawid-skene") && name != "dawid-skene explicit"
	}
	return models, fast
}

// TestJointGradFiniteDifferences checks JointGrad on every continuous site of each
// test model at random states: its value is LogJoint's within 1e-12 relative (bit
// for bit on the general path; 0 without value, with the same gradient bit for bit), its gradient matches central finite
// differences of LogJoint (along e_i − e_j for a simplex) and the general path
// within 1e-12 relative; on the Dawid-Skene models with the classes summed out the
// fast path is taken.
func TestJointGradFiniteDifferences(t *testing.T) {
	models, fast := jointTestModels(t)
	names := slices.Sorted(maps.Keys(models))
	for _, name := range names {
		m := models[name]
		rng := rand.New(rand.NewPCG(24, uint64(len(name))))
		sites := continuousSites(m)
		if len(sites) == 0 {
			t.Fatalf("%s: no continuous site", name)
		}
		if got := m.jointPlan().fast; got != fast[name] {
			t.Errorf("%s: fast path available %v, want %v", name, got, fast[name])
		}
		if name == "dawid-skene extras" {
			// Fast sites whose blanket is more than their prior, and one general site.
			p := m.jointPlan()
			kinds := map[[2]bool]int{}
			for _, i := range sites {
				kinds[[2]bool{p.siteFast[i], p.priorOnly[i]}]++
			}
			if len(kinds) != 2 || kinds[[2]bool{true, false}] == 0 || kinds[[2]bool{false, false}] != 1 {
				t.Errorf("%s: sites by (fast, prior only): %v", name, kinds)
			}
		}
		all := m.Sites()
		off := nmc.Offsets(all)
		x := make([]float64, nmc.Dim(all))
		n := sitesSize(m, sites)
		g, g0, gGen := make([]float64, n), make([]float64, n), make([]float64, n)
		sc := m.newScorer()
		fastRuns := 0
		for pt := range 3 {
			if err := m.Init(rng, x); err != nil {
				t.Fatal(err)
			}
			for _, i := range sites {
				perturb(rng, all[i], x[off[i]:off[i]+all[i].Size], 0.2)
			}
			v := sc.JointGrad(x, sites, g, true)
			if lj := sc.LogJoint(x); !close(v, lj, 1e-12) || (!fast[name] && v != lj) {
				t.Errorf("%s point %d: value %.17g, LogJoint %.17g", name, pt, v, lj)
			}
			if v0 := sc.JointGrad(x, sites, g0, false); v0 != 0 {
				t.Errorf("%s point %d: value without value %g, want 0", name, pt, v0)
			}
			if !slices.Equal(g, g0) {
				t.Errorf("%s point %d: gradients with and without value differ", name, pt)
			}
			if f := sc.jointGeneric(x, sites, gGen); f != 0 {
				t.Fatalf("%s point %d: general path returned %g", name, pt, f)
			}
			for c := range g {
				if !close(g[c], gGen[c], 1e-12) {
					t.Errorf("%s point %d coordinate %d: gradient %.17g, general path %.17g", name, pt, c, g[c], gGen[c])
				}
			}
			if fast[name] {
				if _, ok := sc.jointFast(m.jointPlan(), x, sites, g0, false); ok {
					fastRuns++
				}
			}
			at := 0
			for _, i := range sites {
				s := all[i]
				xi := x[off[i] : off[i]+s.Size]
				saved := append([]float64(nil), xi...)
				gi := g[at : at+s.Size]
				at += s.Size
				for _, d := range directions(s) {
					// A step small against the distance to the support's bounds.
					step := 1e-4
					for c := range d {
						if d[c] == 0 {
							continue
						}
						scale := math.Max(math.Abs(xi[c]), 1)
						switch s.Support {
						case nmc.Positive, nmc.Simplex:
							scale = xi[c] - s.Lower
						case nmc.Interval:
							scale = math.Min(xi[c]-s.Lower, s.Upper-xi[c])
						}
						step = math.Min(step, 1e-3*scale)
					}
					lj := func(e float64) float64 {
						for c := range d {
							xi[c] = saved[c] + e*d[c]
						}
						v := sc.LogJoint(x)
						copy(xi, saved)
						return v
					}
					fd := (8*(lj(step)-lj(-step)) - (lj(2*step) - lj(-2*step))) / (12 * step)
					gd := 0.0
					for c := range d {
						gd += gi[c] * d[c]
					}
					if !close(gd, fd, 1e-6) {
						t.Errorf("%s point %d site %s direction %v: gradient %.10g, finite difference %.10g", name, pt, s.Name, d, gd, fd)
					}
				}
			}
		}
		if fast[name] && fastRuns == 0 {
			t.Errorf("%s: the fast path never ran", name)
		}
	}
}

// TestJointGradFastMatchesGeneric checks the fast path against the general path
// (one score per site), and its value against LogJoint, within 1e-12 relative on Dawid-Skene models whose items
// have 0 to 11 labels with repeats, for every continuous site, for subsets of them
// in another order, and at states with tiny confusion entries where products leave
// [prodMin, prodMax] (the fast path then declines, and so does JointGrad:
// NaN).
func TestJointGradFastMatchesGeneric(t *testing.T) {
	rng := rand.New(rand.NewPCG(24, 3))
	for _, m := range []*Model{
		buildDS(t, makeDSRagged(rng, 400, 12, 3), true),
		buildDSTwoWeights(t, makeDSRagged(rng, 200, 6, 3)),
		buildDS(t, makeDSRagged(rng, 150, 6, 4), true),
		buildDSExtras(t, makeDSRagged(rng, 150, 6, 3)),
	} {
		all := m.Sites()
		off := nmc.Offsets(all)
		x := make([]float64, nmc.Dim(all))
		sc := m.newScorer()
		every := continuousSites(m)
		ran, declined := 0, 0
		for pt := range 8 {
			if err := m.Init(rng, x); err != nil {
				t.Fatal(err)
			}
			for _, i := range every {
				perturb(rng, all[i], x[off[i]:off[i]+all[i].Size], 0.5)
			}
			if pt >= 6 {
				// Tiny confusion entries at true class 0: every product that reads
				// one is below prodMin (the other classes' are not: the log joint
				// stays finite).
				for _, i := range every {
					if !strings.HasSuffix(all[i].Name, ",0]") || rng.IntN(2) == 0 {
						continue
					}
					xi := x[off[i] : off[i]+all[i].Size]
					xi[0] = 0
					sum := 0.0
					for _, q := range xi {
						sum += q
					}
					for c := range xi {
						xi[c] /= sum
					}
					xi[0] = 1e-260
				}
			}
			subset := slices.Clone(every)
			rng.Shuffle(len(subset), func(a, b int) { subset[a], subset[b] = subset[b], subset[a] })
			subset = subset[:1+rng.IntN(len(subset))]
			for _, sites := range [][]int{every, subset} {
				n := sitesSize(m, sites)
				g, gGen := make([]float64, n), make([]float64, n)
				f, ok := sc.jointFast(m.jointPlan(), x, sites, g, false)
				if ok {
					ran++
				} else {
					declined++
				}
				if !ok && math.IsNaN(f) {
					if v, vv := sc.JointGrad(x, sites, g, false), sc.JointGrad(x, sites, g, true); !math.IsNaN(v) || !math.IsNaN(vv) {
						t.Errorf("point %d: out of the fast pass's range, JointGrad returned %g and (value) %g, want NaN (declined)", pt, v, vv)
					}
					continue
				}
				v := sc.JointGrad(x, sites, g, false)
				if fv := sc.jointGeneric(x, sites, gGen); v != fv {
					t.Errorf("point %d: JointGrad returned %g, general path %g", pt, v, fv)
				}
				if v, lj := sc.JointGrad(x, sites, g, true), sc.LogJoint(x); !close(v, lj, 1e-12) {
					t.Errorf("point %d: value %.17g, LogJoint %.17g", pt, v, lj)
				}
				for c := range g {
					if !close(g[c], gGen[c], 1e-12) {
						t.Errorf("point %d, %d sites, coordinate %d: fast %.17g, general %.17g", pt, len(sites), c, g[c], gGen[c])
					}
				}
			}
		}
		if ran == 0 || declined == 0 {
			t.Errorf("the fast path ran %d times and declined %d times: both must happen", ran, declined)
		}
	}
}

// TestJointGradOutsideSupport checks that JointGrad returns −Inf, with and without
// value, when a listed coordinate leaves its support: a weight at 0 or negative, a
// confusion entry at 0, a negative scale.
func TestJointGradOutsideSupport(t *testing.T) {
	rng := rand.New(rand.NewPCG(24, 4))
	ds := buildDS(t, makeDSRagged(rng, 30, 3, 3), true)
	mix := buildMixture(t, mixtureData, true)
	cases := []struct {
		name  string
		m     *Model
		coord func(m *Model) int
		value float64
	}{
		{"weight 0", ds, func(m *Model) int { o, _, _ := m.Offset("pi"); return o + 1 }, 0},
		{"weight negative", ds, func(m *Model) int { o, _, _ := m.Offset("pi"); return o }, -0.2},
		{"confusion entry 0", ds, func(m *Model) int { o, _, _ := m.Offset("theta"); return o + 4 }, 0},
		{"confusion entry NaN", ds, func(m *Model) int { o, _, _ := m.Offset("theta"); return o + 4 }, math.NaN()},
		{"scale negative", mix, func(m *Model) int { o, _, _ := m.Offset("sigma"); return o }, -1},
	}
	for _, c := range cases {
		sites := continuousSites(c.m)
		x := make([]float64, nmc.Dim(c.m.Sites()))
		if err := c.m.Init(rng, x); err != nil {
			t.Fatal(err)
		}
		x[c.coord(c.m)] = c.value
		sc := c.m.NewScorer().(nmc.JointGradienter)
		g := make([]float64, sitesSize(c.m, sites))
		for _, value := range []bool{true, false} {
			if v := sc.JointGrad(x, sites, g, value); !math.IsInf(v, -1) && !(math.IsNaN(v) && math.IsNaN(c.value)) {
				t.Errorf("%s, value %v: JointGrad returned %g, want −Inf", c.name, value, v)
			}
		}
	}
}

// TestJointGradNoAlloc checks that a warm scorer's JointGrad does not allocate, on
// the fast path and on the general path.
func TestJointGradNoAlloc(t *testing.T) {
	if raceDetector {
		t.Skip("the race detector allocates")
	}
	rng := rand.New(rand.NewPCG(24, 5))
	for name, m := range map[string]*Model{
		"fast":    buildDS(t, makeDSRagged(rng, 100, 5, 3), true),
		"general": buildMixtureRegression(t, true),
	} {
		sites := continuousSites(m)
		x := make([]float64, nmc.Dim(m.Sites()))
		if err := m.Init(rng, x); err != nil {
			t.Fatal(err)
		}
		sc := m.NewScorer().(nmc.JointGradienter)
		g := make([]float64, sitesSize(m, sites))
		for _, value := range []bool{false, true} {
			if a := testing.AllocsPerRun(20, func() { sc.JointGrad(x, sites, g, value) }); a != 0 {
				t.Errorf("%s, value %v: %v allocations per call", name, value, a)
			}
		}
	}
}

// TestJointGradConcurrent runs JointGrad on one model from several goroutines, one
// scorer each (the plan is compiled by whichever comes first), and checks every
// result against a scorer's alone; run with -race.
func TestJointGradConcurrent(t *testing.T) {
	rng := rand.New(rand.NewPCG(24, 6))
	d := makeDSRagged(rng, 200, 6, 3)
	m := buildDS(t, d, true)
	sites := continuousSites(m)
	const workers, points = 4, 5
	states := make([][]float64, points)
	for p := range states {
		states[p] = make([]float64, nmc.Dim(m.Sites()))
		if err := m.Init(rng, states[p]); err != nil {
			t.Fatal(err)
		}
	}
	n := sitesSize(m, sites)
	got := make([][][]float64, workers)
	var wg sync.WaitGroup
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			sc := m.NewScorer().(nmc.JointGradienter)
			for _, x := range states {
				g := make([]float64, n)
				sc.JointGrad(x, sites, g, w%2 == 0)
				got[w] = append(got[w], g)
			}
		}()
	}
	wg.Wait()
	ref := buildDS(t, d, true).NewScorer().(nmc.JointGradienter)
	for p, x := range states {
		g := make([]float64, n)
		ref.JointGrad(x, sites, g, false)
		for w := range workers {
			if !slices.Equal(got[w][p], g) {
				t.Errorf("worker %d, state %d: gradient differs from a lone scorer's", w, p)
			}
		}
	}
}

// TestHamiltonianSites checks the sites of the Hamiltonian block: every site of each
// declared latent, latents in declaration order (a Vector is one site; an augmented
// latent is allowed), and none without a declaration.
func TestHamiltonianSites(t *testing.T) {
	rng := rand.New(rand.NewPCG(24, 7))
	d := makeDS(rng, 10, 3, 3, 2)
	b, pi, z, theta := declareDS(d)
	b.Marginalise(z)
	b.Augment(theta)
	b.Hamiltonian(theta, pi)
	m, err := b.Build()
	if err != nil {
		t.Fatal(err)
	}
	var want []int
	for i, s := range m.Sites() {
		if strings.HasPrefix(s.Name, "theta[") {
			want = append(want, i)
		}
	}
	for i, s := range m.Sites() {
		if s.Name == "pi" {
			want = append(want, i)
		}
	}
	if got := m.HamiltonianSites(); !slices.Equal(got, want) || len(got) != 10 {
		t.Errorf("HamiltonianSites = %v, want %v", got, want)
	}
	if got := buildDS(t, d, true).HamiltonianSites(); len(got) != 0 {
		t.Errorf("without a declaration: HamiltonianSites = %v, want none", got)
	}
	b, _, _ = declareMixtureRegression()
	var beta *Node
	for _, f := range b.fams {
		if f.name == "beta" {
			beta = f.node
		}
	}
	b.Hamiltonian(beta)
	m, err = b.Build()
	if err != nil {
		t.Fatal(err)
	}
	if got := m.HamiltonianSites(); len(got) != 1 || m.Sites()[got[0]].Name != "beta" {
		t.Errorf("Vector beta: HamiltonianSites = %v, want its one site", got)
	}
}

// TestHamiltonianBuildErrors checks that bad declarations of the Hamiltonian block
// are refused with the latent named.
func TestHamiltonianBuildErrors(t *testing.T) {
	d := dsData{items: 3, labelers: 2, classes: 2, item: []int{0, 1, 2}, labeler: []int{0, 1, 0}, label: []int{0, 1, 1}}
	cases := []struct {
		name    string
		declare func(b *Builder, pi, z, theta *Node)
		want    string
	}{
		{"summed out", func(b *Builder, pi, z, theta *Node) { b.Marginalise(z); b.Hamiltonian(pi, z) }, `Hamiltonian "z": the latent is summed out`},
		{"discrete", func(b *Builder, pi, z, theta *Node) { b.Hamiltonian(z) }, `Hamiltonian "z": a discrete latent`},
		{"twice", func(b *Builder, pi, z, theta *Node) { b.Hamiltonian(pi); b.Hamiltonian(theta, pi) }, `Hamiltonian "pi": the latent is declared in the Hamiltonian block twice`},
		{"nil", func(b *Builder, pi, z, theta *Node) { b.Hamiltonian(pi, nil) }, "Hamiltonian: nil node"},
		{"expression", func(b *Builder, pi, z, theta *Node) { b.Hamiltonian(Exp(pi)) }, "is not a latent variable"},
		{"none", func(b *Builder, pi, z, theta *Node) { b.Hamiltonian() }, "Hamiltonian: no latent given"},
	}
	for _, c := range cases {
		b, pi, z, theta := declareDS(d)
		c.declare(b, pi, z, theta)
		_, err := b.Build()
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: Build error %v, want one containing %q", c.name, err, c.want)
		}
	}
}

// TestJointGradBadCall checks that JointGrad refuses, with a message naming what is
// wrong, a discrete or summed-out site, a site out of range and a gradient of the
// wrong length (errors of the calling code, not of the model: it panics, as an
// index out of range would).
func TestJointGradBadCall(t *testing.T) {
	rng := rand.New(rand.NewPCG(24, 8))
	m := buildDS(t, makeDS(rng, 5, 2, 3, 2), true)
	x := make([]float64, nmc.Dim(m.Sites()))
	if err := m.Init(rng, x); err != nil {
		t.Fatal(err)
	}
	sites := continuousSites(m)
	n := sitesSize(m, sites)
	z := slices.IndexFunc(m.Sites(), func(s nmc.Site) bool { return s.Marginalised })
	cases := []struct {
		name  string
		sites []int
		grad  int
		want  string
	}{
		{"summed-out site", append([]int{z}, sites...), n + 1, "is not a continuous site"},
		{"site out of range", []int{len(m.Sites())}, 1, "is not a continuous site"},
		{"short gradient", sites, n - 1, "grad has"},
	}
	for _, c := range cases {
		func() {
			defer func() {
				msg, _ := recover().(string)
				if !strings.Contains(msg, c.want) {
					t.Errorf("%s: panic %q, want one containing %q", c.name, msg, c.want)
				}
			}()
			m.NewScorer().(nmc.JointGradienter).JointGrad(x, c.sites, make([]float64, c.grad), true)
		}()
	}
}

// buildDSTwoLatents is Dawid-Skene with three classes summed out (z) and a second
// summed-out latent of two values (w) whose labels read the same confusion rows:
// w's groups are outside the table (two values) and read coordinates the table's
// rows read, so the pass adds the rows' counts to the coordinates' instead of
// writing them (jointPlan.rowsOwn false).
func buildDSTwoLatents(t testing.TB, d, e dsData) *Model {
	t.Helper()
	c := d.classes
	_, rows, classOf := dsPrior(c, d.labelers, 1, 1.5, 3)
	b := New()
	pi := b.Latent("pi", Dirichlet(Vec(slices.Repeat([]float64{1.5}, c)...)))
	rho := b.Latent("rho", Dirichlet(Vec(2, 2)))
	z := b.Latent("z", Categorical(pi), d.items)
	w := b.Latent("w", Categorical(rho), e.items)
	theta := b.Latent("theta", Dirichlet(Index(Rows(rows), classOf)), d.labelers, c)
	b.ObserveInts("y", Categorical(At(theta, By(d.labeler), ByNode(Index(z, d.item)))), d.label)
	b.ObserveInts("v", Categorical(At(theta, By(e.labeler), ByNode(Index(w, e.item)))), e.label)
	b.Marginalise(z)
	b.Marginalise(w)
	m, err := b.Build()
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// TestJointGradRowsShared checks the fast path where a coordinate a row of the
// table reads is also read by a group outside the table (jointPlan.rowsOwn false:
// the rows' counts are added and every count cleared after the pass): at random
// states, one call after another on one scorer, the gradient matches the general
// path's and the value LogJoint's within 1e-12 relative.
func TestJointGradRowsShared(t *testing.T) {
	rng := rand.New(rand.NewPCG(24, 5))
	d, e := makeDSRagged(rng, 60, 4, 3), makeDSRagged(rng, 40, 4, 2)
	m := buildDSTwoLatents(t, d, e)
	p := m.jointPlan()
	if !p.fast || p.rowsOwn || len(p.other) == 0 || len(p.rows) == 0 {
		t.Fatalf("plan: fast %v, rowsOwn %v, %d groups outside the table, %d rows; want fast, not rowsOwn, both", p.fast, p.rowsOwn, len(p.other), len(p.rows))
	}
	all := m.Sites()
	off := nmc.Offsets(all)
	x := make([]float64, nmc.Dim(all))
	sc := m.newScorer()
	sites := continuousSites(m)
	n := sitesSize(m, sites)
	g, gGen := make([]float64, n), make([]float64, n)
	for pt := range 6 {
		if err := m.Init(rng, x); err != nil {
			t.Fatal(err)
		}
		for _, i := range sites {
			perturb(rng, all[i], x[off[i]:off[i]+all[i].Size], 0.5)
		}
		if _, ok := sc.jointFast(p, x, sites, g, false); !ok {
			t.Fatalf("point %d: the fast path did not apply", pt)
		}
		if v, lj := sc.JointGrad(x, sites, g, true), sc.LogJoint(x); !close(v, lj, 1e-12) {
			t.Errorf("point %d: value %.17g, LogJoint %.17g", pt, v, lj)
		}
		if f := sc.jointGeneric(x, sites, gGen); f != 0 {
			t.Fatalf("point %d: general path returned %g", pt, f)
		}
		for c := range g {
			if !close(g[c], gGen[c], 1e-12) {
				t.Errorf("point %d, coordinate %d: fast %.17g, general %.17g", pt, c, g[c], gGen[c])
			}
		}
	}
}
