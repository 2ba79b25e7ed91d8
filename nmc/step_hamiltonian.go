package nmc

import (
	"fmt"
	"math"

	"github.com/nmc-go/nmc/draws"
	"github.com/nmc-go/nmc/internal/special"
)

// The Hamiltonian block. Some posteriors couple many continuous sites along
// directions no single-site step follows, and the coupling runs through a blanket
// too large for a joint Newton fit: Dawid-Skene with the classes summed out, whose
// rare-class prevalence π₁ and the 100 confusion rows of that class pin each other
// (see the lead-and-follow moves, step_joint.go). A model declares such a block
// (Hamiltonian: the block's sites, continuous, not Marginalised) and its Scorer
// gives the gradient of the log joint with respect to all of them in one pass
// (JointGradienter; without it the gradient is assembled from the per-site scores,
// which is exact but costs one Markov-blanket score per site). Once per sweep, warm-up
// included, the chain then makes one static Hamiltonian Monte Carlo move of all the
// block's sites jointly:
//
//  1. Coordinates. Each site's coordinates x map to unconstrained ones u: Real the
//     identity; Positive u = log(x − Lower); Interval u = logit((x − Lower)/w), w =
//     Upper − Lower; Simplex (k coordinates) the additive log-ratio with coordinate 0
//     as reference, u_j = log(p_j/p_0), j = 1 … k−1, p = softmax(0, u). The target in
//     u is log p(x(u)) + log|J(u)|, where log|J| is Σ log(x − Lower) (Positive),
//     Σ log(w s(1−s)), s the logistic of u (Interval), and Σ_{i=0}^{k−1} log p_i
//     (Simplex: the Jacobian of u ↦ the first k−1 coordinates of p). From the
//     gradient g of log p in x (a simplex's homogeneous gradient, see
//     JointGradienter), the gradient in u is g·(x − Lower) + 1 (Positive),
//     g·w·s(1−s) + 1 − 2s (Interval) and p_j (g_j − Σ_i p_i g_i) + 1 − k p_j
//     (Simplex).
//  2. The move (static HMC): momentum r ~ N(0, M), M = diag(1/invMass); L leapfrog
//     steps (HamiltonianOptions.Leapfrogs) of size ε jittered uniformly in
//     [0.9ε, 1.1ε]; the gradient alone inside the trajectory, the log density only
//     at its end (the start's is computed with the start's gradient: L + 1
//     gradients per move, two with the value); a non-finite value or gradient
//     ends the trajectory as a rejection (one reported by JointGrad at once; one
//     that is not makes the state, or the final kinetic energy, not finite).
//     Accepted with probability min(1, exp(H₀ − H₁)), H = −log target + ½ rᵀM⁻¹r.
//     Every site of the block is then reported changed; after a rejection the
//     state is put back and a StateKeeper Scorer told so.
//     A leapfrog step is two passes over runs of the block's sites (hamRun:
//     consecutive sites of one support and size, contiguous in the state; for
//     Dawid-Skene two, π and the 300 confusion rows) around the gradient:
//     hamDrift (the momentum's half step, the position's step and x(u)) and
//     hamKick (the chain rule and the second half step); log|J| only at the
//     trajectory's ends. A simplex's softmax is p_0 = 1/(1 + Σ_j e^{u_j}),
//     p_j = e^{u_j} p_0 (k − 1 exponentials by hamExp, one division) while every
//     u_j is in (−700, 300), shifted by the largest u_j otherwise.
//  3. Adaptation, per chain, in warm-up only (W sweeps: Options.Warmup, or with the
//     adaptive warm-up its minimum, 300 sweeps with a block, for the window positions). The
//     first move takes ε = 0.1, then dual averaging (Hoffman and Gelman 2014:
//     γ = 0.05, t₀ = 10, κ = 0.75, μ = log 10ε) drives the mean acceptance to
//     HamiltonianOptions.Target. The diagonal inverse mass is the variance of u
//     over the sweeps [W/4, W/2), regularised as Stan's, (n/(n+5))·var +
//     10⁻³·5/(n+5); at W/2 dual averaging restarts with μ = log 10ε, ε its last
//     iterate (a window of fewer than 10 sweeps leaves the mass at 1 and dual
//     averaging running); at warm-up's end ε is frozen at exp(log ε̄), the
//     dual-averaging average (an adaptive warm-up adapts ε until it ends). Stan's
//     step-size heuristic (double or halve ε until one leapfrog step's acceptance
//     crosses 0.8, at the start and after the mass update) was tried and dropped:
//     on Dawid-Skene (seed 1, chains 0–7) it ended warm-up with step sizes 0.09–0.14
//     and π₁ bulk ESS 1193 and 1279, against 0.07–0.24 and 1714 and 1437 without.
//  4. Where: after the site steps, the group moves, the fitted steps and the
//     AugmentRounds − 1 extra augmentation rounds, before the lead-and-follow moves
//     and the final augmentation round (which draws the Marginalised sites given the
//     moved block, and is what is recorded). The block changes two defaults: one
//     augmentation round (AugmentRounds 0 means 1) and no lead-and-follow moves
//     (unless Options.Joint.Leads or Options.Joint.Steps is set).
//
// The defaults are the prototype's (H18/H22) measured winner on Dawid-Skene (5,000
// items, 100 labelers, 3 classes, 4 chains × 200 + 1000 sweeps; π = min bulk ESS of
// the prevalences, seeds 1 / 2): single-site steps with one augmentation round and
// no lead moves plus this move with 32 leapfrogs, target 0.65 and the mass window
// ending at half of warm-up gave π 1539–1999 / 2618–2806 and min θ 2040 at 1.47×
// main's CPU time (main alone: π 584 / 551); 24 leapfrogs gave π 1302–1361 at seed
// 1, 40 leapfrogs ≥ 1866 at 1.68×; with the window ending at 3/4 of warm-up some
// chains ended warm-up with ε 3× too small (π₁ 1174 once); NUTS instead of the
// static trajectory gave π 903 / 1024 at twice the cost. This move on the graph
// Dawid-Skene model (block: π and the 300 rows; per-site gradients) gave π₁ 1739
// and 1139 at seed 1 (chains 0–3, 4–7) and 3392 at seed 2, max R-hat 1.0036; with
// the graph's JointGrad, π₁ 1317–2076 over six sets of chains at seed 1 and
// 3211–3542 at seed 2, min θ ≥ 2094 (with Target 0.8: 1418–1892, min θ ≥ 2165).
//
// The engine's defaults since (session 8): Target 0.8, not the prototype's 0.65;
// the adaptive warm-up at least 300 sweeps with a block; a 3-simplex's reference
// coordinate its largest one when coordinate 0 is below a tenth of it
// (chooseRefs). Over seeds 1–10 of `nmc sample -model annotation -n 10000 -k 100`
// (min bulk ESS of π / of θ): Target 0.65, π 1257–3346 (3 seeds below 1500), θ
// 1469–3205; 0.8, π 1343–3789 (seed 3 below 1500), θ 1950–3322, R-hat ≤ 1.0037;
// 0.9, π 764–3531; 0.5, π 655–1726; 0.4, π 363–1083. The mean acceptance after
// warm-up runs above the target (0.83–0.93 at 0.8): the dual average of the step
// size is the cautious end of its iterates.

