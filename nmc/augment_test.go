package nmc

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/nmc-go/nmc/diagnostics"
)

// augMixModel is a mixture with its classes summed out: mu ~ N(0, 1), z[k] ~
// Categorical(w) (Marginalised), y[k] ~ N(mu + c[z[k]], 1). Its augmented scorer
// scores mu given the classes, a Gaussian conditional (so mu's augmented steps are
// exact Gibbs draws); aug lists the augmented sites (mu's index 0 unless a test
// breaks it).
type augMixModel struct {
	y   []float64
	c   [3]float64
	w   [3]float64
	aug []int
	// draw > 0 makes the augmented scorer a ConditionalDrawer that draws mu from
	// its Gaussian conditional on every draw-th call and refuses the others.
	draw int
}

func (m *augMixModel) Sites() []Site {
	s := []Site{{Name: "mu", Size: 1, Support: Real}}
	for k := range m.y {
		s = append(s, Site{Name: fmt.Sprintf("z[%d]", k), Size: 1, Support: Discrete, NumValues: 3, Marginalised: true})
	}
	return s
}

func (m *augMixModel) Init(_ *rand.Rand, x []float64) error { clear(x); return nil }
func (m *augMixModel) NewScorer() Scorer                    { return augMixScorer{m, false} }
func (m *augMixModel) AugmentedSites() []int                { return m.aug }
func (m *augMixModel) NewAugmentedScorer() Scorer {
	if m.draw > 0 {
		return &augMixDrawer{augMixScorer: augMixScorer{m, true}}
	}
	return augMixScorer{m, true}
}

// augMixDrawer draws mu from its conditional given the classes, N(Σ(y − c_z)/(n+1),
// 1/(n+1)), on every m.draw-th call and refuses the others.
type augMixDrawer struct {
	augMixScorer
	calls int
}

func (d *augMixDrawer) DrawConditional(rng *rand.Rand, x []float64, i int, dst []float64) bool {
	d.calls++
	if i != 0 || d.calls%d.m.draw != 0 {
		return false
	}
	s := 0.0
	for k, y := range d.m.y {
		s += y - d.m.c[int(x[k+1])]
	}
	n := float64(len(d.m.y)) + 1
	dst[0] = s/n + rng.NormFloat64()/math.Sqrt(n)
	return true
}

// logMarginal returns log p(mu, y) with the classes summed out.
func (m *augMixModel) logMarginal(mu float64) float64 {
	lp := -mu * mu / 2
	for _, y := range m.y {
		s := 0.0
		for v := range 3 {
			r := y - mu - m.c[v]
			s += m.w[v] * math.Exp(-r*r/2)
		}
		lp += math.Log(s)
	}
	return lp
}

type augMixScorer struct {
	m        *augMixModel
	explicit bool // the augmented scorer: the classes at their values in x
}

func (s augMixScorer) Score(x []float64, i int, grad, hess []float64) float64 {
	m, mu := s.m, x[0]
	if i > 0 { // a class, given mu
		v := int(x[i])
		r := m.y[i-1] - mu - m.c[v]
		return math.Log(m.w[v]) - r*r/2
	}
	if s.explicit {
		lp, g := -mu*mu/2, -mu
		for k, y := range m.y {
			r := y - mu - m.c[int(x[k+1])]
			lp -= r * r / 2
			g += r
		}
		if grad != nil {
			grad[0], hess[0] = g, -1-float64(len(m.y))
		}
		return lp
	}
	// Summed out: responsibilities give the derivatives (d/dmu of r²/2 is −r).
	g, h := -mu, -1.0
	for _, y := range m.y {
		var p [3]float64
		tot, mean, sq := 0.0, 0.0, 0.0
		for v := range 3 {
			r := y - mu - m.c[v]
			p[v] = m.w[v] * math.Exp(-r*r/2)
			tot += p[v]
		}
		for v := range 3 {
			r := y - mu - m.c[v]
			mean += p[v] / tot * r
			sq += p[v] / tot * r * r
		}
		g += mean
		h += -1 + sq - mean*mean
	}
	if grad != nil {
		grad[0], hess[0] = g, h
	}
	return m.logMarginal(mu)
}

func (s augMixScorer) LogJoint(x []float64) float64 {
	if !s.explicit {
		return s.m.logMarginal(x[0])
	}
	lj := s.Score(x, 0, nil, nil)
	for k := range s.m.y {
		lj += math.Log(s.m.w[int(x[k+1])])
	}
	return lj
}

