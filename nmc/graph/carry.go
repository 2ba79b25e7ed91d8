package graph

import (
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/nmc-go/nmc/draws"
	"github.com/nmc-go/nmc/nmc"
	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/lapack/lapack64"
)

// A kernel's parameters' move that carries a non-centred Gaussian process along
// (rule AutoKernelCarry). In f = CholeskyMul(K(α, ρ), η), η ~ N(0, 1), the data
// pin f, so α and ρ given η are pinned too: a change of either alone changes
// every f_i. The move proposes θ′ = θ·e^{s·Cz}, θ = (α, ρ) (those that are
// positive scalar latents), z ~ N(0, I), and η′ = L(θ′)⁻¹L(θ)·η, which keeps f:
// θ moves by its law given f, as in the centred form, the two forms'
// conditionals interwoven, and α with ρ, along the ridge their law given f
// has. The maps (θ, η) → (θ′, η′) form a group in log θ, so the move is
// Metropolis-Hastings with the Jacobian Π_k θ′_k/θ_k · Π_i L(θ)_ii / L(θ′)_ii;
// its ratio takes the exact change of the log density of everything the sites
// of θ and η read (nmc.JointHessianer, values only), the likelihood unchanged
// but for rounding. In warm-up C is fitted to the covariance of log θ over the
// stationary sweeps (nmc.Warmup.Stationary) and s adapted towards an acceptance
// rate of 0.44 for one parameter and 0.35 for two; both are frozen after it.

// carryPlan is one carry move of a compiled model.
type carryPlan struct {
	name  string
	m     *Model
	cov   *Node // the covariance: n elements of n components
	n     int
	theta []int // state indices of the kernel's parameters moved
	eta   []int // state index of η's element i
	sites []int // the parameters' sites, then η's
}

// compileKernelCarries finds the moves of rule AutoKernelCarry: per
// CholeskyMul(K, η) that a factor reads, K a kernel (plus a constant diagonal or
// not) whose amplitude or length scale is a positive scalar latent, and η a real
// latent of n scalar elements.
func (m *Model) compileKernelCarries() {
	if m.auto != nil && m.auto.off&AutoKernelCarry != 0 {
		return
	}
	done := map[*family]bool{}
	m.eachCholMul(func(n *Node, op cholMulOp) {
		if op.etaVec {
			return
		}
		eta := m.famOf(n.args[1])
		if eta == nil || eta.width != 1 || eta.length != op.n || done[eta] {
			return
		}
		for _, s := range m.sitesOf(eta) {
			if s.Support != nmc.Real {
				return
			}
		}
		cov := n.args[0] // Reshape(K, 1, n²), K itself when n = 1
		if op.n > 1 {
			cov = cov.args[0]
		}
		p := &carryPlan{m: m, cov: cov, n: op.n}
		var names []string
		for _, a := range kernelParams(n.args[0]) {
			f := m.famOf(a)
			if f == nil || f == eta || f.length != 1 || f.width != 1 || slices.Contains(p.sites, f.first) {
				continue
			}
			if s := m.sites[f.first]; s.Support != nmc.Positive || s.Lower != 0 {
				continue
			}
			p.theta = append(p.theta, m.offsets[f.first])
			p.sites = append(p.sites, f.first)
			names = append(names, f.name)
		}
		if len(p.theta) == 0 {
			return
		}
		done[eta] = true
		p.name = "auto: " + strings.Join(names, ", ") + " carrying " + eta.name
		for i := 0; i < op.n; i++ {
			site := eta.site(i)
			p.eta = append(p.eta, m.offsets[site]+eta.coord(i, 0))
			if p.sites[len(p.sites)-1] != site {
				p.sites = append(p.sites, site)
			}
		}
		m.carries = append(m.carries, p)
	})
}

// ModelMoves returns the model's own moves (nmc.ModelMover): the moves of rule
// AutoKernelCarry, a non-centred Gaussian process's length scale carrying its
// standardised values (see NoAutoGroups).
func (m *Model) ModelMoves() []nmc.Move {
	var out []nmc.Move
	for _, p := range m.carries {
		out = append(out, p)
	}
	return out
}