// HamiltonianOptions configures the Hamiltonian block's move (see
// Options.Hamiltonian and the Hamiltonian interface). The zero value is the
// default: on for a model that declares a block, 32 leapfrog steps, step size
// adapted to a mean acceptance of 0.8.
type HamiltonianOptions struct {
	// Off turns the move off; the model's other steps and the defaults the block
	// changes (Options.AugmentRounds, the lead-and-follow moves) are then as for a
	// model without a block.
	Off bool
	// Leapfrogs is the number of leapfrog steps per move (default 32). Must not be
	// negative.
	Leapfrogs int
	// Target is the mean acceptance probability the step size is adapted to in
	// warm-up (default 0.8). Must be in (0, 1); 0 means the default.
	Target float64
}

const (
	defaultLeapfrogs         = 32
	defaultHamiltonianTarget = 0.8
	// hamiltonianName and hamiltonianProposer name the block in Result.Hamiltonian.
	hamiltonianName     = "hamiltonian"
	hamiltonianProposer = "hmc"
	// hamiltonianStartEps is the step size of the first move.
	hamiltonianStartEps = 0.1
	// minMassWindow is the fewest sweeps of the mass-matrix window that set the
	// inverse mass; a shorter window leaves it at 1.
	minMassWindow = 10
	// Dual averaging (Hoffman and Gelman 2014, Stan's values).
	daGamma, daT0, daKappa = 0.05, 10.0, 0.75
)

// withDefaults validates h and fills in its defaults.
func (h HamiltonianOptions) withDefaults() (HamiltonianOptions, error) {
	if h.Leapfrogs < 0 {
		return h, fmt.Errorf("nmc: Options.Hamiltonian.Leapfrogs = %d is negative", h.Leapfrogs)
	}
	if h.Leapfrogs == 0 {
		h.Leapfrogs = defaultLeapfrogs
	}
	if !(h.Target >= 0 && h.Target < 1) {
		return h, fmt.Errorf("nmc: Options.Hamiltonian.Target = %g, want in (0, 1) (0: the default %g)", h.Target, defaultHamiltonianTarget)
	}
	if h.Target == 0 {
		h.Target = defaultHamiltonianTarget
	}
	return h, nil
}

