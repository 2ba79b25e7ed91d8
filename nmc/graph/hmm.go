package graph

import (
	"math"

	"github.com/nmc-go/nmc/nmc"
	"github.com/nmc-go/nmc/nmc/dist"
)

// hmmOp is the log marginal likelihood of a hidden Markov model (HMMMarginal), one
// scalar element reading every element of its arguments log_omega (steps elements
// of states components), Gamma (states × states) and rho (1 × states).
type hmmOp struct {
	steps, states int
	cols          *hmmColumns // log_omega's plan by distinct datum, or nil
}

func (hmmOp) name() string { return "HMMMarginal" }

func (o *hmmOp) reads(n *Node, _ int, visit func(*Node, int)) {
	lw, gam, rho := n.args[0], n.args[1], n.args[2]
	for t := 0; t < o.steps; t++ {
		visit(lw, t)
	}
	for i := 0; i < o.states; i++ {
		visit(gam, i)
	}
	visit(rho, 0)
}

func (o *hmmOp) eval(s *scorer, n *Node, _ int, out []jet) {
	out[0] = o.forward(s, n, nil)
}

// hmmScratch holds one scorer's buffers for one HMMMarginal node. A quantity of the
// recursion with its derivatives in the active site's k coordinates is a block of
// w = 1 + k + k² floats: the value, the gradient, the Hessian (row-major).
type hmmScratch struct {
	k      int       // the derivative dimension the blocks are sized for
	gam    []jet     // K×K: Γ, row i = P(next state | state i)
	rho    []jet     // K: the initial distribution
	om     []jet     // K: log ω_t, the emissions of one step
	omStep []float64 // K: ω_t = exp(log ω_t − m_t)
	omSafe []float64 // K: ω_t rescaled by rescale when the step would underflow
	// The emissions by distinct datum (hmmColumns): per datum u and state j, log ω
	// (tab[u·K+j]) and ω = exp(log ω − mu[u]) (omv), mu[u] = max_j log ω; tabLive:
	// whether a column depends on the active site.
	tab      []jet
	omv, mu  []float64
	tabLive  bool
	prev     []float64 // K blocks: the filtered probabilities α̂ of the last step
	cur      []float64 // K blocks: this step's
	c, total []float64 // one block each: this step's normaliser; the log likelihood
	filt     []float64 // N×K: every step's filtered probabilities (sample only)
	probs    []float64 // K: backward sampling's weights (sample only)
	// rowOnly's: the forward (then backward) variables and their tangents in a
	// row's entries, the derivatives in them, and per step ω_t, s_t, ã_{t−1}(r)
	// and its tangents.
	ra, rb, rad, rbd   []float64
	rG, rH             []float64
	rOm, rS, rAr, rArd []float64
	logTerms           []float64 // K blocks: forwardLog's terms of one state's sum
}

// hmmFor returns the scratch of node n for K states, with blocks for k coordinates.
func (x *opScratch) hmmFor(n *Node, K, k int) *hmmScratch {
	h := x.hmm[n]
	if h == nil {
		if x.hmm == nil {
			x.hmm = map[*Node]*hmmScratch{}
		}
		h = &hmmScratch{k: -1, gam: make([]jet, K*K), rho: make([]jet, K), om: make([]jet, K), omStep: make([]float64, K), omSafe: make([]float64, K), probs: make([]float64, K)}
		x.hmm[n] = h
	}
	if h.k < k {
		w := 1 + k + k*k
		h.k = k
		h.prev, h.cur = make([]float64, K*w), make([]float64, K*w)
		h.c, h.total = make([]float64, w), make([]float64, w)
	}
	return h
}

