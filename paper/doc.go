// Package paper reproduces the experiments of Arora et al. (2020), "Newtonian
// Monte Carlo: single-site MCMC meets second-order gradient methods"
// (arXiv:2001.05567), on generated data: Neal's funnel, Bayesian logistic
// regression (blr), robust regression, the annotation model, and recovery of the
// exact posterior of the four conjugate models of the models registry.
//
// [Run] samples each experiment with the chains starting from prior draws, with
// the adaptive warm-up before the recorded draws (none with Config.NoGroupMoves,
// as in the paper), and returns a [Report]: the table (warm-up, wall and CPU
// time, draws per second, samples to convergence and final value of the joint predictive
// log-likelihood over the held-out half of the data with the chains interleaved
// by draw, min bulk ESS and max R-hat over the recorded draws (over the second
// half of each chain when there is no warm-up), peak Go heap), the conjugate estimates next to their closed forms, the PLL curves and
// the figures. The report formats itself as text ([Report.WriteTable]) and CSV and
// writes its files ([Report.WriteFiles]). "nmc paper" is this call with flags.
//
// The same seed gives the same data and draws, so every number of the report but
// the wall and CPU times, the rates per second and heap sizes is reproducible.
package paper