// hamiltonianSites returns the sites of the model's Hamiltonian block, checked;
// nil when the model declares none.
func hamiltonianSites(m Model, sites []Site) ([]int, error) {
	hm, ok := m.(Hamiltonian)
	if !ok {
		return nil, nil
	}
	list := hm.HamiltonianSites()
	seen := make([]bool, len(sites))
	out := make([]int, 0, len(list))
	for n, i := range list {
		if i < 0 || i >= len(sites) {
			return nil, fmt.Errorf("nmc: the model's HamiltonianSites() lists site %d (entry %d); the model has sites 0 … %d", i, n, len(sites)-1)
		}
		s := sites[i]
		switch {
		case s.Marginalised:
			return nil, fmt.Errorf("nmc: the model's HamiltonianSites() lists site %q, which is Marginalised; the block's sites are continuous", s.Name)
		case s.Support == Discrete:
			return nil, fmt.Errorf("nmc: the model's HamiltonianSites() lists site %q, which is Discrete; the block's sites are continuous", s.Name)
		case seen[i]:
			return nil, fmt.Errorf("nmc: the model's HamiltonianSites() lists site %q twice", s.Name)
		}
		seen[i] = true
		out = append(out, i)
	}
	if len(out) == 0 {
		return nil, nil
	}
	return out, nil
}

// HamiltonianChain describes one chain's Hamiltonian block (Result.HamiltonianChains).
type HamiltonianChain struct {
	// StepSize is the leapfrog step size ε of the moves after warm-up (each move
	// jitters it uniformly by ±10%).
	StepSize float64
	// MeanAccept is the mean acceptance probability min(1, exp(H₀ − H₁)) of the
	// moves after warm-up (NaN without any).
	MeanAccept float64
	// Divergent is the number of moves after warm-up whose trajectory ended at a
	// non-finite log density or gradient.
	Divergent int
}

// dualAveraging is the state of the step size's dual averaging.
type dualAveraging struct {
	mu, hbar, logEpsBar float64
	t                   int
}

// hamiltonianBlock is one chain's Hamiltonian block: its sites, buffers and
// adaptation. Everything is allocated in newHamiltonianBlock.
type hamiltonianBlock struct {
	sites     []int
	segs      []hamSeg        // per site, as the transforms read it
	ref       []uint8         // per site: a 3-simplex's reference coordinate (see chooseRefs)
	runs      []hamRun        // the segments' runs, as the leapfrog steps read them
	jg        JointGradienter // nil: per-site Score gradients
	hess      []float64       // the per-site gradients' Hessian scratch (largest site)
	leapfrogs int
	target    float64

	u, u0, gu, mom []float64 // unconstrained coordinates, their gradient, momentum
	gx, x0         []float64 // gradient in x, the block's coordinates before the move
	invMass        []float64
	sqrtInvMass    []float64 // √invMass, for the momentum's draws

	eps    float64
	window int // W, the warm-up length the window positions are fractions of
	moves  int // warm-up moves so far
	da     dualAveraging
	mean   []float64 // Welford's running mean and sum of squares of u in the window
	m2     []float64
	nvar   int

	stats     draws.SiteStats // moves after warm-up
	accSum    float64
	divergent int
}

// hamSeg is one site of the block as the transforms read it: its support and
// bounds, its number of coordinates k and where its coordinates are in the chain's
// state (x), in the unconstrained coordinates (u, freeDim of them) and in the
// gradient in x (g, k of them, in the order of the block).
type hamSeg struct {
	support      Support
	k            int
	x, u, g      int
	lower, upper float64
	// ref, for a 3-simplex of the block, is a one-entry view of the block's
	// reference coordinates (hamiltonianBlock.ref); nil means coordinate 0.
	ref []uint8
}

// hamSegs returns the segments of the given sites with state offsets off, the
// number of unconstrained coordinates and the number of coordinates.
func hamSegs(blockSites []int, sites []Site, off []int) (segs []hamSeg, du, dx int) {
	segs = make([]hamSeg, len(blockSites))
	for n, i := range blockSites {
		s := sites[i]
		segs[n] = hamSeg{support: s.Support, k: s.Size, x: off[i], u: du, g: dx, lower: s.Lower, upper: s.Upper}
		du += freeDim(s)
		dx += s.Size
	}
	return segs, du, dx
}

func newHamiltonianBlock(blockSites []int, sites []Site, off []int, opts *Options) *hamiltonianBlock {
	h := &hamiltonianBlock{sites: blockSites, leapfrogs: opts.Hamiltonian.Leapfrogs,
		target: opts.Hamiltonian.Target, eps: hamiltonianStartEps}
	h.da = dualAveraging{mu: math.Log(10 * h.eps)}
	var du, dx int
	h.segs, du, dx = hamSegs(blockSites, sites, off)
	h.ref = make([]uint8, len(h.segs))
	for n := range h.segs {
		if sg := &h.segs[n]; sg.support == Simplex && sg.k == 3 {
			sg.ref = h.ref[n : n+1 : len(h.ref)]
		}
	}
	h.runs = hamRunsOf(h.segs)
	maxK := 0
	for _, i := range blockSites {
		maxK = max(maxK, sites[i].Size)
	}
	h.u, h.u0, h.gu, h.mom = make([]float64, du), make([]float64, du), make([]float64, du), make([]float64, du)
	h.gx, h.x0 = make([]float64, dx), make([]float64, dx)
	h.invMass, h.mean, h.m2 = make([]float64, du), make([]float64, du), make([]float64, du)
	h.sqrtInvMass = make([]float64, du)
	for j := range h.invMass {
		h.invMass[j], h.sqrtInvMass[j] = 1, 1
	}
	h.hess = make([]float64, maxK*maxK)
	h.window = opts.Warmup
	if opts.Warmup == AutoWarmup {
		h.window = hamMinWarmup
	}
	return h
}

