package main

import (
	"flag"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/nmc-go/nmc/diagnostics"
	"github.com/nmc-go/nmc/frames"
	"github.com/nmc-go/nmc/internal/fileio"
)

var summaryCommand = &command{
	name:     "summary",
	args:     "[-out SUMMARY.csv] [-vars NAMES] [-quantiles PROBS] FILE.csv...",
	synopsis: "summarize MCMC draws from nmc, R posterior, pandas/ArviZ or CmdStan CSV files",
	help: `Summary prints, for every quantity, the posterior summary: mean, median, sd,
mad, q5, q95, rhat, ess_bulk, ess_tail, mcse_mean and mcse_sd (as the R
package posterior computes them).

Each FILE is one of these, told apart by its header:
  nmc draws CSV           chain,draw,mu,"theta[0,1]"
  pandas/ArviZ CSV        ,chain,draw,mu,theta[0]   (index column optional;
                          or long: chain,draw,variable,value)
  R posterior draws_df    "","mu","theta[1]",".chain",".iteration",".draw"
                          (write.csv(as_draws_df(x)), row names optional)
  CmdStan output CSV      # comments, lp__,accept_stat__,…,theta.1
Chain and draw numbers may start at 0 or 1; chains are renumbered from 0. R's
and Stan's 1-based names are printed 0-based (theta[1] is theta[0]). Missing
values (NA, empty cells) are errors.

Several files are the chains of one run (say, sampled on several machines
with nmc sample -first-chain), merged in the order given: every file must
hold the same quantities and every chain the same number of draws. Files
may be in different formats.`,
	flags: summaryFlags,
}

// summaryFlags declares the flags of "nmc summary".
func summaryFlags(fs *flag.FlagSet) func(*env, []string) error {
	out := fs.String("out", "", "also write the summary to `file` as CSV, with full precision")
	vars := fs.String("vars", "", "summarize only these comma-separated `names`, in this order; a family name\n"+
		"such as beta selects beta[0], beta[1], … (default: every quantity)")
	quantiles := fs.String("quantiles", "", "comma-separated `probabilities` of the quantile columns (default 0.05,0.95)")
	return func(e *env, files []string) error {
		if len(files) == 0 {
			return usagef("no input files (usage: nmc summary [-out SUMMARY.csv] FILE.csv...)")
		}
		opts := &diagnostics.SummaryOptions{}
		if *vars != "" {
			opts.Variables = splitNames(*vars)
		}
		if *quantiles != "" {
			for _, f := range strings.Split(*quantiles, ",") {
				p, err := strconv.ParseFloat(strings.TrimSpace(f), 64)
				if err != nil || !(p >= 0 && p <= 1) {
					return usagef("-quantiles: %q is not a probability in [0, 1]", f)
				}
				opts.Quantiles = append(opts.Quantiles, p)
			}
		}
		d, err := frames.ReadDrawsFiles(files...)
		if err != nil {
			return err
		}
		rows, err := diagnostics.Summarize(d, opts)
		if err != nil {
			return err
		}
		if _, err := io.WriteString(e.stdout, diagnostics.FormatSummary(rows)); err != nil {
			return err
		}
		if *out != "" {
			return writeSummaryFile("-out", *out, rows)
		}
		return nil
	}
}

// splitNames splits a comma-separated list of quantity names, leaving the commas
// inside brackets alone: "mu,theta[0,1]" is "mu" and "theta[0,1]".
func splitNames(s string) []string {
	var names []string
	depth, start := 0, 0
	for i, r := range s {
		switch r {
		case '[':
			depth++
		case ']':
			depth--
		case ',':
			if depth == 0 {
				names = append(names, strings.TrimSpace(s[start:i]))
				start = i + 1
			}
		}
	}
	return append(names, strings.TrimSpace(s[start:]))
}

// writeSummaryFile writes rows to the CSV file path, given by the flag flagName;
// an error names the flag.
func writeSummaryFile(flagName, path string, rows []diagnostics.SummaryRow) error {
	err := fileio.WriteFile(path, func(w io.Writer) error { return diagnostics.WriteSummaryCSV(w, rows) })
	if err != nil {
		return fmt.Errorf("%s: %v", flagName, err)
	}
	return nil
}
