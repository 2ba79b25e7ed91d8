package graph

import (
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"gonum.org/v1/gonum/diff/fd"
	"gonum.org/v1/gonum/mat"

	"github.com/nmc-go/nmc/nmc"
)

// gpPoints returns n points evenly spaced on [lo, hi].
func gpPoints(n int, lo, hi float64) []float64 {
	x := make([]float64, n)
	for i := range x {
		x[i] = lo + (hi-lo)*float64(i)/float64(n-1)
	}
	return x
}

// mvnModels are small models with a multivariate normal whose mean, covariance or
// Cholesky factor are nodes, between them moving every kind of argument: the value
// (a latent GP's f), the mean (a Vector site's regression), the covariance's
// amplitude, length scale and noise (scalar sites, one direction each), and a
// Vector site that moves the covariance and the mean at once (dense jets, several
// directions, off the diagonal and on it).
func mvnModels(t *testing.T) map[string]*Model {
	t.Helper()
	out := map[string]*Model{}
	add := func(name string, b *Builder) {
		m, err := b.Build()
		if err != nil {
			t.Fatalf("%s: Build: %v", name, err)
		}
		out[name] = m
	}
	rng := rand.New(rand.NewPCG(4, 5))
	{ // a latent GP with Poisson counts, each kernel
		x := gpPoints(6, -5, 5)
		for kind, kern := range map[string]func(x, a, r *Node) *Node{"expquad": ExpQuadCov, "matern32": Matern32Cov, "matern52": Matern52Cov} {
			b := New()
			rho := b.Latent("rho", Gamma(C(25), C(4)))
			alpha := b.Latent("alpha", HalfNormal(C(2)))
			f := b.Latent("f", MultivariateNormalCov(C(0), AddDiag(kern(Data(x), alpha, rho), C(0.05))))
			b.ObserveInts("k", PoissonLog(Components(f)), []int{1, 0, 3, 7, 2, 1})
			add("latent "+kind, b)
		}
	}
	{ // GP regression, marginal likelihood, with a linear mean
		n := 7
		x := gpPoints(n, 0, 3)
		xm := mat.NewDense(n, 2, nil)
		y := make([]float64, n)
		for i := range y {
			xm.Set(i, 0, 1)
			xm.Set(i, 1, x[i])
			y[i] = math.Sin(2*x[i]) + 0.3*rng.NormFloat64()
		}
		b := New()
		rho := b.Latent("rho", LogNormal(C(0), C(0.5)))
		alpha := b.Latent("alpha", HalfNormal(C(1)))
		sigma := b.Latent("sigma", HalfNormal(C(0.5)))
		beta := b.Vector("beta", 2, Normal(C(0), C(1)))
		K := AddDiag(ExpQuadCov(Data(x), alpha, rho), Add(Mul(sigma, sigma), C(1e-3)))
		b.Observe("y", MultivariateNormalCov(Reshape(MatVec(xm, beta), 1, n), K), y)
		add("regression", b)
	}
	{ // a Vector site moving the covariance (amplitude, noise) and the mean together
		n := 5
		x := gpPoints(n, -1, 1)
		y := []float64{0.4, -0.2, 0.8, 1.1, 0.1}
		b := New()
		u := b.Vector("u", 3, Normal(C(0), C(0.5)))
		u0, u1, u2 := Index(u, []int{0}), Index(u, []int{1}), Index(u, []int{2})
		K := AddDiag(ExpQuadCov(Data(x), Exp(u0), C(0.7)), Exp(u1))
		b.Observe("y", MultivariateNormalCov(u2, K), y)
		add("vector site", b)
	}
	{ // the same density, the noise alone moving the covariance (diagonal directions)
		n := 5
		x := gpPoints(n, -1, 1)
		y := []float64{0.4, -0.2, 0.8, 1.1, 0.1}
		b := New()
		u := b.Vector("u", 2, Normal(C(0), C(0.5)))
		u1, u2 := Index(u, []int{0}), Index(u, []int{1})
		K := AddDiag(ExpQuadCov(Data(x), C(1.3), C(0.7)), Add(Exp(u1), Data([]float64{0.1, 0.2, 0.3, 0.4, 0.5})))
		b.Observe("y", MultivariateNormalCov(u2, K), y)
		add("diagonal", b)
	}
	{ // a plate of observations sharing one covariance (one factor per score)
		n := 4
		x := gpPoints(n, 0, 2)
		b := New()
		alpha := b.Latent("alpha", HalfNormal(C(1)))
		rho := b.Latent("rho", LogNormal(C(0), C(0.3)))
		mu := b.Latent("mu", Normal(C(0), C(1)), 3)
		K := AddDiag(Matern52Cov(Data(x), alpha, rho), C(0.2))
		b.Observe("y", MultivariateNormalCov(Mul(mu, Vec(1, 1, 1, 1)), K), []float64{0.1, 0.3, 0.2, -0.1, 1, 1.2, 0.8, 0.9, -1, -0.7, -0.8, -1.1})
		add("plate", b)
	}
	add("discrete amplitude", discreteAmplitudeGP(false))
	{ // a Cholesky factor whose entries are expressions of latents, and a plate of
		// latent vectors sharing it
		b := New()
		s := b.Latent("s", Gamma(C(4), C(4)))
		c := b.Latent("c", Normal(C(0), C(0.5)))
		d := b.Latent("d", Normal(C(0), C(0.3)), 3)
		d0, d1, d2 := Index(d, []int{0}), Index(d, []int{1}), Index(d, []int{2})
		zero := C(0)
		L := Concat(
			Stack(Exp(d0), zero, zero),
			Stack(Mul(c, s), Mul(s, Exp(d1)), zero),
			Stack(Mul(c, c), Sub(C(0.2), c), Exp(Add(d2, c))),
		)
		w := b.Latent("w", MultivariateNormalCholesky(Mul(c, Vec(1, -1, 0.5)), L), 2)
		b.Observe("y", MultivariateNormalCholesky(Index(w, []int{1}), L), []float64{0.2, -0.3, 1.0})
		b.Observe("z", Normal(Components(w), C(1)), []float64{0.1, 0, 0.3, -0.5, 0.2, 0.9})
		add("cholesky", b)
	}
	return out
}

