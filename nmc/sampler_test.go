package nmc

import (
	"context"
	"errors"
	"math"
	"math/rand/v2"
	"runtime"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/nmc-go/nmc/internal/special"
	"gonum.org/v1/gonum/integrate/quad"
	"gonum.org/v1/gonum/stat/distuv"
)

func sample(t *testing.T, m Model, o *Options) *Result {
	t.Helper()
	r, err := Sample(context.Background(), m, o)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func acceptRate(t *testing.T, r *Result, site string) float64 {
	t.Helper()
	a, err := r.AcceptRate(site)
	if err != nil {
		t.Fatal(err)
	}
	return a
}

// TestExactRecovery: with γ = 1 the proposal equals the posterior for the conjugate
// models, so every one of 200 steps is accepted, and the draws have the posterior
// moments.
func TestExactRecovery(t *testing.T) {
	t.Parallel()
	gp, gpA, gpB := gammaPoissonModel(2, 0.5, []float64{3, 1, 4, 0, 2, 5, 3}, 2, 0)
	gn, gnA, gnB := gammaNormalModel(3, 2, 0.5, []float64{0.1, -0.4, 1.2, 0.9, 0.3})
	bb, bbA, bbB := betaBinomialModel(2, 2, 5, 5, 1, 0, 1)
	bb2, bb2A, bb2B := betaBinomialModel(3, 1.5, 4, 10, 2, 2, 5)
	dc := []float64{0, 3, 3, 5} // Dirichlet(1, 2, 3, 4) + counts (0, 2, 1, 2)
	for _, c := range []struct {
		name  string
		m     Model
		site  string
		check func(t *testing.T, r *Result)
	}{
		{"normal-normal", newMVNModel(), "x", func(t *testing.T, r *Result) {
			x0, x1 := column(t, r, "x[0]"), column(t, r, "x[1]")
			checkMoments(t, "x[0]", x0, 1.5, math.Sqrt(.5), nil)
			checkMoments(t, "x[1]", x1, 1.5, math.Sqrt(.5), nil)
			cross := make([][]float64, len(x0))
			for ch := range x0 {
				for d := range x0[ch] {
					cross[ch] = append(cross[ch], (x0[ch][d]-1.5)*(x1[ch][d]-1.5))
				}
			}
			checkMean(t, "cov(x[0], x[1])", cross, 0.4)
		}},
		{"gamma-poisson", gp, "lambda", func(t *testing.T, r *Result) {
			for _, n := range []string{"lambda[0]", "lambda[1]"} {
				checkMoments(t, n, column(t, r, n), gpA/gpB, math.Sqrt(gpA)/gpB, nil)
			}
		}},
		{"gamma-normal", gn, "tau", func(t *testing.T, r *Result) {
			checkMoments(t, "tau", column(t, r, "tau"), gnA/gnB, math.Sqrt(gnA)/gnB, nil)
		}},
		{"beta-binomial", bb, "p", func(t *testing.T, r *Result) {
			checkMoments(t, "p", column(t, r, "p"), bbA/(bbA+bbB), math.Sqrt(bbA*bbB/((bbA+bbB)*(bbA+bbB)*(bbA+bbB+1))), nil)
		}},
		{"beta-binomial on (2, 5), two coordinates", bb2, "p", func(t *testing.T, r *Result) {
			m := bb2A / (bb2A + bb2B)
			sd := math.Sqrt(bb2A * bb2B / ((bb2A + bb2B) * (bb2A + bb2B) * (bb2A + bb2B + 1)))
			for _, n := range []string{"p[0]", "p[1]"} {
				checkMoments(t, n, column(t, r, n), 2+3*m, 3*sd, nil)
			}
		}},
		{"dirichlet-categorical", &dirichletModel{c: dc}, "theta", func(t *testing.T, r *Result) {
			a0 := 0.0
			for _, c := range dc {
				a0 += c + 1
			}
			for i, c := range dc {
				a := c + 1
				n := []string{"theta[0]", "theta[1]", "theta[2]", "theta[3]"}[i]
				checkMoments(t, n, column(t, r, n), a/a0, math.Sqrt(a*(a0-a)/(a0*a0*(a0+1))), nil)
			}
		}},
	} {
		t.Run(c.name, func(t *testing.T) {
			short := sample(t, c.m, &Options{Warmup: NoWarmup, Chains: 2, Draws: 100, Seed: 11})
			if a := acceptRate(t, short, c.site); a != 1 {
				t.Errorf("acceptance %.4f over %d steps, want exactly 1", a, short.Sites[0].Proposals)
			}
			if short.Sites[0].Proposals != 200 || short.Sites[0].Fallbacks != 0 {
				t.Errorf("proposals %d, fallbacks %d; want 200, 0", short.Sites[0].Proposals, short.Sites[0].Fallbacks)
			}
			r := sample(t, c.m, &Options{Warmup: NoWarmup, Chains: 4, Draws: 500, Seed: 12})
			if a := acceptRate(t, r, c.site); a != 1 {
				t.Errorf("acceptance %.4f, want exactly 1", a)
			}
			c.check(t, r)
		})
	}
}

// quadMoments returns the mean and sd of the density ∝ exp(logp) on (lo, hi).
func quadMoments(logp func(float64) float64, lo, hi, mode float64) (mean, sd float64) {
	f := func(p int) float64 {
		return quad.Fixed(func(x float64) float64 { return math.Pow(x, float64(p)) * math.Exp(logp(x)-logp(mode)) }, lo, hi, 4000, nil, 0)
	}
	z := f(0)
	mean = f(1) / z
	return mean, math.Sqrt(f(2)/z - mean*mean)
}

// TestNonConjugate: posteriors the proposals do not match exactly, against
// quadrature or closed forms, for every Real proposal variant.
func TestNonConjugate(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(5, 5))
	xs, ys := make([]float64, 40), make([]float64, 40)
	for i := range xs {
		xs[i] = rng.NormFloat64()
		if rng.Float64() < special.Logistic(1.5*xs[i]) {
			ys[i] = 1
		}
	}
	lm := logisticModel(xs, ys)
	lmean, lsd := quadMoments(func(b float64) float64 { f, _, _ := lm.fn(b); return f }, -10, 12, 1.5)
	for _, c := range []struct {
		name   string
		real   RealProposal
		warmup int
	}{
		{"gaussian", RealProposal{}, 0},
		{"cauchy", RealProposal{Cauchy: true}, 0},
		{"robust", RealProposal{Robust: true}, 0},
		{"beta step adapted", RealProposal{Step: BetaStep{A: 2, B: 1, Adapt: true}}, 200},
	} {
		t.Run("logistic "+c.name, func(t *testing.T) {
			o := Options{Chains: 4, Draws: 1000, Seed: 21, Warmup: c.warmup, Moves: withReal(c.real)}
			r := sample(t, lm, &o)
			checkMoments(t, "beta", column(t, r, "beta"), lmean, lsd, nil)
			if want := map[bool]string{false: "newton-gaussian", true: "newton-cauchy"}[c.real.Cauchy]; r.Sites[0].Proposer != want {
				t.Errorf("proposer %q, want %q", r.Sites[0].Proposer, want)
			}
			if c.real.Step != nil {
				if len(r.StepFractions) != 4 {
					t.Fatalf("%d step fractions, want 4", len(r.StepFractions))
				}
				if r.StepFractions[0].A == 2 && r.StepFractions[0].B == 1 {
					t.Errorf("step fraction not adapted: %+v", r.StepFractions[0])
				}
			}
		})
	}
	t.Run("lognormal positive", func(t *testing.T) {
		const s = 0.5
		r := sample(t, logNormalModel(s), &Options{Warmup: NoWarmup, Chains: 4, Draws: 1000, Seed: 22})
		checkMoments(t, "x", column(t, r, "x"), math.Exp(s*s/2), math.Sqrt((math.Exp(s*s)-1)*math.Exp(s*s)), nil)
	})
	t.Run("tilted beta interval", func(t *testing.T) {
		m := tiltedBetaModel()
		mean, sd := quadMoments(func(u float64) float64 { f, _, _ := m.fn(u); return f }, 0, 1, 0.4)
		r := sample(t, m, &Options{Warmup: NoWarmup, Chains: 4, Draws: 1000, Seed: 23})
		checkMoments(t, "u", column(t, r, "u"), mean, sd, nil)
	})
}

