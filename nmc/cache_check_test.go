package nmc

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"sync"
	"testing"

	"github.com/nmc-go/nmc/draws"
)

// The cache check: a move that, placed between the moves of a schedule, checks
// that every cache of the chain holds what it claims, against a Scorer of its own
// (a fresh one of the model, which keeps nothing between calls: never watched,
// never told to keep). A test runs a model with CheckedMoves and fails on what
// CacheLog collected. It checks:
//
//   - the state: every site's coordinates finite and in its support;
//   - the chain's Scorer against the fresh one at the state, every
//     non-Marginalised site's score, and after an augmentation round the
//     augmented Scorer's scores of the augmented sites: a DiscreteWatcher's
//     statistics or a StateKeeper's kept values that were not told of a write
//     show here;
//   - every continuous site whose cache is valid: the slot of its current point
//     holds the state's coordinates, the fresh score, gradient and Hessian there,
//     and the proposal fitted to them (the same draws and densities); an unbounded
//     Discrete site's cached score;
//   - every group's orbit score a later move would take as known (knownOrbitScore);
//   - every block Newton move's fit at the current point, when it is valid.
//
// Coordinates must be equal bit for bit; scores, derivatives and fits only to
// within checkTol of their size: a Scorer's results may depend on the values it
// kept to rounding (the graph engine takes X·v at a dilated v as the kept X·w
// scaled, and a group's orbit score with its derivatives as without, to rounding),
// and a block move's current point is its draw u, whose state x(u) maps back to u
// to rounding.

// checkTol is the relative tolerance of the cache check's scores, derivatives
// and fits.
const checkTol = 1e-9

// CacheLog collects the cache check's failures of a run (from every chain).
type CacheLog struct {
	mu     sync.Mutex
	checks int
	fails  []string
	n      int
}

// maxCacheFails is the most failures a CacheLog keeps.
const maxCacheFails = 10

func (l *CacheLog) add(msg string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.n++
	if len(l.fails) < maxCacheFails {
		l.fails = append(l.fails, msg)
	}
}

// Checks returns the number of checks made.
func (l *CacheLog) Checks() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.checks
}

// Err returns nil when every check passed, else the first failures.
func (l *CacheLog) Err() error {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.n == 0 {
		return nil
	}
	return fmt.Errorf("%d cache check failures, the first:\n%s", l.n, strings.Join(l.fails, "\n"))
}

// CheckedMoves returns the schedule entry that plans the moves of inner, in
// order, with a cache check before them and after each one, logged in log.
func CheckedMoves(log *CacheLog, inner ...Move) Move {
	return checkedMoves{log: log, inner: inner}
}

type checkedMoves struct {
	log   *CacheLog
	inner []Move
}

func (cm checkedMoves) Plan(p *Planner) ([]Planned, error) {
	out := []Planned{&checkPlan{log: cm.log}}
	for _, mv := range cm.inner {
		ps, err := mv.Plan(p)
		if err != nil {
			return nil, err
		}
		for _, pm := range ps {
			out = append(out, pm, &checkPlan{log: cm.log, after: pm})
		}
	}
	return out, nil
}

// checkPlan is a cache check, after the planned move after (nil: at the start of
// the sweep, after the warm-up's window ends and its end).
type checkPlan struct {
	log   *CacheLog
	after Planned
}

func (cp *checkPlan) Name() string { return "cache check" }

func (cp *checkPlan) Start(c *Chain) (Stepper, error) {
	return &cacheChecker{plan: cp, ref: c.run.m.NewScorer(), rng: rand.New(rand.NewPCG(1, 2)),
		evals: map[*blockStepper]*blockEval{}}, nil
}

// cacheChecker is a cache check's state in one chain: the fresh Scorers it
// compares with and its scratch.
type cacheChecker struct {
	plan   *checkPlan
	ref    Scorer
	refAug Scorer
	rng    *rand.Rand
	evals  map[*blockStepper]*blockEval // per block move: its target, scored by ref
}

func (ck *cacheChecker) Stats() []draws.SiteStats { return nil }

func (ck *cacheChecker) Step(c *Chain) {
	ck.plan.log.mu.Lock()
	ck.plan.log.checks++
	ck.plan.log.mu.Unlock()
	after := "at the start of the sweep"
	if ck.plan.after != nil {
		after = "after " + ck.plan.after.Name()
	}
	fail := func(format string, args ...any) {
		ck.plan.log.add(fmt.Sprintf("chain %d, sweep %d (warm-up %v), %s: ", c.num(), c.warm.sweep, c.warm.warmup, after) + fmt.Sprintf(format, args...))
	}
	ck.checkSites(c, fail)
	ck.checkAugmented(c, fail)
	ck.checkOrbits(c, fail)
	ck.checkBlocks(c, fail)
}