// forward runs the forward algorithm at the scorer's state and returns the log
// marginal likelihood log p(y) = log Σ_z ρ_{z₀} ω₀(z₀) Π_t Γ_{z_{t−1} z_t} ω_t(z_t) as a
// jet in the active site's coordinates. It runs in probability space with each step
// normalised (the scaled forward algorithm, Stan's): α̂_t(j) = p(z_t = j | y_{0:t}),
// c_t = p(y_t | y_{0:t−1}) computed with ω_t(j) = exp(log ω_t(j) − m_t), m_t =
// max_j log ω_t(j), so that log p(y) = Σ_t (log c_t + m_t) without underflow. The
// derivatives are carried through the recursion (forward mode): from the first
// input that depends on the active site on, every α̂_t(j) is a block with its
// gradient and Hessian, O(K²·(k + k²)) per step. With filt non-nil (a value
// scorer) it writes α̂_t into filt[t·K:(t+1)·K].
//
// It returns NaN when Gamma or rho is not a simplex, when a log ω is NaN or +Inf,
// and −Inf when the data are impossible under every path.
func (o *hmmOp) forward(s *scorer, n *Node, filt []float64) jet {
	lw, gam, rho := n.args[0], n.args[1], n.args[2]
	K, N, k := o.states, o.steps, s.ops.k
	x := s.ext.hmmFor(n, K, k)
	for i := 0; i < K; i++ {
		s.eval(gam, i, x.gam[i*K:(i+1)*K])
	}
	s.eval(rho, 0, x.rho)
	if !simplexJets(x.rho) {
		return jet{v: math.NaN()}
	}
	gamLive := false
	for i := 0; i < K; i++ {
		row := x.gam[i*K : (i+1)*K]
		if !simplexJets(row) {
			return jet{v: math.NaN()}
		}
		for j := range row {
			gamLive = gamLive || row[j].kind != jConst
		}
	}
	w := 1 + k + k*k
	prev, cur := x.prev[:K*w], x.cur[:K*w]
	if o.cols != nil {
		if v, ok := x.emissionTable(s, o.cols, K); !ok {
			return jet{v: v}
		}
	}
	rhoLive := false
	for j := range x.rho {
		rhoLive = rhoLive || x.rho[j].kind != jConst
	}
	// With a transition probability below minScaledGamma a path the scaled
	// recursion drops can matter (hmm_log.go): the loss is checked at every step,
	// and the fast paths, which do not check, are not taken.
	tiny := x.gamTiny(K)
	if rhoLive && !gamLive && filt == nil && !tiny {
		if v, ok := o.backwardRho(s, x, lw); ok {
			return v
		}
	}
	if r := x.liveRow(K); r >= 0 && !rhoLive && k >= 2 && filt == nil && !tiny {
		if v, ok := o.rowOnly(s, x, lw, r); ok {
			return v
		}
	}
	live := false // whether the blocks carry derivatives
	// log p(y) = Σ_t m_t + log Π_t c_t, the product kept as acc·2^expo.
	sumM, acc, expo := 0.0, 1.0, 0
	for t := 0; t < N; t++ {
		// S_j = Σ_i α̂_{t−1}(i) Γ_ij, or ρ_j at t = 0.
		if t == 0 {
			if rhoLive {
				live = x.goLive(cur, K, w)
			}
			for j := range x.rho {
				cur[j*w] = x.rho[j].v
				if live {
					addGradOf(cur[j*w+1:j*w+1+k], 1, &x.rho[j])
					addHessOf(cur[j*w+1+k:(j+1)*w], k, 1, &x.rho[j])
				}
			}
		} else {
			if gamLive && !live {
				live = x.goLive(prev, K, w)
			}
			if k == 1 && live {
				x.transition1(prev, cur, K, gamLive)
			} else {
				x.transition(prev, cur, K, k, live, gamLive)
			}
		}

		// a_j = ω_t(j)·S_j.
		om, omv, m, omLive, bad, ok := o.emissions(s, x, lw, t)
		if !ok {
			return jet{v: bad}
		}
		omv, m = x.rescale(cur, om, omv, m, K, w)
		if omLive && !live {
			live = x.goLive(cur, K, w)
		}
		if k == 1 && live {
			x.emit1(cur, om, omv, K)
		} else {
			x.emit(cur, om, omv, K, k, live)
		}

		// c_t = Σ_j a_j, α̂_t(j) = a_j / c_t.
		var cv float64
		if k == 1 && live {
			cv, ok = x.normalise1(cur, K)
		} else {
			cv, ok = x.normalise(cur, K, k, live)
		}
		if !ok {
			if tiny && cv == math.Inf(-1) {
				return o.forwardLog(s, x, lw, filt) // every path in range died
			}
			return jet{v: cv}
		}
		if tiny && x.lost(prev, cur, om, K, w, t) {
			return o.forwardLog(s, x, lw, filt)
		}
		sumM += m
		if acc *= cv; !(acc >= 0x1p-500 && acc <= 0x1p500) {
			f, e := math.Frexp(acc)
			acc, expo = f, expo+e
		}
		if filt != nil {
			for j := 0; j < K; j++ {
				filt[t*K+j] = cur[j*w]
			}
		}
		prev, cur = cur, prev
	}
	// log Π_t c_t = log acc + expo·log 2, with expo·hmmLn2Hi exact.
	e := float64(expo)
	logLik := sumM + (math.Log(acc) + e*hmmLn2Lo + e*hmmLn2Hi)
	if !live {
		return jet{v: logLik}
	}
	g, h := s.ops.ar.get(k), s.ops.ar.get(k*k)
	copy(g, x.total[1:1+k])
	copy(h, x.total[1+k:w])
	return jet{v: logLik, kind: jDense, g: g, h: h}
}