// tQuantile returns the p-quantile of Student-t(2): (2p − 1)/√(2p(1 − p)).
func tQuantile(p float64) float64 { return (2*p - 1) / math.Sqrt(2*p*(1-p)) }

// TestStudentTFarTail: a Student-t(2) target started at 1000, where the Hessian is
// positive (the SoftAbs path), reaches the bulk and has the right quantiles; and a
// single-site model is not an independence sampler (its draws are autocorrelated but
// mix).
func TestStudentTFarTail(t *testing.T) {
	t.Parallel()
	qs := map[float64]float64{0.1: tQuantile(0.1), 0.5: 0, 0.9: tQuantile(0.9)}
	for _, robust := range []bool{false, true} {
		r := sample(t, studentTModel(2), &Options{Chains: 4, Draws: 2000, Warmup: 300, Seed: 31, Init: [][]float64{{1000}}, Moves: withReal(RealProposal{Robust: robust})})
		x := column(t, r, "t")
		for p, q := range qs {
			checkMean(t, "student-t P(x ≤ q)", mapSeries(x, func(v float64) float64 {
				if v <= q {
					return 1
				}
				return 0
			}), p)
		}
		// lag-1 autocorrelation: positive (the proposal depends on the state) and well
		// below 1 (the chain mixes).
		num, den, mean := 0.0, 0.0, 0.0
		for _, c := range x {
			for _, v := range c {
				mean += v
			}
		}
		mean /= float64(len(x) * len(x[0]))
		for _, c := range x {
			for i, v := range c {
				den += (v - mean) * (v - mean)
				if i > 0 {
					num += (v - mean) * (c[i-1] - mean)
				}
			}
		}
		if rho := num / den; rho < 0.02 || rho > 0.9 {
			t.Errorf("robust=%v: lag-1 autocorrelation %.3f, want in (0.02, 0.9)", robust, rho)
		}
		if a := acceptRate(t, r, "t"); a < 0.2 {
			t.Errorf("robust=%v: acceptance %.3f", robust, a)
		}
	}
}

