package nmc

import (
	"context"
	"errors"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/nmc-go/nmc/draws"
)

// unequalModes is one Real site x with density ∝ N(x; −10, 1) + e^{−gap}·N(x; 10, 1):
// two modes too far apart for any step to cross, the one at 10 lower by gap nats.
func unequalModes(gap float64) *scalarModel {
	la, lb := 0.0, -gap
	return &scalarModel{
		site: Site{Name: "x", Size: 1, Support: Real},
		fn: func(x float64) (float64, float64, float64) {
			a, b := la-0.5*(x+10)*(x+10), lb-0.5*(x-10)*(x-10)
			f := max(a, b) + math.Log1p(math.Exp(-math.Abs(a-b)))
			ra, rb := math.Exp(a-f), math.Exp(b-f) // responsibilities
			ga, gb := -(x + 10), -(x - 10)
			g := ra*ga + rb*gb
			h := ra*(ga*ga-1) + rb*(gb*gb-1) - g*g
			return f, g, h
		},
		init: func(rng *rand.Rand) float64 { return rng.NormFloat64() },
	}
}

// TestWarmupNamesChainsInLocalMode: chains started in two modes 46 nats apart
// each pass their own test (per chain, the warm-up ends after 200 sweeps and says
// nothing), and with the meetings the warm-up runs to WarmupMax and its warning
// names the chains in the lower mode and the nats between the modes.
func TestWarmupNamesChainsInLocalMode(t *testing.T) {
	t.Parallel()
	const gap = 46.0
	o := Options{Chains: 4, Draws: 100, Seed: 3, WarmupMax: 400, Init: [][]float64{{-10}, {10}, {-10}, {10}}}
	alone := o
	alone.WarmupPerChain = true
	r := sample(t, unequalModes(gap), &alone)
	for c, n := range r.WarmupSweeps {
		if n != autoMinWarmup {
			t.Errorf("per chain: chain %d warmed up %d sweeps, want %d (its own test passes)", c, n, autoMinWarmup)
		}
	}
	if r.WarmupCheck != nil || len(r.Warnings()) != 0 {
		t.Errorf("per chain: check %+v, warnings %q, want none", r.WarmupCheck, r.Warnings())
	}

	r = sample(t, unequalModes(gap), &o)
	chk := r.WarmupCheck
	if chk == nil {
		t.Fatal("no WarmupCheck")
	}
	for c, n := range r.WarmupSweeps {
		if n != o.WarmupMax {
			t.Errorf("chain %d warmed up %d sweeps, want WarmupMax = %d", c, n, o.WarmupMax)
		}
	}
	if chk.Agreed() || !(chk.RHat > 1.5) || len(chk.Trending) != 0 {
		t.Errorf("check %+v: want disagreement (R-hat far above 1.05) with every chain's own test passed", chk)
	}
	// The log joint of a chain in either mode is the mode's level minus ½χ²₁:
	// sd 1/√2 per sweep; over Window sweeps of nearly independent draws the
	// difference of two chains' means has sd 1/√Window.
	tol := 4 / math.Sqrt(float64(chk.Window))
	for _, pair := range [][2]int{{0, 1}, {2, 3}, {0, 3}} {
		if d := chk.MeanLogJoint[pair[0]] - chk.MeanLogJoint[pair[1]]; math.Abs(d-gap) > tol {
			t.Errorf("chains %v: mean log joints differ by %.3f, want %.3f ± %.2f", pair, d, gap, tol)
		}
	}
	warns := r.Warnings()
	if len(warns) != 1 {
		t.Fatalf("warnings %q, want one", warns)
	}
	for _, want := range []string{"400 sweeps", "in chains 0, 2", "chain 1 46", "chain 3 46", "nats below"} {
		if !strings.Contains(warns[0], want) {
			t.Errorf("warning %q does not say %q", warns[0], want)
		}
	}
}

// climbModel has a site x ~ N(0, I_d) and a site s with density ∝ e^{−|s|}, which
// only a slow random walk moves (slowWalk): a chain started at a large s climbs
// towards 0 at about Scale²/2 per sweep, too slowly for its own trend test to see
// against the spread of x's log density.
type climbModel struct{ d int }

func (m climbModel) Sites() []Site {
	return []Site{{Name: "x", Size: m.d, Support: Real}, {Name: "s", Size: 1, Support: Real}}
}
func (m climbModel) NewScorer() Scorer { return m }
func (m climbModel) Init(rng *rand.Rand, x []float64) error {
	for j := range x {
		x[j] = rng.NormFloat64()
	}
	return nil
}
func (m climbModel) LogJoint(x []float64) float64 {
	return m.Score(x, 0, nil, nil) + m.Score(x, 1, nil, nil)
}
func (m climbModel) Score(x []float64, i int, grad, hess []float64) float64 {
	if i == 1 {
		s := x[m.d]
		if grad != nil {
			grad[0], hess[0] = -math.Copysign(1, s), 0
		}
		return -math.Abs(s)
	}
	f := 0.0
	if hess != nil {
		clear(hess)
	}
	for j, v := range x[:m.d] {
		f -= v * v / 2
		if grad != nil {
			grad[j], hess[j*m.d+j] = -v, -1
		}
	}
	return f
}

