package nmc

import (
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"gonum.org/v1/gonum/diff/fd"
	"gonum.org/v1/gonum/integrate/quad"
	"gonum.org/v1/gonum/mat"
)

// fitAt evaluates site i of m at x and fits p there.
func fitAt(m Model, p proposer, x []float64, i int) *slot {
	sites := m.Sites()
	k, off := sites[i].Size, Offsets(sites)[i]
	s := newSlot(k)
	copy(s.x, x[off:off+k])
	s.f = m.NewScorer().Score(x, i, s.g, s.h)
	p.fit(&s)
	return &s
}

func defaultProposer(s Site) proposer { return newProposer(s, RealProposal{}) }

// TestModelDerivatives checks the test models' gradients and Hessians against finite
// differences, so the exact-recovery tests below rest on correct derivatives.
func TestModelDerivatives(t *testing.T) {
	t.Parallel()
	gp, _, _ := gammaPoissonModel(2, 0.5, []float64{3, 1, 4}, 1, 0.5)
	gn, _, _ := gammaNormalModel(2, 1, 0.3, []float64{0.1, -0.4, 1.2})
	bb, _, _ := betaBinomialModel(2, 2, 5, 5, 1, 2, 5)
	cases := []struct {
		name string
		m    Model
		x    []float64
	}{
		{"mvn", newMVNModel(), []float64{0.3, -0.7}},
		{"gamma-poisson", gp, []float64{1.7}},
		{"gamma-normal", gn, []float64{0.8}},
		{"beta-binomial", bb, []float64{3.1}},
		{"dirichlet", &dirichletModel{c: []float64{1, 2, 0.5}}, []float64{0.2, 0.5, 0.3}},
		{"student-t", studentTModel(2), []float64{1.3}},
		{"funnel", funnelModel{}, []float64{0.4, -1.1}},
		{"mixture", &mixtureModel{pi: [3]float64{.2, .3, .5}, mu: [3]float64{0, 1, 2}}, []float64{1, 0.4}},
		{"logistic", logisticModel([]float64{1, -2, 0.5}, []float64{1, 0, 1}), []float64{0.7}},
		{"lognormal", logNormalModel(0.5), []float64{1.4}},
		{"tilted-beta", tiltedBetaModel(), []float64{0.3}},
	}
	for _, c := range cases {
		sites := c.m.Sites()
		off := Offsets(sites)
		sc := c.m.NewScorer()
		for i, s := range sites {
			if s.Support == Discrete {
				continue
			}
			k := s.Size
			f := func(y []float64) float64 {
				x := append([]float64(nil), c.x...)
				copy(x[off[i]:], y)
				return sc.Score(x, i, nil, nil)
			}
			y0 := c.x[off[i] : off[i]+k]
			g, h := make([]float64, k), make([]float64, k*k)
			sc.Score(c.x, i, g, h)
			gfd := fd.Gradient(nil, f, y0, &fd.Settings{Formula: fd.Central})
			hfd := mat.NewSymDense(k, nil)
			fd.Hessian(hfd, f, y0, &fd.Settings{Formula: fd.Central, Step: 1e-4})
			for a := 0; a < k; a++ {
				if math.Abs(g[a]-gfd[a]) > 1e-6*(1+math.Abs(g[a])) {
					t.Errorf("%s site %d: grad[%d] = %g, finite differences %g", c.name, i, a, g[a], gfd[a])
				}
				for b := 0; b < k; b++ {
					if math.Abs(h[a*k+b]-hfd.At(a, b)) > 1e-4*(1+math.Abs(h[a*k+b])) {
						t.Errorf("%s site %d: hess[%d,%d] = %g, finite differences %g", c.name, i, a, b, h[a*k+b], hfd.At(a, b))
					}
				}
			}
		}
	}
}

// TestNewtonStepNonPersymmetric: A = [[1, .3], [.3, 4]], g = (1, 1) gives the step
// A⁻¹g = (3.7, 0.7)/3.91 ≈ (0.946, 0.179) (the reference's reversed factor gets this
// wrong).
func TestNewtonStepNonPersymmetric(t *testing.T) {
	t.Parallel()
	p := newRealProposer(2, RealProposal{})
	s := newSlot(2)
	copy(s.g, []float64{1, 1})
	copy(s.h, []float64{-1, -0.3, -0.3, -4})
	p.fit(&s)
	want := []float64{3.7 / 3.91, 0.7 / 3.91}
	if s.mode != realChol || s.fb {
		t.Fatalf("mode %d, fallback %v; want Cholesky", s.mode, s.fb)
	}
	for i := range want {
		if math.Abs(s.d[i]-want[i]) > 1e-14 {
			t.Errorf("step[%d] = %.17g, want %.17g", i, s.d[i], want[i])
		}
	}
	if math.Abs(s.d[0]-0.946) > 5e-4 || math.Abs(s.d[1]-0.179) > 5e-4 {
		t.Errorf("step = %v, want (0.946, 0.179) to 3 decimals", s.d)
	}
}