// discreteAmplitudeGP is an observed GP whose amplitude is amp[z] for a discrete
// latent z, summed out when marg is set: the covariance is evaluated at z's values
// (the scorer's fixSite) besides the state's.
func discreteAmplitudeGP(marg bool) *Builder {
	x := gpPoints(4, 0, 2)
	b := New()
	amp := b.Latent("amp", HalfNormal(C(1)), 2)
	z := b.Latent("z", Categorical(Vec(0.4, 0.6)))
	K := AddDiag(ExpQuadCov(Data(x), At(amp, ByNode(z)), C(0.8)), C(0.1))
	b.Observe("y", MultivariateNormalCov(C(0), K), []float64{0.1, 0.3, 0.2, -0.1})
	if marg {
		b.Marginalise(z)
	}
	return b
}

// TestMVNSummedOut checks a multivariate normal whose covariance reads a
// summed-out discrete latent: the log joint against the log-sum-exp of the
// explicit model's over z's values, and the continuous sites' scores against
// finite differences of the log joint.
func TestMVNSummedOut(t *testing.T) {
	expl, err := discreteAmplitudeGP(false).Build()
	if err != nil {
		t.Fatal(err)
	}
	marg, err := discreteAmplitudeGP(true).Build()
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(2, 9))
	sites := marg.Sites()
	off := nmc.Offsets(sites)
	x := make([]float64, nmc.Dim(sites))
	se, sm := expl.NewScorer(), marg.NewScorer()
	for pt := 0; pt < 5; pt++ {
		if err := marg.Init(rng, x); err != nil {
			t.Fatal(err)
		}
		y := append([]float64(nil), x...)
		terms := make([]float64, 2)
		for v := range terms {
			y[2] = float64(v)
			terms[v] = se.LogJoint(y)
		}
		want := math.Max(terms[0], terms[1]) + math.Log1p(math.Exp(-math.Abs(terms[0]-terms[1])))
		if got := sm.LogJoint(x); !close(got, want, 1e-12) {
			t.Errorf("point %d: summed-out log joint %.15g, enumeration %.15g", pt, got, want)
		}
		for i, s := range sites {
			if s.Marginalised {
				continue
			}
			if !checkSite(t, "summed out", sm, x, off[i], i, s, rng) {
				return
			}
		}
	}
}

