// Command nmc runs Newtonian Monte Carlo from the command line.
//
// Usage:
//
//	nmc COMMAND [flags] [arguments]
//
// The commands are:
//
//	sample   sample a model with Newtonian Monte Carlo
//	summary  summarize MCMC draws from nmc or CmdStan CSV files
//	gen      generate a data set for one of the paper's models
//	paper    reproduce the paper's experiments
//
// "nmc COMMAND -h" describes a command and its flags. Every command is a library
// call with flags around it: the models by name are the registry of package models
// (models.Lookup, Generate, Load, Dataset.Build), the paper's run is paper.Run, the
// held-out PLL curve diagnostics.PLLInterleaved and the comparison with a conjugate
// model's exact posterior diagnostics.CompareExact.
//
// # Summary
//
//	nmc summary [-out SUMMARY.csv] [-vars NAMES] [-quantiles PROBS] FILE.csv...
//
// reads draws and prints, for every quantity, the summary of the R package
// posterior: mean, median, sd, mad, q5, q95, rhat, ess_bulk, ess_tail,
// mcse_mean and mcse_sd (see diagnostics.Summarize). A file is either nmc's draws CSV (a header with
// "chain" and "draw" columns, as written by frames.WriteCSV) or a CmdStan output
// CSV (comment lines starting with '#', or an lp__ column). Several files are
// the chains of one run, in the order given; they must all be of one kind and
// hold the same quantities, and all chains must have the same number of draws.
// -out writes the summary to a CSV file with full precision as well; -vars
// selects quantities ("mu,beta" selects mu and every beta[i]); -quantiles sets
// the quantile columns ("0.025,0.975" gives q2.5 and q97.5).
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
