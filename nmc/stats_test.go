package nmc

import (
	"strings"
	"testing"

	"github.com/nmc-go/nmc/draws"
)

// TestFittedBlockUnused: a fitted block that makes no proposals says why in its
// statistics instead of leaving an acceptance rate of NaN. The Gaussian site x of
// mvnModel is sampled exactly by its Newton step (acceptance 1), so after a warm-up
// of 100 sweeps every chain leaves its block "fitted(x)" to the site's own steps;
// the Student-t pair t, whose Newton steps accept less than 90%, has too few
// warm-up draws for a fit after 10 sweeps.
func TestFittedBlockUnused(t *testing.T) {
	tpair := studentTModel(3)
	tpair.site.Size = 2
	for _, tc := range []struct {
		m      Model
		warmup int
		want   string
	}{{newMVNModel(), 100, unusedMixed}, {tpair, 10, unusedNoFit}} {
		r := sample(t, tc.m, &Options{Chains: 2, Draws: 50, Warmup: tc.warmup, Seed: 11})
		block := "fitted(" + tc.m.Sites()[0].Name + ")"
		var got []string
		for _, s := range r.AllStats() {
			if s.Name != block {
				continue
			}
			if s.Proposals != 0 {
				t.Errorf("warm-up %d: %s made %d proposals, want 0", tc.warmup, block, s.Proposals)
			}
			got = append(got, s.Unused)
		}
		if len(got) != 1 || got[0] != tc.want {
			t.Errorf("warm-up %d: %s Unused %q, want one entry %q", tc.warmup, block, got, tc.want)
		}
		for c, pc := range r.FittedPerChain {
			if pc[0].Unused != tc.want {
				t.Errorf("warm-up %d, chain %d: Unused %q, want %q", tc.warmup, c, pc[0].Unused, tc.want)
			}
		}
	}
	// A block that some chain used is no longer unused in the total. Chain 0's
	// entry is made used by hand, as a run would give it.
	per := [][]draws.SiteStats{{{Name: "b", Proposals: 3}}, {{Name: "b", Unused: unusedMixed}}}
	if u := unusedTotal(per, 0); u != "" {
		t.Errorf("used in chain 0: total Unused %q, want empty", u)
	}
	per[0][0] = draws.SiteStats{Name: "b", Unused: unusedNoFit}
	if u := unusedTotal(per, 0); !strings.Contains(u, unusedNoFit) || !strings.Contains(u, unusedMixed) {
		t.Errorf("unused in both chains for different reasons: total Unused %q", u)
	}
}