// realMeanCov returns the mean x + γd and the covariance of a fitted Real proposal.
func realMeanCov(s *slot, gamma float64) (mean, cov []float64) {
	k := len(s.x)
	mean = make([]float64, k)
	for i := range mean {
		mean[i] = s.x[i] + gamma*s.d[i]
	}
	cov = make([]float64, k*k)
	col := make([]float64, k)
	for j := 0; j < k; j++ {
		if s.mode == realChol {
			clear(col)
			col[j] = 1
			solveLower(s.l, k, col)
			solveLowerT(s.l, k, col)
			for i := range col {
				cov[i*k+j] = col[i]
			}
			continue
		}
		for i := 0; i < k; i++ {
			c := 0.0
			for a := 0; a < k; a++ {
				c += s.l[i*k+a] * s.l[j*k+a] / s.w[a]
			}
			cov[i*k+j] = c
		}
	}
	return mean, cov
}

// TestExactFitNormalNormal: from any point the Newton proposal is the posterior
// N([1.5, 1.5], [[.5, .4], [.4, .5]]).
func TestExactFitNormalNormal(t *testing.T) {
	t.Parallel()
	m := newMVNModel()
	p := defaultProposer(m.Sites()[0])
	for _, x := range [][]float64{{0, 0}, {-3, 7}, {1.5, 1.5}, {100, -40}} {
		s := fitAt(m, p, x, 0)
		mean, cov := realMeanCov(s, 1)
		wantCov := []float64{.5, .4, .4, .5}
		for i := range mean {
			if math.Abs(mean[i]-1.5) > 1e-12 {
				t.Errorf("from %v: mean[%d] = %.17g, want 1.5", x, i, mean[i])
			}
		}
		for i := range cov {
			if math.Abs(cov[i]-wantCov[i]) > 1e-12 {
				t.Errorf("from %v: cov[%d] = %.17g, want %g", x, i, cov[i], wantCov[i])
			}
		}
	}
}

// TestExactFitConstrained: Gamma, Beta and Dirichlet fits equal the conjugate
// posteriors from any point.
func TestExactFitConstrained(t *testing.T) {
	t.Parallel()
	gp, a, b := gammaPoissonModel(2, 0.5, []float64{3, 1, 4, 0, 2}, 1, 0)
	gps, _, _ := gammaPoissonModel(2, 0.5, []float64{3, 1, 4, 0, 2}, 1, -1.5)
	gn, an, bn := gammaNormalModel(3, 2, 0.5, []float64{0.1, -0.4, 1.2, 0.9})
	for _, c := range []struct {
		name string
		m    *scalarModel
		xs   []float64
		a, b float64
	}{
		{"gamma-poisson", gp, []float64{0.1, 1, 5, 40}, a, b},
		{"gamma-poisson lower -1.5", gps, []float64{-1.4, -0.5, 3}, a, b},
		{"gamma-normal", gn, []float64{0.05, 1, 7}, an, bn},
	} {
		p := defaultProposer(c.m.site)
		for _, x := range c.xs {
			s := fitAt(c.m, p, []float64{x}, 0)
			if s.fb || math.Abs(s.w[0]-c.a) > 1e-9*c.a || math.Abs(s.d[0]-c.b) > 1e-9*c.b {
				t.Errorf("%s at %g: Gamma(%.12g, %.12g) fallback %v, want Gamma(%g, %g)", c.name, x, s.w[0], s.d[0], s.fb, c.a, c.b)
			}
		}
	}
	// Beta(2,2) + 5 heads of 5 → Beta(7, 2), on (0, 1) and on a rescaled interval.
	for _, iv := range [][2]float64{{0, 1}, {2, 5}} {
		bb, ba, bbeta := betaBinomialModel(2, 2, 5, 5, 1, iv[0], iv[1])
		if ba != 7 || bbeta != 2 {
			t.Fatalf("posterior Beta(%g, %g), want Beta(7, 2)", ba, bbeta)
		}
		p := defaultProposer(bb.site)
		w := iv[1] - iv[0]
		for _, u := range []float64{0.01, 0.3, 0.5, 0.93} {
			s := fitAt(bb, p, []float64{iv[0] + w*u}, 0)
			if s.fb || math.Abs(s.w[0]-7) > 1e-9 || math.Abs(s.d[0]-2) > 1e-9 {
				t.Errorf("beta-binomial on %v at u=%g: Beta(%.12g, %.12g) fallback %v, want Beta(7, 2)", iv, u, s.w[0], s.d[0], s.fb)
			}
		}
	}
	dm := &dirichletModel{c: []float64{0, 2, 4.5, 1}} // α = (1, 2, 3, 4), n = (0, 1, 2.5, 1)
	p := defaultProposer(dm.Sites()[0])
	for _, x := range [][]float64{{.25, .25, .25, .25}, {.7, .1, .1, .1}, {.01, .01, .01, .97}} {
		s := fitAt(dm, p, x, 0)
		for i, c := range dm.c {
			if s.fb || math.Abs(s.w[i]-(c+1)) > 1e-12 {
				t.Errorf("dirichlet at %v: α[%d] = %.17g, want %g", x, i, s.w[i], c+1)
			}
		}
	}
}