// TestMVNDerivatives checks every site of the models of mvnModels against finite
// differences of the log joint (checkModelDerivs): the value, mean, covariance and
// Cholesky-factor paths of the multivariate normal's jets.
func TestMVNDerivatives(t *testing.T) {
	for name, m := range mvnModels(t) {
		t.Run(name, func(t *testing.T) {
			st := checkModelDerivs(t, name, m, rand.New(rand.NewPCG(21, uint64(len(name)))), 5, 200)
			if !t.Failed() && st.points < 5 {
				t.Errorf("only %d acceptable points", st.points)
			}
			t.Logf("%d points, %d sites, %d directions", st.points, st.sites, st.directions)
		})
	}
}

// refMVNLogProb returns log N(y | mean, cov) by gonum's symmetric eigendecomposition
// of cov (an algorithm independent of the Cholesky factorisation the engine uses):
// −½ Σ log λ_i − ½ Σ (v_iᵀ(y − mean))²/λ_i − (n/2) log 2π. (gonum's distmv.Normal
// would need golang.org/x/tools, a module outside the project's dependencies.)
func refMVNLogProb(t *testing.T, y, mean []float64, cov *mat.SymDense) float64 {
	t.Helper()
	var eig mat.EigenSym
	if !eig.Factorize(cov, true) {
		t.Fatal("EigenSym failed")
	}
	vals := eig.Values(nil)
	var vecs mat.Dense
	eig.VectorsTo(&vecs)
	n := len(y)
	lp := -0.5 * float64(n) * math.Log(2*math.Pi)
	for i, l := range vals {
		proj := 0.0
		for j := 0; j < n; j++ {
			proj += vecs.At(j, i) * (y[j] - mean[j])
		}
		lp -= 0.5*math.Log(l) + 0.5*proj*proj/l
	}
	return lp
}

