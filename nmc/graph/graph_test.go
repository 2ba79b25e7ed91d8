package graph

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/nmc-go/nmc/nmc"
)

// testModels returns every model the modelling layer must express (issue 2), built
// on small random data.
func testModels(t *testing.T) map[string]*Model {
	t.Helper()
	rng := rand.New(rand.NewPCG(7, 1))
	out := map[string]*Model{}
	add := func(name string, b *Builder) {
		m, err := b.Build()
		if err != nil {
			t.Fatalf("%s: Build: %v", name, err)
		}
		out[name] = m
	}

	// Neal's funnel: z ~ N(0, 3), x ~ N(0, exp(z/2)).
	{
		b := New()
		z := b.Latent("z", Normal(C(0), C(3)))
		b.Latent("x", Normal(C(0), Exp(Mul(z, C(0.5)))))
		add("funnel", b)
	}
	// Bayesian logistic regression, beta as one K-dimensional site.
	n, k := 60, 4
	x := mat.NewDense(n, k, nil)
	y := make([]float64, n)
	yr := make([]float64, n)
	for i := 0; i < n; i++ {
		for j := 0; j < k; j++ {
			x.Set(i, j, rng.NormFloat64()*2)
		}
		y[i] = float64(rng.IntN(2))
		yr[i] = rng.NormFloat64() * 3
	}
	{
		b := New()
		alpha := b.Latent("alpha", Normal(C(0), C(10)))
		beta := b.Vector("beta", k, Normal(C(0), C(2.5)))
		b.Observe("y", BernoulliLogit(Add(alpha, MatVec(x, beta))), y)
		add("blr", b)
	}
	// Robust regression.
	{
		b := New()
		nu := b.Latent("nu", Gamma(C(2), C(0.1)))
		sigma := b.Latent("sigma", Exponential(C(0.1)))
		alpha := b.Latent("alpha", Normal(C(0), C(10)))
		beta := b.Vector("beta", k, Normal(C(0), C(2.5)))
		b.Observe("y", StudentT(nu, Add(alpha, MatVec(x, beta)), sigma), yr)
		add("robust", b)
	}
	// Dawid-Skene.
	{
		items, labelers, classes := 12, 3, 3
		b := New()
		pi := b.Latent("pi", Dirichlet(Vec(1.0/3, 1.0/3, 1.0/3)))
		z := b.Latent("z", Categorical(pi), items)
		rows := make([][]float64, classes)
		for m := range rows {
			rows[m] = make([]float64, classes)
			for c := range rows[m] {
				rows[m][c] = 10 * 0.5 / float64(classes-1)
				if c == m {
					rows[m][c] = 10 * 0.5
				}
			}
		}
		classOf := make([]int, labelers*classes)
		for l := 0; l < labelers; l++ {
			for m := 0; m < classes; m++ {
				classOf[l*classes+m] = m
			}
		}
		theta := b.Latent("theta", Dirichlet(Index(Rows(rows), classOf)), labelers, classes)
		var item, labeler, label []int
		for i := 0; i < items; i++ {
			for l := 0; l < labelers; l++ {
				if rng.IntN(3) > 0 {
					item, labeler, label = append(item, i), append(labeler, l), append(label, rng.IntN(classes))
				}
			}
		}
		b.ObserveInts("y", Categorical(At(theta, By(labeler), ByNode(Index(z, item)))), label)
		add("dawid-skene", b)
	}
	// Eight schools.
	ys := []float64{28, 8, -3, 7, -1, 1, 18, 12}
	ss := []float64{15, 10, 16, 11, 9, 11, 10, 18}
	{
		b := New()
		mu := b.Latent("mu", Normal(C(0), C(5)))
		tau := b.Latent("tau", HalfCauchy(C(5)))
		theta := b.Latent("theta", Normal(mu, tau), 8)
		b.Observe("y", Normal(theta, Data(ss)), ys)
		add("eight-centred", b)
	}
	{
		b := New()
		mu := b.Latent("mu", Normal(C(0), C(5)))
		tau := b.Latent("tau", HalfCauchy(C(5)))
		raw := b.Latent("theta_raw", Normal(C(0), C(1)), 8)
		theta := Add(mu, Mul(tau, raw))
		b.Deterministic("theta", theta)
		b.Observe("y", Normal(theta, Data(ss)), ys)
		add("eight-noncentred", b)
	}
	// MVN prior with an MVN child.
	{
		cov := mat.NewSymDense(2, []float64{1, .8, .8, 1})
		b := New()
		xs := b.Latent("x", MultivariateNormal(Vec(1, 1), cov))
		b.Observe("y", MultivariateNormal(xs, cov), []float64{2, 2})
		add("mvn", b)
	}
	return out
}