// Plan plans the move as is (nmc.Move); the site steps of ρ and η stay.
func (p *carryPlan) Plan(pl *nmc.Planner) ([]nmc.Planned, error) {
	if pl.Model() != nmc.Model(p.m) {
		return nil, fmt.Errorf("graph: move %q: planned for another model", p.name)
	}
	return []nmc.Planned{p}, nil
}

// Name names the move.
func (p *carryPlan) Name() string { return p.name }

// Start returns the move's state in chain c.
func (p *carryPlan) Start(c *nmc.Chain) (nmc.Stepper, error) {
	jh, ok := c.Scorer().(nmc.JointHessianer)
	if !ok {
		return nil, fmt.Errorf("graph: move %q: the chain's scorer is not the model's", p.name)
	}
	n, d := p.n, len(p.theta)
	st := &carryStepper{plan: p, sc: jh, vs: p.m.newScorer(), logScale: math.Log(0.5),
		l0: make([]float64, n*n), l1: make([]float64, n*n), f: make([]float64, n), old: make([]float64, n),
		row: make([]float64, 0, n), th: make([]float64, d), z: make([]float64, d), chol: make([]float64, d*d),
		mean: make([]float64, d), m2: make([]float64, d*d), fit: make([]float64, d*d)}
	for k := range d {
		st.chol[k*d+k] = 1
	}
	return st, nil
}

// carryStepper is a carry move's state in one chain.
type carryStepper struct {
	plan      *carryPlan
	sc        nmc.JointHessianer
	vs        *scorer // evaluates the covariance
	logScale  float64 // log s
	warmSteps int
	l0, l1    []float64
	f, old    []float64
	row       []float64
	th, z     []float64 // the parameters' old values; the proposal's step in log θ
	chol      []float64 // C: the lower Cholesky factor of the fitted covariance of log θ (I before a fit)
	// The covariance's accumulators over the stationary warm-up sweeps: count,
	// mean and sums of cross products of log θ (Welford), and the sweep they
	// start after.
	count      float64
	mean, m2   []float64
	fit        []float64 // Adapt's scratch for the covariance and its factor
	stationary int
	fitted     bool
	stats      draws.SiteStats
}

// Step makes the move once.
func (st *carryStepper) Step(c *nmc.Chain) {
	p, d := st.plan, len(st.plan.theta)
	x := c.State()
	for k := range d {
		st.z[k] = c.Rand().NormFloat64()
	}
	u := c.Rand().Float64()
	st.stats.Proposals++
	accepted := false
	defer func() {
		if c.Warmup() {
			st.adapt(accepted, d)
		}
	}()
	f0 := st.sc.JointHessian(x, p.sites, nil, nil)
	ld0, ok0 := st.factor(x, st.l0)
	if !ok0 || math.IsNaN(f0) || math.IsInf(f0, 0) {
		return
	}
	// The step in log θ: s·C·z.
	s, logJac := math.Exp(st.logScale), 0.0
	for k, j := range p.theta {
		st.th[k] = x[j]
	}
	for k, j := range p.theta {
		step := 0.0
		for l := 0; l <= k; l++ {
			step += st.chol[k*d+l] * st.z[l]
		}
		x[j] = st.th[k] * math.Exp(s*step)
		logJac += s * step
	}
	n := p.n
	for i, j := range p.eta {
		st.old[i] = x[j]
	}
	restore := func() {
		for k, j := range p.theta {
			x[j] = st.th[k]
		}
		for i, j := range p.eta {
			x[j] = st.old[i]
		}
		c.Reverted()
	}
	for _, j := range p.theta {
		if !(x[j] > 0) || math.IsInf(x[j], 1) {
			restore()
			return
		}
	}
	// f = L(θ)·η, then η′ = L(θ′)⁻¹f.
	copy(st.f, st.old)
	lower := func(l []float64) blas64.Triangular {
		return blas64.Triangular{Uplo: blas.Lower, Diag: blas.NonUnit, N: n, Stride: n, Data: l}
	}
	blas64.Trmv(blas.NoTrans, lower(st.l0), blas64.Vector{N: n, Data: st.f, Inc: 1})
	ld1, ok1 := st.factor(x, st.l1)
	f1 := math.Inf(-1)
	if ok1 {
		blas64.Trsv(blas.NoTrans, lower(st.l1), blas64.Vector{N: n, Data: st.f, Inc: 1})
		finite := true
		for i, j := range p.eta {
			x[j] = st.f[i]
			finite = finite && !math.IsNaN(st.f[i]) && !math.IsInf(st.f[i], 0)
		}
		if finite {
			f1 = st.sc.JointHessian(x, p.sites, nil, nil)
		}
	}
	if logr := f1 - f0 + logJac + ld0 - ld1; math.Log(u) < logr {
		accepted = true
		st.stats.Accepted++
		for _, i := range p.sites {
			c.Changed(i)
		}
		return
	}
	restore()
}