// emissions returns the emissions of step t: log ω_t(j) as jets, ω_t(j) = exp(log
// ω_t(j) − m), m = max_j log ω_t(j), and whether a log ω_t(j) depends on the active
// site; or ok = false and the log likelihood (NaN for a log ω that is NaN or +Inf,
// −Inf when every state's is −Inf).
func (o *hmmOp) emissions(s *scorer, x *hmmScratch, lw *Node, t int) (om []jet, omv []float64, m float64, live bool, bad float64, ok bool) {
	K := o.states
	if o.cols != nil {
		u := int(o.cols.which[t])
		om, omv, m, live = x.tab[u*K:(u+1)*K], x.omv[u*K:(u+1)*K], x.mu[u], x.tabLive
	} else {
		s.eval(lw, t, x.om)
		om, omv, m = x.om, x.omStep, math.Inf(-1)
		for j := range om {
			v := om[j].v
			if math.IsNaN(v) || math.IsInf(v, 1) {
				return nil, nil, 0, false, math.NaN(), false
			}
			m = max(m, v)
			live = live || (om[j].kind != jConst && !math.IsInf(v, -1))
		}
		for j := range om {
			omv[j] = math.Exp(om[j].v - m)
		}
	}
	if math.IsInf(m, -1) {
		return nil, nil, 0, false, m, false
	}
	return om, omv, m, live, 0, true
}

// log 2 in two parts (as package math's Log): e·hmmLn2Hi is exact for |e| < 2^20.
const (
	hmmLn2Hi = 6.93147180369123816490e-01
	hmmLn2Lo = 1.90821492927058770002e-10
)

// goLive clears the derivatives of the K blocks of w floats and of the total, from
// which the recursion carries derivatives, and returns true.
func (x *hmmScratch) goLive(blocks []float64, K, w int) bool {
	for j := 0; j < K; j++ {
		clear(blocks[j*w+1 : (j+1)*w])
	}
	clear(x.total[:w])
	return true
}

// simplexJets reports whether the values of p are a probability vector: not
// negative, summing to 1 within dist.SimplexTol.
func simplexJets(p []jet) bool {
	sum := 0.0
	for j := range p {
		if !(p[j].v >= 0) {
			return false
		}
		sum += p[j].v
	}
	return math.Abs(sum-1) <= dist.SimplexTol
}

