package nmc

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"sync/atomic"

	"github.com/nmc-go/nmc/internal/special"
)

// Hand-written test models. Each implements Model and is its own Scorer (they hold no
// scratch), except where noted. Scores are Markov-blanket scores: constants dropped.

// mvnModel: x ~ N(mu0, S), y ~ N(x, S) observed; one Real site "x" of size 2.
// Posterior N((mu0 + y)/2, S/2).
type mvnModel struct {
	mu0, y [2]float64
	p      [4]float64 // S⁻¹ row-major
}

func newMVNModel() *mvnModel {
	// S = [[1, .8], [.8, 1]], det = 0.36.
	return &mvnModel{mu0: [2]float64{1, 1}, y: [2]float64{2, 2},
		p: [4]float64{1 / 0.36, -0.8 / 0.36, -0.8 / 0.36, 1 / 0.36}}
}

func (m *mvnModel) Sites() []Site                { return []Site{{Name: "x", Size: 2, Support: Real}} }
func (m *mvnModel) NewScorer() Scorer            { return m }
func (m *mvnModel) LogJoint(x []float64) float64 { return m.Score(x, 0, nil, nil) }
func (m *mvnModel) Init(rng *rand.Rand, x []float64) error {
	x[0], x[1] = 3*rng.NormFloat64(), 3*rng.NormFloat64()
	return nil
}

func (m *mvnModel) Score(x []float64, _ int, grad, hess []float64) float64 {
	a := [2]float64{x[0] - m.mu0[0], x[1] - m.mu0[1]}
	b := [2]float64{m.y[0] - x[0], m.y[1] - x[1]}
	pa := [2]float64{m.p[0]*a[0] + m.p[1]*a[1], m.p[2]*a[0] + m.p[3]*a[1]}
	pb := [2]float64{m.p[0]*b[0] + m.p[1]*b[1], m.p[2]*b[0] + m.p[3]*b[1]}
	if grad != nil {
		grad[0], grad[1] = -pa[0]+pb[0], -pa[1]+pb[1]
		for i := range hess {
			hess[i] = -2 * m.p[i]
		}
	}
	return -0.5 * (a[0]*pa[0] + a[1]*pa[1] + b[0]*pb[0] + b[1]*pb[1])
}

// scalarModel is a one-site model given by a function of the site value returning
// f, f′ and f″; k independent copies make a site of size k.
type scalarModel struct {
	site Site
	fn   func(x float64) (f, g, h float64)
	init func(rng *rand.Rand) float64
}

func (m *scalarModel) Sites() []Site     { return []Site{m.site} }
func (m *scalarModel) NewScorer() Scorer { return m }
func (m *scalarModel) LogJoint(x []float64) float64 {
	return m.Score(x, 0, nil, nil)
}
func (m *scalarModel) Init(rng *rand.Rand, x []float64) error {
	for j := range x {
		x[j] = m.init(rng)
	}
	return nil
}
func (m *scalarModel) Score(x []float64, _ int, grad, hess []float64) float64 {
	k := len(x)
	if hess != nil {
		clear(hess)
	}
	s := 0.0
	for j, v := range x {
		f, g, h := m.fn(v)
		s += f
		if grad != nil {
			grad[j], hess[j*k+j] = g, h
		}
	}
	if math.IsNaN(s) {
		return math.Inf(-1)
	}
	return s
}

// logGammaKernel returns the f, f′, f″ of (a−1)·log y − b·y for y > 0.
func logGammaKernel(a, b, y float64) (f, g, h float64) {
	if !(y > 0) {
		return math.Inf(-1), 0, 0
	}
	return (a-1)*math.Log(y) - b*y, (a-1)/y - b, -(a - 1) / (y * y)
}

// gammaPoissonModel: λ ~ Gamma(a, b), y_i ~ Poisson(λ). Posterior Gamma(a + Σy, b + n).
func gammaPoissonModel(a, b float64, ys []float64, size int, lower float64) (*scalarModel, float64, float64) {
	s := 0.0
	for _, y := range ys {
		s += y
	}
	n := float64(len(ys))
	return &scalarModel{
		site: Site{Name: "lambda", Size: size, Support: Positive, Lower: lower},
		fn: func(x float64) (float64, float64, float64) {
			return logGammaKernel(a+s, b+n, x-lower)
		},
		init: func(rng *rand.Rand) float64 { return lower + rng.ExpFloat64() },
	}, a + s, b + n
}