// adapt moves log s towards the acceptance rate of a random walk in d
// dimensions (0.44 for one, 0.35 for more) by a Robbins-Monro step of
// decreasing size.
func (st *carryStepper) adapt(accepted bool, d int) {
	st.warmSteps++
	target, a := 0.44, 0.0
	if d > 1 {
		target = 0.35
	}
	if accepted {
		a = 1
	}
	st.logScale += (a - target) / math.Pow(float64(st.warmSteps), 0.6)
	st.logScale = min(max(st.logScale, math.Log(1e-3)), math.Log(10))
}

// Adapt adds the current log θ to the covariance's accumulators after each
// warm-up sweep of the stationary period (starting them again when it starts
// again), and fits C once there are 20 or more (nmc.Adapter).
func (st *carryStepper) Adapt(c *nmc.Chain, w nmc.Warmup) {
	p, d := st.plan, len(st.plan.theta)
	if w.Stationary != st.stationary {
		st.stationary, st.count = w.Stationary, 0
		clear(st.mean)
		clear(st.m2)
	}
	if w.Sweep <= w.Stationary {
		return
	}
	x := c.State()
	st.count++
	for k, j := range p.theta {
		st.z[k] = math.Log(x[j]) - st.mean[k] // the deviation from the old mean
		st.mean[k] += st.z[k] / st.count
	}
	for k, j := range p.theta {
		dk := math.Log(x[j]) - st.mean[k] // from the new mean
		for l := range d {
			st.m2[k*d+l] += st.z[l] * dk
		}
	}
	if st.count < 20 {
		return
	}
	// C·Cᵀ = the covariance, a little of its diagonal added so that it stays
	// positive definite; kept as it was if the factorisation fails.
	fit := st.fit
	for k := range d {
		for l := 0; l <= k; l++ {
			fit[k*d+l] = st.m2[k*d+l] / (st.count - 1)
		}
		fit[k*d+k] = fit[k*d+k]*1.01 + 1e-10
	}
	if _, ok := lapack64.Potrf(blas64.Symmetric{Uplo: blas.Lower, N: d, Stride: d, Data: fit}); ok {
		if !st.fitted {
			// The first fit: s was tuned for C = I.
			st.logScale, st.fitted = math.Log(2.38/math.Sqrt(float64(d))), true
		}
		copy(st.chol, fit)
	}
}

// EndWarmup freezes the proposal (nmc.Adapter).
func (st *carryStepper) EndWarmup(*nmc.Chain, nmc.Warmup) {}

// factor writes the lower Cholesky factor of the covariance at x into l and
// returns Σ_i log l_ii, or false where it is not positive definite.
func (st *carryStepper) factor(x []float64, l []float64) (float64, bool) {
	p, n := st.plan, st.plan.n
	st.vs.x = x
	for i := 0; i < n; i++ {
		st.row = st.vs.values(p.cov, i, st.row[:0])
		for j := 0; j < n; j++ {
			l[i*n+j] = 0
			if j <= i {
				l[i*n+j] = st.row[j]
			}
		}
	}
	if _, ok := lapack64.Potrf(blas64.Symmetric{Uplo: blas.Lower, N: n, Stride: n, Data: l}); !ok {
		return 0, false
	}
	ld := 0.0
	for i := 0; i < n; i++ {
		ld += math.Log(l[i*n+i])
	}
	return ld, !math.IsNaN(ld) && !math.IsInf(ld, 0)
}

// Stats returns the move's counts.
func (st *carryStepper) Stats() []draws.SiteStats {
	s := st.stats
	s.Name, s.Proposer, s.Sites = st.plan.name, "carry-walk", len(st.plan.sites)
	return []draws.SiteStats{s}
}
