package main

import (
	"context"
	"fmt"
	"io"
	"math"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/nmc-go/nmc/diagnostics"
	"github.com/nmc-go/nmc/draws"
	"github.com/nmc-go/nmc/models"
	"github.com/nmc-go/nmc/nmc"
)

// runSettings are the sampler settings shared by nmc sample and nmc paper.
type runSettings struct {
	chains, draws, warmup int
	seed                  uint64
	// heldOutTotal keeps only each draw's summed held-out log-likelihood (the joint
	// curve's input) instead of every point: a million points × 1000 draws would be
	// 8 GB. pointwise is then nil.
	heldOutTotal bool
}

// check returns an error naming the flag of a setting out of range.
func (s runSettings) check() error {
	switch {
	case s.chains < 1:
		return fmt.Errorf("-chains = %d, want at least 1", s.chains)
	case s.draws < 1:
		return fmt.Errorf("-draws = %d, want at least 1", s.draws)
	case s.warmup < 0:
		return fmt.Errorf("-warmup = %d, want 0 or more", s.warmup)
	}
	return nil
}

// maxPointwiseHeldOut is the most held-out log-likelihood values (points × chains ×
// draws, 1 GiB) kept for the pointwise PLL curve; above it only each draw's total
// is kept, and the pointwise curve is not computed. A variable for the tests.
var maxPointwiseHeldOut int64 = 1 << 27

// runResult is one sampled model with what nmc sample and nmc paper report.
type runResult struct {
	data  *dataset
	built *models.Built
	exact *models.Posterior // conjugate models only
	res   *nmc.Result
	// joint and pointwise are the running predictive log-likelihood curves of the
	// held-out data over the draws of all chains interleaved by draw (draw 0 of
	// every chain, then draw 1, …); nil without held-out data.
	joint, pointwise []float64
}

// execute builds and samples the model of d with settings s, showing a progress
// bar labelled desc on stderr when it is a terminal. check, if not nil, is
// called with the names of the model's quantities before sampling starts.
func execute(ctx context.Context, e *env, d *dataset, s runSettings, desc string, check func(names []string) error) (*runResult, error) {
	b, exact, err := d.build()
	if err != nil {
		return nil, err
	}
	if check != nil {
		var names []string
		for _, site := range b.Model.Sites() {
			names = append(names, site.Coords()...)
		}
		if dv, ok := b.Model.(nmc.Deriver); ok {
			names = append(names, dv.DerivedNames()...)
		}
		if err := check(names); err != nil {
			return nil, err
		}
	}
	bar := newProgress(e.stderr, desc, s.chains, s.warmup+s.draws)
	opts := &nmc.Options{
		Chains:   s.chains,
		Draws:    s.draws,
		Warmup:   s.warmup,
		Seed:     s.seed,
		HeldOut:  b.HeldOut,
		Progress: bar.callback(),
	}
	if b.HeldOut != nil && int64(b.HeldOut.Len())*int64(s.chains)*int64(s.warmup+s.draws) > maxPointwiseHeldOut {
		s.heldOutTotal = true // every point at every draw would not fit comfortably in memory
	}
	if s.heldOutTotal && b.HeldOut != nil {
		opts.HeldOut = nmc.HeldOutTotal(b.HeldOut)
	}
	res, err := nmc.Sample(ctx, b.Model, opts)
	bar.finish()
	if err != nil {
		if ctx.Err() != nil && res != nil {
			// Interrupted: the draws completed so far are whole and can be kept.
			return &runResult{data: d, built: b, exact: exact, res: res}, &interruptedError{res: res, total: s.draws}
		}
		return nil, fmt.Errorf("%s: %w", d.model, err)
	}
	r := &runResult{data: d, built: b, exact: exact, res: res}
	if res.NumHeldOut > 0 {
		if r.joint, r.pointwise, err = pllCurves(res); err != nil {
			return nil, fmt.Errorf("%s: %w", d.model, err)
		}
		if s.heldOutTotal {
			r.pointwise = nil
		}
	}
	return r, nil
}

// interruptedError reports a run stopped by an interrupt (SIGINT) before every
// chain completed its draws; res holds the draws completed so far.
type interruptedError struct {
	res   *nmc.Result
	total int // draws per chain requested
}

func (e *interruptedError) Error() string {
	lo, hi := e.total, 0
	for c := range e.res.Draws.NumChains() {
		n := e.res.Draws.NumDraws(c)
		lo, hi = min(lo, n), max(hi, n)
	}
	if lo == hi {
		return fmt.Sprintf("interrupted after %d of %d draws per chain", lo, e.total)
	}
	return fmt.Sprintf("interrupted after %d to %d of %d draws per chain", lo, hi, e.total)
}

// pllCurves returns the joint and pointwise running predictive log-likelihood
// curves of res's held-out log-likelihoods, chains interleaved by draw.
func pllCurves(res *nmc.Result) (joint, pointwise []float64, err error) {
	j := res.NumHeldOut
	rows := make([][][]float64, len(res.HeldOut))
	totals := make([][][]float64, len(res.HeldOut))
	for c, flat := range res.HeldOut {
		n := len(flat) / j
		rows[c] = make([][]float64, n)
		totals[c] = make([][]float64, n)
		for s := range n {
			row := flat[s*j : (s+1)*j]
			t := 0.0
			for _, v := range row {
				t += v
			}
			rows[c][s] = row
			totals[c][s] = []float64{t}
		}
	}
	var T []float64
	for _, row := range diagnostics.Interleave(totals) {
		T = append(T, row[0])
	}
	if joint, err = diagnostics.PLLCurveJoint(T); err != nil {
		return nil, nil, err
	}
	if pointwise, err = diagnostics.PLLCurve(diagnostics.Interleave(rows)); err != nil {
		return nil, nil, err
	}
	return joint, pointwise, nil
}

