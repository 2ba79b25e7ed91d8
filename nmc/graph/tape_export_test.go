package graph

import "github.com/nmc-go/nmc/nmc"

// NewScorerWithoutTape is m.NewScorer whose scores never run a site's tape
// (tape.go): the general path, for comparisons with the tape.
func NewScorerWithoutTape(m *Model) nmc.Scorer {
	sc := m.NewScorer()
	sc.(*scorer).tape.off = true
	return sc
}