// gammaNormalModel: τ ~ Gamma(a, b), y_i ~ N(mu, 1/√τ). Posterior
// Gamma(a + n/2, b + Σ(y−mu)²/2). The score is written term by term from the data.
func gammaNormalModel(a, b, mu float64, ys []float64) (*scalarModel, float64, float64) {
	ss := 0.0
	for _, y := range ys {
		ss += (y - mu) * (y - mu)
	}
	return &scalarModel{
		site: Site{Name: "tau", Size: 1, Support: Positive},
		fn: func(t float64) (float64, float64, float64) {
			if !(t > 0) {
				return math.Inf(-1), 0, 0
			}
			f := (a-1)*math.Log(t) - b*t
			g := (a-1)/t - b
			h := -(a - 1) / (t * t)
			for _, y := range ys { // log N(y; mu, 1/√τ) = ½log τ − τ(y−mu)²/2 + const
				r := (y - mu) * (y - mu)
				f += 0.5*math.Log(t) - 0.5*t*r
				g += 0.5/t - 0.5*r
				h += -0.5 / (t * t)
			}
			return f, g, h
		},
		init: func(rng *rand.Rand) float64 { return rng.ExpFloat64() },
	}, a + float64(len(ys))/2, b + ss/2
}

// betaBinomialModel: p ~ Beta(a, b) rescaled to (lo, hi), heads of n ~ Binomial(n, u).
// Posterior of u = (p−lo)/(hi−lo): Beta(a + heads, b + n − heads).
func betaBinomialModel(a, b, heads, n float64, size int, lo, hi float64) (*scalarModel, float64, float64) {
	p, q := a-1+heads, b-1+n-heads
	w := hi - lo
	return &scalarModel{
		site: Site{Name: "p", Size: size, Support: Interval, Lower: lo, Upper: hi},
		fn: func(x float64) (float64, float64, float64) {
			u, v := (x-lo)/w, (hi-x)/w
			if !(u > 0 && v > 0) {
				return math.Inf(-1), 0, 0
			}
			return p*math.Log(u) + q*math.Log(v), (p/u - q/v) / w, (-p/(u*u) - q/(v*v)) / (w * w)
		},
		init: func(rng *rand.Rand) float64 { return lo + w*(0.05+0.9*rng.Float64()) },
	}, a + heads, b + n - heads
}

// dirichletModel: x ~ Dirichlet(alpha), y_i ~ Categorical(x) with counts; the score in
// the paper's homogeneous form Σ(α_i − 1 + n_i) log x_i. Posterior Dirichlet(α + n).
type dirichletModel struct {
	c []float64 // α_i − 1 + n_i
}

func (m *dirichletModel) Sites() []Site {
	return []Site{{Name: "theta", Size: len(m.c), Support: Simplex}}
}
func (m *dirichletModel) NewScorer() Scorer            { return m }
func (m *dirichletModel) LogJoint(x []float64) float64 { return m.Score(x, 0, nil, nil) }
func (m *dirichletModel) Init(rng *rand.Rand, x []float64) error {
	s := 0.0
	for i := range x {
		x[i] = rng.ExpFloat64()
		s += x[i]
	}
	for i := range x {
		x[i] /= s
	}
	return nil
}
func (m *dirichletModel) Score(x []float64, _ int, grad, hess []float64) float64 {
	k := len(x)
	if hess != nil {
		clear(hess)
	}
	f := 0.0
	for i, v := range x {
		if !(v > 0) {
			return math.Inf(-1)
		}
		f += m.c[i] * math.Log(v)
		if grad != nil {
			grad[i] = m.c[i] / v
			hess[i*k+i] = -m.c[i] / (v * v)
		}
	}
	return f
}