// transition writes S_j = Σ_i α̂(i) Γ_ij into cur from the blocks prev, with the
// derivatives when live: ∇S_j = Σ_i Γ_ij ∇α̂(i) + α̂(i) ∇Γ_ij and ∇²S_j = Σ_i Γ_ij
// ∇²α̂(i) + α̂(i) ∇²Γ_ij + ∇α̂(i) ∇Γ_ijᵀ + ∇Γ_ij ∇α̂(i)ᵀ, the last three only for
// the Γ_ij that depend on the active site (gamLive).
func (x *hmmScratch) transition(prev, cur []float64, K, k int, live, gamLive bool) {
	w := 1 + k + k*k
	if !live {
		for j := 0; j < K; j++ {
			v := 0.0
			for i := 0; i < K; i++ {
				v += prev[i*w] * x.gam[i*K+j].v
			}
			cur[j*w] = v
		}
		return
	}
	for j := 0; j < K; j++ {
		cj := cur[j*w : (j+1)*w]
		clear(cj)
		for i := 0; i < K; i++ {
			gij := &x.gam[i*K+j]
			if c := gij.v; c != 0 {
				src := prev[i*w : (i+1)*w]
				dst := cj[:len(src)]
				for p, v := range src {
					dst[p] += c * v
				}
			}
			if gamLive && gij.kind != jConst {
				pv, pg := prev[i*w], prev[i*w+1:i*w+1+k]
				h := cj[1+k:]
				addGradOf(cj[1:1+k], pv, gij)
				addHessOf(h, k, pv, gij)
				addSymOuter(h, k, 1, pg, gij)
			}
		}
	}
}

// emit multiplies each block S_j of cur by ω_j = omv[j] = exp(log ω_t(j) − m), the
// log ω_t(j) being the jets om: ∇a = ω(∇S + S ∇log ω), ∇²a = ω(∇²S + S(∇²log ω +
// ∇log ω ∇log ωᵀ) + ∇S ∇log ωᵀ + ∇log ω ∇Sᵀ). A state whose log ω is −Inf gets a
// zero block.
func (x *hmmScratch) emit(cur []float64, om []jet, omv []float64, K, k int, live bool) {
	w := 1 + k + k*k
	if !live {
		for j := 0; j < K; j++ {
			cur[j*w] *= omv[j]
		}
		return
	}
	for j := 0; j < K; j++ {
		cj := cur[j*w : (j+1)*w]
		lo := &om[j]
		if omv[j] == 0 {
			clear(cj)
			continue
		}
		if lo.kind != jConst {
			sv, sg, sh := cj[0], cj[1:1+k], cj[1+k:]
			addHessOf(sh, k, sv, lo)
			addSelfOuter(sh, k, sv, lo)
			addSymOuter(sh, k, 1, sg, lo)
			addGradOf(sg, sv, lo)
		}
		for p, o := range cj {
			cj[p] = o * omv[j]
		}
	}
}

// normalise divides the blocks a_j of cur by c = Σ_j a_j — α̂ = a/c, ∇α̂ = (∇a −
// α̂ ∇c)/c, ∇²α̂ = (∇²a − α̂ ∇²c − ∇α̂ ∇cᵀ − ∇c ∇α̂ᵀ)/c — and adds log c's gradient
// ∇c/c and Hessian ∇²c/c − ∇c ∇cᵀ/c² to the total. It returns c's value and true,
// or the log likelihood (−Inf or NaN) and false when c is not positive and finite.
func (x *hmmScratch) normalise(cur []float64, K, k int, live bool) (float64, bool) {
	w := 1 + k + k*k
	if !live {
		cv := 0.0
		for j := 0; j < K; j++ {
			cv += cur[j*w]
		}
		if !(cv > 0) || math.IsInf(cv, 1) {
			return badNormaliser(cv), false
		}
		inv := 1 / cv
		for j := 0; j < K; j++ {
			cur[j*w] *= inv
		}
		return cv, true
	}
	c := x.c[:w]
	clear(c)
	for j := 0; j < K; j++ {
		src := cur[j*w : (j+1)*w]
		dst := c[:len(src)]
		for p, v := range src {
			dst[p] += v
		}
	}
	cv := c[0]
	if !(cv > 0) || math.IsInf(cv, 1) {
		return badNormaliser(cv), false
	}
	inv := 1 / cv
	cg, ch := c[1:1+k], c[1+k:w]
	tg, th := x.total[1:1+k], x.total[1+k:w]
	for p := 0; p < k; p++ {
		gp := cg[p] * inv
		tg[p] += gp
		for q := 0; q < k; q++ {
			th[p*k+q] += ch[p*k+q]*inv - gp*cg[q]*inv
		}
	}
	for j := 0; j < K; j++ {
		cj := cur[j*w : (j+1)*w]
		av := cj[0] * inv
		ag, ah := cj[1:1+k], cj[1+k:]
		for p := range ag {
			ag[p] = (ag[p] - av*cg[p]) * inv
		}
		for p := 0; p < k; p++ {
			hp, cp := ah[p*k:p*k+k], ch[p*k:p*k+k]
			agp, cgp := ag[p], cg[p]
			for q := range hp {
				hp[q] = (hp[q] - av*cp[q] - agp*cg[q] - cgp*ag[q]) * inv
			}
		}
		cj[0] = av
	}
	return cv, true
}