// TestMVNLogDensityValues checks the log joint of a GP regression at random states
// against refMVNLogProb with the covariance computed here, plus the priors from
// their closed forms, for both the covariance and the Cholesky-factor forms.
func TestMVNLogDensityValues(t *testing.T) {
	n := 9
	x := gpPoints(n, -2, 2)
	y := make([]float64, n)
	rng := rand.New(rand.NewPCG(7, 7))
	for i := range y {
		y[i] = rng.NormFloat64()
	}
	for _, chol := range []bool{false, true} {
		b := New()
		rho := b.Latent("rho", Exponential(C(1)))
		alpha := b.Latent("alpha", Exponential(C(1)))
		sigma := b.Latent("sigma", Exponential(C(1)))
		mu := b.Latent("mu", Normal(C(0), C(1)))
		K := AddDiag(ExpQuadCov(Data(x), alpha, rho), Mul(sigma, sigma))
		if chol {
			// L from the covariance's Cholesky factor, computed here, as data
			// scaled by a latent: K(s) = s²·K0.
			b2 := New()
			s := b2.Latent("s", Exponential(C(1)))
			mu2 := b2.Latent("mu", Normal(C(0), C(1)))
			k0 := mat.NewSymDense(n, nil)
			for i := 0; i < n; i++ {
				for j := 0; j <= i; j++ {
					d := x[i] - x[j]
					v := 1.7 * math.Exp(-d*d/(2*0.8*0.8))
					if i == j {
						v += 0.3
					}
					k0.SetSym(i, j, v)
				}
			}
			var ch mat.Cholesky
			if !ch.Factorize(k0) {
				t.Fatal("K0 not positive definite")
			}
			var l0 mat.TriDense
			ch.LTo(&l0)
			rows := make([][]float64, n)
			for i := range rows {
				rows[i] = make([]float64, n)
				for j := 0; j <= i; j++ {
					rows[i][j] = l0.At(i, j)
				}
			}
			b2.Observe("y", MultivariateNormalCholesky(mu2, Mul(Rows(rows), s)), y)
			m, err := b2.Build()
			if err != nil {
				t.Fatal(err)
			}
			sc := m.NewScorer()
			st := make([]float64, 2)
			for trial := 0; trial < 20; trial++ {
				if err := m.Init(rng, st); err != nil {
					t.Fatal(err)
				}
				sv, mv := st[0], st[1]
				cov := mat.NewSymDense(n, nil)
				cov.ScaleSym(sv*sv, k0)
				mean := make([]float64, n)
				for i := range mean {
					mean[i] = mv
				}
				want := refMVNLogProb(t, y, mean, cov) - sv - 0.5*mv*mv - 0.5*math.Log(2*math.Pi)
				if got := sc.LogJoint(st); !close(got, want, 1e-11) {
					t.Errorf("Cholesky at %v: log joint %.15g, want %.15g", st, got, want)
				}
			}
			continue
		}
		b.Observe("y", MultivariateNormalCov(mu, K), y)
		m, err := b.Build()
		if err != nil {
			t.Fatal(err)
		}
		sc := m.NewScorer()
		st := make([]float64, 4)
		for trial := 0; trial < 20; trial++ {
			if err := m.Init(rng, st); err != nil {
				t.Fatal(err)
			}
			r, a, s, mv := st[0], st[1], st[2], st[3]
			cov := mat.NewSymDense(n, nil)
			for i := 0; i < n; i++ {
				for j := 0; j <= i; j++ {
					d := x[i] - x[j]
					v := a * a * math.Exp(-d*d/(2*r*r))
					if i == j {
						v += s * s
					}
					cov.SetSym(i, j, v)
				}
			}
			mean := make([]float64, n)
			for i := range mean {
				mean[i] = mv
			}
			want := refMVNLogProb(t, y, mean, cov) - r - a - s - 0.5*mv*mv - 0.5*math.Log(2*math.Pi)
			if got := sc.LogJoint(st); !close(got, want, 1e-11) {
				t.Errorf("at %v: log joint %.15g, want %.15g", st, got, want)
			}
			// The site scores agree with the log joint's differences (values only,
			// from the cache and without).
			for i := range m.Sites() {
				f0 := sc.Score(st, i, nil, nil)
				old := st[i]
				st[i] *= 1.1
				f1, j1 := sc.Score(st, i, nil, nil), sc.LogJoint(st)
				st[i] = old
				if d1, d2 := f1-f0, j1-sc.LogJoint(st); !close(d1, d2, 1e-10) {
					t.Errorf("site %d: score difference %.15g, log-joint difference %.15g", i, d1, d2)
				}
			}
		}
	}
}