// TestAugmentedStepsExact samples the mixture with mu augmented (one and two rounds
// per sweep) and with its summed-out steps (NoAugment), and checks mu's mean and
// sd and each class's frequency of class 0 against the exact posterior (a fine grid
// over mu) within 4.5 Monte Carlo standard errors; mu's augmented steps, exact
// Gibbs draws, must all be accepted.
func TestAugmentedStepsExact(t *testing.T) {
	m := &augMixModel{y: []float64{-1.5, 0.2, 2.8}, c: [3]float64{-2, 0, 2}, w: [3]float64{0.2, 0.5, 0.3}, aug: []int{0}}
	// The exact posterior: mu's mean and sd, and P(z[k] = 0 | y).
	var w, s1, s2 float64
	pz0 := make([]float64, len(m.y))
	for mu := -8.0; mu <= 8; mu += 1e-3 {
		p := math.Exp(m.logMarginal(mu))
		w += p
		s1 += p * mu
		s2 += p * mu * mu
		for k, y := range m.y {
			var q [3]float64
			tot := 0.0
			for v := range 3 {
				r := y - mu - m.c[v]
				q[v] = m.w[v] * math.Exp(-r*r/2)
				tot += q[v]
			}
			pz0[k] += p * q[0] / tot
		}
	}
	mean, sd := s1/w, math.Sqrt(s2/w-(s1/w)*(s1/w))
	for k := range pz0 {
		pz0[k] /= w
	}
	for _, c := range []struct {
		name string
		d    Defaults
		draw int
	}{{"one round", Defaults{AugmentRounds: 1}, 0}, {"two rounds", Defaults{}, 0}, {"off", Defaults{NoAugment: true}, 0},
		{"drawn", Defaults{}, 1}, {"drawn or stepped", Defaults{}, 2}} {
		m.draw = c.draw
		o := Options{Chains: 4, Draws: 5000, Warmup: 200, Seed: 3, Moves: []Move{c.d}}
		res, err := Sample(context.Background(), m, &o)
		if err != nil {
			t.Fatal(err)
		}
		mus := res.Draws.Column(0)
		check := func(what string, draws [][]float64, want float64) {
			t.Helper()
			got, err1 := diagnostics.Mean(draws)
			se, err2 := diagnostics.MCSEMean(draws)
			if err1 != nil || err2 != nil {
				t.Fatal(err1, err2)
			}
			if z := (got - want) / se; math.Abs(z) > 4.5 {
				t.Errorf("%s: %s %.4f, exact %.4f: z = %.2f (MCSE %.4f)", c.name, what, got, want, z, se)
			}
		}
		check("mean of mu", mus, mean)
		dev := make([][]float64, len(mus))
		for ch, col := range mus {
			for _, v := range col {
				dev[ch] = append(dev[ch], (v-mean)*(v-mean))
			}
		}
		check("variance of mu", dev, sd*sd)
		for k := range m.y {
			is0 := res.Draws.Column(k + 1)
			for _, col := range is0 {
				for n, v := range col {
					col[n] = 0
					if v == 0 {
						col[n] = 1
					}
				}
			}
			check(fmt.Sprintf("P(z[%d] = 0)", k), is0, pz0[k])
		}
		st := res.Sites[0]
		wantName := "newton-gaussian-augmented"
		if c.d.NoAugment {
			wantName = "newton-gaussian"
		}
		if st.Proposer != wantName {
			t.Errorf("%s: mu's proposer %q, want %q", c.name, st.Proposer, wantName)
		}
		if !c.d.NoAugment && st.Accepted != st.Proposals {
			t.Errorf("%s: %d of mu's %d augmented steps accepted, want all (exact Gibbs draws)", c.name, st.Accepted, st.Proposals)
		}
		rounds := 0 // the rounds of the schedule
		for _, p := range res.Schedule {
			if p.Name() == "augment" {
				rounds++
			}
		}
		if c.d.AugmentRounds == 0 && !c.d.NoAugment && rounds != 2 {
			t.Errorf("%s: %d augmentation rounds by default, want 2", c.name, rounds)
		}
		if sweeps := 4 * (5000 + 200); !c.d.NoAugment && st.Proposals != rounds*sweeps {
			t.Errorf("%s: %d augmented steps of mu, want %d (%d per sweep)", c.name, st.Proposals, rounds*sweeps, rounds)
		}
	}
}