// hamToFree writes the unconstrained coordinates u of the segments at the state x.
func hamToFree(segs []hamSeg, x, u []float64) {
	for i := range segs {
		sg := &segs[i]
		xs := x[sg.x : sg.x+sg.k]
		switch sg.support {
		case Real:
			copy(u[sg.u:], xs)
		case Positive:
			us := u[sg.u : sg.u+sg.k]
			for j, v := range xs {
				us[j] = math.Log(v - sg.lower)
			}
		case Interval:
			us := u[sg.u : sg.u+sg.k]
			for j, v := range xs {
				us[j] = math.Log(v-sg.lower) - math.Log(sg.upper-v)
			}
		case Simplex:
			us := u[sg.u : sg.u+sg.k-1]
			if sg.k == 3 {
				i := rot3(sg.ref, 0)
				l0 := math.Log(xs[i[0]])
				us[0], us[1] = math.Log(xs[i[1]])-l0, math.Log(xs[i[2]])-l0
				break
			}
			l0 := math.Log(xs[0])
			for j := range us {
				us[j] = math.Log(xs[j+1]) - l0
			}
		}
	}
}

// hamRun is a run of consecutive sites of the block with the same support, size
// and bounds whose coordinates follow each other in the state in the block's order,
// so at constant strides in x, u and g: the transforms and the leapfrog steps loop
// over a run's coordinates at once instead of reading each site's segment.
type hamRun struct {
	support      Support
	k, n         int // coordinates per site, sites
	x, u, g      int // the first site's offsets, as in hamSeg
	lower, upper float64
	ref          []uint8 // per site, its reference coordinate (as hamSeg.ref); nil: 0
}

// refRatio: chooseRefs keeps coordinate 0 as a 3-simplex's reference unless it is
// below refRatio times the largest.
const refRatio = 0.1

// rot3Order lists, for each reference coordinate a of a 3-simplex, the order
// (a, a+1, a+2 mod 3) in which its coordinates are p_0, p_1, p_2 of the
// transform: u_j = log(p_j / p_0).
var rot3Order = [3][3]int{{0, 1, 2}, {1, 2, 0}, {2, 0, 1}}

// rot3 returns the coordinate order of site s of a run (or segment) with
// references ref: coordinate 0 as reference when ref is nil.
func rot3(ref []uint8, s int) [3]int {
	if ref == nil {
		return rot3Order[0]
	}
	return rot3Order[ref[s]%3]
}

// chooseRefs makes each 3-simplex's largest coordinate at x its reference
// coordinate, so that u_j = log(p_j / p_ref) divides by a coordinate far from 0:
// with a rare coordinate as reference (the prevalence of Dawid-Skene's rare class
// when it is class 0), every u_j moves with its logarithm, a direction the diagonal
// mass matrix cannot follow (seed 7 of `nmc sample -model annotation -n 10000 -k
// 100`: π₀ ≈ 0.01, min bulk ESS 291 with coordinate 0 as reference, and R-hat 1.013).
// Called in warm-up before the mass matrix's window, so the map is fixed from
// then on.
func (h *hamiltonianBlock) chooseRefs(x []float64) {
	for n := range h.segs {
		sg := &h.segs[n]
		if sg.ref == nil {
			continue
		}
		xs := x[sg.x : sg.x+3]
		best := 0
		for j := 1; j < 3; j++ {
			if xs[j] > xs[best] {
				best = j
			}
		}
		if xs[0] >= refRatio*xs[best] {
			best = 0
		}
		h.ref[n] = uint8(best)
	}
}

// hamRunsOf returns the runs of the segments, in their order.
func hamRunsOf(segs []hamSeg) []hamRun {
	var runs []hamRun
	for _, sg := range segs {
		if n := len(runs); n > 0 {
			r := &runs[n-1]
			if r.support == sg.support && r.k == sg.k && r.lower == sg.lower && r.upper == sg.upper && r.x+r.n*r.k == sg.x &&
				(r.ref == nil) == (sg.ref == nil) && (r.ref == nil || &r.ref[:r.n+1][r.n] == &sg.ref[0]) {
				r.n++
				if r.ref != nil {
					r.ref = r.ref[:r.n]
				}
				continue
			}
		}
		runs = append(runs, hamRunOf(sg))
	}
	return runs
}

// hamRunOf returns the run of the one segment sg.
func hamRunOf(sg hamSeg) hamRun {
	return hamRun{support: sg.support, k: sg.k, n: 1, x: sg.x, u: sg.u, g: sg.g, lower: sg.lower, upper: sg.upper, ref: sg.ref}
}

// free returns the number of the run's unconstrained coordinates.
func (r *hamRun) free() int {
	if r.support == Simplex {
		return r.n * (r.k - 1)
	}
	return r.n * r.k
}