// TestFunnel: Neal's funnel; z must have the N(0, 3) marginal.
func TestFunnel(t *testing.T) {
	t.Parallel()
	r := sample(t, funnelModel{}, &Options{Chains: 4, Draws: 2000, Warmup: 200, Seed: 41})
	z := column(t, r, "z")
	n := distuv.Normal{Mu: 0, Sigma: 3}
	checkMoments(t, "funnel z", z, 0, 3, map[float64]float64{0.1: n.Quantile(0.1), 0.5: 0, 0.9: n.Quantile(0.9)})
}

// TestDiscrete: the enumerated conditional of a 3-category latent and the MH walk of
// an unbounded count give the right marginals.
func TestDiscrete(t *testing.T) {
	t.Parallel()
	m := &mixtureModel{pi: [3]float64{0.2, 0.3, 0.5}, mu: [3]float64{0, 0.7, 1.5}}
	r := sample(t, m, &Options{Warmup: NoWarmup, Chains: 4, Draws: 1000, Seed: 51})
	k := column(t, r, "k")
	for v, p := range m.pi {
		checkMean(t, "P(k = v)", mapSeries(k, func(x float64) float64 {
			if x == float64(v) {
				return 1
			}
			return 0
		}), p)
	}
	if r.Sites[0].Proposer != "enumerate" || acceptRate(t, r, "k") != 1 {
		t.Errorf("site k: proposer %q, acceptance %g", r.Sites[0].Proposer, acceptRate(t, r, "k"))
	}
	pr := sample(t, poissonModel{lambda: 6.5}, &Options{Warmup: NoWarmup, Chains: 4, Draws: 2000, Seed: 52})
	n := column(t, pr, "n")
	cdf3 := distuv.Poisson{Lambda: 6.5}.CDF(3)
	checkMoments(t, "poisson n", n, 6.5, math.Sqrt(6.5), map[float64]float64{cdf3: 3})
	if pr.Sites[0].Proposer != "discrete-mh" {
		t.Errorf("proposer %q", pr.Sites[0].Proposer)
	}
}

// TestDeterminism: the same seed gives bit-identical draws with GOMAXPROCS 1 and 2.
func TestDeterminism(t *testing.T) {
	m := &mixtureModel{pi: [3]float64{0.2, 0.3, 0.5}, mu: [3]float64{0, 0.7, 1.5}}
	run := func(procs int) *Result {
		defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(procs))
		return sample(t, m, &Options{Chains: 4, Draws: 300, Seed: 61, Moves: withReal(RealProposal{Step: BetaStep{A: 3, B: 1, Adapt: true}}), Warmup: 50})
	}
	a, b := run(1), run(2)
	for c := range a.Draws.Chains {
		x, y := a.Draws.Chains[c], b.Draws.Chains[c]
		if len(x) != len(y) {
			t.Fatalf("chain %d: %d vs %d values", c, len(x), len(y))
		}
		for i := range x {
			if math.Float64bits(x[i]) != math.Float64bits(y[i]) {
				t.Fatalf("chain %d value %d: %v vs %v", c, i, x[i], y[i])
			}
		}
	}
	if a.Draws.Chains[0][1] == a.Draws.Chains[1][1] {
		t.Error("chains 0 and 1 start alike; want dispersed, independent streams")
	}
}