// badNormaliser returns the log likelihood of a step whose normaliser c is not
// positive and finite: −Inf when it is 0 (no path explains the data), else NaN.
func badNormaliser(c float64) float64 {
	if c == 0 {
		return math.Inf(-1)
	}
	return math.NaN()
}

// HMMMarginal returns the log marginal likelihood of a hidden Markov model with K
// hidden states, the states summed out by the forward algorithm (Stan's
// hmm_marginal), as a scalar node to add to the log density with Factor:
//
//	log p(y) = log Σ_z ρ_{z₀} ω₀(z₀) Π_{t≥1} Γ_{z_{t−1} z_t} ω_t(z_t),
//
// the sum over the K^N paths z of the hidden states. logOmega has one element per
// time step t = 0 … N−1 of K components: component j is log ω_t(j) = log p(y_t |
// z_t = j), the emission log-likelihood of the data at t under state j (LogDensity
// writes them: Stack(LogDensity(Poisson(lambda1), Data(y)), LogDensity(Poisson(lambda2),
// Data(y))), read by distinct datum when the parameters have one element). Stan's log_omega is the transpose, K × N. gamma has K elements of K
// components: row i is the distribution of the next state given state i (a plate of
// K Dirichlet latents, a constant Rows, or nodes); rho is one element of K
// components, the distribution of the first state (a Dirichlet latent or a constant
// Vec). Every argument may depend on latents.
//
// The node's derivatives are exact: the forward recursion is run on the jets of the
// active site's coordinates, O(N·K²) block operations of 1 + k + k² floats per
// score, k the site's dimension. The recursion is scaled as Stan's, in float64;
// where that would drop a path that matters (a transition probability below
// 2^−840 or 0, and a state whose share of a step fell below 2^−900 though a path
// reaches it), it is run again in logarithms, exact there too. The value is NaN, and the log density −Inf, when a
// row of gamma or rho is not a probability vector (within dist.SimplexTol); −Inf
// when no path explains the data. Builder.HiddenMarkov adds the same term and also
// records the hidden states at every draw.
//
// Build reports a nil argument, gamma not K×K, logOmega's width or rho's shape not
// K, a constant gamma or rho (Rows, Vec) with a row that is not a probability
// vector, and, for columns LogDensity(d, Data(y)), a datum outside d's support,
// naming the argument (and the column and step).
func HMMMarginal(logOmega, gamma, rho *Node) *Node {
	op := &hmmOp{}
	for i, a := range []*Node{logOmega, gamma, rho} {
		if a == nil {
			return customErr(op, "%s is a nil node", hmmArgNames[i])
		}
		if a.err != nil {
			return &Node{op: opCustom, impl: op, length: 1, width: 1, err: a.err}
		}
	}
	K := gamma.width
	if gamma.length != K {
		return customErr(op, "Gamma has %d elements of width %d, want K×K (one row of K transition probabilities per state)", gamma.length, gamma.width)
	}
	if logOmega.width != K {
		return customErr(op, "log_omega has width %d, want K = %d (Gamma's states): one component per state", logOmega.width, K)
	}
	if rho.length != 1 || rho.width != K {
		return customErr(op, "rho has %d elements of width %d, want 1 element of K = %d components", rho.length, rho.width, K)
	}
	for i, a := range []*Node{gamma, rho} {
		if a.op != opConst {
			continue
		}
		for r := 0; r < a.length; r++ {
			row := a.vals[r*K : (r+1)*K]
			sum := 0.0
			for _, v := range row {
				if !(v >= 0) {
					return customErr(op, "%s row %d = %v is not a probability vector (element %v < 0)", hmmArgNames[i+1], r, row, v)
				}
				sum += v
			}
			if math.Abs(sum-1) > dist.SimplexTol {
				return customErr(op, "%s row %d = %v is not a probability vector (sum %v)", hmmArgNames[i+1], r, row, sum)
			}
		}
	}
	op.steps, op.states = logOmega.length, K
	if op.cols = planColumns(logOmega); op.cols != nil {
		if err := op.cols.checkData(); err != nil {
			return customErr(op, "%v", err)
		}
	}
	return custom(op, 1, 1, logOmega, gamma, rho)
}

