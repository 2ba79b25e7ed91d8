package nmc

import (
	"context"
	"math"
	"math/rand/v2"
	"strings"
	"sync/atomic"
	"testing"
)

// banana is x0 ~ Normal(0, 1), x1 | x0 ~ Normal(bend·x0², 1), one Real site of size
// 2: a non-Gaussian target (E x1 = bend, Var x1 = 2·bend² + 1) whose curvature
// varies, so that a Gaussian independence proposal fits it only roughly and the q
// terms of the acceptance ratio matter.
type banana struct{ bend float64 }

func (banana) Sites() []Site                  { return []Site{{Name: "x", Size: 2, Support: Real}} }
func (b banana) NewScorer() Scorer            { return b }
func (b banana) LogJoint(x []float64) float64 { return b.Score(x, 0, nil, nil) }
func (banana) Init(rng *rand.Rand, x []float64) error {
	x[0], x[1] = rng.NormFloat64(), rng.NormFloat64()
	return nil
}

func (b banana) Score(x []float64, _ int, grad, hess []float64) float64 {
	a, r := x[0], x[1]-b.bend*x[0]*x[0]
	if grad != nil {
		grad[0] = -a + 2*b.bend*a*r
		grad[1] = -r
		hess[0] = -1 + 2*b.bend*r - 4*b.bend*b.bend*a*a
		hess[1], hess[2] = 2*b.bend*a, 2*b.bend*a
		hess[3] = -1
	}
	return -a*a/2 - r*r/2
}

// checkBanana checks both coordinates' moments.
func checkBanana(t *testing.T, what string, r *Result, bend float64) {
	t.Helper()
	checkMoments(t, what+" x0", column(t, r, "x[0]"), 0, 1, nil)
	checkMoments(t, what+" x1", column(t, r, "x[1]"), bend, math.Sqrt(2*bend*bend+1), nil)
}

// TestFittedStepAlone: with only the fitted independence step after warm-up, the
// draws keep the target's closed-form moments (within the Monte Carlo error) on a
// non-Gaussian target with the t proposal, and a Gaussian target's block is left
// to its site's exact Newton steps. (Alone, the Gaussian proposal is not enough for the banana:
// its curvature fit is narrower than the banana's x0 marginal, and an independence
// kernel with lighter tails than its target is not geometrically ergodic, so the
// tails are missed for longer than the MCSE shows; the local steps cover them in
// the default sweeps.)
func TestFittedStepAlone(t *testing.T) {
	t.Parallel()
	for _, df := range []float64{0, 5} {
		// One prior draw per chain, as before the start candidates: the fitted
		// step alone learns its proposal from the warm-up's own draws, and some
		// random streams leave it too narrow (seed 404: ESS 4, x1 variance 0.18).
		o := &Options{Chains: 4, Draws: 4000, Warmup: 200, Seed: 401, Start: PriorStart, StartCandidates: 1, Moves: fittedOnly(FittedSteps{DF: df})}
		r := sample(t, banana{0.4}, o)
		if df > 0 {
			checkBanana(t, "banana", r, 0.4)
		}
		if len(movesOf(r, "fitted")) != 1 || movesOf(r, "fitted")[0].Name != "fitted(x)" || movesOf(r, "fitted")[0].Proposals != 4*4000*defaultFittedSteps {
			t.Fatalf("df %g: Fitted %+v", df, movesOf(r, "fitted"))
		}
		rate := movesOf(r, "fitted")[0].AcceptRate()
		if !(rate > 0.2 && rate < 1) {
			t.Errorf("df %g: banana acceptance %.3f, want in (0.2, 1)", df, rate)
		}
		want := fittedProposerGaussian
		if df > 0 {
			want = fittedProposerT
		}
		if movesOf(r, "fitted")[0].Proposer != want {
			t.Errorf("df %g: proposer %q, want %q", df, movesOf(r, "fitted")[0].Proposer, want)
		}
		t.Logf("banana, df %g: fitted acceptance %.3f", df, rate)

		// On a Gaussian target the block is left to its site's Newton steps, which
		// are exact there (and warm-up only here: the chain then stays put, which
		// the moments' MCSE hid).
		r = sample(t, newMVNModel(), o)
		if f := movesOf(r, "fitted"); len(f) != 1 || f[0].Proposals != 0 || f[0].Unused != unusedMixed {
			t.Errorf("mvn, df %g: fitted %+v, want none, left to the site's steps", df, f)
		}
	}
}