// threeSites: a ~ N(0, 1), b ~ N(a, 1), c ~ N(0, 1); c is independent of a and b.
// It counts Score calls and is a Neighborer when nb is set.
type threeSites struct {
	calls atomic64
}

type atomic64 struct {
	mu sync.Mutex
	n  int
}

func (a *atomic64) add() { a.mu.Lock(); a.n++; a.mu.Unlock() }

func (m *threeSites) Sites() []Site {
	return []Site{{Name: "a", Size: 1}, {Name: "b", Size: 1}, {Name: "c", Size: 1}}
}
func (m *threeSites) NewScorer() Scorer { return m }
func (m *threeSites) Init(rng *rand.Rand, x []float64) error {
	for i := range x {
		x[i] = rng.NormFloat64()
	}
	return nil
}
func (m *threeSites) LogJoint(x []float64) float64 {
	return -0.5 * (x[0]*x[0] + (x[1]-x[0])*(x[1]-x[0]) + x[2]*x[2])
}
func (m *threeSites) Score(x []float64, i int, g, h []float64) float64 {
	m.calls.add()
	var f, gi, hi float64
	switch i {
	case 0:
		f, gi, hi = -0.5*(x[0]*x[0]+(x[1]-x[0])*(x[1]-x[0])), -x[0]+(x[1]-x[0]), -2
	case 1:
		f, gi, hi = -0.5*(x[1]-x[0])*(x[1]-x[0]), -(x[1] - x[0]), -1
	default:
		f, gi, hi = -0.5*x[2]*x[2], -x[2], -1
	}
	if g != nil {
		g[0], h[0] = gi, hi
	}
	return f
}

type threeSitesNb struct{ *threeSites }

func (threeSitesNb) Neighbors(i int) []int { return [][]int{{1}, {0}, {}}[i] }

// TestNeighborerCache: precise invalidation gives the same draws with fewer Score
// calls.
func TestNeighborerCache(t *testing.T) {
	t.Parallel()
	plain, nb := &threeSites{}, threeSitesNb{&threeSites{}}
	o := Options{Warmup: NoWarmup, Chains: 1, Draws: 500, Seed: 71}
	a, b := sample(t, plain, &o), sample(t, nb, &o)
	for i := range a.Draws.Chains[0] {
		if math.Float64bits(a.Draws.Chains[0][i]) != math.Float64bits(b.Draws.Chains[0][i]) {
			t.Fatalf("value %d: %v without Neighborer, %v with", i, a.Draws.Chains[0][i], b.Draws.Chains[0][i])
		}
	}
	if !(nb.calls.n < plain.calls.n) {
		t.Errorf("Score calls: %d with Neighborer, %d without; want fewer", nb.calls.n, plain.calls.n)
	}
	// Sweeps are 3 steps; each step costs at least the proposal's Score, so at least
	// 1500 calls, and without caching at most 3000 (+ initialisation).
	if nb.calls.n < 1500 || plain.calls.n > 3000+10 {
		t.Errorf("Score calls: %d with Neighborer, %d without", nb.calls.n, plain.calls.n)
	}
}

// TestCancel: cancelling returns the completed draws and an error wrapping
// context.Canceled.
func TestCancel(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	m := &cancelModel{mvnModel: newMVNModel(), cancel: cancel, after: 4000}
	r, err := Sample(ctx, m, &Options{Warmup: NoWarmup, Chains: 3, Draws: 1_000_000, Seed: 81})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("error %v, want context.Canceled", err)
	}
	if r == nil {
		t.Fatal("nil result")
	}
	if err := r.Draws.Validate(); err != nil {
		t.Fatal(err)
	}
	total := 0
	for c := range r.Draws.Chains {
		n := r.Draws.NumDraws(c)
		if n >= 1_000_000 {
			t.Errorf("chain %d ran to the end", c)
		}
		total += n
		for _, v := range r.Draws.Chains[c] {
			if math.IsNaN(v) || math.IsInf(v, 0) {
				t.Fatalf("chain %d holds %v", c, v)
			}
		}
	}
	if total == 0 {
		t.Error("no draws kept")
	}
}

