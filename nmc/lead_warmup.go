package nmc

// The lead-and-follow moves in warm-up (LeadMoves). A lead pinned by its
// followers — a Gaussian process's length scale and amplitude, pinned by its
// latent values — moves in warm-up only by single-site steps, which cross its
// marginal slowly. When the moves started after warm-up, gp_pois_regr's adaptive
// warm-up ran to its limit of 1000 sweeps and warned that the chains disagreed
// (posteriordb's data, seeds 1–6; nmc sample's generated data, seeds 1–20),
// while the moves then mixed the chains well (R-hat ≤ 1.003 on posteriordb's
// data). So a chain makes the moves in warm-up too, from the first window end
// (every autoWindow-th sweep) at which the part of its stationary period that
// the final fit reads (without the adaptive warm-up's first window) holds
// enough draws of the lead for a fit (siteMoments.cov): at every window end it
// refits the random walk to the lead's draws so far and makes the moves with
// that walk until the next window end; a restart of the stationary period stops
// them until its next fit. gp_pois_regr's warm-up then ends with the chains
// agreeing, after 200 sweeps (posteriordb's data, seeds 1–6; 46 of 50 runs on
// generated data) or 250–350 (the other 4). A walk refitted to the chain's own
// past is not one fixed kernel, which the warm-up does not need (none of its
// draws is recorded); the recorded draws come from the walk fitted once at the
// warm-up's end (EndWarmup) to all the moments, a separate move frozen from
// then on.

// Adapt adds the lead's value to its moments, in the warm-up's stationary part
// without, for the adaptive warm-up, its first window, and at a window end
// refits the warm-up's random walk to them.
func (st *leadStepper) Adapt(c *Chain, w Warmup) {
	start := w.Stationary
	if w.Adaptive {
		start += autoWindow
	}
	if w.Sweep <= start {
		return
	}
	i := st.plan.lead
	off := c.run.off[i]
	st.moments.add(c.run.sites[i], c.x[off:off+c.run.sites[i].Size])
	if w.Sweep%autoWindow == 0 {
		if st.warm == nil {
			st.warm = newJointMove(i, c.run.sites)
		}
		c.at.phase = "lead-follow warm-up fit"
		st.warmFit = st.plan.cfg.fitJoint(c, st.warm, st.moments, st.plan.follow)
		c.at.phase = "sampling"
	}
}

// restart forgets the moments and stops the warm-up's moves until the next fit.
func (st *leadStepper) restart() {
	st.moments.reset()
	st.warmFit = false
}