// simplexNoShift bounds the simplex coordinates u whose softmax is taken without
// shifting by their maximum: below it, 1 + Σ e^{u_j} is far from overflowing and
// p_0 = 1/(1 + Σ e^{u_j}) far from underflowing.
const simplexNoShift = 300

// hamFromFreeRuns writes the runs' coordinates into the state x from their
// unconstrained coordinates u and returns Σ log|J(u)| (see the comment at the top)
// when logJ is true, else 0 (or a sum of terms it costs nothing to add).
func hamFromFreeRuns(runs []hamRun, u, x []float64, logJ bool) float64 {
	lj := 0.0
	for i := range runs {
		lj += runs[i].fromFree(u, x, logJ)
	}
	return lj
}

// fromFree is hamFromFreeRuns for the run r alone.
func (r *hamRun) fromFree(u, x []float64, logJ bool) float64 {
	lj := 0.0
	us := u[r.u : r.u+r.free()]
	xs := x[r.x : r.x+r.n*r.k]
	switch r.support {
	case Real:
		copy(xs, us)
	case Positive:
		for j, v := range us {
			xs[j] = r.lower + math.Exp(v)
			lj += v
		}
	case Interval:
		w := r.upper - r.lower
		for j, v := range us {
			xs[j] = r.lower + w*special.Logistic(v)
			if xs[j] >= r.upper { // the same point from the other end, without rounding up to Upper
				xs[j] = r.upper - w*special.Logistic(-v)
			}
			if logJ {
				lj += math.Log(w) - special.Log1pExp(-v) - special.Log1pExp(v)
			}
		}
	case Simplex:
		if r.k == 3 {
			for s := range r.n {
				i := rot3(r.ref, s)
				var l float64
				xs[3*s+i[0]], xs[3*s+i[1]], xs[3*s+i[2]], l = simplex3(us[2*s], us[2*s+1], logJ)
				lj += l
			}
			break
		}
		d := r.k - 1
		for s := range r.n {
			lj += simplexFromFree(us[d*s:d*s+d], xs[r.k*s:r.k*s+r.k], logJ)
		}
	}
	return lj
}

// simplex3 returns p = softmax(0, u1, u2) and, when logJ is true, Σ log p_i (else
// 0): two exponentials and one division, p_0 = 1/(1 + e^{u1} + e^{u2}), unless a
// coordinate is outside (simplexLow, simplexNoShift) (see simplexFromFree).
func simplex3(u1, u2 float64, logJ bool) (p0, p1, p2, lj float64) {
	if !(u1 > simplexLow && u1 < simplexNoShift && u2 > simplexLow && u2 < simplexNoShift) {
		return simplex3Shifted(u1, u2, logJ)
	}
	e1, e2 := hamExp(u1), hamExp(u2)
	p0 = 1 / (1 + e1 + e2)
	if logJ {
		lj = u1 + u2 + 3*math.Log(p0)
	}
	return p0, e1 * p0, e2 * p0, lj
}

// simplexLow bounds the simplex coordinates whose exponential hamExp takes from
// below (e^{−700} is a normal number).
const simplexLow = -700

// hamExpTable holds the bits of 2^{j/256}, j = 0 … 255.
var hamExpTable = func() (t [256]uint64) {
	for j := range t {
		t[j] = math.Float64bits(math.Exp2(float64(j) / 256))
	}
	return t
}()

// hamExp returns e^x for simplexLow < x < simplexNoShift (outside, anything),
// within a few ulps of math.Exp and cheaper (no call, no division, inlined):
// e^x = 2^{m + j/256} e^r with n = 256m + j = round(256x/ln 2) and |r| ≤ ln 2/512,
// e^r by its Taylor polynomial of degree 4 (error below 4·10⁻¹⁷).
func hamExp(x float64) float64 {
	const (
		shift = 0x1.8p52                         // adding it rounds to an integer in the low bits
		ln2Hi = 6.93147180369123816490e-01 / 256 // ln 2/256 to 32 bits: n·ln2Hi is exact
		ln2Lo = 1.90821492927058770002e-10 / 256
	)
	t := x*(256/math.Ln2) + shift
	n := t - shift
	r := (x - n*ln2Hi) - n*ln2Lo
	b := math.Float64bits(t)
	s := math.Float64frombits(hamExpTable[b&255] + b>>8<<52)
	return s + s*(r+r*r*(1.0/2+r*(1.0/6+r*(1.0/24))))
}

// simplex3Shifted is simplex3 by simplexFromFree, out of simplex3's frame.
//
//go:noinline
func simplex3Shifted(u1, u2 float64, logJ bool) (p0, p1, p2, lj float64) {
	var p [3]float64
	lj = simplexFromFree([]float64{u1, u2}, p[:], logJ)
	return p[0], p[1], p[2], lj
}