// TestFittedStepWithSites: the default sweeps (site steps, group moves and the
// fitted step, adaptive warm-up) keep the closed-form moments, on a banana, on a
// Gaussian with a group whose Real coordinates form a joint block, and with the
// step every third sweep.
func TestFittedStepWithSites(t *testing.T) {
	t.Parallel()
	for _, every := range []int{1, 3} {
		o := &Options{Chains: 4, Draws: 3000, Warmup: AutoWarmup, Thin: 1, Seed: 402, Start: PriorStart, StartCandidates: 1, Moves: []Move{SiteSteps{}, GroupMoves{}, FittedSteps{Every: every}}}
		r := sample(t, banana{0.4}, o)
		checkBanana(t, "banana", r, 0.4)
		if want := 4 * defaultFittedSteps * ((3000 + every - 1) / every); movesOf(r, "fitted")[0].Proposals != want {
			t.Errorf("every %d: %d fitted proposals, want %d", every, movesOf(r, "fitted")[0].Proposals, want)
		}

		// A correlated Gaussian whose sites' Newton steps are exact conditionals
		// and whose groups follow the correlation: the local steps accept every
		// proposal, so the block is left to them (wellMixed).
		r = sample(t, corr2(shift2, dilateAll(2, 1)), o)
		checkMoments(t, "corr2 x0", column(t, r, "x0"), 1, 1, nil)
		checkMoments(t, "corr2 x1", column(t, r, "x1"), -1, 1, nil)
		if len(movesOf(r, "fitted")) != 1 || movesOf(r, "fitted")[0].Name != "fitted(x0, x1)" || movesOf(r, "fitted")[0].Sites != 2 || movesOf(r, "fitted")[0].Proposals != 0 { // one block for both groups, not stepped
			t.Fatalf("corr2: Fitted %+v", movesOf(r, "fitted"))
		}

		r = sample(t, funnelGroup{k: 3}, o)
		checkMoments(t, "funnel z", column(t, r, "z"), 0, 3, nil)
		if len(movesOf(r, "fitted")) != 1 || movesOf(r, "fitted")[0].Proposals == 0 {
			t.Fatalf("funnel: Fitted %+v", movesOf(r, "fitted"))
		}
		t.Logf("every %d: funnel fitted acceptance %.3f", every, movesOf(r, "fitted")[0].AcceptRate())
	}
}

// TestAdaptiveWarmup: the adaptive warm-up runs whole windows, at least the minimum
// and at most WarmupMax sweeps; an explicit Warmup runs exactly that many; the same
// seed gives the same draws.
func TestAdaptiveWarmup(t *testing.T) {
	t.Parallel()
	m := corr2(shift2)
	r := sample(t, m, &Options{Chains: 3, Draws: 200, Warmup: AutoWarmup, Seed: 403})
	for c, n := range r.WarmupSweeps {
		if n < autoMinWarmup || n > DefaultWarmupMax || n%autoWindow != 0 {
			t.Errorf("chain %d: %d warm-up sweeps, want a multiple of %d in [%d, %d]", c, n, autoWindow, autoMinWarmup, DefaultWarmupMax)
		}
	}
	if r.Options.WarmupMax != DefaultWarmupMax || r.Options.Warmup != AutoWarmup {
		t.Errorf("effective options Warmup %d, WarmupMax %d", r.Options.Warmup, r.Options.WarmupMax)
	}
	again := sample(t, m, &Options{Chains: 3, Draws: 200, Warmup: AutoWarmup, Seed: 403})
	for c := range r.Draws.Chains {
		sameChain(t, "same seed", r, c, again, c)
	}
	capped := sample(t, m, &Options{Chains: 2, Draws: 10, Warmup: AutoWarmup, WarmupMax: 120, Seed: 403})
	fixed := sample(t, m, &Options{Chains: 2, Draws: 10, Warmup: 70, Seed: 403})
	for c := 0; c < 2; c++ {
		if capped.WarmupSweeps[c] != 120 || fixed.WarmupSweeps[c] != 70 {
			t.Errorf("chain %d: warm-up %d (WarmupMax 120) and %d (Warmup 70)", c, capped.WarmupSweeps[c], fixed.WarmupSweeps[c])
		}
	}
}