// TestMVNDenseDerivs checks mvnFamily.Derivs, the jet computation with every
// argument its own coordinate, against finite differences of LogProb, for both
// forms at n = 3.
func TestMVNDenseDerivs(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 3))
	n := 3
	for _, chol := range []bool{false, true} {
		f := &mvnFamily{n: n, chol: chol}
		na := 2*n + n*n
		for trial := 0; trial < 5; trial++ {
			args := make([]float64, na)
			for i := 0; i < 2*n; i++ {
				args[i] = rng.NormFloat64()
			}
			a := mat.NewDense(n, n, nil)
			for i := 0; i < n; i++ {
				for j := 0; j < n; j++ {
					a.Set(i, j, rng.NormFloat64())
				}
			}
			c := args[2*n:]
			if chol {
				for i := 0; i < n; i++ {
					for j := 0; j <= i; j++ {
						c[i*n+j] = a.At(i, j)
					}
					c[i*n+i] = 0.5 + math.Abs(c[i*n+i])
				}
			} else {
				var k mat.Dense
				k.Mul(a, a.T())
				for i := 0; i < n; i++ {
					for j := 0; j < n; j++ {
						c[i*n+j] = k.At(i, j)
					}
					c[i*n+i] += 0.5
				}
			}
			g, h := make([]float64, na), make([]float64, na*na)
			lp := f.Derivs(args, n, g, h)
			if want := f.LogProb(args, n); !close(lp, want, 1e-13) {
				t.Errorf("chol %v: Derivs value %.15g, LogProb %.15g", chol, lp, want)
			}
			// The log density reads the lower triangle: for the covariance, both
			// mirror entries move together in the finite differences.
			argsAt := func(p int, e float64) []float64 {
				b := append([]float64(nil), args...)
				b[p] += e
				if !chol && p >= 2*n {
					if i, j := (p-2*n)/n, (p-2*n)%n; i != j {
						b[2*n+j*n+i] += e
					}
				}
				return b
			}
			lpAt := func(p int, e float64) float64 { return f.LogProb(argsAt(p, e), n) }
			for p := 0; p < na; p++ {
				if p >= 2*n && (p-2*n)%n > (p-2*n)/n {
					if g[p] != 0 {
						t.Errorf("chol %v: upper entry %d has gradient %g", chol, p, g[p])
					}
					continue
				}
				want := fd.Derivative(func(e float64) float64 { return lpAt(p, e) }, 0, &fd.Settings{Formula: central4, Step: 1e-4})
				if !close(g[p], want, 1e-6) {
					t.Errorf("chol %v: ∂/∂arg %d = %.10g, finite difference %.10g", chol, p, g[p], want)
				}
				for q := 0; q < na; q++ {
					if q >= 2*n && (q-2*n)%n > (q-2*n)/n {
						continue
					}
					gq, hq := make([]float64, na), make([]float64, na*na)
					want := fd.Derivative(func(e float64) float64 {
						f.Derivs(argsAt(p, e), n, gq, hq)
						return gq[q]
					}, 0, &fd.Settings{Formula: central4, Step: 1e-4})
					if !close(h[p*na+q], want, 1e-6) {
						t.Errorf("chol %v: ∂²/∂%d∂%d = %.10g, finite difference %.10g", chol, p, q, h[p*na+q], want)
					}
				}
			}
		}
	}
}

