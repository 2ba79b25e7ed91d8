package nmc

import (
	"fmt"
	"math"
	"slices"
	"strings"
)

// StartRule chooses where a chain starts when Options.Init is nil.
type StartRule int

const (
	// DefaultStart is the zero StartRule: PriorStart, with DefaultStartCandidates
	// candidates. Chosen by measurement (README, "Where chains start"): on
	// posteriordb's arma11 (phi, theta ~ N(0, 2²), 200 steps) the first plausible
	// of 8 uniform draws did best (no run of 20 ended with the chains
	// disagreeing, 2 of 10 from 8 prior draws, 15 of 20 from one prior draw), but
	// on ARMA(1,1) with priors mostly inside |theta| < 1 (phi, theta ~ N(0, 0.3²),
	// TestARMASimulationCalibrated, one chain and 100 warm-up sweeps per
	// simulation) uniform starts left sigma's SBC ranks far from uniform (p = 1e-5)
	// where prior ones passed (p > 0.16): a silent failure against a warned one.
	// On the built-in models neither rule warmed up shorter or mixed better.
	DefaultStart StartRule = iota
	// PriorStart starts each chain at a draw of m.Init (a graph model draws every
	// site from its prior).
	PriorStart
	// UniformStart is Stan's rule: every continuous coordinate uniform on (−2, 2) on
	// its unconstrained scale — the value itself for a Real site, log(x − Lower) for
	// a Positive one, the logit of (x − Lower)/(Upper − Lower) for an Interval, the
	// additive log-ratios log(x_j/x_k) for a Simplex of k coordinates — and every
	// Discrete site from m.Init. A prior draw can sit where the model explodes (an
	// ARMA(1,1)'s moving-average coefficient |θ| > 1 under a N(0, 2) prior, which
	// raises the likelihood's terms to the power of the series' length): chains
	// started there never moved. The uniform rule keeps starts within e² of the
	// unconstrained origin; where the prior is narrow, its draws are the better
	// starts (see DefaultStart).
	UniformStart
)

// String returns the rule's name as the command line's -start takes it.
func (r StartRule) String() string {
	switch r {
	case DefaultStart:
		return "default"
	case PriorStart:
		return "prior"
	case UniformStart:
		return "uniform"
	}
	return fmt.Sprintf("StartRule(%d)", int(r))
}

// ParseStartRule returns the rule named s: "prior", "uniform" or "default".
func ParseStartRule(s string) (StartRule, error) {
	for _, r := range []StartRule{DefaultStart, PriorStart, UniformStart} {
		if strings.EqualFold(s, r.String()) {
			return r, nil
		}
	}
	return 0, fmt.Errorf("unknown start rule %q (want prior, uniform or default)", s)
}

// effective returns the rule DefaultStart stands for.
func (r StartRule) effective() StartRule {
	if r == DefaultStart {
		return PriorStart
	}
	return r
}

// DefaultStartCandidates is the default of Options.StartCandidates: with one
// uniform draw per chain, 105 of 200 SBC simulations of arma11 had a parameter
// ranked at an end (16 expected), with the first plausible of 8 about 30.
const DefaultStartCandidates = 8

// uniformStartWidth is the half-width of UniformStart's interval.
const uniformStartWidth = 2

// drawStart writes a start drawn by the run's start rule into the chain's state,
// with the chain's random stream, and returns m.Init's error.
func (c *Chain) drawStart() error {
	if err := c.run.m.Init(c.rng, c.x); err != nil {
		return err
	}
	if c.run.opts.Start.effective() != UniformStart {
		return nil
	}
	for i, s := range c.run.sites {
		if s.Support == Discrete {
			continue
		}
		free := make([]float64, freeDim(s))
		for j := range free {
			free[j] = uniformStartWidth * (2*c.rng.Float64() - 1)
		}
		off := c.run.off[i]
		fromFree(s, free, c.x[off:off+s.Size])
	}
	return nil
}

// freshStart sets the chain's state to a valid start drawn by the start rule:
// of Options.StartCandidates valid draws (each tried up to Options.InitRetries
// times), the first whose log joint is not far below the highest (see
// plausibleStart). It returns false and the last reason a draw was not a valid
// start when none was found.
func (c *Chain) freshStart() (ok bool, last string) {
	o := c.run.opts
	var cands [][]float64
	var ljs []float64
	for k := 0; k < o.StartCandidates; k++ {
		found := false
		for try := 0; try < o.InitRetries; try++ {
			err := c.drawStart()
			c.discreteWritten(-1)
			if err != nil {
				last = err.Error()
				continue
			}
			if last = c.checkStart(); last == "" {
				found = true
				break
			}
		}
		if !found {
			break
		}
		if o.StartCandidates == 1 {
			return true, ""
		}
		cands, ljs = append(cands, append([]float64(nil), c.x...)), append(ljs, c.sc.sc.LogJoint(c.x))
	}
	if len(cands) == 0 {
		return false, last
	}
	best := slices.Max(ljs)
	for k, lj := range ljs {
		if plausibleStart(lj, best, len(c.x)) {
			copy(c.x, cands[k])
			break
		}
	}
	c.discreteWritten(-1)
	return true, ""
}