// TestPanicInOneChain: a panic in one chain's Score names chain and site; the other
// chains finish with all their draws.
func TestPanicInOneChain(t *testing.T) {
	t.Parallel()
	init := [][]float64{{0, 0}, {1, 1}, {42, 0}, {2, 2}}
	r, err := Sample(context.Background(), panicModel{newMVNModel()}, &Options{Warmup: NoWarmup, Chains: 4, Draws: 300, Seed: 91, Init: init})
	if err == nil || !strings.Contains(err.Error(), `nmc: chain 2, site "beta": panic: boom`) {
		t.Fatalf("error %v, want it to name chain 2 and site beta", err)
	}
	for c := range 4 {
		n := r.Draws.NumDraws(c)
		if c == 2 && n >= 300 {
			t.Errorf("chain 2 has %d draws after panicking", n)
		}
		if c != 2 && n != 300 {
			t.Errorf("chain %d has %d draws, want 300", c, n)
		}
	}
	// Split off as global chains 2 and 3, the failing chain is local chain 0 (its
	// start is Init[0]) and errors name it by its global number.
	r, err = Sample(context.Background(), panicModel{newMVNModel()}, &Options{Warmup: NoWarmup, Chains: 2, FirstChain: 2, Draws: 300, Seed: 91, Init: init[2:]})
	if err == nil || !strings.Contains(err.Error(), `nmc: chain 2, site "beta": panic: boom`) {
		t.Fatalf("split run: error %v, want it to name chain 2 and site beta", err)
	}
	if n := r.Draws.NumDraws(0); n >= 300 {
		t.Errorf("split run: local chain 0 has %d draws after panicking", n)
	}
	if n := r.Draws.NumDraws(1); n != 300 {
		t.Errorf("split run: local chain 1 has %d draws, want 300", n)
	}
}

// TestInitErrors: no finite start, and invalid options, give errors naming what.
func TestInitErrors(t *testing.T) {
	t.Parallel()
	bad := logNormalModel(1)
	bad.init = func(*rand.Rand) float64 { return -1 }
	_, err := Sample(context.Background(), bad, &Options{Warmup: NoWarmup, Chains: 2, Draws: 10, Start: PriorStart})
	if err == nil || !strings.Contains(err.Error(), `nmc: chain 0: no finite starting point after 100 tries (last: site "x" coordinate 0 = -1 is not above its lower bound 0)`) {
		t.Errorf("error %v", err)
	}
	m := newMVNModel()
	for _, c := range []struct {
		o    Options
		want string
	}{
		{Options{Chains: -1}, "nmc: Options.Chains = -1 is negative"},
		{Options{Warmup: -3}, "nmc: Options.Warmup = -3 is negative"},
		{Options{Start: 7}, "nmc: Options.Start = 7 is not a start rule"},
		{Options{Thin: -2}, "nmc: Options.Thin = -2 is negative"},
		{Options{Init: [][]float64{{1, 2, 3}}}, "nmc: Options.Init[0] has 3 values, want 2"},
		{Options{Chains: 3, Init: [][]float64{{1, 2}, {1, 2}}}, "nmc: Options.Init has 2 states, want 1 or 3"},
		{Options{Init: [][]float64{{1, math.NaN()}}}, "nmc: Options.Init[0][1] = NaN is not finite"},
		{Options{FirstChain: -3}, "nmc: Options.FirstChain = -3 is negative"},
		{Options{Moves: withReal(RealProposal{Step: BetaStep{A: 0, B: 1}})}, "nmc: SiteSteps.Real.Step = Beta(0, 1)"},
		{Options{Moves: withReal(RealProposal{Step: &BetaStep{A: 1, B: math.Inf(1)}})}, "nmc: SiteSteps.Real.Step = Beta(1, +Inf)"},
		{Options{Moves: withReal(RealProposal{Step: (*BetaStep)(nil)})}, "nmc: SiteSteps.Real.Step is a nil *BetaStep"},
		{Options{Moves: withReal(RealProposal{Step: (*CrankNicolson)(nil)})}, "nmc: SiteSteps.Real.Step is a nil *CrankNicolson"},
		{Options{Moves: withReal(RealProposal{Step: CrankNicolson{TargetAccept: 1}})}, "nmc: SiteSteps.Real.Step: CrankNicolson.TargetAccept = 1"},
	} {
		_, err := Sample(context.Background(), m, &c.o)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("options %+v: error %v, want %q", c.o, err, c.want)
		}
	}
	_, err = Sample(context.Background(), &dirichletModel{c: []float64{1}}, nil)
	if err == nil || !strings.Contains(err.Error(), `nmc: site "theta": Simplex has Size 1`) {
		t.Errorf("error %v", err)
	}
	_, err = Sample(context.Background(), newMVNModel(), &Options{Warmup: NoWarmup, Init: [][]float64{{1, 2}}, Chains: 1, Draws: 5})
	if err != nil {
		t.Errorf("valid Init: %v", err)
	}
}

