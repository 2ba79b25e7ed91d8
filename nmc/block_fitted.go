package nmc

import (
	"math"

	"github.com/nmc-go/nmc/draws"
)

// The block's fitted independence steps. A block whose Newton steps accept less
// than blockFitMaxAccept of their warm-up proposals (a posterior far from
// Gaussian in the block's coordinates, where the local fit at each point is a poor
// guide) also gets, after warm-up, blockFittedSteps independence
// Metropolis-Hastings steps per sweep from a multivariate t (blockFitNu degrees
// of freedom) fitted to its unconstrained coordinates in warm-up, as FittedSteps
// fits a Real block (fittedBlock.fit): scale c·S, S the inverse of the mean
// curvature −∇²t over blockFitPoints of the latest blockFitRing warm-up draws, c =
// 1.1, location their mean moved by S·ḡ (ḡ the mean gradient there), or S the
// draws' covariance, regularised as Stan's mass matrix, and the location their
// mean: whichever has the higher acceptance rate estimated from the warm-up draws
// (chooseFit, block_fitted_choose.go; none when neither reaches
// blockFitMinAccept). The proposal is fixed after warm-up, so each step is exact
// (log α = t(u′) − t(u) + log q(u) − log q(u′)).
//
// Measured on a Michaelis-Menten model with a baseline whose three positive
// parameters are one site (graph's TestAutoBlocksPositiveSite; least bulk ESS of 4
// × 1000 after the adaptive warm-up, seeds 1–6): the block's Newton steps alone
// 17–242; with these steps from the draws' covariance (Gaussian, c = 1.1) 37–1190,
// (c = 1.5) 167–1141; from the curvature of the latest 64 draws at 8 points, t
// with 5 degrees of freedom, 182–2201 (1811, 1335, 182, 2201, 1068, 1912); from 200
// draws at 20 points 82–368. The same model declared on the log scale by hand (a
// Real site, with FittedSteps) gave 7–1442 (531, 7, 966, 1442, 794, 354).

const (
	blockFittedSteps = 3
	// blockThinAccept: see thin.
	blockThinAccept   = 0.5
	blockFitMaxAccept = 0.9
	blockFitInflate   = 1.1
	// blockFitNu is the degrees of freedom of the multivariate t proposal.
	blockFitNu = 5
	// blockFitRing is the number of latest warm-up draws kept, blockFitPoints the
	// draws the curvature is averaged over.
	blockFitRing   = 64
	blockFitPoints = 8
	// blockFitMinDraws is the fewest warm-up draws per coordinate to fit from.
	blockFitMinDraws = 10
	// blockFittedProposer names the steps' statistics.
	blockFittedProposer = "fitted-t"
)

// blockFit is a block's fitted step in one chain: the moments of the warm-up
// draws, then the frozen proposal.
type blockFit struct {
	n           int
	ring        []float64 // the latest blockFitRing draws of u, by rows
	next, kept  int
	mean, m2    []float64 // Welford's running mean and co-moment matrix of u
	dev         []float64 // scratch
	props, accs int       // the block's Newton steps in the stationary period
	on          bool      // fitted after warm-up
	// The squared distances per coordinate the block's coordinates moved in
	// warm-up by its Newton steps (moves) and between them, by the rest of the
	// sweep (rest), and where its last step left them (after, if haveAfter);
	// off: the block makes no steps after warm-up (see judge).
	moves, rest, after []float64
	haveAfter, off     bool
	// newtonOff: the judge left the Newton steps out after warm-up; the fitted
	// steps, when on, are then made alone (off is set when they are not).
	newtonOff bool
	l         []float64 // Cholesky factor of c·S
	c         float64   // Σ log L_jj
	// trialAccept is the chosen fit's estimated acceptance rate (chooseFit).
	trialAccept float64
	stats       draws.SiteStats
}

func newBlockFit(du int) *blockFit {
	return &blockFit{mean: make([]float64, du), m2: make([]float64, du*du), dev: make([]float64, du), l: make([]float64, du*du),
		ring: make([]float64, blockFitRing*du), moves: make([]float64, du), rest: make([]float64, du), after: make([]float64, du)}
}

// restart forgets the draws collected (the adaptive warm-up's stationary period
// restarted).
func (st *blockStepper) restart() {
	f := st.fit
	f.n, f.props, f.accs, f.next, f.kept = 0, 0, 0, 0, 0
	clear(f.mean)
	clear(f.m2)
	clear(f.moves)
	clear(f.rest)
	f.haveAfter = false
}

