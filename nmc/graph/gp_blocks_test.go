package graph

import (
	"context"
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

// TestBlockHintKept samples a Gaussian process regression with the default moves:
// every chain keeps the block of the sites its covariance reads after warm-up
// (named by the model, it is not judged by its warm-up moves), so the block's
// Newton step is made in every sweep and its fitted steps are used.
func TestBlockHintKept(t *testing.T) {
	m := buildGPBlock(t, 40, false, false)
	const warmup, draws = 200, 200
	res, err := nmc.Sample(context.Background(), m, &nmc.Options{Chains: 4, Warmup: warmup, Draws: draws, Seed: 2})
	if err != nil {
		t.Fatal(err)
	}
	for c, moves := range res.MovesPerChain {
		found := 0
		for _, st := range moves {
			switch st.Name {
			case "block(rho, alpha, sigma)":
				found++
				if st.Proposals != warmup+draws {
					t.Errorf("chain %d: %d block Newton steps, want %d (one per sweep); unused: %q", c, st.Proposals, warmup+draws, st.Unused)
				}
			case "block(rho, alpha, sigma) fitted":
				found++
				if st.Proposals == 0 {
					t.Errorf("chain %d: no fitted steps of the block; unused: %q", c, st.Unused)
				}
			}
		}
		if found != 2 {
			t.Errorf("chain %d: %d entries of the block in %v, want 2", c, found, moves)
		}
	}
}