// derivedMVN adds a derived quantity and is used with a held-out likelihood.
type derivedMVN struct{ *mvnModel }

func (derivedMVN) DerivedNames() []string          { return []string{"sum"} }
func (derivedMVN) Derive(x []float64, d []float64) { d[0] = x[0] + x[1] }

type heldOutNormal struct{ ys []float64 }

func (h heldOutNormal) Len() int { return len(h.ys) }
func (h heldOutNormal) LogLik(x []float64, dst []float64) {
	for j, y := range h.ys {
		dst[j] = normLogPdf(y, x[0], 1)
	}
}

// TestRecording: warm-up, thinning, derived quantities, held-out likelihoods, counts
// and progress reports.
func TestRecording(t *testing.T) {
	t.Parallel()
	var mu sync.Mutex
	last := map[int]Progress{}
	h := heldOutNormal{ys: []float64{0.5, 1, 3}}
	r := sample(t, derivedMVN{newMVNModel()}, &Options{Chains: 2, Draws: 10, Warmup: 5, Thin: 3, Seed: 3, HeldOut: h,
		Progress: func(p Progress) { mu.Lock(); last[p.Chain] = p; mu.Unlock() }})
	want := []string{"x[0]", "x[1]", "sum"}
	if strings.Join(r.Draws.Names, ",") != strings.Join(want, ",") {
		t.Errorf("names %v, want %v", r.Draws.Names, want)
	}
	if r.NumHeldOut != 3 || len(r.HeldOut) != 2 {
		t.Fatalf("held out: %d points, %d chains", r.NumHeldOut, len(r.HeldOut))
	}
	if s := r.Sites[0]; s.Sites != 1 || s.Proposals != 2*(5+10*3) {
		t.Errorf("site totals %+v, want 1 site, 70 proposals", s)
	}
	for c := 0; c < 2; c++ {
		if n := r.Draws.NumDraws(c); n != 10 {
			t.Errorf("chain %d: %d draws, want 10", c, n)
		}
		if p := r.SitesPerChain[c][0].Proposals; p != 5+10*3 {
			t.Errorf("chain %d: %d proposals, want 35", c, p)
		}
		if n := r.SitesPerChain[c][0].Sites; n != 1 {
			t.Errorf("chain %d: site stats count %d sites, want 1", c, n)
		}
		if p := last[c]; p.Done != 35 || p.Total != 35 {
			t.Errorf("chain %d: last progress %+v, want 35 of 35", c, p)
		}
		ch := r.Draws.Chains[c]
		for d := 0; d < 10; d++ {
			row := ch[d*3 : d*3+3]
			if row[2] != row[0]+row[1] {
				t.Errorf("chain %d draw %d: sum %v, want %v", c, d, row[2], row[0]+row[1])
			}
			for j, y := range h.ys {
				if got := r.HeldOut[c][d*3+j]; got != normLogPdf(y, row[0], 1) {
					t.Errorf("chain %d draw %d: held-out %d = %v", c, d, j, got)
				}
			}
		}
	}
	if r.Options.Chains != 2 || r.Options.InitRetries != 100 || r.Wall <= 0 {
		t.Errorf("effective options %+v, wall %v", r.Options, r.Wall)
	}
	if _, err := r.AcceptRate("nope"); err == nil {
		t.Error("AcceptRate of an unknown site: no error")
	}
}

// noDerivedMVN is a Deriver without derived quantities that counts its Derive calls.
type noDerivedMVN struct {
	*mvnModel
	calls *atomic.Int64
}

func (noDerivedMVN) DerivedNames() []string            { return nil }
func (m noDerivedMVN) Derive(x []float64, d []float64) { m.calls.Add(1) }

// TestNoDerivedNoDerive: the sampler does not call Derive (which may cost more than
// recording the draw) for a Deriver that has no derived quantities, and records
// the draws unchanged.
func TestNoDerivedNoDerive(t *testing.T) {
	t.Parallel()
	o := &Options{Chains: 2, Draws: 20, Warmup: 5, Seed: 4}
	m := noDerivedMVN{newMVNModel(), new(atomic.Int64)}
	r := sample(t, m, o)
	if n := m.calls.Load(); n != 0 {
		t.Errorf("Derive called %d times for a model without derived quantities", n)
	}
	plain := sample(t, m.mvnModel, o)
	for c := range r.Draws.Chains {
		if !slices.Equal(r.Draws.Chains[c], plain.Draws.Chains[c]) {
			t.Errorf("chain %d: draws differ from the same model without Derive", c)
		}
	}
}