// simplexFromFree writes p = softmax(0, us) into xs (len(us) + 1 coordinates) and
// returns Σ log p_i when logJ is true, else 0. With every u_j in (simplexLow,
// simplexNoShift) it takes p_0 = 1/(1 + Σ_j e^{u_j}) and p_j = e^{u_j} p_0, the
// exponentials by hamExp; otherwise (a large, very negative or not finite u_j) it
// shifts by the largest u_j and takes math.Exp.
func simplexFromFree(us, xs []float64, logJ bool) float64 {
	top := 0.0
	for _, v := range us {
		if !(v > simplexLow && v < simplexNoShift) {
			top = math.Inf(1) // shift below
			break
		}
	}
	k := float64(len(xs))
	if top == 0 {
		// p_0 = 1/(1 + Σ_j e^{u_j}), p_j = e^{u_j} p_0: k − 1 exponentials, one division.
		sum := 1.0
		for j, v := range us {
			e := hamExp(v)
			xs[j+1] = e
			sum += e
		}
		p0 := 1 / sum
		xs[0] = p0
		lj := 0.0
		for j, v := range us {
			xs[j+1] *= p0
			lj += v
		}
		if !logJ {
			return 0
		}
		return lj + k*math.Log(p0)
	}
	// p_j = e^{u_j − top}/sum with u_0 = 0 and top = max u: the largest term is
	// exactly 1, no exponential needed.
	top = 0
	for _, v := range us {
		if v > top {
			top = v
		}
	}
	e0 := 1.0
	if top != 0 {
		e0 = math.Exp(-top)
	}
	xs[0] = e0
	sum := e0
	for j, v := range us {
		e := 1.0
		if v != top {
			e = math.Exp(v - top)
		}
		xs[j+1] = e
		sum += e
	}
	inv := 1 / sum
	for j := range xs {
		xs[j] *= inv
	}
	if !logJ {
		return 0
	}
	// Σ_i log p_i = Σ_j u_j − k (top + log sum).
	lj := -k * (top + math.Log(sum))
	for _, v := range us {
		lj += v
	}
	return lj
}

// hamDrift is the first half of a leapfrog step of size eps over the runs: the
// momentum's half step r += ½ε g_u (half = ½ε), the position's step u += ε M⁻¹ r and
// the state x = x(u), in one pass over a run of 3-simplices; it returns Σ log|J(u)|
// when logJ is true, as hamFromFreeRuns does (same sums in the same order).
func hamDrift(runs []hamRun, half, eps float64, gu, mom, invMass, u, x []float64, logJ bool) float64 {
	lj := 0.0
	for i := range runs {
		r := &runs[i]
		d := r.free()
		us := u[r.u : r.u+d]
		ms := mom[r.u : r.u+d]
		gs := gu[r.u : r.u+d]
		ims := invMass[r.u : r.u+d]
		if r.support != Simplex || r.k != 3 {
			for j := range us {
				m := ms[j] + half*gs[j]
				ms[j] = m
				us[j] += eps * ims[j] * m
			}
			lj += r.fromFree(u, x, logJ)
			continue
		}
		xs := x[r.x : r.x+3*r.n]
		rl := 0.0 // summed as fromFree does
		for s := range r.n {
			j := 2 * s
			m1 := ms[j] + half*gs[j]
			m2 := ms[j+1] + half*gs[j+1]
			ms[j], ms[j+1] = m1, m2
			u1 := us[j] + eps*ims[j]*m1
			u2 := us[j+1] + eps*ims[j+1]*m2
			us[j], us[j+1] = u1, u2
			i0, i1, i2 := 3*s, 3*s+1, 3*s+2
			if r.ref != nil && r.ref[s] != 0 {
				o := rot3Order[r.ref[s]%3]
				i0, i1, i2 = 3*s+o[0], 3*s+o[1], 3*s+o[2]
			}
			if logJ || !(u1 > simplexLow && u1 < simplexNoShift && u2 > simplexLow && u2 < simplexNoShift) {
				var l float64
				xs[i0], xs[i1], xs[i2], l = simplex3(u1, u2, logJ)
				rl += l
				continue
			}
			// simplex3's common case, inlined.
			e1, e2 := hamExp(u1), hamExp(u2)
			p0 := 1 / (1 + e1 + e2)
			xs[i0], xs[i1], xs[i2] = p0, e1*p0, e2*p0
		}
		lj += rl
	}
	return lj
}

// hamKick writes into gu the gradient with respect to u of log p(x(u)) +
// log|J(u)| for the runs, given the state x = x(u) and g, the gradient of log p
// with respect to their coordinates (homogeneous for a simplex), followed by the
// momentum's half step mom += half·gu, in one pass.
func hamKick(runs []hamRun, u, x, g, gu, mom []float64, half float64) {
	for i := range runs {
		runs[i].gradFree(u, x, g, gu, mom, half)
	}
}