// Adapt collects the block's unconstrained coordinates after each warm-up sweep
// of the stationary period.
func (st *blockStepper) Adapt(c *Chain, w Warmup) {
	if w.Sweep <= w.Stationary {
		return
	}
	f := st.fit
	b := st.coords
	b.gather(c.x, st.xb0)
	u := st.nxt.x // scratch: the next step overwrites it
	b.toFree(st.xb0, u)
	if !allFinite(u) {
		return
	}
	// The judge weighs the latest blockFitRing sweeps most (see judge).
	for j := range f.moves {
		f.moves[j] *= 1 - 1.0/blockFitRing
		f.rest[j] *= 1 - 1.0/blockFitRing
	}
	f.n++
	inv := 1 / float64(f.n)
	du := b.du
	copy(f.ring[f.next*du:(f.next+1)*du], u)
	f.next = (f.next + 1) % blockFitRing
	f.kept = min(f.kept+1, blockFitRing)
	for j, v := range u {
		f.dev[j] = v - f.mean[j]
		f.mean[j] += f.dev[j] * inv
	}
	for j := range du {
		dj := u[j] - f.mean[j]
		row := f.m2[j*du : j*du+du]
		for k := range du {
			row[k] += f.dev[k] * dj
		}
	}
}

// EndWarmup fits the proposal (see above) when the block's Newton steps accepted
// less than blockFitMaxAccept of the stationary period's proposals. A block whose
// Newton steps the judge leaves out keeps its fitted steps alone: an independence
// proposal from the warm-up draws does not need the Newton fit to be good where
// the chain is (garch11's (α₀, α₁, β₁) at seed 3, whose Newton steps accepted 27%:
// least bulk ESS 233 without the block, 2435 with its fitted steps alone;
// hmm_poisson_overlap at seeds 1–3: 169, 132, 198 -> 241, 222, 434), and its
// sites keep their own steps every sweep.
func (st *blockStepper) EndWarmup(c *Chain, w Warmup) {
	f := st.fit
	du := st.coords.du
	f.on, f.off = false, false
	if f.newtonOff = st.plan.how != autoHinted && !st.judge(); f.newtonOff {
		defer func() { f.off = !f.on }()
	} else {
		defer st.thin(c)
	}
	if f.n < blockFitMinDraws*du || f.props == 0 || float64(f.accs) >= blockFitMaxAccept*float64(f.props) {
		return
	}
	f.on = st.chooseFit(c)
}

// judge reports whether the block's Newton steps moved its coordinates at the
// end of the stationary period of warm-up at least as far as the rest of the
// sweeps did (its sites' own steps among them), each coordinate in units of its
// variance over the latest blockFitRing sweeps, the moves weighted by e^(−age/
// blockFitRing) sweeps; true when there are too few draws to judge. A block that
// moves them less gains little for a step that costs about as much as its
// sites' own (a 20-point two-component mixture's ordered means, coupling
// 0.5–0.8: about the same least ESS with the block and twice the CPU), and one
// that never moves them none; the chain then leaves it out after warm-up. (Over
// the whole period, a 1000-point mixture's chains that crawled to the bulk in it
// judged the block by the crawl, where its steps seldom accept, and dropped it:
// least bulk ESS 465 without it, 2636 with it.)
// A block of sites the model names together (BlockHinter) is not judged: its
// Newton steps are kept, and its sites' own steps thinned (gp_regr of 40 points,
// data seeds 1–3: least bulk ESS per CPU second 1773, 1698, 1620 so, and 1649,
// 1467, 1642 with the chains that the judge made leave its Newton steps out).
func (st *blockStepper) judge() bool {
	f := st.fit
	du := st.coords.du
	if f.n < blockFitMinDraws*du || f.kept < 2 {
		return true
	}
	moves, rest := 0.0, 0.0
	for j := range du {
		m, q := 0.0, 0.0
		for r := range f.kept {
			m += f.ring[r*du+j]
		}
		m /= float64(f.kept)
		for r := range f.kept {
			d := f.ring[r*du+j] - m
			q += d * d
		}
		v := q / float64(f.kept-1)
		if !(v > 0) || !isFinite(v) {
			continue
		}
		moves += f.moves[j] / v
		rest += f.rest[j] / v
	}
	return moves > 0 && moves >= rest
}

// thin makes the block's sites' own steps on every thinnedEvery-th sweep only
// after warm-up (siteState.thinned) when its Newton steps accepted at least
// blockThinAccept of their warm-up proposals or its fitted steps are on.
func (st *blockStepper) thin(c *Chain) {
	f := st.fit
	if f.props == 0 || !(f.on || float64(f.accs) >= blockThinAccept*float64(f.props)) {
		return
	}
	for _, i := range st.plan.sites {
		c.sites[i].thinned = true
	}
}