// TestTrendless: the warm-up's trend test passes stationary noise and fails a
// climbing log joint and a jump between the windows.
func TestTrendless(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	noise := func(shift, slope float64) []float64 {
		w := make([]float64, autoWindow)
		for i := range w {
			w[i] = shift + slope*float64(i) + rng.NormFloat64()
		}
		return w
	}
	if !trendless(noise(0, 0), noise(0.2, 0)) {
		t.Error("stationary windows fail")
	}
	if trendless(noise(0, 0.5), noise(25, 0.5)) {
		t.Error("a climb passes")
	}
	if trendless(noise(-50, 0), noise(0, 0)) {
		t.Error("a jump passes")
	}
	nan := noise(0, 0)
	nan[3] = math.NaN()
	if trendless(noise(0, 0), nan) {
		t.Error("NaN passes")
	}
}

// TestFittedOff: Defaults.NoFitted leaves the step out (no statistics), and a run
// without warm-up has no fitted blocks.
func TestFittedOff(t *testing.T) {
	t.Parallel()
	r := sample(t, banana{1}, &Options{Chains: 2, Draws: 100, Warmup: 100, Seed: 405, Moves: []Move{Defaults{NoFitted: true}}})
	if movesOf(r, "fitted") != nil || movesOfPerChain(r, "fitted") != nil || len(r.AllStats()) != 1 {
		t.Errorf("Off: Fitted %+v, AllStats %+v", movesOf(r, "fitted"), r.AllStats())
	}
	r = sample(t, banana{1}, &Options{Warmup: NoWarmup, Chains: 2, Draws: 100, Seed: 405})
	if movesOf(r, "fitted") != nil {
		t.Errorf("no warm-up: Fitted %+v", movesOf(r, "fitted"))
	}
	r = sample(t, banana{1}, &Options{Chains: 2, Draws: 100, Warmup: 100, Seed: 405})
	if len(movesOf(r, "fitted")) != 1 || len(movesOfPerChain(r, "fitted")) != 2 || movesOfPerChain(r, "fitted")[1][0].Proposals != 100*defaultFittedSteps {
		t.Errorf("on: Fitted %+v, per chain %+v", movesOf(r, "fitted"), movesOfPerChain(r, "fitted"))
	}
	if _, err := r.AcceptRate("fitted(x)"); err != nil {
		t.Error(err)
	}
}