// studentTModel: one Real site t ~ Student-t(nu) (location 0, scale 1).
func studentTModel(nu float64) *scalarModel {
	return &scalarModel{
		site: Site{Name: "t", Size: 1, Support: Real},
		fn: func(x float64) (float64, float64, float64) {
			d := nu + x*x
			return -(nu + 1) / 2 * math.Log1p(x*x/nu), -(nu + 1) * x / d, -(nu + 1) * (nu - x*x) / (d * d)
		},
		init: func(rng *rand.Rand) float64 { return rng.NormFloat64() },
	}
}

// funnelModel is Neal's funnel: z ~ N(0, 3), x ~ N(0, exp(z/2)); sites "z" and "x".
// It is a Neighborer.
type funnelModel struct{}

func (funnelModel) Sites() []Site {
	return []Site{{Name: "z", Size: 1, Support: Real}, {Name: "x", Size: 1, Support: Real}}
}
func (m funnelModel) NewScorer() Scorer   { return m }
func (funnelModel) Neighbors(i int) []int { return []int{1 - i} }
func (funnelModel) Init(rng *rand.Rand, x []float64) error {
	x[0] = 3 * rng.NormFloat64()
	x[1] = math.Exp(x[0]/2) * rng.NormFloat64()
	return nil
}
func (funnelModel) LogJoint(x []float64) float64 {
	z, v := x[0], x[1]
	return -z*z/18 - z/2 - 0.5*v*v*math.Exp(-z)
}
func (funnelModel) Score(x []float64, i int, grad, hess []float64) float64 {
	z, v := x[0], x[1]
	e := math.Exp(-z)
	f := -z*z/18 - z/2 - 0.5*v*v*e
	if grad != nil {
		if i == 0 {
			grad[0], hess[0] = -z/9-0.5+0.5*v*v*e, -1.0/9-0.5*v*v*e
		} else {
			grad[0], hess[0] = -v*e, -e
		}
	}
	return f
}

// mixtureModel: k ~ Categorical(pi) over 3 values, theta | k ~ N(mu_k, 1). The marginal
// of k is pi.
type mixtureModel struct {
	pi, mu [3]float64
}

func (m *mixtureModel) Sites() []Site {
	return []Site{{Name: "k", Size: 1, Support: Discrete, NumValues: 3}, {Name: "theta", Size: 1, Support: Real}}
}
func (m *mixtureModel) NewScorer() Scorer { return m }
func (m *mixtureModel) Init(rng *rand.Rand, x []float64) error {
	x[0] = float64(rng.IntN(3))
	x[1] = m.mu[int(x[0])] + rng.NormFloat64()
	return nil
}
func (m *mixtureModel) LogJoint(x []float64) float64 { return m.Score(x, 0, nil, nil) }
func (m *mixtureModel) Score(x []float64, i int, grad, hess []float64) float64 {
	k := int(x[0])
	if k < 0 || k > 2 || float64(k) != x[0] {
		return math.Inf(-1)
	}
	r := x[1] - m.mu[k]
	if grad != nil {
		grad[0], hess[0] = -r, -1
	}
	return math.Log(m.pi[k]) - 0.5*r*r
}

// poissonModel: one unbounded Discrete site n ~ Poisson(lambda).
type poissonModel struct{ lambda float64 }

func (m poissonModel) Sites() []Site {
	return []Site{{Name: "n", Size: 1, Support: Discrete}}
}
func (m poissonModel) NewScorer() Scorer            { return m }
func (m poissonModel) LogJoint(x []float64) float64 { return m.Score(x, 0, nil, nil) }
func (m poissonModel) Init(rng *rand.Rand, x []float64) error {
	x[0] = float64(rng.IntN(20))
	return nil
}
func (m poissonModel) Score(x []float64, _ int, _, _ []float64) float64 {
	n := x[0]
	if n < 0 || n != math.Trunc(n) {
		return math.Inf(-1)
	}
	return n*math.Log(m.lambda) - lgamma(n+1)
}

// panicModel wraps the MVN model; the scorer of the chain that starts at x[0] = 42
// panics in Score after 100 calls.
type panicModel struct{ *mvnModel }

type panicScorer struct {
	*mvnModel
	first  float64
	calls  int
	primed bool
}

