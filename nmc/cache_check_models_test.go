package nmc_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/nmc-go/nmc/draws"
	"github.com/nmc-go/nmc/models"
	_ "github.com/nmc-go/nmc/models/ports"
	"github.com/nmc-go/nmc/nmc"
	"github.com/nmc-go/nmc/nmc/graph"
)

// TestCachesHoldTheState runs graph models whose schedules have every kind of
// move — site steps of every support, group moves, fitted steps that replace
// site steps, block Newton moves with their fitted steps, the Hamiltonian block,
// augmentation rounds, lead-and-follow moves with followers — through the
// adaptive warm-up (window ends: dislodging, refinement, restarts), its end and
// the thinning pilot, with the cache check before and after every move (see
// CheckedMoves): every cache that claims to be valid holds the state's point,
// scores and fits, and the chains' Scorers, which keep statistics of the
// discrete values and values of recent states, score the state as fresh ones do.
func TestCachesHoldTheState(t *testing.T) {
	t.Parallel()
	built := func(name string, n, k int, explicit bool) func(*testing.T) nmc.Model {
		return func(t *testing.T) nmc.Model {
			d, err := models.Generate(name, n, k, 3)
			if err != nil {
				t.Fatal(err)
			}
			d.ExplicitClasses = explicit
			b, _, err := d.Build()
			if err != nil {
				t.Fatal(err)
			}
			return b.Model
		}
	}
	auto := nmc.Options{Chains: 2, Draws: 30, Warmup: nmc.AutoWarmup, WarmupMax: 250, WarmupPerChain: true, Seed: 5}
	trapped := nmc.Options{Chains: 2, Draws: 30, WarmupMax: 150, Seed: 3, Init: [][]float64{{-3, 1.8, -2.5, 0.5}}}
	fixed := nmc.Options{Chains: 2, Draws: 30, Warmup: 60, Thin: 1, Seed: 6, FirstChain: 3}
	cases := []struct {
		name  string
		model func(*testing.T) nmc.Model
		opts  nmc.Options
		moves []nmc.Move
		// exercised says what the run must have done for the case to check what
		// it is for ("" when it did).
		exercised func(*nmc.Result) string
	}{
		{"annotation", built("annotation", 40, 6, false), auto, nil, accepted("hmc", "dirichlet-augmented")},
		{"annotation-leads", built("annotation", 40, 6, false), fixed, []nmc.Move{nmc.Defaults{NoHamiltonian: true}}, accepted("lead-follow")},
		{"annotation-explicit", built("annotation", 40, 6, true), fixed, []nmc.Move{nmc.Defaults{}, nmc.LeadMoves{Leads: []string{"pi"}, Follow: -1, Steps: 2}}, accepted("lead-follow", "enumerate")},
		{"annotation-noaugment", built("annotation", 40, 6, false), fixed, []nmc.Move{nmc.Defaults{NoAugment: true, NoHamiltonian: true}}, accepted("marginal-draw", "dirichlet")},
		{"blr", built("blr", 200, 4, false), auto, nil, accepted("orbit-newton", "fitted-gaussian")},
		{"eight_schools", built("eight_schools", 0, 0, false), auto, nil, accepted("orbit-newton", "gamma")},
		{"funnel", built("funnel", 0, 0, false), auto, nil, accepted("orbit-newton", "fitted-gaussian")},
		{"garch11", built("garch11", 0, 0, false), auto, nil, accepted("block-newton", "beta")},
		{"normal_mixture", built("normal_mixture", 0, 0, false), fixed, nil, accepted("block-newton")},
		{"gp_pois_regr", built("gp_pois_regr", 0, 0, false), fixed, nil, accepted("lead-follow", "fitted-gaussian")},
		{"hmm_poisson", built("hmm_poisson", 0, 0, false), fixed, nil, accepted("dirichlet", "gamma")},
		{"explicit-and-summed-out", twoClassModel, fixed, nil, accepted("dirichlet-augmented", "enumerate", "marginal-draw")},
		// Chains trapped at their start (see graph's TestARMA11StartTrapsChain)
		// and restarted from fresh ones.
		{"arma11-restarted", built("arma11", 0, 0, false), trapped, nil, func(r *nmc.Result) string {
			if len(r.Restarts) == 0 {
				return "no chain was restarted"
			}
			return ""
		}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			m := tc.model(t)
			log := &nmc.CacheLog{}
			moves := tc.moves
			if moves == nil {
				moves = []nmc.Move{nmc.Defaults{}}
			}
			o := tc.opts
			o.Moves = []nmc.Move{nmc.CheckedMoves(log, moves...)}
			r, err := nmc.Sample(context.Background(), m, &o)
			if err != nil {
				t.Fatal(err)
			}
			if tc.exercised != nil {
				if msg := tc.exercised(r); msg != "" {
					t.Errorf("the run did not do what the case checks: %s", msg)
					for _, st := range r.Moves {
						t.Logf("%+v", st)
					}
				}
			}
			if err := log.Err(); err != nil {
				t.Error(err)
			}
			if log.Checks() == 0 {
				t.Error("no cache check was made")
			}
		})
	}
}

// twoClassModel is Dawid-Skene in miniature with two kinds of items: the classes
// z of the first are summed out, those of the second, w, stay in the sweep; the
// confusion rows theta, which both select, are augmented. The augmented Scorer
// (graph's, a DiscreteWatcher) counts the labels by row through z and w alike,
// and must be told of w's changes, which the site steps make: told only of z's,
// it scored and drew theta from the counts of w's values at its first round
// (theta[0,0,0]'s mean 0.455 ± 0.034 over 4 × 5000 draws at seed 1, for
// 0.5005 ± 0.0016 from theta's summed-out steps, Defaults.NoAugment).
func twoClassModel(t *testing.T) nmc.Model {
	item := []int{0, 0, 1, 1, 2, 2, 3, 3}
	labeler := []int{0, 1, 0, 1, 0, 1, 0, 1}
	label := []int{0, 0, 1, 1, 0, 1, 1, 1}
	label2 := []int{1, 1, 0, 0, 1, 0, 0, 1}
	b := graph.New()
	pi := b.Latent("pi", graph.Dirichlet(graph.Vec(1, 1)))
	z := b.Latent("z", graph.Categorical(pi), 4)
	w := b.Latent("w", graph.Categorical(pi), 4)
	theta := b.Latent("theta", graph.Dirichlet(graph.Vec(2, 2)), 2, 2) // [labeler, class]
	b.ObserveInts("y", graph.Categorical(graph.At(theta, graph.By(labeler), graph.ByNode(graph.Index(z, item)))), label)
	b.ObserveInts("v", graph.Categorical(graph.At(theta, graph.By(labeler), graph.ByNode(graph.Index(w, item)))), label2)
	b.Marginalise(z)
	b.Augment(theta)
	m, err := b.Build()
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// accepted returns a check that the run accepted proposals of every named
// proposer, in Result.Moves or Result.Sites.
func accepted(proposers ...string) func(*nmc.Result) string {
	return func(r *nmc.Result) string {
		for _, p := range proposers {
			n := 0
			for _, st := range append(append([]draws.SiteStats(nil), r.Moves...), r.Sites...) {
				if st.Proposer == p {
					n += st.Accepted
				}
			}
			if n == 0 {
				return fmt.Sprintf("no %s proposal was accepted", p)
			}
		}
		return ""
	}
}
