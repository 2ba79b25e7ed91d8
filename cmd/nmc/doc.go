// Command nmc runs Newtonian Monte Carlo from the command line.
//
// Usage:
//
//	nmc COMMAND [flags] [arguments]
//
// The commands are:
//
//	sample   sample a model with Newtonian Monte Carlo
//	summary  summarize MCMC draws from nmc, R posterior, pandas/ArviZ or CmdStan CSV files
//	gen      generate a data set for one of the paper's models
//	paper    reproduce the paper's experiments
//	sbc      check the sampler's calibration by simulation-based calibration
//	loo      estimate predictive accuracy by PSIS-LOO and WAIC from pointwise log-likelihoods
//	compare  compare models by their PSIS-LOO expected log predictive densities
//
// "nmc COMMAND -h" describes a command and its flags. Every command is a library
// call with flags around it: the models by name are the registry of package models
// (models.Lookup, Generate, Load, Dataset.Build), the paper's run is paper.Run, the
// held-out PLL curve diagnostics.PLLInterleaved and the comparison with a conjugate
// model's exact posterior diagnostics.CompareExact.
//
// # Sample
//
//	nmc sample -model NAME [-train FILE [-test FILE] | -n N -k K] [flags]
//
// samples a model of the registry on data read from files in the schemas shared
// with the Stan and JAGS versions (the repository's testdata folder holds small
// ones) or generated with -n, -k and -seed, prints the summary, the wall time and
// the acceptance rate of every site family, and writes the draws (-out, nmc's
// draws CSV as frames.WriteCSVFile writes it), the summary (-summary), the PLL
// curves (-pll) and figures (-plots) on request. Chain c of a run draws from PCG
// stream c of -seed; -first-chain K samples chains K, K+1, … of a run split over
// machines (nmc.Options.FirstChain), whose files nmc summary merges.
//
// # Summary
//
//	nmc summary [-out SUMMARY.csv] [-vars NAMES] [-quantiles PROBS] FILE.csv...
//
// reads draws and prints, for every quantity, the summary of the R package
// posterior: mean, median, sd, mad, q5, q95, rhat, ess_bulk, ess_tail,
// mcse_mean and mcse_sd (see diagnostics.Summarize). A file is nmc's draws CSV
// (a header with "chain" and "draw" columns, as written by frames.WriteCSV), R
// posterior's draws_df CSV (".chain", ".iteration", ".draw"), a pandas/ArviZ CSV
// (chain and draw columns, wide or long) or a CmdStan output CSV (comment lines
// starting with '#', or an lp__ column), told apart by the header; chain and draw
// numbers may start at 0 or 1 (see frames.ReadDrawsFiles). Several files, in any
// of these formats, are the chains of one run, renumbered from 0 in the order
// given; they must hold the same quantities, and all chains must have the same
// number of draws. -out writes the summary to a CSV file with full precision as
// well; -vars selects quantities ("mu,beta" selects mu and every beta[i]);
// -quantiles sets the quantile columns ("0.025,0.975" gives q2.5 and q97.5).
//
// # SBC
//
//	nmc sbc -model NAME [-sims N] [-seed S] [-out FILE] [-plots DIR] [flags]
//
// runs simulation-based calibration (sbc.Run, with the simulators of
// models.Simulator) on a built-in model: per parameter, the χ² test of uniformity of
// the ranks and a verdict; -out writes the ranks with the SBC R package's columns
// sim_id,variable,simulated_value,rank,max_rank (sim_id from 1), -plots the rank
// histograms and ECDF-difference plots (viz.RankHistogram, viz.ECDFDiff).
//
// # Loo and compare
//
//	nmc loo [-var log_lik] [-out FILE] [-pointwise FILE] FILE...
//	nmc compare [-out FILE] A.csv B.csv ...
//
// loo reads the pointwise log-likelihood columns log_lik[0], log_lik[1], … (-var;
// CmdStan's log_lik.1 … are the same) of the chains of one run, in any format
// summary reads, and prints PSIS-LOO and WAIC as R's loo 2.5.1 computes them
// (diagnostics.LogLikFromDraws, diagnostics.LOO): elpd_loo, p_loo, looic and
// elpd_waic, p_waic, waic with standard errors, the Monte Carlo SE of elpd_loo and
// the Pareto k table. -out writes name,estimate,se; -pointwise one row per
// observation (elpd_loo, mcse_elpd_loo, p_loo, looic, influence_pareto_k, r_eff,
// psis_n_eff, elpd_waic, p_waic, waic). compare reads such pointwise files, one per
// model named after the file, and ranks the models as loo_compare does
// (diagnostics.Compare): elpd_diff and se_diff against the best, best first.
//
// # Exit status
//
// 0 on success; 2 when the command line alone is wrong (an unknown command, an
// unknown, missing or malformed flag or operand, a flag value out of range or not
// valid for the model, flags that do not go together); 1 for any other failure (an
// input file that cannot be read or holds bad data, an output that cannot be
// written, a failed or interrupted run). An error is reported as one line on
// standard error, "nmc COMMAND: …", naming the file, line and column where it
// applies.
package main
