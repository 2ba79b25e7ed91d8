package graph

import (
	"maps"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/nmc-go/nmc/nmc"
)

// buildScalarRegression declares y ~ Normal(alpha + beta·x, sigma) with alpha and
// beta two scalar latents and uncentred x (their posterior correlation near −1).
func buildScalarRegression(t testing.TB, n int, seed uint64) *Model {
	t.Helper()
	rng := rand.New(rand.NewPCG(seed, 1))
	xs, ys := make([]float64, n), make([]float64, n)
	for i := range xs {
		xs[i] = 100 + 10*rng.NormFloat64()
		ys[i] = 1 + 0.5*xs[i] + rng.NormFloat64()
	}
	b := New()
	alpha := b.Latent("alpha", Normal(C(0), C(100)))
	beta := b.Latent("beta", Normal(C(0), C(10)))
	sigma := b.Latent("sigma", HalfNormal(C(5)))
	b.Observe("y", Normal(Add(alpha, Mul(beta, Data(xs))), sigma), ys)
	m, err := b.Build()
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// buildSoftmax declares a multinomial logistic regression of n rows and 3
// categories whose logits are a Stack of a constant 0, a MatVec over a Vector site
// of 5 coefficients and an intercept plus a MatVec over a plate of 3 scalar sites:
// a block of its sites is scored in one pass, MatVec and Stack included.
func buildSoftmax(t testing.TB, n int) *Model {
	t.Helper()
	rng := rand.New(rand.NewPCG(9, 10))
	x5, x3 := mat.NewDense(n, 5, nil), mat.NewDense(n, 3, nil)
	for i := range n {
		for j := range 5 {
			x5.Set(i, j, rng.NormFloat64())
		}
		for j := range 3 {
			x3.Set(i, j, rng.NormFloat64())
		}
	}
	y := make([]int, n)
	for i := range y {
		y[i] = rng.IntN(3)
	}
	b := New()
	b1 := b.Vector("b1", 5, Normal(C(0), C(1)))
	b2 := b.Latent("b2", Normal(C(0), C(1)), 3)
	alpha := b.Latent("alpha", Normal(C(0), C(2)))
	b.ObserveInts("y", CategoricalLogits(Stack(C(0), MatVec(x5, b1), Add(alpha, MatVec(x3, b2)))), y)
	m, err := b.Build()
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// buildPKPositive declares a three-coordinate Positive site k = (ka, ke, v) of a
// one-compartment oral-dose curve c(t) = D·ka/(v(ka − ke))·(e^{−ke t} − e^{−ka t}),
// observed on the log scale: its coordinates' posterior is correlated.
func buildPKPositive(t testing.TB) *Model {
	t.Helper()
	times := []float64{0.5, 1, 2, 4, 6, 8, 12, 24}
	obs := []float64{1.4, 2.1, 2.6, 2.4, 2.0, 1.6, 1.1, 0.35}
	b := New()
	k := b.Vector("k", 3, LogNormal(C(0), C(1)))
	ka, ke, v := Index(k, []int{0}), Index(k, []int{1}), Index(k, []int{2})
	ts := Data(times)
	curve := Mul(Div(Mul(C(10), ka), Mul(v, Sub(ka, ke))), Sub(Exp(Neg(Mul(ke, ts))), Exp(Neg(Mul(ka, ts)))))
	b.Observe("c", LogNormal(Log(curve), C(0.15)), obs)
	m, err := b.Build()
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// buildSimplexMixed declares a simplex w read with a positive scale s and a real
// offset m by the same observations: y ~ Normal(m + s·(w·c), 1), and counts of w.
func buildSimplexMixed(t testing.TB) *Model {
	t.Helper()
	b := New()
	w := b.Latent("w", Dirichlet(Vec(2, 3, 4)))
	s := b.Latent("s", Gamma(C(3), C(2)))
	m0 := b.Latent("m", Normal(C(0), C(2)))
	b.ObserveInts("n", Categorical(w), []int{0, 1, 1, 2, 2, 2, 1, 0})
	wc := Dot(w, Vec(1, 2, 5))
	b.Observe("y", Normal(Add(m0, Mul(s, wc)), C(1)), []float64{5.5, 6.1, 4.9, 7.2})
	mod, err := b.Build()
	if err != nil {
		t.Fatal(err)
	}
	return mod
}

// buildGPBlock declares a Gaussian process regression on n points (y ~
// MultivariateNormal(0, K), K = kernel(x; alpha, rho) + sigma²I: the marginal
// likelihood of posteriordb's gp_regr) with the exponentiated quadratic kernel,
// or Matérn 5/2 with matern; with latent, the latent GP of gp_pois_regr instead
// (f ~ MultivariateNormal(0, K + 1e−10·I), counts ~ PoissonLog(f)).
func buildGPBlock(t testing.TB, n int, matern, latent bool) *Model {
	t.Helper()
	rng := rand.New(rand.NewPCG(uint64(n), 7))
	xs, ys, ks := make([]float64, n), make([]float64, n), make([]int, n)
	for i := range xs {
		xs[i] = -10 + 20*float64(i)/float64(n-1)
		ys[i] = math.Sin(xs[i]/3) + 0.3*rng.NormFloat64()
		ks[i] = rng.IntN(6)
	}
	b := New()
	rho := b.Latent("rho", Gamma(C(25), C(4)))
	alpha := b.Latent("alpha", HalfNormal(C(2)))
	kern := ExpQuadCov(Data(xs), alpha, rho)
	if matern {
		kern = Matern52Cov(Data(xs), alpha, rho)
	}
	if latent {
		f := b.Latent("f", MultivariateNormalCov(C(0), AddDiag(kern, C(1e-10))))
		b.ObserveInts("k", PoissonLog(Components(f)), ks)
	} else {
		sigma := b.Latent("sigma", HalfNormal(C(1)))
		b.Observe("y", MultivariateNormalCov(C(0), AddDiag(kern, Mul(sigma, sigma))), ys)
	}
	m, err := b.Build()
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// buildGPTwoKernels declares a Gaussian process regression whose covariance is
// the sum of an exponentiated quadratic and a Matérn 3/2 kernel, each with its
// own amplitude and length scale, and a noise: two length scales, so two
// directions in which the covariance moves neither as a multiple of itself nor on
// its diagonal.
func buildGPTwoKernels(t testing.TB, n int) *Model {
	t.Helper()
	rng := rand.New(rand.NewPCG(uint64(n), 8))
	xs, ys := make([]float64, n), make([]float64, n)
	for i := range xs {
		xs[i] = -5 + 10*float64(i)/float64(n-1)
		ys[i] = math.Cos(xs[i]/2) + 0.3*rng.NormFloat64()
	}
	b := New()
	rho1 := b.Latent("rho1", Gamma(C(25), C(4)))
	alpha1 := b.Latent("alpha1", HalfNormal(C(2)))
	rho2 := b.Latent("rho2", Gamma(C(10), C(10)))
	alpha2 := b.Latent("alpha2", HalfNormal(C(1)))
	sigma := b.Latent("sigma", HalfNormal(C(1)))
	kern := Add(ExpQuadCov(Data(xs), alpha1, rho1), Matern32Cov(Data(xs), alpha2, rho2))
	b.Observe("y", MultivariateNormalCov(C(0), AddDiag(kern, Mul(sigma, sigma))), ys)
	m, err := b.Build()
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// tangent returns a random direction over the block's coordinates, zero-sum on
// each simplex site's part; only sites listed in on move.
func tangent(rng *rand.Rand, all []nmc.Site, sites []int, on map[int]bool) []float64 {
	var d []float64
	for _, i := range sites {
		s := all[i]
		part := make([]float64, s.Size)
		if on[i] {
			for c := range part {
				part[c] = rng.NormFloat64()
			}
			if s.Support == nmc.Simplex {
				mean := 0.0
				for _, v := range part {
					mean += v / float64(len(part))
				}
				for c := range part {
					part[c] -= mean
				}
			}
		}
		d = append(d, part...)
	}
	return d
}

// blockStep returns a finite-difference step along d small against the distance of
// the block's coordinates to their supports' bounds.
func blockStep(all []nmc.Site, off, sites []int, x, d []float64) float64 {
	step, at := 1e-4, 0
	for _, i := range sites {
		s := all[i]
		for c := range s.Size {
			v := x[off[i]+c]
			if d[at+c] != 0 {
				scale := math.Max(math.Abs(v), 1)
				switch s.Support {
				case nmc.Positive, nmc.Simplex:
					scale = v - s.Lower
				case nmc.Interval:
					scale = math.Min(v-s.Lower, s.Upper-v)
				}
				step = math.Min(step, 1e-3*scale/math.Max(1, math.Abs(d[at+c])))
			}
		}
		at += s.Size
	}
	return step
}

// moveBlock sets the block's coordinates of x to base + e·d.
func moveBlock(all []nmc.Site, off, sites []int, x, base, d []float64, e float64) {
	at := 0
	for _, i := range sites {
		for c := range all[i].Size {
			x[off[i]+c] = base[off[i]+c] + e*d[at+c]
		}
		at += all[i].Size
	}
}

// TestJointHessianFiniteDifferences checks JointHessian on the JointGrad test
// models and on a regression of two scalar latents, a three-coordinate Positive
// site and a simplex read with a scale and an offset, for every continuous site
// together and for random subsets in random order, at perturbed prior draws: value
// differences against LogJoint's, the gradient against JointGrad (within 1e-12
// relative) and against fourth-order finite differences of LogJoint, d₁ᵀHd₂ (random
// directions, and directions on two different sites, which test the cross terms
// alone) against finite differences of the gradient, and exact symmetry; where a
// block is scored in one pass, the same block by site and orbit scores agrees;
// the value alone (nil grad and hess) is the value with derivatives.
func TestJointHessianFiniteDifferences(t *testing.T) {
	models, _ := jointTestModels(t)
	models["scalar regression"] = buildScalarRegression(t, 30, 1)
	models["pk positive"] = buildPKPositive(t)
	models["simplex mixed"] = buildSimplexMixed(t)
	models["gp regression"] = buildGPBlock(t, 12, false, false)
	models["gp regression matern"] = buildGPBlock(t, 9, true, false)
	models["gp latent"] = buildGPBlock(t, 6, false, true)
	models["gp two kernels"] = buildGPTwoKernels(t, 8)
	models["softmax"] = buildSoftmax(t, 40)
	onePass := map[string][2]int{} // blocks of several sites: in one pass, by site and orbit scores
	for _, name := range slices.Sorted(maps.Keys(models)) {
		m := models[name]
		rng := rand.New(rand.NewPCG(29, uint64(len(name))))
		all := m.Sites()
		off := nmc.Offsets(all)
		every := continuousSites(m)
		x := make([]float64, nmc.Dim(all))
		base := make([]float64, len(x))
		sc := m.newScorer()
		checked, passes := 0, [2]int{}
		for pt := range 2 {
			if err := m.Init(rng, x); err != nil {
				t.Fatal(err)
			}
			for _, i := range every {
				perturb(rng, all[i], x[off[i]:off[i]+all[i].Size], 0.2)
			}
			if !acceptablePoint(m, sc, x) {
				continue
			}
			copy(base, x)
			var blocks [][]int
			if len(every) <= 12 {
				blocks = append(blocks, every)
			}
			for range 2 {
				sub := slices.Clone(every)
				rng.Shuffle(len(sub), func(a, b int) { sub[a], sub[b] = sub[b], sub[a] })
				blocks = append(blocks, sub[:1+rng.IntN(min(len(sub), 8))])
			}
			for bi, sites := range blocks {
				n := sitesSize(m, sites)
				g, h := make([]float64, n), make([]float64, n*n)
				g1, h1 := make([]float64, n), make([]float64, n*n)
				gj := make([]float64, n)
				f0 := sc.JointHessian(x, sites, g, h)
				if math.IsInf(f0, 0) || math.IsNaN(f0) {
					t.Fatalf("%s point %d block %d: value %g", name, pt, bi, f0)
				}
				checked++
				if v := sc.JointHessian(x, sites, nil, nil); !close(v, f0, 1e-10) {
					t.Errorf("%s point %d block %d: value alone %.15g, with derivatives %.15g", name, pt, bi, v, f0)
				}
				// The one-pass jets and the site and orbit scores agree.
				bs := sc.blockOf(sites)
				if bs.onePass {
					passes[0]++
					bs.onePass = false
					gp, hp := make([]float64, n), make([]float64, n*n)
					fp := sc.JointHessian(x, sites, gp, hp)
					bs.onePass = true
					if !close(fp, f0, 1e-10) {
						t.Errorf("%s point %d block %d: one pass %.15g, site and orbit scores %.15g", name, pt, bi, f0, fp)
					}
					for c := range hp {
						if !close(h[c], hp[c], 1e-9) {
							t.Errorf("%s point %d block %d: H entry %d one pass %.15g, site and orbit scores %.15g", name, pt, bi, c, h[c], hp[c])
						}
					}
					for c := range gp {
						if !close(g[c], gp[c], 1e-10) {
							t.Errorf("%s point %d block %d: gradient %d one pass %.15g, site and orbit scores %.15g", name, pt, bi, c, g[c], gp[c])
						}
					}
				} else if len(sites) > 1 {
					passes[1]++
				}
				sc.JointGrad(x, sites, gj, false)
				for c := range g {
					if !close(g[c], gj[c], 1e-12) {
						t.Errorf("%s point %d block %d coordinate %d: gradient %.17g, JointGrad %.17g", name, pt, bi, c, g[c], gj[c])
					}
				}
				for a := range n {
					for c := range n {
						if h[a*n+c] != h[c*n+a] {
							t.Fatalf("%s point %d block %d: H[%d,%d] = %g, H[%d,%d] = %g", name, pt, bi, a, c, h[a*n+c], c, a, h[c*n+a])
						}
					}
				}
				// Value differences and the gradient along random directions.
				on := map[int]bool{}
				for _, i := range sites {
					on[i] = true
				}
				for range 3 {
					d := tangent(rng, all, sites, on)
					step := blockStep(all, off, sites, base, d)
					lj := func(e float64) float64 {
						moveBlock(all, off, sites, x, base, d, e)
						v := sc.LogJoint(x)
						copy(x, base)
						return v
					}
					moveBlock(all, off, sites, x, base, d, 50*step)
					f1 := sc.JointHessian(x, sites, g1, h1)
					copy(x, base)
					if dv, dl := f1-f0, lj(50*step)-lj(0); !close(dv, dl, 1e-9) {
						t.Errorf("%s point %d block %d: value difference %.12g, LogJoint's %.12g", name, pt, bi, dv, dl)
					}
					fd := (8*(lj(step)-lj(-step)) - (lj(2*step) - lj(-2*step))) / (12 * step)
					gd := 0.0
					for c := range d {
						gd += g[c] * d[c]
					}
					if !close(gd, fd, 1e-6) {
						t.Errorf("%s point %d block %d: gradient along d %.10g, finite difference %.10g", name, pt, bi, gd, fd)
					}
				}
				// d₁ᵀHd₂ against differences of the gradient along d₂, for random
				// directions and for directions on two different sites.
				pairs := [][2]map[int]bool{{on, on}}
				if len(sites) > 1 {
					for range 3 {
						a, b := sites[rng.IntN(len(sites))], sites[rng.IntN(len(sites))]
						for a == b {
							b = sites[rng.IntN(len(sites))]
						}
						pairs = append(pairs, [2]map[int]bool{{a: true}, {b: true}})
					}
				}
				for _, pr := range pairs {
					d1, d2 := tangent(rng, all, sites, pr[0]), tangent(rng, all, sites, pr[1])
					step := blockStep(all, off, sites, base, d2)
					gdot := func(e float64) float64 {
						moveBlock(all, off, sites, x, base, d2, e)
						sc.JointHessian(x, sites, g1, h1)
						copy(x, base)
						v := 0.0
						for c := range d1 {
							v += d1[c] * g1[c]
						}
						return v
					}
					fd := (8*(gdot(step)-gdot(-step)) - (gdot(2*step) - gdot(-2*step))) / (12 * step)
					hd := 0.0
					for a := range n {
						for c := range n {
							hd += d1[a] * h[a*n+c] * d2[c]
						}
					}
					if !close(hd, fd, 1e-6) {
						t.Errorf("%s point %d block %d: d1ᵀHd2 %.10g, finite difference %.10g", name, pt, bi, hd, fd)
					}
				}
			}
		}
		if checked == 0 {
			t.Errorf("%s: no acceptable point", name)
		}
		onePass[name] = passes
	}
	// Both ways are exercised: the one pass on the models of plain elementwise
	// factors, site and orbit scores on the others.
	for _, name := range []string{"testModels funnel", "simplex mixed", "gp regression", "gp regression matern", "gp two kernels", "softmax"} {
		if onePass[name][0] == 0 {
			t.Errorf("%s: no block scored in one pass", name)
		}
	}
	for _, name := range []string{"scalar regression", "dawid-skene summed", "mixture summed"} {
		if onePass[name][1] == 0 {
			t.Errorf("%s: no block of several sites scored by site and orbit scores", name)
		}
	}
}

// TestJointHessianNoAlloc checks that JointHessian allocates nothing once a
// block is compiled: by site and orbit scores (the scalar regression), in one pass
// (Neal's funnel, a GP regression at changing states) and for the value alone.
func TestJointHessianNoAlloc(t *testing.T) {
	for name, m := range map[string]*Model{"regression": buildScalarRegression(t, 30, 1), "funnel": testModels(t)["funnel"]} {
		sc := m.newScorer()
		x := make([]float64, nmc.Dim(m.Sites()))
		if err := m.Init(rand.New(rand.NewPCG(1, 2)), x); err != nil {
			t.Fatal(err)
		}
		sites := continuousSites(m)
		n := sitesSize(m, sites)
		g, h := make([]float64, n), make([]float64, n*n)
		sc.JointHessian(x, sites, g, h)
		sc.JointHessian(x, sites, nil, nil)
		if a := testing.AllocsPerRun(20, func() {
			sc.JointHessian(x, sites, g, h)
			sc.JointHessian(x, sites, nil, nil)
		}); a != 0 {
			t.Errorf("%s: %v allocations per call", name, a)
		}
	}
	// A GP regression's block, in one pass, at three states in turn (more than
	// the factor cache keeps: each call factorises afresh and fills the kernel's
	// table).
	m := buildGPBlock(t, 12, false, false)
	sc := m.newScorer()
	sites := continuousSites(m)
	n := sitesSize(m, sites)
	g, h := make([]float64, n), make([]float64, n*n)
	var xs [3][]float64
	for i := range xs {
		xs[i] = make([]float64, nmc.Dim(m.Sites()))
		if err := m.Init(rand.New(rand.NewPCG(1, uint64(i))), xs[i]); err != nil {
			t.Fatal(err)
		}
		sc.JointHessian(xs[i], sites, g, h)
		sc.JointHessian(xs[i], sites, nil, nil)
	}
	if !sc.blockOf(sites).onePass {
		t.Fatal("gp regression: the block is not scored in one pass")
	}
	call := 0
	if a := testing.AllocsPerRun(20, func() {
		call++
		sc.JointHessian(xs[call%3], sites, g, h)
		sc.JointHessian(xs[(call+1)%3], sites, nil, nil)
	}); a != 0 {
		t.Errorf("gp regression: %v allocations per call", a)
	}
}