// plausibleStart reports whether a start of log joint lj, among candidates
// whose highest is best, in a state of dim coordinates, is plausible: within
// 10·max(|best|, dim) nats of the best. The candidates' log joints spread over
// a few times their own size where the model is regular; a start orders of
// magnitude below lies where it explodes. On posteriordb's arma11 (200 steps),
// uniform(−2, 2) starts with |theta| < 1 had a median log joint of −1160, those
// with |theta| > 1 (where err_t grows like theta^t and a chain is trapped) of
// −10⁶⁹. Taking the first plausible candidate, not the best, keeps the starts
// as dispersed as the rule draws them: the highest of 8 sits near the mode,
// where a fitted independence step learnt from the warm-up's draws too narrow a
// proposal (TestFittedStepAlone: variance 0.06 for 0.5).
func plausibleStart(lj, best float64, dim int) bool {
	return lj >= best-10*max(math.Abs(best), float64(dim))
}

// maxRestarts is the most times the adaptive warm-up restarts one chain from a
// fresh start.
const maxRestarts = 3

// Restart is a chain restarted in its warm-up from a fresh start (Result.Restarts):
// at the end of a window in which a site was frozen (see frozenSpacings), its
// proposal's spread at the spacing of float64 at the point.
type Restart struct {
	// Chain is the chain (0-based, as in Result.Draws); Sweep the warm-up sweeps
	// it had made.
	Chain, Sweep int
	// Site names the frozen site; Proposals is the number of its proposals in
	// the window, Accepted how many of them were accepted and changed it (by a
	// few spacings of float64: see frozenSpacings), Unmoved how many were
	// accepted at its current point bit for bit; the others were rejected.
	Site                         string
	Proposals, Accepted, Unmoved int
	// Failed reports that no valid fresh start was found (Options.InitRetries
	// draws); the chain went on from where it was.
	Failed bool
}

// frozenSpacings bounds, in spacings of float64, how far a frozen site moves.
// At the end of a window of the adaptive warm-up a continuous site is frozen
// when its steps made at least half a window of proposals and, in every
// coordinate,
//   - it lies within frozenSpacings spacings per proposal of its value at the
//     window's start (no progress: 3200 spacings in a window of 50, 7·10⁻¹³ of
//     a value near 1; moves of other kinds count as progress), and
//   - a draw of its proposal fitted at the point lies within frozenSpacings
//     spacings of it:
//
// the proposal's spread is at the spacing of float64, and no step of the site
// takes it anywhere, whether the Metropolis-Hastings test accepts its
// proposals or not. The chain is then restarted from a fresh start. Where the
// curvature explodes (posteriordb's arma11 started at |theta| > 1, err_t
// growing like theta^t: a Hessian of −6.5·10¹³⁵ in phi, a Newton spread of
// 10⁻⁶⁸) the draws of phi and theta are their current point bit for bit and
// mu's 1 spacing away, and their steps are rejected: the reverse density of
// the current point from a draw equal to it is the Newton decrement's, 10¹⁰³
// nats below the draw's own (TestARMA11StartTrapsChain). Where the Newton
// decrement is small they are accepted without moving (TestUnmovedProposals).
// A site whose steps are rejected while its draws lie far from the point is
// dislodged instead (see dislodge). Only a site that made no progress is
// drawn, and dislodging takes the same draw, so that a chain whose sites move
// draws no more random numbers.
const frozenSpacings = 64

// withinSpacings reports whether a and b differ by at most n spacings of
// float64 (at the larger magnitude of the two) in every coordinate.
func withinSpacings(a, b []float64, n float64) bool {
	for j, v := range a {
		m := math.Max(math.Abs(v), math.Abs(b[j]))
		if !(math.Abs(v-b[j]) <= n*(math.Nextafter(m, math.Inf(1))-m)) {
			return false
		}
	}
	return true
}

// madeNoProgress reports whether site i, after prop proposals in the window,
// lies within frozenSpacings spacings per proposal of its value at the start of
// the window (see frozenSpacings).
func (c *Chain) madeNoProgress(i, prop int) bool {
	off, k := c.run.off[i], c.run.sites[i].Size
	return withinSpacings(c.x[off:off+k], c.warm.from[off:off+k], float64(frozenSpacings*prop))
}

// restartFrozen restarts the chain from a fresh start after n warm-up sweeps,
// site i frozen in the window that just ended (see frozenSpacings); it reports
// whether the state changed.
func (c *Chain) restartFrozen(n, i int) bool {
	w := &c.warm
	st := c.sites[i].stats
	r := Restart{Chain: c.local, Sweep: n, Site: c.run.sites[i].Name, Proposals: st.Proposals - w.proposals[i],
		Accepted: st.Accepted - w.moved[i], Unmoved: st.Unmoved - w.unmoved[i]}
	saved := w.saved
	copy(saved, c.x)
	ok, _ := c.freshStart()
	if ok && c.run.opts.InitRefine > 0 {
		c.at.phase = "warm-up restart refinement"
		c.refine()
		ok = c.checkStart() == ""
	}
	if !ok {
		copy(c.x, saved)
		c.discreteWritten(-1)
		r.Failed = true
	}
	c.invalidateAll()
	w.restarts = append(w.restarts, r)
	return ok
}

// String describes the restart in a sentence.
func (r Restart) String() string {
	msg := fmt.Sprintf("chain %d was restarted from a fresh start after %d warm-up sweeps: site %q moved by at most %d spacings of float64 in the last window (%d proposals, %d accepted that changed it, %d accepted at its current point bit for bit), and a draw of its proposal by at most %d: a proposal spread at the spacing of float64 where the curvature explodes", r.Chain, r.Sweep, r.Site, frozenSpacings*r.Proposals, r.Proposals, r.Accepted, r.Unmoved, frozenSpacings)
	if r.Failed {
		msg += "; no valid fresh start was found, and the chain went on from where it was"
	}
	return msg
}