// generatedMVN adds, beside a derived sum, a generated quantity: a normal draw
// centred at x[0].
type generatedMVN struct{ derivedMVN }

func (generatedMVN) GeneratedNames() []string { return []string{"y_rep", "u"} }
func (generatedMVN) Generate(rng *rand.Rand, x []float64, d []float64) {
	d[0] = x[0] + rng.NormFloat64()
	d[1] = rng.Float64()
}

// TestGenerated: generated quantities come after the derived ones, are drawn from
// the chain's generated stream (PCG(Seed^GeneratedSeed, chain)), and leave every
// other column as it is without them.
func TestGenerated(t *testing.T) {
	t.Parallel()
	o := &Options{Chains: 2, Draws: 20, Warmup: 5, Seed: 4}
	r := sample(t, generatedMVN{derivedMVN{newMVNModel()}}, o)
	plain := sample(t, derivedMVN{newMVNModel()}, o)
	want := []string{"x[0]", "x[1]", "sum", "y_rep", "u"}
	if strings.Join(r.Draws.Names, ",") != strings.Join(want, ",") {
		t.Fatalf("names %v, want %v", r.Draws.Names, want)
	}
	for c := range r.Draws.Chains {
		rng := rand.New(rand.NewPCG(o.Seed^GeneratedSeed, uint64(c)))
		for d := 0; d < 20; d++ {
			row, prow := r.Draws.Chains[c][d*5:d*5+5], plain.Draws.Chains[c][d*3:d*3+3]
			if !slices.Equal(row[:3], prow) {
				t.Fatalf("chain %d draw %d: %v, without generated quantities %v", c, d, row[:3], prow)
			}
			if y, u := row[0]+rng.NormFloat64(), rng.Float64(); row[3] != y || row[4] != u {
				t.Errorf("chain %d draw %d: generated %v, want %v", c, d, row[3:], []float64{y, u})
			}
		}
	}
}

// TestNoAllocation: a running chain does not allocate, for every proposer.
func TestNoAllocation(t *testing.T) {
	gp, _, _ := gammaPoissonModel(2, 0.5, []float64{3, 1}, 2, 0)
	bb, _, _ := betaBinomialModel(2, 2, 5, 5, 2, 0, 1)
	for _, c := range []struct {
		name string
		m    Model
		o    Options
	}{
		{"mvn", newMVNModel(), Options{Warmup: NoWarmup}},
		{"mvn robust cauchy beta-step", newMVNModel(), Options{Warmup: NoWarmup, Moves: withReal(RealProposal{Robust: true, Cauchy: true, Step: BetaStep{A: 2, B: 2, Adapt: true}})}},
		{"mvn robust cauchy crank-nicolson", newMVNModel(), Options{Warmup: NoWarmup, Moves: withReal(RealProposal{Robust: true, Cauchy: true, Step: CrankNicolson{Gamma: 0.4, Adapt: true}})}},
		{"student-t softabs", studentTModel(2), Options{Warmup: NoWarmup, Init: [][]float64{{50}}}},
		{"gamma", gp, Options{Warmup: NoWarmup}},
		{"beta", bb, Options{Warmup: NoWarmup}},
		{"dirichlet", &dirichletModel{c: []float64{1, 2, 3}}, Options{Warmup: NoWarmup}},
		{"mixture", &mixtureModel{pi: [3]float64{.2, .3, .5}, mu: [3]float64{0, 1, 2}}, Options{Warmup: NoWarmup}},
		{"poisson", poissonModel{lambda: 4}, Options{Warmup: NoWarmup}},
		{"gauss groups", corr2(shift2, dilateAll(2, 1)), Options{Warmup: NoWarmup}},
		{"funnel group", funnelGroup{k: 3}, Options{Warmup: NoWarmup}},
		{"mixture marginalised", mixture2Shift{&mixture2{ys: mixtureData(), marginal: true}}, Options{Warmup: NoWarmup}},
	} {
		ch := newTestChain(t, c.m, &c.o)
		if a := testing.AllocsPerRun(200, func() { ch.testSweep(true, 0) }); a != 0 {
			t.Errorf("%s: %v allocations per sweep", c.name, a)
		}
	}
}

