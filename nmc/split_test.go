package nmc

import (
	"math"
	"sync"
	"testing"
)

// sameChain fails unless chain a of ra and chain b of rb are bit-identical: draws,
// held-out values, per-site and per-group counts and adapted step settings.
func sameChain(t *testing.T, what string, ra *Result, a int, rb *Result, b int) {
	t.Helper()
	x, y := ra.Draws.Chains[a], rb.Draws.Chains[b]
	if len(x) == 0 || len(x) != len(y) {
		t.Fatalf("%s: %d vs %d values", what, len(x), len(y))
	}
	for i := range x {
		if math.Float64bits(x[i]) != math.Float64bits(y[i]) {
			t.Fatalf("%s: value %d: %v vs %v", what, i, x[i], y[i])
		}
	}
	if ra.HeldOut != nil {
		for i, v := range ra.HeldOut[a] {
			if math.Float64bits(v) != math.Float64bits(rb.HeldOut[b][i]) {
				t.Fatalf("%s: held-out value %d: %v vs %v", what, i, v, rb.HeldOut[b][i])
			}
		}
	}
	for i := range ra.Sites {
		if sa, sb := ra.SitesPerChain[a][i], rb.SitesPerChain[b][i]; sa != sb {
			t.Errorf("%s: site %q counts %+v vs %+v", what, ra.Sites[i].Name, sa, sb)
		}
	}
	if len(ra.Moves) != len(rb.Moves) {
		t.Errorf("%s: %d moves' statistics vs %d", what, len(ra.Moves), len(rb.Moves))
	} else if ra.MovesPerChain != nil {
		for k := range ra.Moves {
			if sa, sb := ra.MovesPerChain[a][k], rb.MovesPerChain[b][k]; sa != sb {
				t.Errorf("%s: move %q counts %+v vs %+v", what, ra.Moves[k].Name, sa, sb)
			}
		}
	}
	if ra.StepFractions != nil && ra.StepFractions[a] != rb.StepFractions[b] {
		t.Errorf("%s: step fractions %+v vs %+v", what, ra.StepFractions[a], rb.StepFractions[b])
	}
	if ra.CrankNicolsonGammas != nil {
		for i, g := range ra.CrankNicolsonGammas[a] {
			if math.Float64bits(g) != math.Float64bits(rb.CrankNicolsonGammas[b][i]) {
				t.Errorf("%s: Crank–Nicolson γ of site %d: %v vs %v", what, i, g, rb.CrankNicolsonGammas[b][i])
			}
		}
	}
}

// lastHeld is a held-out "likelihood" reading the state, so that held-out values are
// compared too.
type lastHeld struct{}

func (lastHeld) Len() int { return 2 }
func (lastHeld) LogLik(x, dst []float64) {
	dst[0], dst[1] = -x[0]*x[0], math.Log(x[2])
}

// TestFirstChainBitIdentical: the chains of a run split into pieces with FirstChain
// (as over the tasks of a job array) are bit-identical to the same chains of one
// local run with the same seed, with warm-up, on a model with every kind of site and
// with each step rule, including per-chain starts (Init, indexed locally) and
// adaptation.
func TestFirstChainBitIdentical(t *testing.T) {
	t.Parallel()
	m := kitchenSinkModel()
	init := make([][]float64, 4)
	for c := range init {
		init[c] = []float64{0.5 * float64(c), 1, 1.5, 0.3, 0.2, 0.3, 0.5, float64(c % 3), 0.5, float64(2 + c)}
	}
	for _, c := range []struct {
		name string
		o    Options
	}{
		{"newton", Options{Warmup: NoWarmup}},
		{"beta step adapted", Options{Warmup: NoWarmup, Moves: withReal(RealProposal{Step: BetaStep{A: 2, B: 1, Adapt: true}})}},
		{"robust cauchy crank-nicolson adapted", Options{Warmup: NoWarmup, Moves: withReal(RealProposal{Cauchy: true, Robust: true, Step: CrankNicolson{Gamma: 0.3, Adapt: true}})}},
		{"init per chain", Options{Warmup: NoWarmup, Init: init}},
	} {
		t.Run(c.name, func(t *testing.T) {
			base := c.o
			base.Draws, base.Warmup, base.Seed, base.HeldOut = 120, 60, 17, lastHeld{}
			local := base
			local.Chains = 4
			whole := sample(t, m, &local)
			if whole.FirstChain != 0 {
				t.Errorf("local run: FirstChain %d", whole.FirstChain)
			}
			for _, piece := range [][2]int{{0, 1}, {1, 1}, {2, 2}, {3, 1}} {
				o := base
				o.FirstChain, o.Chains = piece[0], piece[1]
				if base.Init != nil {
					o.Init = base.Init[piece[0] : piece[0]+piece[1]]
				}
				var mu sync.Mutex
				seen := map[int]bool{}
				o.Progress = func(p Progress) {
					mu.Lock()
					seen[p.Chain] = true
					mu.Unlock()
				}
				r := sample(t, m, &o)
				if r.FirstChain != piece[0] || r.Options.FirstChain != piece[0] {
					t.Errorf("FirstChain %d (options %d), want %d", r.FirstChain, r.Options.FirstChain, piece[0])
				}
				for lc := range piece[1] {
					if !seen[lc] {
						t.Errorf("chains %v: no progress report for local chain %d (seen %v)", piece, lc, seen)
					}
					sameChain(t, c.name, whole, piece[0]+lc, r, lc)
				}
				if len(seen) != piece[1] {
					t.Errorf("chains %v: progress reported for chains %v, want the local indices 0 … %d", piece, seen, piece[1]-1)
				}
			}
		})
	}
}