// proposerCase is a fitted proposal in one dimension, for density checks.
type proposerCase struct {
	name   string
	p      proposer
	s      *slot
	lo, hi float64 // the support of the proposal
}

func oneDimCases(t *testing.T) []proposerCase {
	t.Helper()
	mk := func(p proposer, x, g, h float64) *slot {
		s := newSlot(1)
		s.x[0], s.g[0], s.h[0] = x, g, h
		p.fit(&s)
		return &s
	}
	inf := math.Inf(1)
	rc := newRealProposer(1, RealProposal{})
	rcau := newRealProposer(1, RealProposal{Cauchy: true})
	rrob := newRealProposer(1, RealProposal{Robust: true})
	pos := &positiveProposer{lower: 1}
	posLog := &positiveProposer{lower: 1, kindChoice: kindChoice{kind: kindLog}}
	iv := &intervalProposer{lower: -1, upper: 3}
	ivLogit := &intervalProposer{lower: -1, upper: 3, kindChoice: kindChoice{kind: kindLogit}}
	ivTrunc := &intervalProposer{lower: -1, upper: 3, kindChoice: kindChoice{kind: kindTrunc}}
	cases := []proposerCase{
		{"real cholesky", rc, mk(rc, 0.5, 1.2, -2), -inf, inf},
		{"real softabs", rc, mk(rc, 0.5, 1.2, 0.7), -inf, inf},
		{"real fallback", rc, mk(rc, 0.5, math.NaN(), -2), -inf, inf},
		{"real cauchy", rcau, mk(rcau, 0.5, 1.2, -2), -inf, inf},
		{"real robust", rrob, mk(rrob, 0.5, 1.2, -2), -inf, inf},
		{"gamma", pos, mk(pos, 2, 0.5, -1), 1, inf},
		{"gamma fallback", pos, mk(pos, 2, 3, 1), 1, inf},
		{"gamma log-newton fallback", pos, mk(pos, 2, -5, 2), 1, inf},
		{"positive log newton", posLog, mk(posLog, 2, 0.5, -10), 1, inf},
		{"positive log langevin", posLog, mk(posLog, 5, -5, 0.5), 1, inf},
		{"beta", iv, mk(iv, 0.2, 0.3, -1), -1, 3},
		{"beta fallback", iv, mk(iv, 0.2, math.Inf(1), -1), -1, 3},
		{"beta logit-newton fallback", iv, mk(iv, 0.2, -5, 1.25), -1, 3},
		{"interval logit newton", ivLogit, mk(ivLogit, 0.2, 0.3, -1), -1, 3},
		{"interval logit langevin", ivLogit, mk(ivLogit, 2.9, -5, 1.25), -1, 3},
		{"interval truncated newton", ivTrunc, mk(ivTrunc, 2.5, 3, -2), -1, 3},
	}
	for _, c := range cases {
		wantFb := len(c.name) > 8 && c.name[len(c.name)-8:] == "fallback"
		if c.s.fb != wantFb {
			t.Fatalf("%s: fallback %v, want %v", c.name, c.s.fb, wantFb)
		}
		// The Newton fallbacks on the log and logit scales, and only they, keep a
		// fitted scale (s.w > 0).
		if newton := strings.Contains(c.name, "newton fallback"); wantFb && (c.s.w[0] > 0) != newton {
			t.Fatalf("%s: fallback scale %g", c.name, c.s.w[0])
		}
	}
	return cases
}

