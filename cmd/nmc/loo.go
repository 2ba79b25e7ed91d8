package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/nmc-go/nmc/diagnostics"
	"github.com/nmc-go/nmc/frames"
	"github.com/nmc-go/nmc/internal/fileio"
)

var looCommand = &command{
	name:     "loo",
	args:     "[-var log_lik] [-out FILE] [-pointwise FILE] FILE...",
	synopsis: "estimate predictive accuracy by PSIS-LOO and WAIC from pointwise log-likelihoods",
	help: `Loo estimates a model's expected log predictive density by Pareto-smoothed
importance-sampling leave-one-out cross-validation (PSIS-LOO) and by WAIC,
from the pointwise log-likelihood columns VAR[0], VAR[1], … (VAR is -var,
log_lik by default: Stan's convention) of the draws. It computes what R's
loo 2.5.1 does with loo(x, r_eff = relative_eff(exp(x))) and waic(x), and
prints the estimates with their standard errors and the Pareto k diagnostic
table: k ≤ 0.5 good, ≤ 0.7 ok, ≤ 1 bad, above 1 very bad (the importance
sampling estimate of that observation is unreliable).

The FILEs are the chains of one run, in any format nmc summary reads (nmc's
own draws CSV, CmdStan output with log_lik.1 … columns, R posterior's
draws_df, pandas/ArviZ CSV); every chain must have the same number of draws.

-out writes the totals as CSV, columns name,estimate,se, rows elpd_loo,
p_loo, looic, elpd_waic, p_waic, waic. -pointwise writes one row per
observation, in index order, with the columns elpd_loo, mcse_elpd_loo,
p_loo, looic, influence_pareto_k, r_eff, psis_n_eff, elpd_waic, p_waic,
waic; nmc compare reads these files.`,
	flags: looFlags,
}

// looFlags declares the flags of "nmc loo".
func looFlags(fs *flag.FlagSet) func(*env, []string) error {
	variable := fs.String("var", "log_lik", "the pointwise log-likelihood `variable`: columns VAR[0], VAR[1], …")
	out := fs.String("out", "", "write the estimates to `file` as CSV (name,estimate,se)")
	pointwise := fs.String("pointwise", "", "write the pointwise values to `file` as CSV (one row per observation)")
	return func(e *env, files []string) error {
		if len(files) == 0 {
			return usagef("no input files (usage: nmc loo [-var log_lik] [-out FILE] [-pointwise FILE] FILE...)")
		}
		if *variable == "" || strings.ContainsAny(*variable, "[],") {
			return usagef("-var: %q is not a variable name", *variable)
		}
		ll, err := readLogLik(files, *variable)
		if err != nil {
			return err
		}
		res, err := diagnostics.LOO(ll.LogLik)
		if err != nil {
			return ll.explain(err, *variable)
		}
		if _, err := io.WriteString(e.stdout, res.Format()+"\n"+res.WAIC.Format()); err != nil {
			return err
		}
		if *out != "" {
			err := fileio.WriteFile(*out, func(w io.Writer) error { return diagnostics.WriteLOOCSV(w, res) })
			if err != nil {
				return fmt.Errorf("-out: %v", err)
			}
		}
		if *pointwise != "" {
			err := fileio.WriteFile(*pointwise, func(w io.Writer) error { return diagnostics.WriteLOOPointwiseCSV(w, res) })
			if err != nil {
				return fmt.Errorf("-pointwise: %v", err)
			}
		}
		return nil
	}
}

// fileLogLik is the log-likelihood of the chains of several files, with the
// file and the chain within it that every chain came from.
type fileLogLik struct {
	diagnostics.LogLik
	file  []string
	chain []int
}

// readLogLik reads the VAR[i] columns of every file, the chains of one run.
func readLogLik(files []string, variable string) (*fileLogLik, error) {
	out := &fileLogLik{}
	for _, f := range files {
		d, err := frames.ReadDrawsFiles(f)
		if err != nil {
			return nil, err
		}
		ll, err := diagnostics.LogLikFromDraws(d, variable)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", f, err)
		}
		if len(out.Chains) > 0 && ll.N != out.N {
			return nil, fmt.Errorf("%s has %d %s columns, %s has %d (the files must be chains of one run)", f, ll.N, variable, files[0], out.N)
		}
		out.N = ll.N
		for c, ch := range ll.Chains {
			out.Chains = append(out.Chains, ch)
			out.file = append(out.file, f)
			out.chain = append(out.chain, c)
		}
	}
	return out, nil
}

