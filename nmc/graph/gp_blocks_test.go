package graph

import (
	"slices"
	"strings"
	"testing"

	"github.com/nmc-go/nmc/nmc"
)

// TestBlockHints checks the sets of sites the graph models name for AutoBlocks:
// a Gaussian process regression's rho, alpha and sigma (the sites its observed
// multivariate normal's covariance reads), planned as one block; none for a latent
// Gaussian process or a model without a multivariate normal.
func TestBlockHints(t *testing.T) {
	m := buildGPBlock(t, 12, false, false)
	var want []int
	for _, name := range []string{"rho", "alpha", "sigma"} {
		want = append(want, slices.IndexFunc(m.Sites(), func(s nmc.Site) bool { return s.Name == name }))
	}
	if got := m.BlockHints(); len(got) != 1 || !slices.Equal(got[0], want) {
		t.Errorf("gp regression: hints %v, want [%v]", got, want)
	}
	s, err := nmc.Plan(m, &nmc.Options{Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(s.String(), "block(rho, alpha, sigma): ") || !strings.Contains(s.String(), "named by the model") {
		t.Errorf("gp regression: no block(rho, alpha, sigma) named by the model in the schedule:\n%s", s)
	}
	for name, m := range map[string]*Model{"gp latent": buildGPBlock(t, 6, false, true), "scalar regression": buildScalarRegression(t, 30, 1)} {
		if got := m.BlockHints(); len(got) != 0 {
			t.Errorf("%s: hints %v, want none", name, got)
		}
	}
}
