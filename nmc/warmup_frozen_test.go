package nmc

import (
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