// explain rewrites a diagnostics.LogLikError in terms of the files and columns.
func (ll *fileLogLik) explain(err error, variable string) error {
	le := (*diagnostics.LogLikError)(nil)
	if !errors.As(err, &le) || le.Chain < 0 || le.Chain >= len(ll.file) {
		return err
	}
	where := ll.file[le.Chain]
	if ll.chain[le.Chain] > 0 || (le.Chain+1 < len(ll.file) && ll.file[le.Chain+1] == where) {
		where += fmt.Sprintf(" chain %d", ll.chain[le.Chain])
	}
	if le.Observation < 0 {
		n := len(ll.Chains[le.Chain]) / ll.N
		if n == len(ll.Chains[0])/ll.N {
			return fmt.Errorf("%s: %w", where, err)
		}
		return fmt.Errorf("%s has %d draws, %s has %d: every chain must have the same number of draws", where, n, ll.file[0], len(ll.Chains[0])/ll.N)
	}
	return fmt.Errorf("%s: column %s[%d], draw %d: log-likelihood is %v (must be finite)", where, variable, le.Observation, le.Draw, le.Value)
}

var compareCommand = &command{
	name:     "compare",
	args:     "[-out FILE] A.csv B.csv ...",
	synopsis: "compare models by their PSIS-LOO expected log predictive densities",
	help: `Compare ranks models fitted to the same data by their expected log
predictive density elpd_loo, as R's loo_compare (loo 2.5.1): best model first,
each with elpd_diff, the difference of its elpd_loo to the best model's, and
se_diff, the standard error of that difference (from the pointwise
differences). A difference of several standard errors favours the better model.

Each FILE is a pointwise file written by nmc loo -pointwise (or any CSV file
with an elpd_loo column and one row per observation, such as R's
write.csv(loo(...)$pointwise)); the model is named by the file name without
folder and extension (normal.csv is normal). Every model must have the same
observations in the same order.

-out writes CSV with the columns model,elpd_diff,se_diff,elpd_loo,se_elpd_loo,
best model first.`,
	flags: compareFlags,
}

// compareFlags declares the flags of "nmc compare".
func compareFlags(fs *flag.FlagSet) func(*env, []string) error {
	out := fs.String("out", "", "write the comparison to `file` as CSV (model,elpd_diff,se_diff,…)")
	return func(e *env, files []string) error {
		if len(files) < 2 {
			return usagef("need at least two pointwise files, got %d (usage: nmc compare [-out FILE] A.csv B.csv ...)", len(files))
		}
		names := map[string]string{}
		var models []diagnostics.ModelELPD
		for _, f := range files {
			name := strings.TrimSuffix(filepath.Base(f), filepath.Ext(f))
			if prev, ok := names[name]; ok {
				return usagef("%s and %s both name a model %s", prev, f, name)
			}
			names[name] = f
			elpd, err := readPointwise(f)
			if err != nil {
				return err
			}
			if len(models) > 0 && len(elpd) != len(models[0].Pointwise) {
				return fmt.Errorf("%s: column elpd_loo has %d observations, %s has %d: models must be fitted to the same data", f, len(elpd), files[0], len(models[0].Pointwise))
			}
			models = append(models, diagnostics.ModelELPD{Name: name, Pointwise: elpd})
		}
		rows, err := diagnostics.Compare(models)
		if err != nil {
			return err
		}
		if _, err := io.WriteString(e.stdout, diagnostics.FormatCompare(rows)); err != nil {
			return err
		}
		if *out != "" {
			err := fileio.WriteFile(*out, func(w io.Writer) error { return diagnostics.WriteCompareCSV(w, rows) })
			if err != nil {
				return fmt.Errorf("-out: %v", err)
			}
		}
		return nil
	}
}

// readPointwise reads the elpd_loo column of one pointwise file.
func readPointwise(path string) ([]float64, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	v, err := diagnostics.ReadPointwiseELPD(f)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return v, nil
}