// hmmArgNames names HMMMarginal's arguments as Stan's hmm_marginal does.
var hmmArgNames = [...]string{"log_omega", "Gamma", "rho"}

// compileHMMSteer sets m.hmmSteer: the simplex sites whose scores read an
// HMMMarginal, a marginal likelihood in which the hidden states are summed out, get
// their Hessians steered for the Dirichlet proposer as those of the sites that read
// a summed-out latent (Builder.Marginalise) do.
func (m *Model) compileHMMSteer() {
	m.hmmSteer = nil
	seen := map[*Node]bool{}
	var hasHMM func(n *Node) bool
	hasHMM = func(n *Node) bool {
		if v, ok := seen[n]; ok {
			return v
		}
		seen[n] = false
		found := false
		if _, ok := n.impl.(*hmmOp); ok {
			found = true
		}
		for _, a := range n.args {
			found = hasHMM(a) || found
		}
		seen[n] = found
		return found
	}
	var deps []int
	for _, fc := range m.factors {
		for _, p := range fc.d.params {
			if !hasHMM(p) {
				continue
			}
			for e := 0; e < p.length; e++ {
				deps = collectDeps(p, e, deps[:0])
				for _, s := range deps {
					if m.sites[s].Support == nmc.Simplex {
						if m.hmmSteer == nil {
							m.hmmSteer = make([]bool, len(m.sites))
						}
						m.hmmSteer[s] = true
					}
				}
			}
		}
	}
}

// steerHMM steers the Hessian of simplex site i, whose score reads an
// HMMMarginal, for the Dirichlet proposer: as steerSimplex does (exact along the
// simplex) where a Dirichlet can match it; where none can — the fit α_n = 1 −
// x_n²(h_nn − max_{j≠n} h_nj) of the steered Hessian has some α_n < 1, as at an
// initial distribution informed by one observation, whose conditional Σ_j ρ_j b_j
// peaks on the boundary — it reports the expected-count Hessian diag(−g_n/x_n)
// instead, whose fit is α_n = 1 + x_n g_n: for a Dirichlet(α) prior, α plus the
// expected counts of the hidden states (the EM update's Dirichlet), a proposal that
// stays away from the boundary. The gradient is unchanged; the Metropolis-Hastings
// ratio keeps the chain exact whichever Hessian fits the proposal.
func (s *scorer) steerHMM(x []float64, i int) {
	s.steerSimplex(x, i)
	k, h, g := s.k, s.hess, s.grad
	xi := x[s.base : s.base+k]
	fits := true
	for n := 0; n < k; n++ {
		top := math.Inf(-1)
		for j := 0; j < k; j++ {
			if j != n {
				top = max(top, h[n*k+j])
			}
		}
		if !(1-xi[n]*xi[n]*(h[n*k+n]-top) >= 1) {
			fits = false
		}
	}
	if fits {
		return
	}
	for n := 0; n < k; n++ {
		if !(xi[n] > 0 && 1+xi[n]*g[n] > 0) || math.IsInf(g[n], 0) {
			return // no expected-count form either: leave the Hessian as it is
		}
	}
	clear(h[:k*k])
	for n := 0; n < k; n++ {
		h[n*k+n] = -g[n] / xi[n]
	}
}
