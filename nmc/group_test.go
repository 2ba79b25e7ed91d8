package nmc

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"sync/atomic"
	"testing"
)

// corr2 is the 2-d Gaussian N((1, −1), [[1, .8], [.8, 1]]) with the given groups.
func corr2(groups ...Group) *gaussGroup {
	const det = 1 - 0.8*0.8
	return &gaussGroup{mean: []float64{1, -1}, prec: []float64{1 / det, -0.8 / det, -0.8 / det, 1 / det}, groups: groups}
}

// isotropic is N(0, σ²I_k) with the given groups.
func isotropic(k int, sigma float64, groups ...Group) *gaussGroup {
	m := &gaussGroup{mean: make([]float64, k), prec: make([]float64, k*k), groups: groups}
	for i := 0; i < k; i++ {
		m.prec[i*k+i] = 1 / (sigma * sigma)
	}
	return m
}

// anchored is x₀ ~ N(0, 1), x_j | x₀ ~ N(x₀, σ²) for j = 1 … k, with the group
// that dilates x₁ … x_k about x₀.
func anchored(k int, sigma float64) *gaussGroup {
	n := k + 1
	m := &gaussGroup{mean: make([]float64, n), prec: make([]float64, n*n)}
	s2 := sigma * sigma
	m.prec[0] = 1 + float64(k)/s2
	g := Group{Name: "spread"}
	for j := 1; j < n; j++ {
		m.prec[j] = -1 / s2
		m.prec[j*n] = -1 / s2
		m.prec[j*n+j] = 1 / s2
		g.Coords = append(g.Coords, OrbitCoord{Coord: j, Kind: Dilate, Rate: 1, Anchor: 0})
	}
	m.groups = []Group{g}
	return m
}

// dilateAll is the group that dilates coordinates 0 … k−1 about 0 at rate s.
func dilateAll(k int, s float64) Group {
	g := Group{Name: "scale"}
	for j := 0; j < k; j++ {
		g.Coords = append(g.Coords, OrbitCoord{Coord: j, Kind: Dilate, Rate: s, Anchor: -1})
	}
	return g
}

// shift2 shifts coordinates 0 and 1 by (1, 0.5)·t.
var shift2 = Group{Name: "shift", Coords: []OrbitCoord{{Coord: 0, Kind: Shift, Rate: 1, Anchor: -1}, {Coord: 1, Kind: Shift, Rate: 0.5, Anchor: -1}}}

// gammaDilated is λ ~ Gamma(2, 1), y = (1, 0, 2) ~ Poisson(λ) with λ dilated about 0:
// posterior Gamma(5, 4).
func gammaDilated() (*groupedScalar, float64, float64) {
	gp, a, b := gammaPoissonModel(2, 1, []float64{1, 0, 2}, 1, 0)
	return &groupedScalar{scalarModel: gp, groups: []Group{dilateAll(1, 1)}}, a, b
}

// series maps the draws of every chain through f (of one draw's values).
func series(r *Result, f func(x []float64) float64) [][]float64 {
	n := len(r.Draws.Names)
	out := make([][]float64, len(r.Draws.Chains))
	for c, ch := range r.Draws.Chains {
		for d := 0; d+n <= len(ch); d += n {
			out[c] = append(out[c], f(ch[d:d+n]))
		}
	}
	return out
}

// groupRate returns the acceptance rate of the named group.
func groupRate(t *testing.T, r *Result, name string) float64 {
	t.Helper()
	for _, g := range movesOf(r, "group") {
		if g.Name == name {
			if g.Proposer != orbitProposer || g.Proposals == 0 {
				t.Fatalf("group %q: %+v", name, g)
			}
			return g.AcceptRate()
		}
	}
	t.Fatalf("no group %q in %+v", name, movesOf(r, "group"))
	return 0
}

// chi3 returns the mean and sd of σ·χ₃.
func chi3(sigma float64) (mean, sd float64) {
	m := 2 * math.Sqrt2 / math.Sqrt(math.Pi)
	return sigma * m, sigma * math.Sqrt(3-m*m)
}