// gradFree is hamKick for the run r alone, without the momentum step when mom is
// nil.
func (r *hamRun) gradFree(u, x, g, gu, mom []float64, half float64) {
	d := r.free()
	gus := gu[r.u : r.u+d]
	gs := g[r.g : r.g+r.n*r.k]
	switch r.support {
	case Real:
		copy(gus, gs)
	case Positive:
		for j, v := range u[r.u : r.u+d] {
			gus[j] = gs[j]*math.Exp(v) + 1
		}
	case Interval:
		w := r.upper - r.lower
		for j, v := range u[r.u : r.u+d] {
			lo, hi := special.Logistic(v), special.Logistic(-v)
			gus[j] = gs[j]*w*lo*hi + hi - lo
		}
	case Simplex:
		xs := x[r.x : r.x+r.n*r.k]
		if r.k == 3 {
			var ms []float64
			if mom != nil {
				ms = mom[r.u : r.u+d]
			}
			for s := range r.n {
				i0, i1, i2 := 3*s, 3*s+1, 3*s+2
				if r.ref != nil && r.ref[s] != 0 {
					o := rot3Order[r.ref[s]%3]
					i0, i1, i2 = 3*s+o[0], 3*s+o[1], 3*s+o[2]
				}
				g0, g1, g2 := gs[i0], gs[i1], gs[i2]
				p0, p1, p2 := xs[i0], xs[i1], xs[i2]
				pg := p0*g0 + p1*g1 + p2*g2
				d1 := p1*(g1-pg) + 1 - 3*p1
				d2 := p2*(g2-pg) + 1 - 3*p2
				gus[2*s], gus[2*s+1] = d1, d2
				if ms != nil {
					ms[2*s] += half * d1
					ms[2*s+1] += half * d2
				}
			}
			return
		}
		k, kf := r.k, float64(r.k)
		for s := range r.n {
			ps, gss, out := xs[k*s:k*s+k], gs[k*s:k*s+k], gus[(k-1)*s:(k-1)*s+k-1]
			pg := 0.0
			for i, p := range ps {
				pg += p * gss[i]
			}
			for j := range out {
				p := ps[j+1]
				out[j] = p*(gss[j+1]-pg) + 1 - kf*p
			}
		}
	}
	if mom != nil {
		for j, v := range gus {
			mom[r.u+j] += half * v
		}
	}
}

// hamEval computes, at the state x = x(u) of the block's coordinates, the gradient
// gu of the target in u, then, when kick is true, the momentum's half step
// mom += half·gu, and, when value is true, returns the target's log density, the
// log density in x plus logJ = log|J(u)|. It reports false when the log density or
// gradient is reported not finite (JointGrad's return value; a non-finite gradient
// that is not reported makes the momentum, and so the kinetic energy at the
// trajectory's end, not finite, or the next state outside the support).
func (c *chain) hamEval(value bool, logJ float64, kick bool, half float64) (float64, bool) {
	h := c.ham
	var f float64
	if h.jg != nil {
		f = h.jg.JointGrad(c.x, h.sites, h.gx, value)
	} else {
		f = c.hamSiteGradients(value)
	}
	if !isFinite(f) {
		return f, false
	}
	var mom []float64
	if kick {
		mom = h.mom
	}
	hamKick(h.runs, h.u, c.x, h.gx, h.gu, mom, half)
	if !value {
		return 0, true
	}
	lp := f + logJ
	return lp, isFinite(lp)
}

// hamSiteGradients is JointGrad from the Scorer's per-site scores: the gradient of
// the log joint with respect to a site's coordinates is that of its score. Score
// is asked for the Hessian too (it computes derivatives only when given both). It
// returns LogJoint when value is true, else 0, or a score that is not finite.
func (c *chain) hamSiteGradients(value bool) float64 {
	h := c.ham
	for n, i := range h.sites {
		sg := &h.segs[n]
		c.site = i
		f := c.sc.Score(c.x, i, h.gx[sg.g:sg.g+sg.k], h.hess[:sg.k*sg.k])
		c.site = -1
		if !isFinite(f) {
			return f
		}
	}
	if !value {
		return 0
	}
	return c.sc.LogJoint(c.x)
}

// kinetic returns ½ rᵀ M⁻¹ r.
func (h *hamiltonianBlock) kinetic() float64 {
	k := 0.0
	for j, r := range h.mom {
		k += r * r * h.invMass[j]
	}
	return 0.5 * k
}

// hamDrawMomentum draws r ~ N(0, M).
func (c *chain) hamDrawMomentum() {
	h := c.ham
	for j := range h.mom {
		h.mom[j] = c.rng.NormFloat64() / h.sqrtInvMass[j]
	}
}

// hamTrajectory runs n leapfrog steps of size eps from (u, mom) with the gradient
// gu at u, evaluating the log density at the end only; it returns that log
// density, and false when a value or gradient was reported not finite on the way
// (see hamEval).
func (c *chain) hamTrajectory(n int, eps float64) (float64, bool) {
	h := c.ham
	half := 0.5 * eps
	lp := 0.0
	for l := 0; l < n; l++ {
		last := l == n-1
		logJ := hamDrift(h.runs, half, eps, h.gu, h.mom, h.invMass, h.u, c.x, last)
		var ok bool
		if lp, ok = c.hamEval(last, logJ, true, half); !ok {
			return lp, false
		}
	}
	return lp, true
}

// stepHamiltonian makes the block's move (see the comment at the top), adapting in
// warm-up. A panic in model code is reported as in the move (not deferred: the
// chain's recover reads the phase).
func (c *chain) stepHamiltonian(warmup bool) {
	c.phase = "Hamiltonian move"
	c.hamMove(warmup)
	c.phase = "sampling"
}