// TestAugmentErrors checks what Sample refuses of a model's augmented sites and of
// Defaults.AugmentRounds.
func TestAugmentErrors(t *testing.T) {
	base := augMixModel{y: []float64{0.5}, c: [3]float64{-1, 0, 1}, w: [3]float64{0.3, 0.3, 0.4}}
	cases := []struct {
		name string
		aug  []int
		opts Options
		want string
	}{
		{"out of range", []int{7}, Options{Warmup: NoWarmup}, "names site 7; it has 2 sites"},
		{"discrete", []int{1}, Options{Warmup: NoWarmup}, `names site "z[0]", which is discrete`},
		{"twice", []int{0, 0}, Options{Warmup: NoWarmup}, `names site "mu" twice`},
		{"rounds", []int{0}, Options{Warmup: NoWarmup, Moves: []Move{Defaults{AugmentRounds: -1}}}, "Defaults.AugmentRounds = -1 is negative"},
	}
	for _, c := range cases {
		m := base
		m.aug = c.aug
		o := c.opts
		o.Draws, o.Chains = 10, 1
		_, err := Sample(context.Background(), &m, &o)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %v, want one containing %q", c.name, err, c.want)
		}
	}
	// No Marginalised site: nothing to augment with.
	m := &augNoMarg{}
	if _, err := Sample(context.Background(), m, &Options{Warmup: NoWarmup, Draws: 10, Chains: 1}); err == nil || !strings.Contains(err.Error(), "no site is Marginalised") {
		t.Errorf("no Marginalised site: error %v", err)
	}
}

// augNoMarg declares an augmented site without any Marginalised site.
type augNoMarg struct{}

func (augNoMarg) Sites() []Site                        { return []Site{{Name: "mu", Size: 1, Support: Real}} }
func (augNoMarg) Init(_ *rand.Rand, x []float64) error { clear(x); return nil }
func (augNoMarg) NewScorer() Scorer                    { return augMixScorer{&augMixModel{}, true} }
func (augNoMarg) AugmentedSites() []int                { return []int{0} }
func (augNoMarg) NewAugmentedScorer() Scorer           { return augMixScorer{&augMixModel{}, true} }

// augWatchModel is augMixModel whose augmented scorer is a DiscreteWatcher that
// keeps its own copy of the classes, updated only through Changed: stale reports
// that an augmented step found the copy out of date with the state.
type augWatchModel struct {
	augMixModel
	stale, steps *int
}

func (m *augWatchModel) NewAugmentedScorer() Scorer {
	return &augWatcher{augMixScorer: augMixScorer{&m.augMixModel, true}, stale: m.stale, steps: m.steps}
}

type augWatcher struct {
	augMixScorer
	x, seen      []float64
	stale, steps *int
}

func (w *augWatcher) Watch(x []float64) { w.x, w.seen = x, append([]float64(nil), x...) }

func (w *augWatcher) Changed(i int) {
	if i < 0 {
		copy(w.seen, w.x)
		return
	}
	w.seen[i] = w.x[i]
}

func (w *augWatcher) Score(x []float64, i int, grad, hess []float64) float64 {
	if i == 0 {
		*w.steps++
		for k := 1; k < len(x); k++ {
			if w.seen[k] != x[k] {
				*w.stale++
				break
			}
		}
	}
	return w.augMixScorer.Score(x, i, grad, hess)
}

// TestAugmentedWatcherSeesDraws: before every augmented step the augmented
// scorer (a DiscreteWatcher) has been told of every class the round drew to a new
// value, with and without a warm-up (whose restarts write the state from outside).
func TestAugmentedWatcherSeesDraws(t *testing.T) {
	for _, warmup := range []int{0, AutoWarmup} {
		var stale, steps int
		m := &augWatchModel{augMixModel: augMixModel{y: []float64{-1.5, 0.2, 2.8, 0.1, -0.4}, c: [3]float64{-2, 0, 2}, w: [3]float64{0.2, 0.5, 0.3}, aug: []int{0}}, stale: &stale, steps: &steps}
		if _, err := Sample(context.Background(), m, &Options{Chains: 1, Draws: 300, Warmup: warmup, Seed: 4}); err != nil {
			t.Fatal(err)
		}
		if steps < 300 || stale > 0 {
			t.Errorf("warm-up %d: %d of %d augmented steps saw classes not reported as changed", warmup, stale, steps)
		}
	}
}