// TestGroupMoveAlone: sweeps of group moves only (site steps off) sample the law of
// the orbit coordinate given where the orbit starts: along a shift of a Gaussian the
// exact conditional Gaussian; Neal's funnel's z (N(0, 3²)) along the orbit that keeps
// x/e^{z/2}; a Positive site dilated about 0 (its Gamma law); the anchor of a
// dilation stays. A wrong Jacobian (Σs left out) or a missing reverse proposal
// density fails them and TestGroupMoveStationary (checked by hand).
func TestGroupMoveAlone(t *testing.T) {
	t.Parallel()
	only := func(init ...float64) Options {
		return Options{Warmup: NoWarmup, Chains: 4, Draws: 4000, Seed: 301, InitRefine: -1, Init: [][]float64{init}, Moves: groupsOnly}
	}

	t.Run("shift of a correlated Gaussian", func(t *testing.T) {
		m := corr2(shift2)
		x0 := []float64{2.5, 0.3}
		r := sample(t, m, &Options{Warmup: NoWarmup, Chains: 4, Draws: 4000, Seed: 302, InitRefine: -1, Init: [][]float64{x0}, Moves: groupsOnly})
		// t along b = (1, .5) from x0: N(−bᵀP(x0−m)/bᵀPb, 1/bᵀPb).
		b := []float64{1, 0.5}
		var bpb, bpr float64
		for i := range 2 {
			for j := range 2 {
				bpb += b[i] * m.prec[i*2+j] * b[j]
				bpr += b[i] * m.prec[i*2+j] * (x0[j] - m.mean[j])
			}
		}
		ts := series(r, func(x []float64) float64 { return ((x[0]-x0[0])*b[0] + (x[1]-x0[1])*b[1]) / (b[0]*b[0] + b[1]*b[1]) })
		checkMoments(t, "t along the shift", ts, -bpr/bpb, math.Sqrt(1/bpb), nil)
		// h is quadratic, so the Newton fit is the exact conditional: every move is
		// accepted but for rounding.
		if a := groupRate(t, r, "shift"); a < 0.999 {
			t.Errorf("shift of a Gaussian: acceptance %.4f, want 1", a)
		}
		for _, s := range r.Sites {
			if s.Proposals != 0 {
				t.Errorf("site %q made %d proposals with the site steps off", s.Name, s.Proposals)
			}
		}
	})

	t.Run("shift over a positive anchor", func(t *testing.T) {
		// (x0 + t, x1 − t/x2) of N(0, I₃), x2 = 2 fixed: a + x2·b stays, and t is
		// Gaussian along b = (1, −1/x2).
		g := Group{Name: "over", Coords: []OrbitCoord{{Coord: 0, Kind: Shift, Rate: 1, Anchor: -1}, {Coord: 1, Kind: ShiftOver, Rate: -1, Anchor: 2}}}
		m := isotropic(3, 1, g)
		m.positive = 3
		x0 := []float64{0.5, -1, 2}
		r := sample(t, m, &Options{Warmup: NoWarmup, Chains: 4, Draws: 4000, Seed: 303, InitRefine: -1, Init: [][]float64{x0}, Moves: groupsOnly})
		b := []float64{1, -1 / x0[2]}
		bpb := b[0]*b[0] + b[1]*b[1]
		bpr := b[0]*x0[0] + b[1]*x0[1]
		ts := series(r, func(x []float64) float64 { return x[0] - x0[0] })
		checkMoments(t, "t along the shift over x2", ts, -bpr/bpb, math.Sqrt(1/bpb), nil)
		for _, c := range series(r, func(x []float64) float64 { return x[0] + x[2]*x[1] }) {
			for _, v := range c {
				if math.Abs(v-(x0[0]+x0[2]*x0[1])) > 1e-9 {
					t.Fatalf("x0 + x2·x1 = %v, want %v", v, x0[0]+x0[2]*x0[1])
				}
			}
		}
		if a := groupRate(t, r, "over"); a < 0.999 {
			t.Errorf("shift over x2 of a Gaussian: acceptance %.4f, want 1", a)
		}
	})

	t.Run("funnel shift and dilation", func(t *testing.T) {
		r := sample(t, funnelGroup{k: 3}, func() *Options { o := only(1, 0.5, -1, 2); return &o }())
		checkMoments(t, "funnel z", series(r, func(x []float64) float64 { return x[0] }), 0, 3, nil)
		// x_j/e^{z/2} stays as it started.
		for _, x := range series(r, func(x []float64) float64 { return x[3] / math.Exp(x[0]/2) }) {
			for _, v := range x {
				if math.Abs(v-2/math.Exp(0.5)) > 1e-9 {
					t.Fatalf("x/e^{z/2} = %v, want %v", v, 2/math.Exp(0.5))
				}
			}
		}
	})

	t.Run("dilation of a Positive site", func(t *testing.T) {
		m, a, b := gammaDilated()
		o := only(1)
		r := sample(t, m, &o)
		checkMoments(t, "gamma", column(t, r, "lambda"), a/b, math.Sqrt(a)/b, nil)
	})
}

// TestGroupMovesWithSites: with site steps and group moves, the draws keep their
// closed-form posterior (mean and sd within the Monte Carlo error), with the cache
// invalidated by stamps (no Neighborer) or by dependents (Neighborer).
func TestGroupMovesWithSites(t *testing.T) {
	t.Parallel()
	o := &Options{Chains: 4, Draws: 3000, Warmup: 50, Seed: 311}

	m, a, b := gammaDilated()
	r := sample(t, m, o)
	checkMoments(t, "gamma-poisson", column(t, r, "lambda"), a/b, math.Sqrt(a)/b, nil)
	t.Logf("gamma-poisson: dilation acceptance %.3f", groupRate(t, r, "scale"))

	const sigma = 0.5
	r = sample(t, gaussGroupNb{anchored(3, sigma)}, o)
	checkMoments(t, "anchored x0", column(t, r, "x0"), 0, 1, nil)
	checkMoments(t, "anchored x2", column(t, r, "x2"), 0, math.Sqrt(1+sigma*sigma), nil)
	t.Logf("anchored: dilation acceptance %.3f", groupRate(t, r, "spread"))

	r = sample(t, funnelGroup{k: 3}, o)
	checkMoments(t, "funnel z", column(t, r, "z"), 0, 3, nil)
	t.Logf("funnel: group acceptance %.3f", groupRate(t, r, "funnel"))

	r = sample(t, corr2(shift2, dilateAll(2, 1)), o)
	checkMoments(t, "corr2 x0", column(t, r, "x0"), 1, 1, nil)
	checkMoments(t, "corr2 x1", column(t, r, "x1"), -1, 1, nil)
	t.Logf("corr2: shift acceptance %.3f, dilation %.3f", groupRate(t, r, "shift"), groupRate(t, r, "scale"))
}

