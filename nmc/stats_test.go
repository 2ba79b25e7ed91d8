package nmc

import (
	"fmt"
	"math/rand/v2"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/nmc-go/nmc/draws"
)

// TestFittedBlockUnused: a fitted block that makes no proposals says why in its
// statistics instead of leaving an acceptance rate of NaN. The Gaussian site x of
// mvnModel is sampled exactly by its Newton step (acceptance 1), so after a warm-up
// of 100 sweeps every chain leaves its block "fitted(x)" to the site's own steps;
// the Student-t pair t, whose Newton steps accept less than 90%, has too few
// warm-up draws for a fit after 10 sweeps.
func TestFittedBlockUnused(t *testing.T) {
	tpair := studentTModel(3)
	tpair.site.Size = 2
	for _, tc := range []struct {
		m      Model
		warmup int
		want   string
	}{{newMVNModel(), 100, unusedMixed}, {tpair, 10, unusedNoFit}} {
		r := sample(t, tc.m, &Options{Chains: 2, Draws: 50, Warmup: tc.warmup, Seed: 11})
		block := "fitted(" + tc.m.Sites()[0].Name + ")"
		var got []string
		for _, s := range r.AllStats() {
			if s.Name != block {
				continue
			}
			if s.Proposals != 0 {
				t.Errorf("warm-up %d: %s made %d proposals, want 0", tc.warmup, block, s.Proposals)
			}
			got = append(got, s.Unused)
		}
		if len(got) != 1 || got[0] != tc.want {
			t.Errorf("warm-up %d: %s Unused %q, want one entry %q", tc.warmup, block, got, tc.want)
		}
		for c, pc := range movesOfPerChain(r, "fitted") {
			if pc[0].Unused != tc.want {
				t.Errorf("warm-up %d, chain %d: Unused %q, want %q", tc.warmup, c, pc[0].Unused, tc.want)
			}
		}
	}
	// A block that some chain used is no longer unused in the total. Chain 0's
	// entry is made used by hand, as a run would give it.
	per := [][]draws.SiteStats{{{Name: "b", Proposals: 3}}, {{Name: "b", Unused: unusedMixed}}}
	if u := unusedTotal(per, 0); u != "" {
		t.Errorf("used in chain 0: total Unused %q, want empty", u)
	}
	per[0][0] = draws.SiteStats{Name: "b", Unused: unusedNoFit}
	if u := unusedTotal(per, 0); !strings.Contains(u, unusedNoFit) || !strings.Contains(u, unusedMixed) {
		t.Errorf("unused in both chains for different reasons: total Unused %q", u)
	}
}

// collapsedModel: x ~ N(0, 1) and y ~ N(0, 1) independent, but the Hessian it
// reports for x is −10⁴⁰, so that x's Newton proposal has the spread 10⁻²⁰, far
// below the spacing of float64 at any |x| > 10⁻³: every proposal of x is its
// current point bit for bit, and the Metropolis-Hastings ratio is 1.
type collapsedModel struct{}

func (collapsedModel) Sites() []Site {
	return []Site{{Name: "x", Size: 1, Support: Real}, {Name: "y", Size: 1, Support: Real}}
}
func (m collapsedModel) NewScorer() Scorer { return m }
func (collapsedModel) Init(rng *rand.Rand, x []float64) error {
	x[0], x[1] = 0.5+rng.Float64(), rng.NormFloat64()
	return nil
}
func (collapsedModel) LogJoint(x []float64) float64 { return -(x[0]*x[0] + x[1]*x[1]) / 2 }
func (collapsedModel) Score(x []float64, i int, grad, hess []float64) float64 {
	v := x[i]
	if grad != nil {
		grad[0], hess[0] = -v, -1
		if i == 0 {
			hess[0] = -1e40
		}
	}
	return -v * v / 2
}

// TestUnmovedProposals: a proposal equal to the current point bit for bit counts
// as Unmoved, not as Accepted (the acceptance rate of x is 0, not 1), and a
// continuous site that did not move in the recorded draws is listed in
// Result.Stuck and warned about by Result.Warnings, the others not. The adaptive
// warm-up restarts each chain from a fresh start at the end of each of its
// first three windows (x is frozen at every start) and reports the restarts.
func TestUnmovedProposals(t *testing.T) {
	for _, warmup := range []int{NoWarmup, AutoWarmup} {
		r := sample(t, collapsedModel{}, &Options{Chains: 2, Draws: 100, Warmup: warmup, Seed: 12})
		x, y := r.Sites[0], r.Sites[1]
		if x.Proposals == 0 || x.Accepted != 0 || x.Unmoved != x.Proposals {
			t.Errorf("warm-up %d: x: %d proposals, %d accepted, %d unmoved; want every proposal unmoved", warmup, x.Proposals, x.Accepted, x.Unmoved)
		}
		if a := acceptRate(t, r, "x"); a != 0 {
			t.Errorf("warm-up %d: x's acceptance rate %g, want 0", warmup, a)
		}
		if y.Unmoved != 0 || y.Accepted < y.Proposals/2 {
			t.Errorf("warm-up %d: y: %d proposals, %d accepted, %d unmoved", warmup, y.Proposals, y.Accepted, y.Unmoved)
		}
		if len(r.Stuck) != 1 || r.Stuck[0].Name != "x" || r.Stuck[0].Site != 0 || !slices.Equal(r.Stuck[0].Chains, []int{0, 1}) {
			t.Errorf("warm-up %d: Stuck = %+v, want x in chains 0 and 1", warmup, r.Stuck)
		}
		w := r.Warnings()
		stuck := w[len(w)-1]
		if !strings.Contains(stuck, `site "x" did not move in the recorded draws of chains 0, 1`) ||
			!strings.Contains(stuck, fmt.Sprintf("%d were its current point bit for bit", x.Proposals)) {
			t.Errorf("warm-up %d: Warnings() = %q", warmup, w)
		}
		var restarts []Restart
		if warmup == AutoWarmup {
			for c := range 2 {
				for k := range maxRestarts {
					restarts = append(restarts, Restart{Chain: c, Sweep: autoWindow * (k + 1), Site: "x", Proposals: autoWindow, Unmoved: autoWindow})
				}
			}
		}
		if !slices.Equal(r.Restarts, restarts) {
			t.Errorf("warm-up %d: Restarts %+v, want %+v", warmup, r.Restarts, restarts)
		}
		for _, rs := range restarts {
			if !slices.Contains(w, rs.String()) {
				t.Errorf("warm-up %d: Warnings() = %q, want %q among them", warmup, w, rs.String())
			}
		}
	}
	if w := sample(t, newMVNModel(), &Options{Warmup: NoWarmup, Chains: 2, Draws: 50, Seed: 13}).Warnings(); w != nil {
		t.Errorf("a site that moves: Warnings() = %q, want none", w)
	}
}

// TestCPUTime: Result.CPU is the process's CPU time over the run: positive, and at
// most the wall time on every core (with a margin for the clocks' granularity).
func TestCPUTime(t *testing.T) {
	if _, ok := processCPU(); !ok {
		t.Skipf("%s reports no CPU time", runtime.GOOS)
	}
	r := sample(t, newMVNModel(), &Options{Warmup: NoWarmup, Chains: 2, Draws: 20000, Seed: 14})
	if bound := r.Wall*time.Duration(runtime.NumCPU()) + 100*time.Millisecond; r.CPU <= 0 || r.CPU > bound {
		t.Errorf("CPU %v with wall %v on %d CPUs, want in (0, %v]", r.CPU, r.Wall, runtime.NumCPU(), bound)
	}
}