// TestMVNWidthErrors checks that Build refuses a mean of the wrong width with the
// error other families give, for the constant-covariance MultivariateNormal (which
// built such a model before, every density −Inf) and for the node forms.
func TestMVNWidthErrors(t *testing.T) {
	n := 11
	cov := mat.NewSymDense(n, nil)
	for i := 0; i < n; i++ {
		cov.SetSym(i, i, 1)
	}
	x := gpPoints(n, -10, 10)
	cases := []struct {
		name  string
		build func(b *Builder)
		want  string
	}{
		{"constant covariance, 3-wide mean", func(b *Builder) {
			v := b.Vector("v", 3, Normal(C(0), C(1)))
			b.Latent("f", MultivariateNormal(Reshape(v, 1, 3), cov))
		}, "MultivariateNormal parameter mean has width 3, want 11"},
		{"constant covariance, observed", func(b *Builder) {
			m := b.Latent("m", MultivariateNormal(Vec(0, 0, 0), mat.NewSymDense(3, []float64{1, 0, 0, 0, 1, 0, 0, 0, 1})))
			b.Observe("y", MultivariateNormal(m, cov), make([]float64, n))
		}, "MultivariateNormal parameter mean has width 3, want 11"},
		{"kernel covariance, 3-wide mean", func(b *Builder) {
			v := b.Vector("v", 3, Normal(C(0), C(1)))
			b.Latent("f", MultivariateNormalCov(Reshape(v, 1, 3), ExpQuadCov(Data(x), C(1), C(1))))
		}, "MultivariateNormal parameter mean has width 3, want 11"},
		{"kernel covariance, a Vector as the mean", func(b *Builder) {
			v := b.Vector("v", n, Normal(C(0), C(1)))
			b.Latent("f", MultivariateNormalCov(v, ExpQuadCov(Data(x), C(1), C(1))))
		}, "Reshape(mean, 1, 11)"},
		{"Cholesky factor not square", func(b *Builder) {
			b.Latent("f", MultivariateNormalCholesky(C(0), Reshape(ExpQuadCov(Data(x), C(1), C(1)), 1, n*n)))
		}, "parameter L has 1 elements of width 121, want a square matrix"},
		{"kernel of latent points", func(b *Builder) {
			p := b.Latent("p", Normal(C(0), C(1)), 3)
			b.Latent("f", MultivariateNormalCov(C(0), ExpQuadCov(p, C(1), C(1))))
		}, "ExpQuadCov: the points are not data"},
		{"vector amplitude", func(b *Builder) {
			a := b.Vector("a", 2, HalfNormal(C(1)))
			b.Latent("f", MultivariateNormalCov(C(0), ExpQuadCov(Data(x), a, C(1))))
		}, "alpha has 2 elements of width 1, want a scalar"},
		{"AddDiag of a non-square node", func(b *Builder) {
			b.Latent("f", MultivariateNormalCov(C(0), AddDiag(Data(x), C(1))))
		}, "AddDiag: the matrix has 11 elements of width 1"},
		{"observed values of the wrong width", func(b *Builder) {
			a := b.Latent("a", HalfNormal(C(1)))
			b.Observe("y", MultivariateNormalCov(C(0), ExpQuadCov(Data(x), a, C(1))), make([]float64, 12))
		}, "12 values, want 11"},
		{"constant covariance not positive definite", func(b *Builder) {
			b.Latent("f", MultivariateNormalCov(C(0), ExpQuadCov(Data([]float64{1, 1, 2}), C(1), C(1))))
		}, "must be positive definite"},
	}
	for _, c := range cases {
		b := New()
		c.build(b)
		_, err := b.Build()
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: Build error %v, want one containing %q", c.name, err, c.want)
		}
	}
}

// TestMVNInitDraws checks that Init draws a latent MVN from the covariance at the
// parameters drawn before it: the sample covariance of 20,000 draws of f given a
// constant amplitude and length scale, each entry within 4.5 standard errors.
func TestMVNInitDraws(t *testing.T) {
	x := []float64{0, 0.5, 1.5}
	b := New()
	a := b.Latent("a", Normal(C(1.5), C(1e-9)))
	b.Latent("f", MultivariateNormalCov(Vec(1, -1, 0), AddDiag(ExpQuadCov(Data(x), a, C(1)), C(0.1))))
	m, err := b.Build()
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(1, 2))
	const draws = 20000
	st := make([]float64, 4)
	var sum [3]float64
	var prod [3][3]float64
	for d := 0; d < draws; d++ {
		if err := m.Init(rng, st); err != nil {
			t.Fatal(err)
		}
		for i := 0; i < 3; i++ {
			sum[i] += st[1+i]
			for j := 0; j < 3; j++ {
				prod[i][j] += st[1+i] * st[1+j]
			}
		}
	}
	mean := []float64{1, -1, 0}
	for i := 0; i < 3; i++ {
		for j := 0; j < 3; j++ {
			d := x[i] - x[j]
			kij := 2.25 * math.Exp(-d*d/2)
			kii := 2.25 + 0.1
			if i == j {
				kij += 0.1
			}
			got := prod[i][j]/draws - sum[i]*sum[j]/(draws*draws)
			// Var of a product of two centred normals: K_ii K_jj + K_ij².
			se := math.Sqrt((kii*kii + kij*kij) / draws)
			if math.Abs(got-kij) > 4.5*se {
				t.Errorf("cov[%d,%d] = %.4f, want %.4f ± %.4f", i, j, got, kij, se)
			}
		}
		if got := sum[i] / draws; math.Abs(got-mean[i]) > 4.5*math.Sqrt((2.25+0.1)/draws) {
			t.Errorf("mean[%d] = %.4f, want %v", i, got, mean[i])
		}
	}
}