// sameBits reports whether a and b are equal bit for bit, NaN equal to NaN.
func sameBits(a, b []float64) bool {
	if len(a) != len(b) {
		return false
	}
	for j, v := range a {
		if math.Float64bits(v) != math.Float64bits(b[j]) && !(math.IsNaN(v) && math.IsNaN(b[j])) {
			return false
		}
	}
	return true
}

// near reports whether a and b are equal to within checkTol of the largest
// magnitude in either (infinities and NaN where the other has the same).
func near(a, b []float64) bool {
	if len(a) != len(b) {
		return false
	}
	scale := 1.0
	for j, v := range a {
		if isFinite(v) && isFinite(b[j]) {
			scale = max(scale, math.Abs(v), math.Abs(b[j]))
		}
	}
	for j, v := range a {
		w := b[j]
		switch {
		case math.IsNaN(v) || math.IsNaN(w):
			if !(math.IsNaN(v) && math.IsNaN(w)) {
				return false
			}
		case math.IsInf(v, 0) || math.IsInf(w, 0):
			if v != w {
				return false
			}
		case !(math.Abs(v-w) <= checkTol*scale):
			return false
		}
	}
	return true
}

func nearOne(a, b float64) bool { return near([]float64{a}, []float64{b}) }

// sameFit reports whether the proposals fitted in a and b are the same: the same
// fallback flag, the same draw from one random stream, and the same density there
// under both. draw and logq draw the proposal and give its log density.
func (ck *cacheChecker) sameFit(a, b *slot, k int, draw func(s *slot, rng *rand.Rand, dst []float64), logq func(s *slot, y []float64) float64) bool {
	if a.fb != b.fb {
		return false
	}
	seed := ck.rng.Uint64()
	ya, yb := make([]float64, k), make([]float64, k)
	draw(a, rand.New(rand.NewPCG(seed, 1)), ya)
	draw(b, rand.New(rand.NewPCG(seed, 1)), yb)
	return near(ya, yb) && nearOne(logq(a, ya), logq(b, ya))
}

func (ck *cacheChecker) checkSites(c *Chain, fail func(string, ...any)) {
	for i, s := range c.run.sites {
		off, k := c.run.off[i], s.Size
		xs := c.x[off : off+k]
		if msg := outsideSupport(s, xs); msg != "" {
			fail("the state: %s", msg)
			continue
		}
		if s.Marginalised {
			continue
		}
		fr := ck.ref.Score(c.x, i, nil, nil)
		if fc := c.sc.sc.Score(c.x, i, nil, nil); !nearOne(fc, fr) {
			fail("site %q: the chain's Scorer scores the state %v, a fresh one %v", s.Name, fc, fr)
		}
		if !c.isValid(i) {
			continue
		}
		ss := &c.sites[i]
		if s.Support == Discrete {
			if s.NumValues == 0 && !nearOne(ss.slots[0].f, fr) {
				fail("site %q: the cached score is %v, the state's %v", s.Name, ss.slots[0].f, fr)
			}
			continue
		}
		sl := &ss.slots[ss.cur]
		if !sameBits(sl.x, xs) {
			fail("site %q: the cached current point is %v, the state's %v", s.Name, sl.x, xs)
			continue
		}
		fresh := newSlot(k)
		copy(fresh.x, xs)
		fresh.f = ck.ref.Score(c.x, i, fresh.g, fresh.h)
		if !nearOne(sl.f, fresh.f) || !near(sl.g, fresh.g) || !near(sl.h, fresh.h) {
			fail("site %q at %v: the cached score, gradient and Hessian are %v %v %v, the state's %v %v %v", s.Name, xs, sl.f, sl.g, sl.h, fresh.f, fresh.g, fresh.h)
			continue
		}
		p := ss.prop
		p.fit(&fresh)
		if !ck.sameFit(sl, &fresh, k, func(s *slot, rng *rand.Rand, dst []float64) { p.draw(rng, s, 1, dst) },
			func(s *slot, y []float64) float64 { return p.logq(s, 1, y) }) {
			fail("site %q at %v: the cached proposal is not the one fitted at the state", s.Name, xs)
		}
	}
}