// TestFittedOptionErrors: invalid warm-up and fitted-step options are errors naming
// the field.
func TestFittedOptionErrors(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		o    Options
		want string
	}{
		{Options{Warmup: -3}, "Options.Warmup = -3"},
		{Options{Warmup: AutoWarmup, WarmupMax: -1}, "Options.WarmupMax = -1"},
		{Options{Warmup: NoWarmup, Moves: []Move{FittedSteps{Every: -1}}}, "FittedSteps.Every = -1"},
		{Options{Warmup: NoWarmup, Moves: []Move{FittedSteps{Steps: -3}}}, "FittedSteps.Steps = -3"},
		{Options{Warmup: NoWarmup, Moves: []Move{FittedSteps{Inflate: -1}}}, "FittedSteps.Inflate = -1"},
		{Options{Warmup: NoWarmup, Moves: []Move{FittedSteps{Inflate: math.NaN()}}}, "FittedSteps.Inflate = NaN"},
		{Options{Warmup: NoWarmup, Moves: []Move{FittedSteps{Inflate: math.Inf(1)}}}, "FittedSteps.Inflate = +Inf"},
		{Options{Warmup: NoWarmup, Moves: []Move{FittedSteps{DF: -2}}}, "FittedSteps.DF = -2"},
		{Options{Warmup: NoWarmup, Moves: []Move{FittedSteps{DF: math.NaN()}}}, "FittedSteps.DF = NaN"},
	} {
		o := c.o
		_, err := Sample(context.Background(), banana{1}, &o)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%+v: error %v, want one containing %q", c.o, err, c.want)
		}
	}
}

// TestFittedBlocks: the blocks are the Real coordinates of each group (two or more)
// and the Real sites of size ≥ 2 outside groups; scalar and non-Real sites get none.
func TestFittedBlocks(t *testing.T) {
	sites := []Site{
		{Name: "a", Size: 1, Support: Real},
		{Name: "b", Size: 3, Support: Real},
		{Name: "s", Size: 1, Support: Positive},
		{Name: "c", Size: 2, Support: Real},
		{Name: "d", Size: 1, Support: Real},
	}
	groups := []groupPlan{
		{name: "g", coords: []OrbitCoord{{Coord: 0, Kind: Dilate, Rate: 1, Anchor: -1}, {Coord: 1, Kind: Dilate, Rate: 1, Anchor: -1}, {Coord: 2, Kind: Dilate, Rate: 1, Anchor: -1}, {Coord: 3, Kind: Dilate, Rate: 1, Anchor: -1}, {Coord: 4, Kind: Dilate, Rate: 1, Anchor: -1}}},
		{index: 1, name: "h", coords: []OrbitCoord{{Coord: 7, Kind: Shift, Rate: 1}}},
	}
	blocks := fittedBlocks(sites, []orbitBlock{{0, groups[0].coords}, {1, groups[1].coords}})
	if len(blocks) != 2 {
		t.Fatalf("blocks %+v", blocks)
	}
	if b := blocks[0]; b.name != "fitted(a, b)" || len(b.coords) != 4 || b.group != 0 || !b.whole {
		t.Errorf("group block %+v", b)
	}
	if b := blocks[1]; b.name != "fitted(c)" || len(b.coords) != 2 || b.site != 3 || b.group != -1 {
		t.Errorf("site block %+v", b)
	}
}

// TestFittedFirstChainBitIdentical: with the adaptive warm-up per chain
// (WarmupPerChain) and the fitted step (per-chain fits), the chains of a run
// split with FirstChain are bit-identical to the same chains of one local run,
// warm-up lengths and fitted counts included.
func TestFittedFirstChainBitIdentical(t *testing.T) {
	t.Parallel()
	for _, m := range []Model{funnelGroup{k: 3}, banana{0.4}} {
		o := Options{Chains: 4, Draws: 150, Warmup: AutoWarmup, WarmupPerChain: true, Seed: 406}
		local := sample(t, m, &o)
		o.Chains, o.FirstChain = 2, 2
		task := sample(t, m, &o)
		for c := 0; c < 2; c++ {
			sameChain(t, "split", local, 2+c, task, c)
			if local.WarmupSweeps[2+c] != task.WarmupSweeps[c] {
				t.Errorf("chain %d: warm-up %d vs %d", 2+c, local.WarmupSweeps[2+c], task.WarmupSweeps[c])
			}
			for bi := range movesOf(local, "fitted") {
				if a, b := movesOfPerChain(local, "fitted")[2+c][bi], movesOfPerChain(task, "fitted")[c][bi]; a != b || a.Proposals == 0 {
					t.Errorf("chain %d: fitted counts %+v vs %+v", 2+c, a, b)
				}
			}
		}
	}
}

