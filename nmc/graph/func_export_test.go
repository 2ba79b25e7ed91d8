package graph

import (
	"math/rand/v2"
	"testing"
)

// CheckModelDerivs is checkModelDerivs for the external tests: it checks up to
// points acceptable prior draws (of at most tries) and returns how many it
// checked.
func CheckModelDerivs(t *testing.T, name string, m *Model, rng *rand.Rand, points, tries int) int {
	t.Helper()
	return checkModelDerivs(t, name, m, rng, points, tries).points
}