// plainModel hides every optional interface of a model but Neighborer-free Model.
type plainModel struct{ Model }

// TestNoGroupMoves: Defaults.NoGroupMoves gives, bit for bit, the draws of the same
// model without groups, and no group statistics.
func TestNoGroupMoves(t *testing.T) {
	t.Parallel()
	m := corr2(shift2)
	a := sample(t, m, &Options{Warmup: NoWarmup, Chains: 2, Draws: 300, Seed: 321, Moves: []Move{Defaults{NoGroupMoves: true}}})
	b := sample(t, plainModel{m}, &Options{Warmup: NoWarmup, Chains: 2, Draws: 300, Seed: 321})
	for c := range a.Draws.Chains {
		sameChain(t, "NoGroupMoves", a, c, b, c)
	}
	if movesOf(a, "group") != nil || movesOfPerChain(a, "group") != nil || len(a.Schedule) != 1 {
		t.Errorf("NoGroupMoves: groups %+v, schedule %v", movesOf(a, "group"), a.Schedule)
	}
	g := sample(t, m, &Options{Warmup: NoWarmup, Chains: 2, Draws: 300, Seed: 321})
	if len(movesOf(g, "group")) != 1 || movesOf(g, "group")[0].Proposals != 600 || len(movesOfPerChain(g, "group")) != 2 || movesOfPerChain(g, "group")[1][0].Proposals != 300 {
		t.Errorf("group statistics %+v, per chain %+v", movesOf(g, "group"), movesOfPerChain(g, "group"))
	}
	if movesOf(g, "group")[0].Sites != 2 || g.Sites[0].Sites != 1 {
		t.Errorf("Sites counts: group %d, site %d; want 2 and 1", movesOf(g, "group")[0].Sites, g.Sites[0].Sites)
	}
	if all := g.AllStats(); len(all) != 3 || all[2].Name != "shift" {
		t.Errorf("AllStats %+v", all)
	}
	if rate, err := g.AcceptRate("shift"); err != nil || !(rate > 0.99) {
		t.Errorf("AcceptRate of the group: %v, %v", rate, err)
	}
}

// validationModel has a site of every support for the group checks.
type validationModel struct {
	groups []Group
	scorer Scorer
}

func (m *validationModel) Sites() []Site {
	return []Site{
		{Name: "a", Size: 2, Support: Real},                                       // 0, 1
		{Name: "p", Size: 1, Support: Positive},                                   // 2
		{Name: "q", Size: 1, Support: Positive, Lower: 1},                         // 3
		{Name: "u", Size: 1, Support: Interval, Lower: 0, Upper: 1},               // 4
		{Name: "s", Size: 2, Support: Simplex},                                    // 5, 6
		{Name: "k", Size: 1, Support: Discrete, NumValues: 3},                     // 7
		{Name: "z", Size: 1, Support: Discrete, NumValues: 2, Marginalised: true}, // 8
		{Name: "b", Size: 1, Support: Real},                                       // 9
	}
}
func (m *validationModel) Groups() []Group                      { return m.groups }
func (m *validationModel) NewScorer() Scorer                    { return m.scorer }
func (m *validationModel) Init(_ *rand.Rand, x []float64) error { return nil }