// perturb moves site i of x to a nearby point inside its support.
func perturb(rng *rand.Rand, s nmc.Site, x []float64, scale float64) {
	switch s.Support {
	case nmc.Real:
		for c := range x {
			x[c] += scale * rng.NormFloat64()
		}
	case nmc.Positive:
		for c := range x {
			x[c] = s.Lower + (x[c]-s.Lower)*math.Exp(scale*rng.NormFloat64())
		}
	case nmc.Interval:
		for c := range x {
			u := (x[c] - s.Lower) / (s.Upper - s.Lower)
			l := math.Log(u/(1-u)) + scale*rng.NormFloat64()
			x[c] = s.Lower + (s.Upper-s.Lower)/(1+math.Exp(-l))
		}
	case nmc.Simplex:
		sum := 0.0
		for c := range x {
			x[c] *= math.Exp(scale * rng.NormFloat64())
			sum += x[c]
		}
		for c := range x {
			x[c] /= sum
		}
	case nmc.Discrete:
		if s.NumValues > 0 {
			x[0] = float64(rng.IntN(s.NumValues))
		} else {
			x[0] = math.Max(0, x[0]+float64(rng.IntN(3)-1))
		}
	}
}

// directions returns the directions along which site s's derivatives are checked:
// coordinate axes, or simplex tangents e_i − e_j.
func directions(s nmc.Site) [][]float64 {
	var out [][]float64
	if s.Support == nmc.Simplex {
		for i := 0; i < s.Size; i++ {
			for j := i + 1; j < s.Size; j++ {
				d := make([]float64, s.Size)
				d[i], d[j] = 1, -1
				out = append(out, d)
			}
		}
		return out
	}
	for i := 0; i < s.Size; i++ {
		d := make([]float64, s.Size)
		d[i] = 1
		out = append(out, d)
	}
	// and one mixed direction, to exercise off-diagonal terms
	if s.Size > 1 {
		d := make([]float64, s.Size)
		for i := range d {
			d[i] = 1 / float64(i+1)
		}
		out = append(out, d)
	}
	return out
}