// checkAugmented checks, after a round that steps the augmented sites, the
// augmented Scorer's scores of them against a fresh one: the round has told it
// of every write of a Discrete site since its last round (DiscreteWatcher; the
// chain may tell it later than the chain's own Scorer, before its next call).
func (ck *cacheChecker) checkAugmented(c *Chain, fail func(string, ...any)) {
	a := c.sc.aug
	if rp, ok := ck.plan.after.(*roundPlan); a == nil || !ok || len(rp.augmented) == 0 {
		return
	}
	am := c.run.m.(Augmenter)
	if ck.refAug == nil {
		ck.refAug = am.NewAugmentedScorer()
	}
	for _, i := range am.AugmentedSites() {
		k := c.run.sites[i].Size
		ga, ha, gr, hr := make([]float64, k), make([]float64, k*k), make([]float64, k), make([]float64, k*k)
		fa, fr := a.sc.Score(c.x, i, ga, ha), ck.refAug.Score(c.x, i, gr, hr)
		if !nearOne(fa, fr) || !near(ga, gr) || !near(ha, hr) {
			fail("augmented site %q: the chain's augmented Scorer gives %v %v %v at the state, a fresh one %v %v %v", c.run.sites[i].Name, fa, ga, ha, fr, gr, hr)
		}
	}
}

// checkOrbits checks the orbit scores a fitted step would take as known.
func (ck *cacheChecker) checkOrbits(c *Chain, fail func(string, ...any)) {
	for gi := range c.run.groups {
		f, ok := c.knownOrbitScore(gi)
		if !ok {
			continue
		}
		if fr := ck.ref.(OrbitScorer).ScoreOrbit(c.x, gi, nil); !nearOne(f, fr) {
			fail("group %q: the known orbit score is %v, the state's %v", c.run.groupNames[gi], f, fr)
		}
	}
}

// checkBlocks checks the fit at the current point of every block Newton move
// whose fit is valid.
func (ck *cacheChecker) checkBlocks(c *Chain, fail func(string, ...any)) {
	for _, m := range c.moves {
		st, ok := m.(*blockStepper)
		if !ok || !st.valid || st.edits != c.cache.edits {
			continue
		}
		ev := ck.evals[st]
		if ev == nil {
			coords := newBlockCoords(st.plan.sites, c.run.sites, c.run.off)
			ev = newBlockEval(coords, st.plan.sites, ck.ref.(JointHessianer))
			ck.evals[st] = ev
		}
		b := ev.coords
		xb := make([]float64, b.dx)
		b.gather(c.x, xb)
		if !sameBits(xb, st.xb) {
			fail("%s: the cached block coordinates are %v, the state's %v", st.plan.name, st.xb, xb)
			continue
		}
		fresh := newSlot(b.du)
		b.toFree(xb, fresh.x)
		cur := &st.cur
		if !near(cur.x, fresh.x) {
			fail("%s: the cached point is %v, the state's %v", st.plan.name, cur.x, fresh.x)
			continue
		}
		if st.pending {
			if v := ev.value(c.x, fresh.x); !nearOne(v, cur.f) {
				fail("%s: the cached value is %v, the state's %v", st.plan.name, cur.f, v)
			}
			continue
		}
		fresh.f = ev.at(c.x, xb, fresh.x, fresh.g, fresh.h)
		if !nearOne(cur.f, fresh.f) || !near(cur.g, fresh.g) || !near(cur.h, fresh.h) {
			fail("%s: the cached value and derivatives are %v %v %v, the state's %v %v %v", st.plan.name, cur.f, cur.g, cur.h, fresh.f, fresh.g, fresh.h)
			continue
		}
		p := st.prop
		p.fit(&fresh, b.mapCurv)
		if !ck.sameFit(cur, &fresh, b.du, func(s *slot, rng *rand.Rand, dst []float64) { p.draw(rng, s, dst) }, p.logq) {
			fail("%s: the cached proposal is not the one fitted at the state", st.plan.name)
		}
	}
}

// TestCachesHoldTheStateHandWritten runs the cache check over a hand-written
// model with a site of every kind (an unbounded Discrete one among them, whose
// cached score the check reads; caches tracked by the model's neighbours),
// through the adaptive warm-up and a fixed one, with the Real proposal's
// variants (their step rules draw γ; the cached fit is γ's).
func TestCachesHoldTheStateHandWritten(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name string
		real RealProposal
		opts Options
	}{
		{"auto", RealProposal{}, Options{Chains: 2, Draws: 50, WarmupMax: 300, Seed: 4}},
		{"fixed-robust", RealProposal{Robust: true, Cauchy: true}, Options{Chains: 2, Draws: 50, Warmup: 60, Seed: 5}},
		{"crank-nicolson", RealProposal{Step: CrankNicolson{Gamma: 0.5, Adapt: true}}, Options{Chains: 2, Draws: 50, Warmup: 80, Seed: 6}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			log := &CacheLog{}
			o := tc.opts
			o.Moves = []Move{CheckedMoves(log, SiteSteps{Real: tc.real})}
			if _, err := Sample(context.Background(), kitchenSinkModel(), &o); err != nil {
				t.Fatal(err)
			}
			if err := log.Err(); err != nil {
				t.Error(err)
			}
			if log.Checks() == 0 {
				t.Error("no cache check was made")
			}
		})
	}
}