// TestGroupValidation: every bad group is refused before sampling, naming the group,
// the coordinate and the reason.
func TestGroupValidation(t *testing.T) {
	t.Parallel()
	c := func(coord int, kind OrbitKind, rate float64, anchor int) OrbitCoord {
		return OrbitCoord{Coord: coord, Kind: kind, Rate: rate, Anchor: anchor}
	}
	ok := c(0, Dilate, 1, -1)
	orbit := corr2().NewScorer() // an OrbitScorer, never called
	for _, tc := range []struct {
		name   string
		groups []Group
		want   string
	}{
		{"empty name", []Group{{Coords: []OrbitCoord{ok}}}, `nmc: group 0 has an empty name`},
		{"same name", []Group{{Name: "g", Coords: []OrbitCoord{ok}}, {Name: "g", Coords: []OrbitCoord{c(1, Shift, 1, -1)}}}, `nmc: group name "g" is used by groups 0 and 1`},
		{"no coordinates", []Group{{Name: "g"}}, `nmc: group 0 "g" has no coordinates`},
		{"out of range", []Group{{Name: "g", Coords: []OrbitCoord{ok, c(10, Shift, 1, -1)}}}, `nmc: group 0 "g", entry 1: coordinate 10 is not in the state (0 … 9)`},
		{"negative coordinate", []Group{{Name: "g", Coords: []OrbitCoord{c(-1, Shift, 1, -1)}}}, `coordinate -1 is not in the state`},
		{"twice", []Group{{Name: "g", Coords: []OrbitCoord{ok, c(1, Shift, 1, -1), c(0, Shift, 2, -1)}}}, `nmc: group 0 "g": coordinate 0 (a[0]) is in the group twice, entries 0 and 2`},
		{"zero rate", []Group{{Name: "g", Coords: []OrbitCoord{c(1, Shift, 0, -1)}}}, `nmc: group 0 "g", entry 0 (a[1]): Rate = 0, want finite and non-zero`},
		{"NaN rate", []Group{{Name: "g", Coords: []OrbitCoord{c(1, Dilate, math.NaN(), -1)}}}, `Rate = NaN`},
		{"Inf rate", []Group{{Name: "g", Coords: []OrbitCoord{c(1, Dilate, math.Inf(1), -1)}}}, `Rate = +Inf`},
		{"unknown kind", []Group{{Name: "g", Coords: []OrbitCoord{c(1, OrbitKind(7), 1, -1)}}}, `unknown Kind 7`},
		{"anchor out of range", []Group{{Name: "g", Coords: []OrbitCoord{c(0, Dilate, 1, 12)}}}, `Anchor 12 is not −1 or a coordinate of the state (0 … 9)`},
		{"anchor -2", []Group{{Name: "g", Coords: []OrbitCoord{c(0, Dilate, 1, -2)}}}, `Anchor -2 is not −1`},
		{"anchor in group", []Group{{Name: "g", Coords: []OrbitCoord{c(0, Dilate, 1, 9), c(9, Shift, 1, -1)}}}, `nmc: group 0 "g", entry 0 (a[0]): Anchor 9 (b) is in the group itself (entry 1)`},
		{"anchor discrete", []Group{{Name: "g", Coords: []OrbitCoord{c(0, Dilate, 1, 7)}}}, `Anchor 7 (k) is a coordinate of the discrete site "k"`},
		{"shift positive", []Group{{Name: "g", Coords: []OrbitCoord{c(2, Shift, 1, -1)}}}, `nmc: group 0 "g", entry 0 (p): site "p" is Positive: a shift leaves (Lower, ∞)`},
		{"positive lower", []Group{{Name: "g", Coords: []OrbitCoord{c(3, Dilate, 1, -1)}}}, `site "q" is Positive with Lower = 1`},
		{"positive anchor", []Group{{Name: "g", Coords: []OrbitCoord{c(2, Dilate, 1, 0)}}}, `site "p" is Positive: a dilation about an anchor can leave (0, ∞)`},
		{"interval", []Group{{Name: "g", Coords: []OrbitCoord{c(4, Dilate, 1, -1)}}}, `site "u" is an Interval`},
		{"simplex", []Group{{Name: "g", Coords: []OrbitCoord{c(5, Dilate, 1, -1)}}}, `site "s" is a Simplex`},
		{"discrete", []Group{{Name: "g", Coords: []OrbitCoord{c(7, Shift, 1, -1)}}}, `site "k" is Discrete`},
		{"marginalised", []Group{{Name: "g", Coords: []OrbitCoord{c(8, Shift, 1, -1)}}}, `site "z" is Marginalised`},
		{"shift-over without anchor", []Group{{Name: "g", Coords: []OrbitCoord{c(0, ShiftOver, 1, -1)}}}, `Anchor -1 of a ShiftOver is not a coordinate of the state (0 … 9)`},
		{"shift-over real anchor", []Group{{Name: "g", Coords: []OrbitCoord{c(0, ShiftOver, 1, 9)}}}, `Anchor 9 (b) of a ShiftOver is a coordinate of site "b", which is not Positive with Lower ≥ 0`},
		{"shift-over anchor in group", []Group{{Name: "g", Coords: []OrbitCoord{c(0, ShiftOver, 1, 2), c(2, Dilate, 1, -1)}}}, `Anchor 2 (p) is in the group itself (entry 1); the coordinate a ShiftOver's rate is divided by must stay fixed`},
		{"shift-over positive", []Group{{Name: "g", Coords: []OrbitCoord{c(2, ShiftOver, 1, 3)}}}, `site "p" is Positive: a shift leaves (Lower, ∞)`},
		{"second group", []Group{{Name: "fine", Coords: []OrbitCoord{ok}}, {Name: "bad", Coords: []OrbitCoord{c(6, Shift, 1, -1)}}}, `nmc: group 1 "bad", entry 0 (s[1]): site "s" is a Simplex`},
	} {
		_, err := Sample(context.Background(), &validationModel{groups: tc.groups, scorer: orbit}, &Options{Warmup: NoWarmup, Chains: 1, Draws: 1})
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: error %v, want one containing %q", tc.name, err, tc.want)
		}
	}

	// Valid groups: a coordinate may be in two groups; a Positive site with Lower 0
	// dilated about 0; a shift ignores its Anchor.
	good := []Group{{Name: "g1", Coords: []OrbitCoord{ok, c(2, Dilate, 0.5, -1), c(9, Dilate, 1, 1)}}, {Name: "g2", Coords: []OrbitCoord{c(0, Shift, -1, 99), c(1, ShiftOver, 2, 3)}}}
	plans, err := checkGroups((&validationModel{}).Sites(), good)
	if err != nil {
		t.Fatal(err)
	}
	if len(plans) != 2 || plans[0].rate != 2.5 || plans[1].rate != 0 || len(plans[0].sites) != 3 || plans[0].sites[2] != 7 {
		t.Errorf("plans %+v", plans)
	}

	// A Scorer without ScoreOrbit is refused, unless group moves are off.
	m := &validationModel{groups: good, scorer: newMVNModel()}
	if _, err := Sample(context.Background(), m, &Options{Warmup: NoWarmup, Chains: 1, Draws: 1}); err == nil || !strings.Contains(err.Error(), `the model declares groups ("g1", "g2") but its Scorer *nmc.mvnModel does not implement OrbitScorer`) {
		t.Errorf("Scorer without OrbitScorer: %v", err)
	}
	if _, err := Plan(m, &Options{Warmup: NoWarmup, Moves: []Move{Defaults{NoGroupMoves: true}}}); err != nil {
		t.Errorf("NoGroupMoves: %v", err)
	}

	// Marginalised sites must be finite Discrete.
	for _, s := range []Site{{Name: "r", Size: 1, Support: Real, Marginalised: true}, {Name: "n", Size: 1, Support: Discrete, Marginalised: true}} {
		if err := checkSites([]Site{s}); err == nil || !strings.Contains(err.Error(), `is Marginalised but`) {
			t.Errorf("Marginalised %v: %v", s.Support, err)
		}
	}
}

