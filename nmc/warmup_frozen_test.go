package nmc

import (
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
)

// rejectedCollapsedModel is collapsedModel with x's gradient reported as 10²²:
// x's Newton step (10⁻¹⁸) and spread (10⁻²⁰) are below the spacing of float64,
// so every proposal of x is its current point bit for bit, and its Newton
// decrement (10²²)²/10⁴⁰ = 10⁴ makes every step's log ratio about −5000: the
// steps of x are all rejected, none accepted without moving it.
type rejectedCollapsedModel struct{ collapsedModel }

func (m rejectedCollapsedModel) NewScorer() Scorer { return m }
func (rejectedCollapsedModel) Init(rng *rand.Rand, x []float64) error {
	return collapsedModel{}.Init(rng, x)
}
func (m rejectedCollapsedModel) Score(x []float64, i int, grad, hess []float64) float64 {
	f := m.collapsedModel.Score(x, i, grad, hess)
	if grad != nil && i == 0 {
		grad[0] = 1e22
	}
	return f
}

// TestFrozenRejectedRestarts: a site frozen with every step rejected (not
// accepted at its current point, as TestUnmovedProposals's) is frozen all the
// same (frozenSpacings): the adaptive warm-up restarts each chain at the end of
// each of its first three windows, reports the restarts, and lists x in
// Result.Stuck.
func TestFrozenRejectedRestarts(t *testing.T) {
	r := sample(t, rejectedCollapsedModel{}, &Options{Chains: 2, Draws: 100, Seed: 12})
	x := r.Sites[0]
	if x.Proposals == 0 || x.Accepted != 0 || x.Unmoved != 0 {
		t.Errorf("x: %d proposals, %d accepted, %d unmoved; want every proposal rejected", x.Proposals, x.Accepted, x.Unmoved)
	}
	var want []Restart
	for c := range 2 {
		for k := range maxRestarts {
			want = append(want, Restart{Chain: c, Sweep: autoWindow * (k + 1), Site: "x", Proposals: autoWindow})
		}
	}
	if !slices.Equal(r.Restarts, want) {
		t.Errorf("Restarts %+v, want %+v", r.Restarts, want)
	}
	w := strings.Join(r.Warnings(), "\n")
	for _, rs := range want {
		if !strings.Contains(w, rs.String()) {
			t.Errorf("Warnings() = %q, want %q among them", w, rs.String())
		}
	}
	if len(r.Stuck) != 1 || r.Stuck[0].Name != "x" || !slices.Equal(r.Stuck[0].Chains, []int{0, 1}) {
		t.Errorf("Stuck = %+v, want x in chains 0 and 1", r.Stuck)
	}
}

// TestFailedDislodgeKeepsCurrentSlot: a dislodging draw that is refused (its
// score is −Inf) leaves the state as it was, and the site's cached current
// point, whichever of its two slots holds it, is that state or is scored anew:
// fitAtCurrent writes both slots, so a refused draw written into the cached
// current slot would become the point the next step starts from, and is put
// into the state by the step's rejection.
func TestFailedDislodgeKeepsCurrentSlot(t *testing.T) {
	// Finite only within 1e-9 of 0.5: every draw of the Newton proposal N(0.5, 1)
	// is refused.
	m := &scalarModel{site: Site{Name: "x", Size: 1, Support: Real},
		fn: func(x float64) (f, g, h float64) {
			d := x - 0.5
			if math.Abs(d) > 1e-9 {
				return math.Inf(-1), 0, 0
			}
			return -0.5 * d * d, -d, -1
		},
		init: func(*rand.Rand) float64 { return 0.5 }}
	for cur := range 2 {
		ch := newTestChain(t, m, &Options{Warmup: AutoWarmup, Seed: 5})
		ss := &ch.sites[0]
		ss.cur = uint8(cur)
		s := &ss.slots[cur]
		copy(s.x, ch.x)
		s.f = ch.sc.sc.Score(ch.x, 0, s.g, s.h)
		ss.prop.fit(s)
		ch.setValid(0)
		ss.stats.Proposals = autoWindow // a window of proposals, none accepted
		copy(ch.warm.from, ch.x)
		moved, frozen := ch.dislodge()
		if moved || frozen >= 0 || ch.x[0] != 0.5 {
			t.Fatalf("slot %d: dislodge moved %v, frozen %d, x %v: want the draw refused", cur, moved, frozen, ch.x)
		}
		if ch.isValid(0) && ss.slots[ss.cur].x[0] != ch.x[0] {
			t.Errorf("slot %d: the cached current point is %v, the state %v", cur, ss.slots[ss.cur].x, ch.x)
		}
	}
}