// TestResultFrames: the result converts to a DataFrame and to CSV with the chain and
// draw columns first.
func TestResultFrames(t *testing.T) {
	t.Parallel()
	r := sample(t, newMVNModel(), &Options{Warmup: NoWarmup, Chains: 2, Draws: 7, Seed: 5})
	df, err := r.DataFrame()
	if err != nil {
		t.Fatal(err)
	}
	if got, want := strings.Join(df.Names(), ","), "chain,draw,x[0],x[1]"; got != want {
		t.Errorf("columns %s, want %s", got, want)
	}
	if df.Nrow() != 14 {
		t.Errorf("%d rows, want 14", df.Nrow())
	}
	if v := df.Elem(8, 3).Float(); v != r.Draws.Chains[1][1*2+1] {
		t.Errorf("row 8 x[1] = %v, want chain 1 draw 1: %v", v, r.Draws.Chains[1][3])
	}
	var b strings.Builder
	if err := r.WriteCSV(&b); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(b.String()), "\n")
	if len(lines) != 15 || !strings.HasPrefix(lines[0], "chain,draw,") {
		t.Errorf("CSV has %d lines, header %q", len(lines), lines[0])
	}
}

// TestFallbacks: where the derivatives are not finite the proposers fall back to
// state-dependent walks, whose densities enter both directions of the ratio; the
// posteriors stay right and the fallbacks are counted.
func TestFallbacks(t *testing.T) {
	t.Parallel()
	normal := &scalarModel{ // N(4, 1)
		site: Site{Name: "x", Size: 1, Support: Real},
		fn:   func(x float64) (float64, float64, float64) { return -0.5 * (x - 4) * (x - 4), 4 - x, -1 },
		init: func(rng *rand.Rand) float64 { return rng.NormFloat64() },
	}
	gp, ga, gb := gammaPoissonModel(3, 1, []float64{2, 4}, 1, 0) // Gamma(9, 3)
	bb, ba, bbb := betaBinomialModel(2, 3, 4, 6, 1, 0, 1)        // Beta(6, 5)
	dc := []float64{1, 2, 3}                                     // Dirichlet(2, 3, 4)
	for _, c := range []struct {
		name       string
		m          Model
		coord      string
		mean, sd   float64
		minFallOut float64 // least fraction of fallback proposals expected
	}{
		{"real", withNaNDerivs(normal, func(x float64) bool { return x > 3.5 }), "x", 4, 1, 0.3},
		{"positive", withNaNDerivs(gp, func(x float64) bool { return x > 3 }), "lambda", ga / gb, math.Sqrt(ga) / gb, 0.2},
		{"interval", withNaNDerivs(bb, func(x float64) bool { return x > 0.6 }), "p", ba / (ba + bbb), math.Sqrt(ba * bbb / ((ba + bbb) * (ba + bbb) * (ba + bbb + 1))), 0.1},
		{"simplex", nanDirichlet{&dirichletModel{c: dc}}, "theta[0]", 2.0 / 9, math.Sqrt(2 * 7 / (81.0 * 10)), 0.02},
	} {
		t.Run(c.name, func(t *testing.T) {
			r := sample(t, c.m, &Options{Warmup: NoWarmup, Chains: 4, Draws: 2000, Seed: 111})
			checkMoments(t, c.coord, column(t, r, c.coord), c.mean, c.sd, nil)
			s := r.Sites[0]
			if f := float64(s.Fallbacks) / float64(s.Proposals); f < c.minFallOut || s.Fallbacks == s.Proposals {
				t.Errorf("%d fallbacks in %d proposals", s.Fallbacks, s.Proposals)
			}
		})
	}
}

// TestCancelWithinSweep: a sweep over many sites stops soon after cancellation, and
// the unfinished sweep is not recorded.
func TestCancelWithinSweep(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	m := &manySites{n: 20000, cancel: cancel, after: 25000}
	r, err := Sample(ctx, m, &Options{Warmup: NoWarmup, Chains: 1, Draws: 3, Seed: 1, InitRefine: -1, StartCandidates: 1})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("error %v, want context.Canceled", err)
	}
	// Initialisation takes 20000 calls; the cancel comes 2500 steps into the first
	// sweep and must be seen within 256 more steps (2 calls each).
	if n := m.calls.Load(); n > 25000+2*256+2 {
		t.Errorf("%d Score calls: the sweep went on after cancellation", n)
	}
	if n := r.Draws.NumDraws(0); n != 0 {
		t.Errorf("%d draws recorded, want 0", n)
	}
}