// TestFitOrbit: the proposal of t is the Newton fit where h″ < 0, the SoftAbs form
// where h″ ≥ 0, and the random walk where a derivative is not finite.
func TestFitOrbit(t *testing.T) {
	if q := fitOrbit(2, -4); q.mean != 0.5 || q.sd != 0.5 || q.fb {
		t.Errorf("Newton fit %+v", q)
	}
	if q := fitOrbit(2, 4); math.Abs(q.mean-0.5) > 1e-12 || math.Abs(q.sd-0.5) > 1e-12 || !q.fb {
		t.Errorf("SoftAbs fit %+v", q)
	}
	if q := fitOrbit(1, 0); math.Abs(q.mean-1e6) > 1 || math.Abs(q.sd-1e3) > 1e-6 || !q.fb {
		t.Errorf("SoftAbs fit at h″ = 0: %+v", q)
	}
	for _, h := range [][2]float64{{math.NaN(), -1}, {1, math.Inf(-1)}, {math.Inf(1), -1}} {
		if q := fitOrbit(h[0], h[1]); q.mean != 0 || q.sd != rwRel || !q.fb {
			t.Errorf("fit at %v: %+v", h, q)
		}
	}
}

// TestFitLogGamma: on h(t) = a·c·t − b·e^{c·t} the log-Gamma fit from h′(0), h″(0)
// and c recovers (a, b), and its log density integrates to 1 and has those
// derivatives; the scale-normal fit of a Gaussian in r = e^{c·t} recovers it.
func TestFitLogGamma(t *testing.T) {
	const a, b, c = 1.5, 0.04, 2.0
	h1, h2 := c*(a-b), -c*c*b
	q, ok := fitLogGamma(h1, h2, c)
	if !ok || q.form != orbitLogGamma || math.Abs(q.a-a) > 1e-12 || math.Abs(q.b-b) > 1e-15 {
		t.Fatalf("log-Gamma fit %+v, want a = %v, b = %v", q, a, b)
	}
	const dt = 1e-4
	if d1 := (q.logq(dt) - q.logq(-dt)) / (2 * dt); math.Abs(d1-h1) > 1e-6 {
		t.Errorf("log-Gamma: h′(0) = %v, want %v", d1, h1)
	}
	if d2 := (q.logq(dt) - 2*q.logq(0) + q.logq(-dt)) / (dt * dt); math.Abs(d2-h2) > 1e-4 {
		t.Errorf("log-Gamma: h″(0) = %v, want %v", d2, h2)
	}
	sum := 0.0 // ∫ exp(logq) dt by the midpoint rule
	for x := -30.0; x < 10; x += 1e-3 {
		sum += math.Exp(q.logq(x+5e-4)) * 1e-3
	}
	if math.Abs(sum-1) > 1e-6 {
		t.Errorf("log-Gamma: density integrates to %v", sum)
	}
	for _, bad := range [][3]float64{{-1, -0.1, 2}, {1, 0, 2}, {1, 0.5, 2}} {
		if _, ok := fitLogGamma(bad[0], bad[1], bad[2]); ok {
			t.Errorf("log-Gamma fit accepted h′ = %v, h″ = %v, c = %v", bad[0], bad[1], bad[2])
		}
	}

	// r = e^{c t} ~ N(m, s²): h(t) = −(e^{ct} − m)²/(2s²) + c·t.
	const m, sd, cs = 1.7, 0.4, 1.0
	h1 = -(1-m)*cs/(sd*sd) + cs
	h2 = -(2 - m) * cs * cs / (sd * sd)
	q, ok = fitScaleNormal(h1, h2, cs)
	if !ok || q.form != orbitScaleNormal || math.Abs(q.mean-m) > 1e-12 || math.Abs(q.sd-sd) > 1e-12 {
		t.Fatalf("scale-normal fit %+v, want mean %v, sd %v", q, m, sd)
	}
	if _, ok := fitScaleNormal(0.5, 1, 1); ok {
		t.Errorf("scale-normal fit accepted a convex log density of r")
	}
}