// slowWalk is a random-walk Metropolis-Hastings step of one scalar Real site
// with standard deviation Scale, which it takes from the site steps.
type slowWalk struct {
	site  int
	scale float64
}

func (w slowWalk) Plan(p *Planner) ([]Planned, error) {
	if err := p.Take(w.site); err != nil {
		return nil, err
	}
	return []Planned{w}, nil
}
func (w slowWalk) Name() string                  { return "slow-walk" }
func (w slowWalk) Start(*Chain) (Stepper, error) { return &slowWalkState{slowWalk: w}, nil }

type slowWalkState struct {
	slowWalk
	stats draws.SiteStats
}

func (s *slowWalkState) Step(c *Chain) {
	sc, x, xs := c.Scorer(), c.State(), c.Coords(s.site)
	old := xs[0]
	f0 := sc.Score(x, s.site, nil, nil)
	xs[0] = old + s.scale*c.Rand().NormFloat64()
	s.stats.Proposals++
	if math.Log(c.Rand().Float64()) < sc.Score(x, s.site, nil, nil)-f0 {
		s.stats.Accepted++
		c.Changed(s.site)
		return
	}
	xs[0] = old
	c.Reverted()
}

func (s *slowWalkState) Stats() []draws.SiteStats {
	st := s.stats
	st.Name, st.Proposer, st.Sites = "slow-walk", "random-walk", 1
	return []draws.SiteStats{st}
}

// TestWarmupWaitsForClimbingChain: one chain starts at s = 24, 24 nats below the
// others, and climbs at about 0.045 per sweep. Alone, its own test passes while it
// is still far below (its first recorded s above 5); with the meetings the
// warm-up lasts until it has joined the others (its first recorded s within the
// posterior's bulk, |s| < 5: P(|s| > 5) = e⁻⁵), and the chains agree.
func TestWarmupWaitsForClimbingChain(t *testing.T) {
	t.Parallel()
	const d = 32
	m := climbModel{d: d}
	start := func(s float64) []float64 { x := make([]float64, d+1); x[d] = s; return x }
	o := Options{Chains: 4, Draws: 10, Seed: 5, InitRefine: -1, Moves: []Move{slowWalk{site: 1, scale: 0.3}, Defaults{}},
		Init: [][]float64{start(0), start(0), start(0), start(24)}}
	first := func(r *Result, c int) float64 { return r.Draws.Chains[c][d] }
	alone := o
	alone.WarmupPerChain = true
	r := sample(t, m, &alone)
	if s := first(r, 3); !(s > 5) {
		t.Errorf("per chain: chain 3 ended its warm-up after %d sweeps at s = %.2f, want it still above 5 (the test shows nothing)", r.WarmupSweeps[3], s)
	}
	t.Logf("per chain: chain 3's warm-up %d sweeps, s = %.2f", r.WarmupSweeps[3], first(r, 3))
	r = sample(t, m, &o)
	if s := first(r, 3); !(math.Abs(s) < 5) {
		t.Errorf("chain 3 ended its warm-up after %d sweeps at s = %.2f, want |s| < 5", r.WarmupSweeps[3], s)
	}
	if chk := r.WarmupCheck; chk == nil || !chk.Agreed() || r.WarmupSweeps[0] >= DefaultWarmupMax {
		t.Errorf("warm-up of %d sweeps, check %+v: want agreement before WarmupMax", r.WarmupSweeps[0], chk)
	}
	t.Logf("with the meetings: %d sweeps, chain 3's s = %.2f, R-hat %.3f", r.WarmupSweeps[0], first(r, 3), r.WarmupCheck.RHat)
}

// hookMove calls fn at every warm-up sweep of every chain (sweep from 0), or
// with sampling at every sweep after the warm-up.
type hookMove struct {
	fn       func(c *Chain, sweep int)
	sampling bool
}

func (h hookMove) Plan(*Planner) ([]Planned, error) { return []Planned{h}, nil }
func (h hookMove) Name() string                     { return "hook" }
func (h hookMove) Start(*Chain) (Stepper, error)    { return &hookStepper{h: h}, nil }

type hookStepper struct {
	h hookMove
	n int
}

func (s *hookStepper) Step(c *Chain) {
	if c.Warmup() != s.h.sampling {
		s.h.fn(c, s.n)
		s.n++
	}
}
func (s *hookStepper) Stats() []draws.SiteStats { return nil }

// waitFor polls cond until it holds or d has passed, and reports whether it held.
func waitFor(d time.Duration, cond func() bool) bool {
	deadline := time.Now().Add(d)
	for time.Now().Before(deadline) {
		if cond() {
			return true
		}
		time.Sleep(time.Millisecond)
	}
	return cond()
}

