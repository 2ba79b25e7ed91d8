package nmc

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
)

// declaring declares every kind of move a model can: a group, a Hamiltonian block,
// a lead and an augmented site (with a Marginalised one). Only DefaultMoves reads
// it.
type declaring struct{ *mvnModel }

func (declaring) Sites() []Site {
	return []Site{{Name: "x", Size: 2, Support: Real}, {Name: "p", Size: 3, Support: Simplex},
		{Name: "z", Size: 1, Support: Discrete, NumValues: 3, Marginalised: true}}
}
func (m declaring) NewScorer() Scorer              { return m }
func (declaring) Init(*rand.Rand, []float64) error { return nil }
func (declaring) Groups() []Group {
	return []Group{{Name: "g", Coords: []OrbitCoord{{Coord: 0, Kind: Shift, Rate: 1}}}}
}
func (declaring) HamiltonianSites() []int                          { return []int{1} }
func (declaring) Leads() []string                                  { return []string{"p"} }
func (declaring) AugmentedSites() []int                            { return []int{1} }
func (m declaring) NewAugmentedScorer() Scorer                     { return m }
func (m declaring) ScoreOrbit([]float64, int, *[2]float64) float64 { return 0 }

// kinds names the moves of a list by their types: "SiteSteps", "GroupMoves", …,
// an AugmentRound that only draws as "AugmentRound(draw)".
func kinds(moves []Move) []string {
	var out []string
	for _, m := range moves {
		name := strings.TrimPrefix(fmt.Sprintf("%T", m), "*nmc.")
		if a, ok := m.(*AugmentRound); ok && a.DrawOnly {
			name += "(draw)"
		}
		out = append(out, name)
	}
	return out
}

// TestDefaultMoves: the rules of the default schedule. With a Hamiltonian block one
// augmentation round and no lead moves; without it (NoHamiltonian) two rounds
// around the lead moves; the rounds as asked; leads named are moved even with the
// block; every kind can be left out; the last round only draws without
// augmentation; a model that declares nothing gets the site steps and the fitted
// steps.
func TestDefaultMoves(t *testing.T) {
	m := declaring{newMVNModel()}
	for _, c := range []struct {
		d    Defaults
		want string
	}{
		{Defaults{}, "SiteSteps GroupMoves FittedSteps HamiltonianMove AugmentRound"},
		{Defaults{NoHamiltonian: true}, "SiteSteps GroupMoves FittedSteps AugmentRound LeadMoves AugmentRound"},
		{Defaults{NoHamiltonian: true, AugmentRounds: 3}, "SiteSteps GroupMoves FittedSteps AugmentRound AugmentRound LeadMoves AugmentRound"},
		{Defaults{AugmentRounds: 2}, "SiteSteps GroupMoves FittedSteps AugmentRound HamiltonianMove AugmentRound"},
		{Defaults{Leads: []string{"p"}}, "SiteSteps GroupMoves FittedSteps HamiltonianMove LeadMoves AugmentRound"},
		{Defaults{NoHamiltonian: true, NoLeadMoves: true, NoGroupMoves: true, NoFitted: true}, "SiteSteps AugmentRound AugmentRound"},
		{Defaults{NoAugment: true}, "SiteSteps GroupMoves FittedSteps HamiltonianMove AugmentRound(draw)"},
	} {
		moves, err := DefaultMoves(m, c.d)
		if err != nil {
			t.Fatal(err)
		}
		if got := strings.Join(kinds(moves), " "); got != c.want {
			t.Errorf("%+v: %s, want %s", c.d, got, c.want)
		}
	}
	moves, err := DefaultMoves(newMVNModel(), Defaults{})
	if err != nil || !slices.Equal(kinds(moves), []string{"SiteSteps", "FittedSteps"}) {
		t.Errorf("a model without declarations: %v, %v", kinds(moves), err)
	}
	if _, err := DefaultMoves(m, Defaults{AugmentRounds: -1}); err == nil || !strings.Contains(err.Error(), "Defaults.AugmentRounds = -1") {
		t.Errorf("negative rounds: %v", err)
	}
}