// TestGroupMoveRadiusChain: chains of group moves alone on N(0, 2²I₃), dilated about 0
// at rates 1 and 0.5 and started together near the collapse (radius 0.37), reproduce
// the radius law 2·χ₃ (mean and sd within the Monte Carlo error). The Newton fit in t
// alone never leaves such a start (every step overshoots; the chains stay constant);
// along this orbit h(t) = 3s·t − ρe^{2st}, which the probed log-Gamma fit matches
// exactly, so every move is accepted.
func TestGroupMoveRadiusChain(t *testing.T) {
	t.Parallel()
	mean, sd := chi3(2)
	for _, rate := range []float64{1, 0.5} {
		r := sample(t, isotropic(3, 2, dilateAll(3, rate)), &Options{Warmup: NoWarmup, Chains: 4, Draws: 4000, Seed: 361, InitRefine: -1, Init: [][]float64{{0.3, -0.2, 0.1}}, Moves: groupsOnly})
		rad := series(r, func(x []float64) float64 { return math.Sqrt(x[0]*x[0] + x[1]*x[1] + x[2]*x[2]) })
		checkMoments(t, fmt.Sprintf("radius, rate %g", rate), rad, mean, sd, nil)
		if a := groupRate(t, r, "scale"); a < 0.999 || movesOf(r, "group")[0].Fallbacks != 0 {
			t.Errorf("rate %g: acceptance %.4f, fallbacks %d; want 1 and 0", rate, a, movesOf(r, "group")[0].Fallbacks)
		}
	}
}

// TestGroupMoveOffsetScale: chains of group moves alone on x ~ N(3, 1) dilated about
// 0, started near the collapse (x = 0.05), reproduce the law of x on its orbit, N(3, 1)
// truncated to x > 0. Along this orbit h(t) = t − (e^t x − 3)²/2 is in no fitted family:
// it is convex near the collapse (scale-normal fit) and concave with a changing c
// further up (log-Gamma fit), so a wrong reverse density or Jacobian term of either
// form shows here.
func TestGroupMoveOffsetScale(t *testing.T) {
	t.Parallel()
	m := &gaussGroup{mean: []float64{3}, prec: []float64{1}, groups: []Group{dilateAll(1, 1)}}
	r := sample(t, m, &Options{Warmup: NoWarmup, Chains: 4, Draws: 10000, Seed: 371, InitRefine: -1, Init: [][]float64{{0.05}}, Moves: groupsOnly})
	// N(3, 1) truncated below at 0: with λ = φ(3)/Φ(3), mean 3 + λ, variance 1 − λ(λ + 3).
	phi := math.Exp(-4.5) / math.Sqrt(2*math.Pi)
	lambda := phi / (0.5 * math.Erfc(-3/math.Sqrt2))
	checkMoments(t, "x", column(t, r, "x0"), 3+lambda, math.Sqrt(1-lambda*(lambda+3)), map[float64]float64{0.5 * math.Erfc(1/math.Sqrt2) / (0.5 * math.Erfc(-3/math.Sqrt2)): 2})
	t.Logf("acceptance %.3f, fallbacks %d", groupRate(t, r, "scale"), movesOf(r, "group")[0].Fallbacks)
}

// TestMarginalised: a two-component mixture with z summed out (and a shift group on
// μ) and with z explicit both give the posterior of μ computed by quadrature, and the
// recorded z draws of the marginalised model have the exact conditional frequencies
// P(z_i = 1 | y).
func TestMarginalised(t *testing.T) {
	t.Parallel()
	ys := mixtureData()
	mean, sd, pz := mixtureTruth(ys)
	t.Logf("truth: mu mean %.4f, sd %.4f, P(z=1) %.3f", mean, sd, pz)
	for _, tc := range []struct {
		name string
		m    Model
	}{
		{"marginalised", mixture2Shift{&mixture2{ys: ys, marginal: true}}},
		{"explicit", &mixture2{ys: ys}},
	} {
		r := sample(t, tc.m, &Options{Chains: 4, Draws: 4000, Warmup: 50, Seed: 331})
		for c := range 2 {
			checkMoments(t, tc.name+" mu", series(r, func(x []float64) float64 { return x[c] }), mean[c], sd[c], nil)
		}
		for i := range ys {
			checkMean(t, tc.name+" z", series(r, func(x []float64) float64 { return x[2+i] }), pz[i])
		}
		for i, s := range r.Sites[1:] {
			want := "enumerate"
			if tc.name == "marginalised" {
				want = marginalProposer
			}
			if s.Proposer != want || s.Proposals != 4*4050 || s.Accepted != s.Proposals {
				t.Errorf("%s: z[%d] stats %+v", tc.name, i, s)
			}
		}
	}
}