// logqFit returns the log density of the fitted proposal at u, up to a constant.
func (st *blockStepper) logqFit(u []float64) float64 {
	f := st.fit
	p := st.prop
	for j := range p.v {
		p.v[j] = u[j] - f.mean[j]
	}
	copy(p.z, p.v)
	solveLower(f.l, len(p.z), p.z)
	m := 0.0
	for _, v := range p.z {
		m += v * v
	}
	return -f.c - 0.5*(blockFitNu+float64(len(p.z)))*math.Log1p(m/blockFitNu)
}

// fittedSteps makes the block's independence steps after warm-up, from a current
// point whose fit is valid (st.valid).
func (st *blockStepper) fittedSteps(c *Chain) {
	f := st.fit
	b := st.coords
	cur, nxt := &st.cur, &st.nxt
	p := st.prop
	du := b.du
	for range blockFittedSteps {
		f.stats.Proposals++
		chi := 0.0
		for range int(blockFitNu) {
			g := c.rng.NormFloat64()
			chi += g * g
		}
		w := math.Sqrt(blockFitNu / chi)
		for j := range p.z {
			p.z[j] = w * c.rng.NormFloat64()
		}
		for j := range du { // u′ = m + L z
			t := 0.0
			for k := 0; k <= j; k++ {
				t += f.l[j*du+k] * p.z[k]
			}
			nxt.x[j] = f.mean[j] + t
		}
		uu := c.rng.Float64()
		b.fromFree(nxt.x, st.xb1)
		b.scatter(st.xb1, c.x)
		// The value alone; the derivatives when the next Newton step needs them
		// (blockStepper.pending).
		nxt.f = math.Inf(-1)
		if b.inBox(nxt.x, st.xb1) {
			nxt.f = st.eval.value(c.x, nxt.x)
		}
		if !isFinite(nxt.f) {
			b.scatter(st.xb, c.x)
			c.keep()
			continue
		}
		logr := nxt.f - cur.f + st.logqFit(cur.x) - st.logqFit(nxt.x)
		if !(math.Log(uu) < logr) {
			b.scatter(st.xb, c.x)
			c.keep()
			continue
		}
		countAccepted(&f.stats, st.xb, st.xb1)
		st.pending = true
		st.cur, st.nxt = st.nxt, st.cur
		cur, nxt = &st.cur, &st.nxt
		copy(st.xb, st.xb1)
		for _, i := range st.plan.sites {
			c.moved(i)
		}
		st.edits = c.cache.edits
	}
}

// curvatureFit fits the proposal as FittedSteps does (fittedBlock.fit): S the
// inverse of the mean of −∇²t over blockFitPoints of the latest warm-up draws
// (evenly spaced), the location their mean moved by S·ḡ, ḡ the mean gradient of
// t there; it writes the Cholesky factor of c·S into f.l and the location into
// f.mean, and reports false (f unchanged but for scratch) where the mean
// curvature is not positive definite. The state is restored and every cache
// invalidated.
func (st *blockStepper) curvatureFit(c *Chain) bool {
	f := st.fit
	b := st.coords
	du := b.du
	npts := min(blockFitPoints, f.kept)
	if npts == 0 {
		return false
	}
	b.gather(c.x, st.xb0)
	defer func() {
		b.scatter(st.xb0, c.x)
		c.invalidateAll()
		st.valid = false
	}()
	prec := st.nxt.h // scratch (du×du)
	gbar, ubar := st.nxt.g, f.dev
	clear(prec)
	clear(gbar)
	clear(ubar)
	for t := range npts {
		r := (f.next - 1 - t*f.kept/npts + 2*blockFitRing) % blockFitRing
		u := f.ring[r*du : (r+1)*du]
		b.fromFree(u, st.xb1)
		b.scatter(st.xb1, c.x)
		if v := st.eval.at(c.x, st.xb1, u, st.cur.g, st.cur.h); !isFinite(v) || !allFinite(st.cur.h) {
			return false
		}
		for j := range du {
			gbar[j] += st.cur.g[j] / float64(npts)
			ubar[j] += u[j] / float64(npts)
			for k := range du {
				prec[j*du+k] -= st.cur.h[j*du+k] / float64(npts)
			}
		}
	}
	if !cholesky(prec, du) {
		return false
	}
	// S·ḡ and S's columns from the factor of S⁻¹.
	loc := st.cur.g
	copy(loc, gbar)
	solveLower(prec, du, loc)
	solveLowerT(prec, du, loc)
	col := st.cur.x
	for j := range du {
		clear(col)
		col[j] = 1
		solveLower(prec, du, col)
		solveLowerT(prec, du, col)
		for i := range du {
			f.l[i*du+j] = blockFitInflate * col[i]
		}
	}
	if !cholesky(f.l, du) {
		return false
	}
	for j := range du {
		f.mean[j] = ubar[j] + loc[j]
	}
	return true
}