// seats returns how many chains wait at the current meeting and how many are
// present.
func (m *warmupMeeting) counts() (arrived, present int) {
	m.mu.Lock()
	defer m.mu.Unlock()
	for _, s := range m.seats {
		if s.present {
			present++
			if s.arrived {
				arrived++
			}
		}
	}
	return arrived, present
}

// TestWarmupMeetingCancelled: chains waiting at a meeting for a chain that does
// not come return when the run is cancelled.
func TestWarmupMeetingCancelled(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	left := make(chan bool, 1)
	hook := hookMove{fn: func(c *Chain, sweep int) {
		if c.local != 0 || sweep != 60 {
			return
		}
		// Chain 0 stops in its second window until the others wait at the
		// meeting after it, then cancels the run and stays until they are gone.
		m := c.run.meet
		if !waitFor(time.Minute, func() bool { a, _ := m.counts(); return a == 3 }) {
			left <- false
			return
		}
		cancel()
		left <- waitFor(time.Minute, func() bool { _, p := m.counts(); return p == 1 })
	}}
	done := make(chan error, 1)
	go func() {
		_, err := Sample(ctx, newMVNModel(), &Options{Chains: 4, Seed: 1, Moves: []Move{Defaults{}, hook}})
		done <- err
	}()
	if ok := <-left; !ok {
		t.Fatal("the waiting chains did not leave the meeting when the run was cancelled")
	}
	select {
	case err := <-done:
		if !errors.Is(err, context.Canceled) {
			t.Errorf("error %v, want one wrapping context.Canceled", err)
		}
	case <-time.After(time.Minute):
		t.Fatal("Sample did not return after cancellation")
	}
}

// TestWarmupMeetingChainFails: a chain that panics in its warm-up while the
// others wait at a meeting leaves it; the others decide without it and finish.
func TestWarmupMeetingChainFails(t *testing.T) {
	t.Parallel()
	hook := hookMove{fn: func(c *Chain, sweep int) {
		if c.local == 2 && sweep == 99 {
			waitFor(time.Minute, func() bool { a, _ := c.run.meet.counts(); return a == 3 })
			panic("chain 2 fails")
		}
	}}
	o := &Options{Chains: 4, Draws: 50, Seed: 2, Moves: []Move{Defaults{}, hook}}
	done := make(chan struct{})
	var r *Result
	var err error
	go func() {
		r, err = Sample(context.Background(), newMVNModel(), o)
		close(done)
	}()
	select {
	case <-done:
	case <-time.After(2 * time.Minute):
		t.Fatal("Sample did not return: the chains waited for the failed one")
	}
	if err == nil || !strings.Contains(err.Error(), "chain 2") || !strings.Contains(err.Error(), "chain 2 fails") {
		t.Fatalf("error %v, want chain 2's panic", err)
	}
	for c := range 4 {
		if n := r.Draws.NumDraws(c); (c == 2) != (n == 0) || (c != 2 && n != 50) {
			t.Errorf("chain %d has %d draws", c, n)
		}
	}
	if chk := r.WarmupCheck; chk == nil || len(chk.Chains) != 3 || chk.Chains[2] != 3 {
		t.Errorf("check %+v, want one of chains 0, 1, 3", chk)
	}
}

// TestWarmupChainsAgreeNoLonger: where the chains agree, the meetings add no
// sweep: every chain's warm-up is as long as the longest warm-up the chains
// choose alone (WarmupPerChain), the check agrees and nothing is warned about.
// For one mode of unequalModes, at the minimum of 200 sweeps. (Not so on
// banana{0.4} with seed 7: alone, the last chain passes its own test after 500
// sweeps, when the R-hat of the log joint is still 1.08; together they go on to
// 600, R-hat 1.04.)
func TestWarmupChainsAgreeNoLonger(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name string
		m    Model
		o    Options
	}{
		{"one mode", unequalModes(46), Options{Init: [][]float64{{-10}, {-9}, {-11}, {-10.5}}}},
		{"mvn", newMVNModel(), Options{}},
		{"funnel group", funnelGroup{k: 3}, Options{}},
	} {
		o := c.o
		o.Chains, o.Draws, o.Seed = 4, 50, 7
		alone := o
		alone.WarmupPerChain = true
		longest := slices.Max(sample(t, c.m, &alone).WarmupSweeps)
		r := sample(t, c.m, &o)
		for ch, n := range r.WarmupSweeps {
			if n != longest {
				t.Errorf("%s: chain %d warmed up %d sweeps, want %d (the longest alone)", c.name, ch, n, longest)
			}
		}
		if chk := r.WarmupCheck; chk == nil || !chk.Agreed() || chk.Warning() != "" || len(r.Warnings()) != 0 {
			t.Errorf("%s: check %+v, warnings %q: want agreement and none", c.name, chk, r.Warnings())
		}
		if c.name == "one mode" && longest != autoMinWarmup {
			t.Errorf("%s: warm-up %d sweeps, want the minimum %d", c.name, longest, autoMinWarmup)
		}
		t.Logf("%s: %d sweeps, R-hat of the log joint %.3f", c.name, longest, r.WarmupCheck.RHat)
	}
}