// summaryVars returns the quantities nmc prints and judges convergence by: for
// annotation the continuous parameters pi and theta (the classes z are discrete
// and many); nil, meaning every quantity, for the other models.
func summaryVars(model string) []string {
	if model == "annotation" {
		return []string{"pi", "theta"}
	}
	return nil
}

// lastHalf returns the draws of d from draw n/2 of each chain on (sharing storage).
func lastHalf(d *draws.Draws) *draws.Draws {
	out := &draws.Draws{Names: d.Names, Chains: make([][]float64, len(d.Chains))}
	p := len(d.Names)
	for c, ch := range d.Chains {
		n := len(ch) / max(p, 1)
		out.Chains[c] = ch[(n/2)*p:]
	}
	return out
}

// minESSMaxRHat returns the smallest bulk ESS and the largest R-hat over rows,
// ignoring NaN (a constant quantity); NaN if every value is NaN.
func minESSMaxRHat(rows []diagnostics.SummaryRow) (minESS, maxRHat float64) {
	minESS, maxRHat = math.NaN(), math.NaN()
	for _, r := range rows {
		if !math.IsNaN(r.ESSBulk) && !(r.ESSBulk >= minESS) {
			minESS = r.ESSBulk
		}
		if !math.IsNaN(r.RHat) && !(r.RHat <= maxRHat) {
			maxRHat = r.RHat
		}
	}
	return minESS, maxRHat
}

// siteGroup totals the sampler statistics of the sites of one family ("z" for
// z[0], z[1], …).
type siteGroup struct {
	name, proposer                        string
	sites, proposals, accepted, fallbacks int
}

// groupSites totals res.Sites by family name, in order of first appearance.
func groupSites(res *nmc.Result) []*siteGroup {
	var out []*siteGroup
	by := map[string]*siteGroup{}
	for _, s := range res.Sites {
		name := s.Name
		if i := strings.IndexByte(name, '['); i > 0 {
			name = name[:i]
		}
		key := name + "\x00" + s.Proposer
		g := by[key]
		if g == nil {
			g = &siteGroup{name: name, proposer: s.Proposer}
			by[key] = g
			out = append(out, g)
		}
		g.sites++
		g.proposals += s.Proposals
		g.accepted += s.Accepted
		g.fallbacks += s.Fallbacks
	}
	return out
}

// printSites writes the acceptance and fallback counts per site family.
func printSites(w io.Writer, res *nmc.Result) {
	groups := groupSites(res)
	width := len("site")
	for _, g := range groups {
		width = max(width, len(g.name))
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintf(tw, "%-*s\tproposer\tsites\tproposals\taccept rate\tfallbacks\t\n", width, "site")
	for _, g := range groups {
		rate := "NA"
		if g.proposals > 0 {
			rate = fmt.Sprintf("%.3f", float64(g.accepted)/float64(g.proposals))
		}
		fmt.Fprintf(tw, "%-*s\t%s\t%d\t%d\t%s\t%d\t\n", width, g.name, g.proposer, g.sites, g.proposals, rate, g.fallbacks)
	}
	tw.Flush()
}

// exactRow compares the estimate of one conjugate parameter with its exact
// posterior.
type exactRow struct {
	model, name                        string
	mean, sd, mcse, exactMean, exactSD float64
}

// z returns (estimate − exact mean) / MCSE of the estimate.
func (r exactRow) z() float64 { return (r.mean - r.exactMean) / r.mcse }

// compareExact returns, for each parameter of the exact posterior, the estimate
// from rows next to the closed form.
func compareExact(model string, exact *models.Posterior, rows []diagnostics.SummaryRow) ([]exactRow, error) {
	var out []exactRow
	for _, name := range exact.Names {
		m, err := exact.Mean(name)
		if err != nil {
			return nil, err
		}
		sd, err := exact.SD(name)
		if err != nil {
			return nil, err
		}
		found := false
		for _, r := range rows {
			if r.Variable == name {
				out = append(out, exactRow{model: model, name: name, mean: r.Mean, sd: r.SD, mcse: r.MCSEMean, exactMean: m, exactSD: sd})
				found = true
				break
			}
		}
		if !found {
			return nil, fmt.Errorf("%s: no draws of %s", model, name)
		}
	}
	return out, nil
}

// printExact writes estimate and exact posterior side by side, with the z-score
// (estimate − exact)/MCSE.
func printExact(w io.Writer, rows []exactRow, withModel bool) {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	if withModel {
		fmt.Fprint(tw, "model\t")
	}
	fmt.Fprintln(tw, "variable\tmean\texact mean\tsd\texact sd\tmcse_mean\tz\t")
	for _, r := range rows {
		if withModel {
			fmt.Fprintf(tw, "%s\t", r.model)
		}
		fmt.Fprintf(tw, "%s\t%.4g\t%.4g\t%.4g\t%.4g\t%.2g\t%+.2f\t\n", r.name, r.mean, r.exactMean, r.sd, r.exactSD, r.mcse, r.z())
	}
	tw.Flush()
}

// formatDuration rounds d for a table: 3 significant digits in seconds.
func formatDuration(d time.Duration) string {
	s := d.Seconds()
	switch {
	case s < 1:
		return fmt.Sprintf("%.2fs", s)
	case s < 100:
		return fmt.Sprintf("%.1fs", s)
	}
	return fmt.Sprintf("%.0fs", s)
}
