package nmc

import (
	"strings"
	"testing"
)

// hintedModel is the coupled model that names sets of sites together
// (BlockHinter).
type hintedModel struct {
	coupledModel
	hints [][]int
}

func (m hintedModel) BlockHints() [][]int { return m.hints }

// TestAutoBlocksHinted plans AutoBlocks with a threshold above every coupling on
// the coupled model that names a (Real) and t (Positive), which no factor reads
// together: the block of the two is planned, said to be named by the model, and
// nothing else; a hint of one site names no block.
func TestAutoBlocksHinted(t *testing.T) {
	opts := func(moves ...Move) *Options { return &Options{Seed: 1, Moves: moves} }
	s, err := Plan(hintedModel{hints: [][]int{{0, 6}}}, opts(SiteSteps{}, AutoBlocks{Threshold: 0.999}))
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("schedule:\n%s", s)
	if got := s.String(); !strings.Contains(got, "block(a, t):") || !strings.Contains(got, "named by the model") || strings.Count(got, "block(") != 1 {
		t.Errorf("want block(a, t) named by the model and no other block:\n%s", got)
	}
	s, err = Plan(hintedModel{hints: [][]int{{0}}}, opts(SiteSteps{}, AutoBlocks{Threshold: 0.999}))
	if err != nil || strings.Contains(s.String(), "block(") {
		t.Errorf("a hint of one site: %v\n%s", err, s)
	}
}
