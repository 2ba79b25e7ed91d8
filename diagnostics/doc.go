// Package diagnostics computes MCMC convergence diagnostics, Monte Carlo
// standard errors, posterior summaries, the running predictive
// log-likelihood used to measure samples to convergence, and the
// predictive accuracy of a model by PSIS-LOO and WAIC.
//
// # Overview
//
// The convergence diagnostics follow Vehtari et al. (2021) and reproduce the R
// package posterior, version 1.4.0, to round-off: the rank-normalized split
// R-hat ([RHat]) and its basic form ([RHatBasic]); the bulk, tail, basic
// (mean), quantile, median and sd effective sample sizes ([ESSBulk],
// [ESSTail], [ESSBasic], [ESSQuantile], [ESSMedian], [ESSSD]); the Monte Carlo
// standard errors of the mean, the standard deviation and quantiles
// ([MCSEMean], [MCSESD], [MCSEQuantile], [MCSEMedian]); and the elementary
// statistics of a summary ([Mean], [Median], [SD], [MAD], [Quantile]).
//
// [Summarize] computes posterior's default summary (mean, median, sd, mad,
// q5, q95, rhat, ess_bulk, ess_tail) plus mcse_mean and mcse_sd for every
// quantity of a [draws.Draws], in parallel. [WriteSummaryCSV] and
// [FormatSummary] present the rows as CSV with full precision and as a
// plain-text table; frames.SummaryDataFrame makes a gota DataFrame of them.
// [Convergence] computes only the rhat and ess_bulk columns, the same values, at
// about half the cost (a convergence check over many quantities).
// The package depends on the standard library, gonum and package draws only
// (no data-frame library).
//
// [PLLCurve], [PLLCurveJoint] and the streaming [RunningPLL] compute the
// running predictive log-likelihood of held-out data in its pointwise and
// joint forms; [SamplesToConvergence] applies the 1% rule of Arora et al.
// (2020) to such a curve. A sampler's held-out log-likelihoods (per chain,
// draws × points row-major, as nmc.Result.HeldOut holds them; one point per
// draw when only each draw's total was kept) give two curves, and both are
// used: [PLLInterleaved] pools the chains interleaved by draw (draw 0 of every
// chain, then draw 1, …; the form of the paper's table and of samples to
// convergence), and [PLLPerChain] gives one curve per chain over its own
// draws, which shows a chain lagging behind. [HeldOutTotals] sums each draw's
// values, the input of the joint form.
//
// [CompareExact] sets posterior means estimated from draws against exactly
// known values (a conjugate model's closed form, see models.Posterior), with
// z = (mean − exact mean)/MCSE.
//
// # Predictive accuracy: PSIS-LOO, WAIC and model comparison
//
// [LOO] computes Pareto-smoothed importance-sampling leave-one-out
// cross-validation (Vehtari, Gelman and Gabry 2017) and [WAIC] the widely
// applicable information criterion from a pointwise log-likelihood matrix
// ([LogLik]: per chain, draws × observations row-major; [LogLikFromDraws]
// takes the columns log_lik[0], log_lik[1], … of a [draws.Draws]). They match
// R's loo package version 2.5.1 — loo(x, r_eff = relative_eff(exp(x))) and
// waic(x) — to about 1e-12 relative on every estimate, standard error,
// pointwise value and Pareto k̂ (tested on vectors made with R, in
// testdata/loo): [RelativeEff] is loo's relative_eff, with the older Stan ESS
// (Geyer's initial monotone sequence over unsplit chains, no rank
// normalisation), [PSIS] its tail length min(0.2 S, 3 √(S/r_eff)), generalized
// Pareto fit ([GPDFit]: Zhang and Stephens 2009 with loo's weakly informative
// prior on k) and truncation at the largest raw weight; the Monte Carlo SE of
// elpd_loo is loo 2.5.1's (NaN, R's NA, for the total when any k̂ > 0.7), and
// the Pareto-k table ([LOOResult.ParetoKTable]) uses its fixed thresholds
// 0.5, 0.7 and 1. Later versions of loo changed some of this (a
// sample-size-dependent k̂ threshold, another MCSE); this package follows 2.5.1.
// Observations are processed in parallel, with results independent of the
// number of cores; 10,000 observations × 4,000 draws take a few seconds.
// Non-finite log-likelihoods and chains of unequal lengths are errors
// ([LogLikError]). [Compare] ranks models fitted to the same data as
// loo_compare does (elpd_diff and se_diff against the best model).
// [LOOResult.Format], [WAICResult.Format] and [FormatCompare] print as loo
// does; [WriteLOOCSV], [WriteLOOPointwiseCSV], [ReadPointwiseELPD] and
// [WriteCompareCSV] are the CSV files of nmc loo and nmc compare.
//
// # Conventions
//
// The draws of one scalar quantity are given as x[chain][draw]: M chains, each
// of the same length N, in iteration order. Chains and draws are 0-based.
// "Pooled" statistics use all S = M·N draws.
//
// Errors are returned only for structural problems: no chains, a chain with
// no draws, chains of different lengths, a probability outside [0, 1]. A
// diagnostic that is undefined for the data is NaN, exactly where posterior
// returns NA: any NaN draw; any ±Inf draw, except for the rank-based RHat and
// ESSBulk; all draws equal (to within 2.22e-16 absolute); fewer than 4 draws
// per chain for every R-hat, ESS and MCSE (posterior returns artifact numbers
// for 2 or 3 draws per chain with several chains; this package does not); and
// fewer than 6 draws per chain for every ESS and MCSE. NaN is written as "NA"
// in CSV and tables.
//
// Split diagnostics cut each chain into halves; for an odd number of draws
// the middle draw is dropped from the split, but pooled statistics (the fold
// median, quantile thresholds, mean and sd) use all draws. ESS values are
// capped at S'·log10(S'), where S' counts the draws after splitting.
//
// ESSSD follows posterior 1.5 and later (the ESS of the squared deviations
// from the mean); every other value matches posterior 1.4.0.
//
// Natural logarithms are used throughout the predictive log-likelihood.
//
// # References
//
//   - Vehtari, A., Gelman, A., Simpson, D., Carpenter, B. and Bürkner, P.-C.
//     (2021). Rank-normalization, folding, and localization: an improved R-hat
//     for assessing convergence of MCMC. Bayesian Analysis 16(2), 667–718.
//   - Bürkner, P.-C., Gabry, J., Kay, M. and Vehtari, A. posterior: Tools for
//     Working with Posterior Distributions, R package version 1.4.0.
//   - Geyer, C. J. (1992). Practical Markov chain Monte Carlo. Statistical
//     Science 7(4), 473–483.
//   - Vehtari, A., Gelman, A. and Gabry, J. (2017). Practical Bayesian model
//     evaluation using leave-one-out cross-validation and WAIC. Statistics
//     and Computing 27(5), 1413–1432.
//   - Zhang, J. and Stephens, M. A. (2009). A new and efficient estimation
//     method for the generalized Pareto distribution. Technometrics 51(3),
//     316–325.
//   - Vehtari, A., Gabry, J., Magnusson, M., Yao, Y., Bürkner, P.-C.,
//     Paananen, T. and Gelman, A. loo: Efficient leave-one-out
//     cross-validation and WAIC for Bayesian models, R package version 2.5.1.
//   - Arora, N. S., Tehrani, N. K., Shah, K. D., Tingley, M., Li, Y. L.,
//     Torabi, N., Noursi, D., Masouleh, S. A., Lippert, E. and Meijer, E.
//     (2020). Newtonian Monte Carlo: single-site MCMC meets second-order
//     gradient methods. arXiv:2001.05567.
package diagnostics
