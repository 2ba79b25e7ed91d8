package main

import (
	"bufio"
	"encoding/csv"
	"flag"
	"fmt"
	"io"
	"os"
	"slices"
	"strconv"
	"strings"

	"github.com/nmc-go/nmc/diagnostics"
	"github.com/nmc-go/nmc/draws"
	"github.com/nmc-go/nmc/frames"
)

var summaryCommand = &command{
	name:     "summary",
	args:     "[-out SUMMARY.csv] [-vars NAMES] [-quantiles PROBS] FILE.csv...",
	synopsis: "summarize MCMC draws from nmc or CmdStan CSV files",
	help: `Summary prints, for every quantity, the posterior summary: mean, median, sd,
mad, q5, q95, rhat, ess_bulk, ess_tail, mcse_mean and mcse_sd (as the R
package posterior computes them).

Each FILE is either nmc's draws CSV (a header with "chain" and "draw"
columns) or a CmdStan output CSV (comment lines starting with '#', or an lp__
column). Several files are the chains of one run, in the order given: they
must all be of one kind and hold the same quantities.`,
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
		d, err := readDraws(files)
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
			return writeSummaryFile(*out, rows)
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

// writeSummaryFile writes rows to the CSV file path.
func writeSummaryFile(path string, rows []diagnostics.SummaryRow) error {
	err := writeOutput(path, func(w io.Writer) error { return diagnostics.WriteSummaryCSV(w, rows) })
	if err != nil {
		return fmt.Errorf("-out %s: %v", path, err)
	}
	return nil
}

// fileKind is the format of a draws file.
type fileKind int

const (
	kindDraws   fileKind = iota // nmc's draws CSV: chain, draw, then one column per quantity
	kindCmdStan                 // CmdStan's output CSV
)

func (k fileKind) String() string {
	if k == kindCmdStan {
		return "a CmdStan CSV"
	}
	return "an nmc draws CSV"
}

// detectKind tells nmc's draws CSV from CmdStan's output CSV by the first
// non-blank line: a comment ('#') or a header with an lp__ column means CmdStan;
// a header with chain and draw columns means nmc.
func detectKind(path string) (fileKind, error) {
	f, err := os.Open(path)
	if err != nil {
		return 0, err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 64<<10), 64<<20) // headers of wide models are long
	line := 0
	for sc.Scan() {
		line++
		s := strings.TrimSpace(sc.Text())
		if s == "" {
			continue
		}
		if strings.HasPrefix(s, "#") {
			return kindCmdStan, nil
		}
		r := csv.NewReader(strings.NewReader(s))
		header, err := r.Read()
		if err != nil {
			return 0, fmt.Errorf("%s:%d: cannot read the header: %v", path, line, err)
		}
		switch {
		case slices.Contains(header, "lp__"):
			return kindCmdStan, nil
		case slices.Contains(header, frames.ChainColumn) && slices.Contains(header, frames.DrawColumn):
			return kindDraws, nil
		}
		return 0, fmt.Errorf("%s:%d: header has neither chain and draw columns (nmc draws) nor an lp__ column (CmdStan)", path, line)
	}
	if err := sc.Err(); err != nil {
		return 0, fmt.Errorf("%s: %v", path, err)
	}
	return 0, fmt.Errorf("%s: empty file, want a CSV header", path)
}

// readDraws reads the draws in files, which must all be of one kind. Several
// CmdStan files are the chains of one run; several nmc draws files are joined
// chain after chain, in the order given, and must name the same quantities in the
// same order. All chains must have the same number of draws.
func readDraws(files []string) (*draws.Draws, error) {
	kind, err := detectKind(files[0])
	if err != nil {
		return nil, err
	}
	for _, f := range files[1:] {
		k, err := detectKind(f)
		if err != nil {
			return nil, err
		}
		if k != kind {
			return nil, fmt.Errorf("%s is %v but %s is %v; give files of one kind", f, k, files[0], kind)
		}
	}
	var all *draws.Draws
	var origin []string // where each chain came from, for errors
	if kind == kindCmdStan {
		if all, err = frames.ReadCmdStanFiles(files...); err != nil {
			return nil, err
		}
		origin = files
	} else {
		for _, f := range files {
			d, err := frames.ReadCSVFile(f)
			if err != nil {
				return nil, err
			}
			for c := range d.Chains {
				origin = append(origin, fmt.Sprintf("%s chain %d", f, c))
			}
			if all == nil {
				all = d
				continue
			}
			if err := sameNames(all.Names, d.Names); err != nil {
				return nil, fmt.Errorf("%s and %s hold different quantities: %v", files[0], f, err)
			}
			all.Chains = append(all.Chains, d.Chains...)
		}
	}
	for c := range all.NumChains() {
		if n, n0 := all.NumDraws(c), all.NumDraws(0); n != n0 {
			return nil, fmt.Errorf("chains differ in length: %s has %d draws, %s has %d; the summary needs chains of equal length", origin[c], n, origin[0], n0)
		}
	}
	return all, nil
}

// sameNames reports how the quantity names b differ from a, or nil if they are equal.
func sameNames(a, b []string) error {
	for i := range min(len(a), len(b)) {
		if a[i] != b[i] {
			return fmt.Errorf("quantity %d is %q in one and %q in the other", i+1, a[i], b[i])
		}
	}
	if len(a) != len(b) {
		return fmt.Errorf("%d quantities in one, %d in the other", len(a), len(b))
	}
	return nil
}