// TestProposalDensities: every 1-d proposal density integrates to 1, and its draws
// follow it (P(y ≤ t) from draws against the integral of exp(logq)).
func TestProposalDensities(t *testing.T) {
	t.Parallel()
	for _, c := range oneDimCases(t) {
		dens := func(y float64) float64 { return math.Exp(c.p.logq(c.s, 0.8, []float64{y})) }
		total := quad.Fixed(dens, c.lo, c.hi, 2000, nil, 0)
		if math.Abs(total-1) > 1e-6 {
			t.Errorf("%s: density integrates to %.9f", c.name, total)
		}
		rng := rand.New(rand.NewPCG(7, 1))
		const n = 20000
		ys := make([]float64, n)
		y := []float64{0}
		for i := range ys {
			c.p.draw(rng, c.s, 0.8, y)
			ys[i] = y[0]
		}
		for _, q := range []float64{0.2, 0.5, 0.8} {
			// the q-th empirical quantile as a threshold, compared with the integral
			thr := quantile(ys, q)
			p := quad.Fixed(dens, c.lo, thr, 2000, nil, 0)
			emp := 0.0
			for _, v := range ys {
				if v <= thr {
					emp++
				}
			}
			emp /= n
			if z := math.Abs(emp-p) / math.Sqrt(p*(1-p)/n); zExceeds(z) {
				t.Errorf("%s: P(y ≤ %.4g) = %.4f from draws, %.4f from the density (z = %.1f)", c.name, thr, emp, p, z)
			}
		}
	}
}

func quantile(x []float64, q float64) float64 {
	s := append([]float64(nil), x...)
	slices.Sort(s)
	return s[int(q*float64(len(s)-1))]
}

// TestDiscreteWalkDensity: the folded geometric walk's q(·|x) sums to 1 and its draws
// follow it.
func TestDiscreteWalkDensity(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(3, 1))
	for _, x := range []float64{0, 1, 7, 400} {
		total := 0.0
		for y := 0.0; y < 20000; y++ {
			total += math.Exp(discreteLogq(x, y))
		}
		if math.Abs(total-1) > 1e-9 {
			t.Errorf("x=%g: q sums to %.12f", x, total)
		}
		const n = 20000
		cnt := map[float64]int{}
		for i := 0; i < n; i++ {
			cnt[discreteDraw(rng, x)]++
		}
		for _, y := range []float64{0, x + 1} { // two cells per x
			p := math.Exp(discreteLogq(x, y))
			if z := math.Abs(float64(cnt[y])/n-p) / math.Sqrt(p*(1-p)/n); zExceeds(z) {
				t.Errorf("x=%g: P(y=%g) = %.4f from draws, %.4f from q (z = %.1f)", x, y, float64(cnt[y])/n, p, z)
			}
		}
	}
}

// TestDirichletProposal: the density integrates to 1 (k = 2, over the first
// coordinate) and the draws have the Dirichlet means (k = 3).
func TestDirichletProposal(t *testing.T) {
	t.Parallel()
	p := &simplexProposer{}
	s2 := newSlot(2)
	copy(s2.x, []float64{0.3, 0.7})
	copy(s2.h, []float64{-20, 0, 0, -3})
	p.fit(&s2)
	total := quad.Fixed(func(u float64) float64 {
		return math.Exp(p.logq(&s2, 1, []float64{u, 1 - u}))
	}, 0, 1, 2000, nil, 0)
	if math.Abs(total-1) > 1e-6 {
		t.Errorf("k=2: density integrates to %.9f", total)
	}
	s := newSlot(3)
	copy(s.x, []float64{0.2, 0.3, 0.5})
	s.h[0], s.h[4], s.h[8] = -50, -20, -8 // α = (3, 2.8, 3)
	p.fit(&s)
	a0 := s.w[0] + s.w[1] + s.w[2]
	rng := rand.New(rand.NewPCG(4, 1))
	const n = 20000
	series := [][]float64{make([]float64, n), make([]float64, n), make([]float64, n)}
	y := make([]float64, 3)
	for i := 0; i < n; i++ {
		p.draw(rng, &s, 1, y)
		for j := range y {
			series[j][i] = y[j]
		}
	}
	for j := range series {
		checkMean(t, "dirichlet draw", [][]float64{series[j]}, s.w[j]/a0)
	}
	// The fallback: Dirichlet(100x + 1e-3) on non-finite derivatives.
	s.g[1] = math.NaN()
	p.fit(&s)
	if !s.fb || math.Abs(s.w[2]-50.001) > 1e-12 {
		t.Errorf("fallback: fb %v, α = %v, want α[2] = 50.001", s.fb, s.w)
	}
}