// stationaryRadius starts n independent states from the exact law of model m (draw),
// makes steps group moves of group 0 from each, and returns the radius of the moved
// coordinates about the anchor value x[anchor] (anchor −1: about 0) after them, as
// one series of independent values.
func stationaryRadius(t *testing.T, m Model, draw func(rng *rand.Rand, x []float64), n, steps int, coords []int, anchor int) [][]float64 {
	t.Helper()
	c := newTestChain(t, m, &Options{Warmup: NoWarmup, Moves: []Move{GroupMoves{}}})
	g := stepperOf[*groupStepper](t, c)
	rng := rand.New(rand.NewPCG(351, 1))
	out := make([]float64, n)
	for i := range out {
		draw(rng, c.x)
		for range steps {
			g.Step(c)
		}
		a := 0.0
		if anchor >= 0 {
			a = c.x[anchor]
		}
		ss := 0.0
		for _, j := range coords {
			ss += (c.x[j] - a) * (c.x[j] - a)
		}
		out[i] = math.Sqrt(ss)
	}
	if acc := c.orbit[0].stats.AcceptRate(); !(acc > 0.3) {
		t.Errorf("acceptance %.3f", acc)
	}
	return [][]float64{out}
}

// TestGroupMoveStationary: group moves of a dilation, about 0 and about an anchor,
// started from independent exact draws of an isotropic Gaussian, leave the radius
// with its law σ·χ₃ after three moves. Independent starts make the check exact
// whatever the chain's mixing (TestGroupMoveRadiusChain checks long chains).
func TestGroupMoveStationary(t *testing.T) {
	t.Parallel()
	mean, sd := chi3(2)
	r := stationaryRadius(t, isotropic(3, 2, dilateAll(3, 0.5)), func(rng *rand.Rand, x []float64) {
		for j := range x {
			x[j] = 2 * rng.NormFloat64()
		}
	}, 100000, 3, []int{0, 1, 2}, -1)
	checkMoments(t, "radius after dilations about 0", r, mean, sd, nil)

	const sigma = 0.5
	mean, sd = chi3(sigma)
	r = stationaryRadius(t, anchored(3, sigma), func(rng *rand.Rand, x []float64) {
		x[0] = rng.NormFloat64()
		for j := 1; j < len(x); j++ {
			x[j] = x[0] + sigma*rng.NormFloat64()
		}
	}, 100000, 3, []int{1, 2, 3}, 0)
	checkMoments(t, "radius after dilations about x0", r, mean, sd, nil)
}

// logQuartic is λ > 0 whose logarithm v has density ∝ exp(−v⁴/4 − v²/2), with the
// group that dilates λ about 0: along the orbit h(t) is that log density at v + t,
// concave everywhere, and the rate at which its curvature changes, 6v/(3v² + 1),
// changes sign at the mode.
func logQuartic() *groupedScalar {
	return &groupedScalar{scalarModel: &scalarModel{
		site: Site{Name: "lambda", Size: 1, Support: Positive},
		fn: func(l float64) (float64, float64, float64) {
			if !(l > 0) {
				return math.Inf(-1), 0, 0
			}
			v := math.Log(l)
			g := -v*v*v - v - 1 // of f in v, with the Jacobian −v
			return -v*v*v*v/4 - v*v/2 - v, g / l, (-3*v*v - 1 - g) / (l * l)
		},
		init: func(rng *rand.Rand) float64 { return math.Exp(rng.NormFloat64()) },
	}, groups: []Group{dilateAll(1, 1)}}
}

// simpson returns the integral of f over [a, b] by Simpson's rule on 4000 intervals.
func simpson(f func(float64) float64, a, b float64) float64 {
	const n = 4000
	s := f(a) + f(b)
	for k := 1; k < n; k++ {
		s += float64(2+2*(k%2)) * f(a+(b-a)*float64(k)/n)
	}
	return s * (b - a) / n / 3
}

// countedOrbits counts the orbit scores of a grouped scalar model.
type countedOrbits struct {
	*groupedScalar
	n *atomic.Int64
}

func (m countedOrbits) NewScorer() Scorer { return m }
func (m countedOrbits) ScoreOrbit(x []float64, g int, d *[2]float64) float64 {
	m.n.Add(1)
	return m.groupedScalar.ScoreOrbit(x, g, d)
}