// TestCachesHoldTheStateAtWindowEnds runs the cache check through the window
// ends of an adaptive warm-up that dislodge and refine. Site d's reported
// curvature, −(1 + 10¹²x²), is far sharper away from 0 than at it, so that its
// steps from 10⁻⁹ are rejected (the reverse proposals are ~10⁻⁶ wide) and the
// first window end moves it to a draw of its proposal. Site r (of mode 3) has no
// steps of its own (no proposals, so never dislodged): a move of the test's puts
// it at −30 every sweep, and window ends refine it, which makes the cache of
// site s, whose score reads r, stale (a refinement of one sweep, InitRefine 1:
// a sweep that moves nothing, which ends a longer one, scores every site anew).
func TestCachesHoldTheStateAtWindowEnds(t *testing.T) {
	t.Parallel()
	d := &scalarModel{site: Site{Name: "d", Size: 1, Support: Real},
		fn:   func(x float64) (f, g, h float64) { return -x * x / 2, -x, -(1 + 1e12*x*x) },
		init: func(*rand.Rand) float64 { return 1e-9 }}
	for seed := range uint64(3) {
		log := &CacheLog{}
		ch := newTestChain(t, newProductModel(d, pairModel{}), &Options{Warmup: AutoWarmup, Seed: seed, InitRefine: 1,
			Moves: []Move{CheckedMoves(log, pushAway{site: 2, to: -30}, SiteSteps{})}})
		ch.warm.warmup = true
		copy(ch.warm.from, ch.x)
		dislodged, refined := 0, 0
		rx := 2 // r's coordinate in the state
		for sweep := range 4 * autoWindow {
			ch.warm.sweep = sweep
			ch.sweep()
			stable, r := ch.warm.stable, ch.x[rx]
			ch.afterWarmupSweep(sweep)
			switch {
			case ch.warm.stable != stable && ch.x[rx] != r:
				refined++
			case ch.warm.stable != stable:
				dislodged++
			}
		}
		if err := log.Err(); err != nil {
			t.Errorf("seed %d: %v", seed, err)
		}
		if dislodged == 0 || refined == 0 || len(ch.warm.restarts) > 0 {
			t.Errorf("seed %d: %d window ends dislodged, %d refined, %d restarted: want some of the first two, none of the last", seed, dislodged, refined, len(ch.warm.restarts))
		}
	}
}

// pushAway is a move that sets Real site site to the value to every sweep (not a
// move of any target: the cache check's tests need a site to refine).
type pushAway struct {
	site int
	to   float64
}

func (pa pushAway) Plan(p *Planner) ([]Planned, error) {
	return []Planned{pa}, p.Take(pa.site)
}
func (pa pushAway) Name() string                  { return "push-away" }
func (pa pushAway) Start(*Chain) (Stepper, error) { return pa, nil }
func (pa pushAway) Stats() []draws.SiteStats      { return nil }
func (pa pushAway) Step(c *Chain) {
	c.Coords(pa.site)[0] = pa.to
	c.Changed(pa.site)
}

// pairModel is r ~ N(3, 1), s ~ N(r, 1): sites s and r (in that order: refinement
// visits s before r), s's score reading r.
type pairModel struct{}

func (pairModel) Sites() []Site {
	return []Site{{Name: "s", Size: 1, Support: Real}, {Name: "r", Size: 1, Support: Real}}
}
func (m pairModel) NewScorer() Scorer { return m }
func (pairModel) Init(_ *rand.Rand, x []float64) error {
	x[0], x[1] = 3, 3
	return nil
}
func (pairModel) LogJoint(x []float64) float64 {
	return -(x[1]-3)*(x[1]-3)/2 - (x[0]-x[1])*(x[0]-x[1])/2
}
func (pairModel) Score(x []float64, i int, g, h []float64) float64 {
	d := x[0] - x[1]
	f, gi, hi := -d*d/2, -d, -1.0
	if i == 1 {
		f, gi, hi = f-(x[1]-3)*(x[1]-3)/2, 3-x[1]+d, -2
	}
	if g != nil {
		g[0], h[0] = gi, hi
	}
	return f
}