// checkDerivs compares each continuous site's score, gradient and Hessian with
// finite differences of the full log joint, and its Markov-blanket differences
// with log-joint differences.
func checkDerivs(t *testing.T, name string, m *Model, rng *rand.Rand, points int) {
	t.Helper()
	sites := m.Sites()
	off := nmc.Offsets(sites)
	x := make([]float64, nmc.Dim(sites))
	sc := m.NewScorer()
	for pt := 0; pt < points; pt++ {
		if err := m.Init(rng, x); err != nil {
			t.Fatalf("%s: Init: %v", name, err)
		}
		for i, s := range sites {
			xi := x[off[i] : off[i]+s.Size]
			// Markov blanket: f(x') − f(x) = log joint(x') − log joint(x).
			f0, j0 := sc.Score(x, i, nil, nil), sc.LogJoint(x)
			saved := append([]float64(nil), xi...)
			perturb(rng, s, xi, 0.3)
			f1, j1 := sc.Score(x, i, nil, nil), sc.LogJoint(x)
			copy(xi, saved)
			if d1, d2 := f1-f0, j1-j0; !close(d1, d2, 1e-8) {
				t.Errorf("%s site %s: score difference %.12g, log-joint difference %.12g", name, s.Name, d1, d2)
			}
			if s.Support == nmc.Discrete {
				continue
			}
			k := s.Size
			g, h := make([]float64, k), make([]float64, k*k)
			f := sc.Score(x, i, g, h)
			if fv := sc.Score(x, i, nil, nil); !close(f, fv, 1e-12) {
				t.Errorf("%s site %s: score with derivatives %g, without %g", name, s.Name, f, fv)
			}
			for _, d := range directions(s) {
				// h chosen for central differences of a smooth function; scaled to the coordinate.
				step := 1e-4
				for c := range d {
					if d[c] != 0 {
						step = math.Min(step, 1e-4*math.Max(math.Abs(xi[c])/math.Abs(d[c]), 1e-2))
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
				fp, fm, f2p, f2m := at(step), at(-step), at(2*step), at(-2*step)
				fdG := (8*(fp-fm) - (f2p - f2m)) / (12 * step)
				gd := 0.0
				for p := 0; p < k; p++ {
					gd += g[p] * d[p]
				}
				if !close(gd, fdG, 1e-5) {
					t.Errorf("%s site %s direction %v: gradient %.10g, finite difference %.10g", name, s.Name, d, gd, fdG)
				}
				// H·d against central differences of the (checked) analytic gradient.
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
				for p := 0; p < k; p++ {
					hd := 0.0
					for q := 0; q < k; q++ {
						hd += h[p*k+q] * d[q]
					}
					fd := (gp[p] - gm[p]) / (2 * hstep)
					if !close(hd, fd, 1e-5) {
						t.Errorf("%s site %s direction %v: (H·d)[%d] = %.10g, finite difference of the gradient %.10g", name, s.Name, d, p, hd, fd)
					}
				}
			}
			for p := 0; p < k; p++ {
				for q := 0; q < k; q++ {
					if h[p*k+q] != h[q*k+p] {
						t.Errorf("%s site %s: Hessian not symmetric at [%d,%d]", name, s.Name, p, q)
					}
				}
			}
		}
	}
}

// close reports whether a and b agree to rel relative to max(1, |a|, |b|).
func close(a, b, rel float64) bool {
	if math.IsNaN(a) || math.IsNaN(b) {
		return false
	}
	if math.IsInf(a, 0) || math.IsInf(b, 0) {
		return a == b // an infinite difference is not within any tolerance of an infinite value
	}
	return math.Abs(a-b) <= rel*math.Max(1, math.Max(math.Abs(a), math.Abs(b)))
}

func TestModelsDerivativesAndBlanket(t *testing.T) {
	for name, m := range testModels(t) {
		t.Run(name, func(t *testing.T) {
			checkDerivs(t, name, m, rand.New(rand.NewPCG(11, uint64(len(name)))), 4)
		})
	}
}

func TestSiteNames(t *testing.T) {
	ms := testModels(t)
	var names []string
	for _, s := range ms["dawid-skene"].Sites() {
		names = append(names, s.Coords()...)
	}
	got := strings.Join(names, " ")
	for _, want := range []string{"pi[0] pi[1] pi[2]", "z[0] ", "z[11] ", "theta[0,0,0] theta[0,0,1] theta[0,0,2] theta[0,1,0]", "theta[2,2,2]"} {
		if !strings.Contains(got+" ", want) {
			t.Errorf("dawid-skene coordinates %q lack %q", got, want)
		}
	}
	var blr []string
	for _, s := range ms["blr"].Sites() {
		blr = append(blr, s.Coords()...)
	}
	if g := strings.Join(blr, " "); g != "alpha beta[0] beta[1] beta[2] beta[3]" {
		t.Errorf("blr coordinates %q", g)
	}
	if g := fmt.Sprint(ms["eight-noncentred"].DerivedNames()[:2]); g != "[theta[0] theta[1]]" {
		t.Errorf("derived names %s", g)
	}
}

// TestMarkovBlanketSize checks that a theta[l,m] site of Dawid-Skene touches only
// labeler l's labels (times the candidates of each label's class) plus its prior.
func TestMarkovBlanketSize(t *testing.T) {
	m := testModels(t)["dawid-skene"]
	for i, s := range m.Sites() {
		if s.Name == "pi" {
			if got := m.Blanket(i); got != 1+12 {
				t.Errorf("pi blanket %d, want 13 (prior + 12 z)", got)
			}
		}
	}
}