// TestGroupMoveFrozenRate: the rate of a group's log-Gamma fit is frozen after
// warm-up (orbitRate) only when the warm-up's probes found it constant. Along the
// dilation of a Gamma law the rate is 1 everywhere: a recorded group step then
// scores two points, the current one and the proposal, where probing scores up to
// four. Along the dilation of logQuartic's λ the rate changes sign across the mode:
// the chain keeps probing. Both keep their laws (a reverse fit made with
// another rate than the forward one fails them).
func TestGroupMoveFrozenRate(t *testing.T) {
	t.Parallel()
	const chains, warmup, draws = 4, 200, 4000
	// orbitScores returns the draws of m and the orbit scores of draws/2 recorded
	// sweeps per chain: the difference of two runs whose warm-ups are the same.
	orbitScores := func(gs *groupedScalar) (*Result, float64) {
		var n atomic.Int64
		m := countedOrbits{gs, &n}
		var calls [2]int64
		var r *Result
		for k, d := range []int{draws, draws / 2} {
			n.Store(0)
			res := sample(t, m, &Options{Chains: chains, Draws: d, Warmup: warmup, Seed: 351, Moves: groupsOnly})
			calls[k] = n.Load()
			if k == 0 {
				r = res
			}
		}
		return r, float64(calls[0]-calls[1]) / float64(chains*draws/2)
	}

	gd, a, b := gammaDilated()
	r, perStep := orbitScores(gd)
	if perStep > 2 || perStep < 1.5 {
		t.Errorf("Gamma law: %.2f orbit scores per recorded group step, want at most 2 (rate frozen)", perStep)
	}
	checkMoments(t, "gamma", column(t, r, "lambda"), a/b, math.Sqrt(a)/b, nil)

	r, perStep = orbitScores(logQuartic())
	if perStep < 2.5 {
		t.Errorf("log λ quartic: %.2f orbit scores per recorded group step, want the probes kept (about 4)", perStep)
	}
	dens := func(v float64) float64 { return math.Exp(-v*v*v*v/4 - v*v/2) }
	norm := simpson(dens, -10, 10)
	inner := simpson(dens, -0.5, 0.5) / norm
	v2 := simpson(func(v float64) float64 { return v * v * dens(v) }, -10, 10) / norm
	logs := series(r, func(x []float64) float64 { return math.Log(x[0]) })
	checkMean(t, "log lambda", logs, 0)
	checkMean(t, "(log lambda)²", mapSeries(logs, func(v float64) float64 { return v * v }), v2)
	checkMean(t, "P(|log lambda| ≤ 1/2)", mapSeries(logs, func(v float64) float64 {
		if math.Abs(v) <= 0.5 {
			return 1
		}
		return 0
	}), inner)
	t.Logf("quartic: dilation acceptance %.3f", groupRate(t, r, "scale"))
}

// TestGroupsFirstChainBitIdentical: with group moves and Marginalised sites, the
// chains of a run split with FirstChain are those of one local run, bit for bit.
func TestGroupsFirstChainBitIdentical(t *testing.T) {
	t.Parallel()
	for _, m := range []Model{mixture2Shift{&mixture2{ys: mixtureData(), marginal: true}}, funnelGroup{k: 2}} {
		o := Options{Chains: 3, Draws: 100, Warmup: 30, Seed: 341}
		whole := sample(t, m, &o)
		for _, first := range []int{0, 1, 2} {
			p := o
			p.FirstChain, p.Chains = first, 1
			r := sample(t, m, &p)
			sameChain(t, "groups split", whole, first, r, 0)
		}
	}
}

// panicOrbit panics in ScoreOrbit.
type panicOrbit struct{ *gaussGroupScorer }

func (panicOrbit) ScoreOrbit([]float64, int, *[2]float64) float64 { panic("orbit boom") }

type panicOrbitModel struct{ *gaussGroup }

func (m panicOrbitModel) NewScorer() Scorer {
	return panicOrbit{m.gaussGroup.NewScorer().(*gaussGroupScorer)}
}

// TestGroupPanic: a panic in ScoreOrbit is an error naming the chain and the group.
func TestGroupPanic(t *testing.T) {
	t.Parallel()
	_, err := Sample(context.Background(), panicOrbitModel{corr2(shift2)}, &Options{Warmup: NoWarmup, Chains: 1, Draws: 5})
	if err == nil || !strings.Contains(err.Error(), `nmc: chain 0, group "shift": panic: orbit boom`) {
		t.Errorf("error %v", err)
	}
}

// TestGroupInvalidates: an accepted group move makes the cached fits of the moved
// sites and of the sites that read them stale, with a Neighborer (dependents) and
// without (stamps); a rejected one leaves the state as it was.
func TestGroupInvalidates(t *testing.T) {
	t.Parallel()
	g := Group{Name: "g", Coords: []OrbitCoord{{Coord: 1, Kind: Dilate, Rate: 1, Anchor: -1}}}
	for _, m := range []Model{isotropic(3, 1, g), gaussGroupNb{isotropic(3, 1, g)}} {
		sites := m.Sites()
		c := newTestChain(t, m, &Options{Warmup: NoWarmup, Moves: []Move{GroupMoves{}}})
		g := stepperOf[*groupStepper](t, c)
		copy(c.x, []float64{0.5, 1.5, -0.5})
		c.invalidateAll()
		for accepted, rejected := 0, 0; accepted < 5 || rejected < 5; {
			before := append([]float64(nil), c.x...)
			for i := range sites {
				c.setValid(i)
			}
			n := c.orbit[0].stats.Accepted
			g.Step(c)
			if c.orbit[0].stats.Accepted == n {
				rejected++
				for i, v := range before {
					if c.x[i] != v {
						t.Fatalf("rejected move changed x[%d]: %v to %v", i, v, c.x[i])
					}
				}
				continue
			}
			accepted++
			if c.x[0] != before[0] || c.x[2] != before[2] || c.x[1] == before[1] {
				t.Fatalf("accepted move: %v to %v", before, c.x)
			}
			for i := range sites {
				if c.isValid(i) {
					t.Fatalf("%T: site %d's cache still valid after a group move of site 1", m, i)
				}
			}
		}
	}
}