func (m panicModel) Sites() []Site     { return []Site{{Name: "beta", Size: 2, Support: Real}} }
func (m panicModel) NewScorer() Scorer { return &panicScorer{mvnModel: m.mvnModel} }
func (s *panicScorer) Score(x []float64, i int, grad, hess []float64) float64 {
	if !s.primed {
		s.first, s.primed = x[0], true
	}
	s.calls++
	if s.first == 42 && s.calls > 100 {
		panic("boom")
	}
	return s.mvnModel.Score(x, i, grad, hess)
}

// cancelModel wraps the MVN model and cancels the context after a number of Score
// calls over all chains.
type cancelModel struct {
	*mvnModel
	cancel context.CancelFunc
	after  int64
	calls  atomic.Int64
}

type cancelScorer struct{ m *cancelModel }

func (m *cancelModel) NewScorer() Scorer { return cancelScorer{m} }
func (s cancelScorer) Score(x []float64, i int, grad, hess []float64) float64 {
	if s.m.calls.Add(1) == s.m.after {
		s.m.cancel()
	}
	return s.m.mvnModel.Score(x, i, grad, hess)
}
func (s cancelScorer) LogJoint(x []float64) float64 { return s.m.mvnModel.LogJoint(x) }

// logisticModel: beta ~ N(0, 1), y_i ~ Bernoulli(logistic(beta·x_i)); one Real site of
// size 1. Not conjugate.
func logisticModel(xs, ys []float64) *scalarModel {
	return &scalarModel{
		site: Site{Name: "beta", Size: 1, Support: Real},
		fn: func(b float64) (float64, float64, float64) {
			f, g, h := -0.5*b*b, -b, -1.0
			for i, x := range xs {
				eta := b * x
				// log p(y|eta) = y·eta − log(1 + e^eta)
				p := special.Logistic(eta)
				f += ys[i]*eta - special.Log1pExp(eta)
				g += (ys[i] - p) * x
				h -= p * (1 - p) * x * x
			}
			return f, g, h
		},
		init: func(rng *rand.Rand) float64 { return rng.NormFloat64() },
	}
}

// logNormalModel: a Positive site x ~ LogNormal(0, s). Not conjugate to the Gamma
// proposal.
func logNormalModel(s float64) *scalarModel {
	return &scalarModel{
		site: Site{Name: "x", Size: 1, Support: Positive},
		fn: func(x float64) (float64, float64, float64) {
			if !(x > 0) {
				return math.Inf(-1), 0, 0
			}
			l := math.Log(x)
			v := s * s
			return -l - l*l/(2*v), (-1 - l/v) / x, (1 + l/v - 1/v) / (x * x)
		},
		init: func(rng *rand.Rand) float64 { return math.Exp(s * rng.NormFloat64()) },
	}
}

// tiltedBetaModel: a unit-interval site with density ∝ u²(1−u)³e^{2u}. Not conjugate.
func tiltedBetaModel() *scalarModel {
	return &scalarModel{
		site: Site{Name: "u", Size: 1, Support: Interval, Lower: 0, Upper: 1},
		fn: func(u float64) (float64, float64, float64) {
			if !(u > 0 && u < 1) {
				return math.Inf(-1), 0, 0
			}
			return 2*math.Log(u) + 3*math.Log1p(-u) + 2*u, 2/u - 3/(1-u) + 2, -2/(u*u) - 3/((1-u)*(1-u))
		},
		init: func(rng *rand.Rand) float64 { return rng.Float64() },
	}
}

// withNaNDerivs returns a copy of m whose gradient is reported as NaN wherever bad(x)
// holds, forcing the fallback proposal there; the score itself is unchanged.
func withNaNDerivs(m *scalarModel, bad func(x float64) bool) *scalarModel {
	c := *m
	c.fn = func(x float64) (float64, float64, float64) {
		f, g, h := m.fn(x)
		if bad(x) {
			g = math.NaN()
		}
		return f, g, h
	}
	return &c
}

// nanDirichlet is dirichletModel with a NaN Hessian wherever x[0] > 0.4.
type nanDirichlet struct{ *dirichletModel }