// hamMove is stepHamiltonian's move.
func (c *chain) hamMove(warmup bool) {
	h := c.ham
	for _, r := range h.runs {
		copy(h.x0[r.g:r.g+r.n*r.k], c.x[r.x:r.x+r.n*r.k])
	}
	if warmup && h.moves < h.window/4 {
		h.chooseRefs(c.x)
	}
	hamToFree(h.segs, c.x, h.u)
	lp0, ok := c.hamEval(true, hamFromFreeRuns(h.runs, h.u, c.x, true), false, 0)
	if !ok {
		// The start's own density or gradient is not finite (a coordinate rounded
		// to the support's edge through the transforms): no move, counted as a
		// rejected divergent one.
		c.hamPutBack()
		if !warmup {
			h.stats.Proposals++
			h.divergent++
		}
		return
	}
	copy(h.u0, h.u)
	c.hamDrawMomentum()
	k0 := h.kinetic()
	eps := h.eps * (0.9 + 0.2*c.rng.Float64())
	lp1, ok := c.hamTrajectory(h.leapfrogs, eps)
	k1 := h.kinetic()
	ok = ok && isFinite(k1)
	acc := 0.0
	if ok {
		acc = math.Exp(min(0, lp1-k1-(lp0-k0)))
		if math.IsNaN(acc) {
			acc = 0
		}
	}
	accept := c.rng.Float64() < acc
	if accept {
		for _, i := range h.sites {
			c.moved(i)
		}
	} else {
		copy(h.u, h.u0)
		c.hamPutBack()
	}
	if warmup {
		c.hamAdapt(acc)
		return
	}
	h.stats.Proposals++
	if accept {
		h.stats.Accepted++
	}
	h.accSum += acc
	if !ok {
		h.divergent++
	}
}

// hamPutBack writes the block's coordinates from before the move back into the
// state and tells a StateKeeper Scorer.
func (c *chain) hamPutBack() {
	h := c.ham
	for _, r := range h.runs {
		copy(c.x[r.x:r.x+r.n*r.k], h.x0[r.g:r.g+r.n*r.k])
	}
	c.keep()
}

// hamAdapt adapts the step size and the mass matrix after warm-up move number
// h.moves, whose acceptance probability was acc.
func (c *chain) hamAdapt(acc float64) {
	h := c.ham
	it := h.moves
	h.moves++
	d := &h.da
	d.t++
	t := float64(d.t)
	d.hbar = (1-1/(t+daT0))*d.hbar + (h.target-acc)/(t+daT0)
	logEps := d.mu - math.Sqrt(t)/daGamma*d.hbar
	eta := math.Pow(t, -daKappa)
	d.logEpsBar = eta*logEps + (1-eta)*d.logEpsBar
	h.eps = math.Exp(logEps)
	lo, hi := h.window/4, h.window/2
	if it >= lo && it < hi {
		h.nvar++
		inv := 1 / float64(h.nvar)
		for j, v := range h.u {
			dv := v - h.mean[j]
			h.mean[j] += dv * inv
			h.m2[j] += dv * (v - h.mean[j])
		}
	}
	if it == hi-1 && h.nvar >= minMassWindow {
		n := float64(h.nvar)
		for j := range h.invMass {
			v := h.m2[j] / (n - 1)
			h.invMass[j] = (n/(n+5))*v + 1e-3*(5/(n+5))
			h.sqrtInvMass[j] = math.Sqrt(h.invMass[j])
		}
		h.da = dualAveraging{mu: math.Log(10 * h.eps)} // from the last iterate
	}
}

// endHamiltonian freezes the step size at the end of warm-up.
func (c *chain) endHamiltonian() {
	if h := c.ham; h != nil && h.da.t > 0 {
		h.eps = math.Exp(h.da.logEpsBar)
	}
}

// hamiltonianStats returns the statistics of Result.Hamiltonian,
// Result.HamiltonianPerChain and Result.HamiltonianChains; nil without a block.
func hamiltonianStats(blockSites []int, chains []*chain) (total []draws.SiteStats, perChain [][]draws.SiteStats, per []HamiltonianChain) {
	if len(blockSites) == 0 {
		return nil, nil, nil
	}
	per = make([]HamiltonianChain, len(chains))
	for c, ch := range chains {
		per[c] = HamiltonianChain{StepSize: math.NaN(), MeanAccept: math.NaN()}
		if h := ch.ham; h != nil {
			per[c].StepSize = h.eps
			per[c].Divergent = h.divergent
			if h.stats.Proposals > 0 {
				per[c].MeanAccept = h.accSum / float64(h.stats.Proposals)
			}
		}
	}
	total, perChain = collectStats(1, func(int) (string, string, int) {
		return hamiltonianName, hamiltonianProposer, len(blockSites)
	}, chains, func(ch *chain) []draws.SiteStats {
		if ch.ham == nil {
			return make([]draws.SiteStats, 1)
		}
		return []draws.SiteStats{ch.ham.stats}
	})
	return total, perChain, per
}