// TestDislodge: at a window end of the adaptive warm-up, a continuous site whose
// steps accepted none of at least half a window of proposals moves to a draw of its
// proposal (a finite point of its support); a site that accepted any, or made too
// few proposals since the last window end, stays. None is frozen (see
// frozenSpacings): each window made no progress, but the draws move the site.
func TestDislodge(t *testing.T) {
	m := newMVNModel()
	sites := m.Sites()
	ch := newTestChain(t, m, &Options{Warmup: AutoWarmup, Seed: 407})
	start := append([]float64(nil), ch.x...)
	for _, tc := range []struct {
		name           string
		proposals, acc int // the site's totals at this window end
		move           bool
	}{
		{"some accepted", 50, 3, false},
		{"none of 50 accepted", 100, 3, true},
		{"nothing since the last window end", 100, 3, false},
		{"none of 20 accepted: too few", 120, 3, false},
		{"none of 30 accepted", 150, 3, true},
	} {
		before := append([]float64(nil), ch.x...)
		copy(ch.warm.from, ch.x) // the window made no progress: x's draws are tested for freezing
		ch.sites[0].stats.Proposals, ch.sites[0].stats.Accepted = tc.proposals, tc.acc
		moved, frozen := ch.dislodge()
		if frozen >= 0 {
			t.Errorf("%s: site %d frozen", tc.name, frozen)
		}
		ch.countsAt()
		changed := false
		for j := range before {
			changed = changed || ch.x[j] != before[j]
		}
		if moved != tc.move || changed != tc.move {
			t.Errorf("%s: dislodge reported %v, state changed %v; want %v", tc.name, moved, changed, tc.move)
		}
		if msg := outsideSupport(sites[0], ch.x); msg != "" {
			t.Errorf("%s: %s", tc.name, msg)
		}
	}
	if ch.x[0] == start[0] {
		t.Errorf("state %v never left the start %v", ch.x, start)
	}
}

// keepBanana is banana with a Scorer that implements StateKeeper and counts its
// Keep calls.
type keepBanana struct {
	banana
	calls *atomic.Int64
}

func (k keepBanana) NewScorer() Scorer { return keepScorer(k) }

type keepScorer keepBanana

func (k keepScorer) Score(x []float64, i int, grad, hess []float64) float64 {
	return k.banana.Score(x, i, grad, hess)
}
func (k keepScorer) LogJoint(x []float64) float64 { return k.banana.LogJoint(x) }
func (k keepScorer) Keep([]float64)               { k.calls.Add(1) }

// TestFittedKeep checks that the fitted step tells a StateKeeper Scorer about every
// rejected proposal (Keep calls = proposals − accepted, when only the fitted step
// runs after warm-up) and that the calls change nothing: the draws equal those of
// the same model without Keep.
func TestFittedKeep(t *testing.T) {
	t.Parallel()
	var calls atomic.Int64
	o := func() *Options {
		return &Options{Chains: 2, Draws: 300, Warmup: 100, Seed: 403, Moves: fittedOnly(FittedSteps{})}
	}
	plain := sample(t, banana{0.4}, o())
	warm := calls.Load()
	kept := sample(t, keepBanana{banana{0.4}, &calls}, o())
	f := movesOf(kept, "fitted")[0]
	if got, want := calls.Load()-warm, int64(f.Proposals-f.Accepted); got != want || want == 0 {
		t.Errorf("Keep called %d times, want %d (proposals − accepted)", got, want)
	}
	for _, name := range []string{"x[0]", "x[1]"} {
		a, b := column(t, plain, name), column(t, kept, name)
		for ch := range a {
			for i := range a[ch] {
				if a[ch][i] != b[ch][i] {
					t.Fatalf("%s chain %d draw %d: %v without Keep, %v with", name, ch, i, a[ch][i], b[ch][i])
				}
			}
		}
	}
}