func (m nanDirichlet) NewScorer() Scorer { return m }
func (m nanDirichlet) Score(x []float64, i int, grad, hess []float64) float64 {
	f := m.dirichletModel.Score(x, i, grad, hess)
	if hess != nil && x[0] > 0.4 {
		hess[0] = math.NaN()
	}
	return f
}

// manySites has n independent N(0, 1) Real sites; its scorer cancels a context after
// a number of Score calls.
type manySites struct {
	n      int
	cancel context.CancelFunc
	after  int64
	calls  atomic.Int64
}

func (m *manySites) Sites() []Site {
	s := make([]Site, m.n)
	for i := range s {
		s[i] = Site{Name: fmt.Sprintf("x%d", i), Size: 1}
	}
	return s
}
func (m *manySites) NewScorer() Scorer { return m }
func (m *manySites) Init(rng *rand.Rand, x []float64) error {
	for i := range x {
		x[i] = rng.NormFloat64()
	}
	return nil
}
func (m *manySites) LogJoint(x []float64) float64 { return 0 }
func (m *manySites) Score(x []float64, i int, g, h []float64) float64 {
	if m.calls.Add(1) == m.after {
		m.cancel()
	}
	if g != nil {
		g[0], h[0] = -x[i], -1
	}
	return -0.5 * x[i] * x[i]
}

// productModel joins independent models into one: its sites are theirs in order, each
// part scored on its own coordinates. With mvnModel, a Positive, an Interval, a
// Simplex, an enumerated and an unbounded Discrete part it has every kind of site.
type productModel struct {
	parts []Model
	part  []int // per site: its part
	local []int // per site: its index in its part
	off   []int // per part: its first coordinate
	dim   []int // per part: its number of coordinates
}

func newProductModel(parts ...Model) *productModel {
	m := &productModel{parts: parts}
	o := 0
	for p, pm := range parts {
		s := pm.Sites()
		for i := range s {
			m.part = append(m.part, p)
			m.local = append(m.local, i)
		}
		m.off = append(m.off, o)
		m.dim = append(m.dim, Dim(s))
		o += Dim(s)
	}
	return m
}

// kitchenSinkModel returns a productModel with every kind of site.
func kitchenSinkModel() *productModel {
	bb, _, _ := betaBinomialModel(2, 3, 4, 9, 1, 0, 1)
	return newProductModel(newMVNModel(), logNormalModel(0.5), bb,
		&dirichletModel{c: []float64{1, 2, 3}},
		&mixtureModel{pi: [3]float64{.2, .3, .5}, mu: [3]float64{0, 1, 2}},
		poissonModel{lambda: 4})
}

func (m *productModel) Sites() []Site {
	var s []Site
	for p, pm := range m.parts {
		for _, site := range pm.Sites() {
			site.Name = fmt.Sprintf("p%d.%s", p, site.Name)
			s = append(s, site)
		}
	}
	return s
}

func (m *productModel) NewScorer() Scorer {
	sc := &productScorer{m: m}
	for _, pm := range m.parts {
		sc.parts = append(sc.parts, pm.NewScorer())
	}
	return sc
}

func (m *productModel) Init(rng *rand.Rand, x []float64) error {
	for p, pm := range m.parts {
		if err := pm.Init(rng, x[m.off[p]:m.off[p]+m.dim[p]]); err != nil {
			return err
		}
	}
	return nil
}

type productScorer struct {
	m     *productModel
	parts []Scorer
}

func (s *productScorer) Score(x []float64, i int, grad, hess []float64) float64 {
	m := s.m
	p := m.part[i]
	return s.parts[p].Score(x[m.off[p]:m.off[p]+m.dim[p]], m.local[i], grad, hess)
}

func (s *productScorer) LogJoint(x []float64) float64 {
	t := 0.0
	for p, sc := range s.parts {
		t += sc.LogJoint(x[s.m.off[p] : s.m.off[p]+s.m.dim[p]])
	}
	return t
}

// Neighbors lists the sites of site i's part: a part's sites may read each other.
func (m *productModel) Neighbors(i int) []int {
	var nb []int
	for j, p := range m.part {
		if p == m.part[i] {
			nb = append(nb, j)
		}
	}
	return nb
}
