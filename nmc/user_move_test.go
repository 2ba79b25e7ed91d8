package nmc_test

import (
	"context"
	"math"
	"strings"
	"testing"

	"github.com/nmc-go/nmc/diagnostics"
	"github.com/nmc-go/nmc/nmc"
)

// TestUserMoveExact: a move written outside the package (walk, a random-walk
// Metropolis-Hastings step) samples the closed-form posterior of a normal mean,
// alone and beside the default schedule's NMC steps of another site, which it
// takes no site from; its statistics are an entry of Result.Moves and its site
// leaves the site steps. Means and variances are within 4.5 MCSE of the exact ones.
func TestUserMoveExact(t *testing.T) {
	t.Parallel()
	m := normalMeans{names: []string{"mu", "nu"}, ys: [][]float64{{1.2, 0.8, 1.9, 1.4}, {-0.3, 0.2, 2.1}}}
	for _, c := range []struct {
		name     string
		moves    []nmc.Move
		schedule string
	}{
		{"alone", []nmc.Move{walk{Site: "mu", Scale: 1}, walk{Site: "nu", Scale: 0.6}}, "walk(mu)\nwalk(nu)\n"},
		{"with the defaults", []nmc.Move{nmc.Defaults{}, walk{Site: "mu", Scale: 1}}, "sites: an NMC step of nu\nwalk(mu)\n"},
	} {
		res, err := nmc.Sample(context.Background(), m, &nmc.Options{Warmup: nmc.NoWarmup, Chains: 4, Draws: 20000, Seed: 41, Moves: c.moves})
		if err != nil {
			t.Fatal(err)
		}
		if got := res.Schedule.String(); got != c.schedule {
			t.Errorf("%s: schedule %q, want %q", c.name, got, c.schedule)
		}
		for k, name := range m.names {
			mean, sd := m.exact(k)
			draws, err := res.Draws.Param(name)
			if err != nil {
				t.Fatal(err)
			}
			checkMean(t, c.name+": mean of "+name, draws, mean)
			sq := make([][]float64, len(draws))
			for ch, col := range draws {
				for _, v := range col {
					sq[ch] = append(sq[ch], (v-mean)*(v-mean))
				}
			}
			checkMean(t, c.name+": variance of "+name, sq, sd*sd)
		}
		w := res.Moves[0]
		if w.Name != "walk(mu)" || w.Proposer != "random-walk" || w.Proposals != 4*20000 || !(w.AcceptRate() > 0.3 && w.AcceptRate() < 0.8) {
			t.Errorf("%s: walk statistics %+v", c.name, w)
		}
		if mu := res.Sites[0]; mu.Proposals != 0 {
			t.Errorf("%s: mu still has %d site steps", c.name, mu.Proposals)
		}
	}
}

// checkMean checks that the mean of draws is within 4.5 of its MCSE of want.
func checkMean(t *testing.T, what string, draws [][]float64, want float64) {
	t.Helper()
	got, err1 := diagnostics.Mean(draws)
	se, err2 := diagnostics.MCSEMean(draws)
	if err1 != nil || err2 != nil {
		t.Fatal(err1, err2)
	}
	if z := (got - want) / se; !(math.Abs(z) < 4.5) {
		t.Errorf("%s %.5f, exact %.5f: z = %.2f (MCSE %.5f)", what, got, want, z, se)
	}
}

// TestUserMoveErrors: a move's Plan error stops Sample before any chain starts.
func TestUserMoveErrors(t *testing.T) {
	m := normalMeans{names: []string{"mu"}, ys: [][]float64{{1}}}
	for _, c := range []struct {
		move nmc.Move
		want string
	}{
		{walk{Site: "sigma", Scale: 1}, `nmc: the model has no site "sigma"`},
		{nil, "nmc: Options.Moves[0] is nil"},
	} {
		_, err := nmc.Sample(context.Background(), m, &nmc.Options{Warmup: nmc.NoWarmup, Chains: 1, Draws: 10, Moves: []nmc.Move{c.move}})
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%v: error %v, want one containing %q", c.move, err, c.want)
		}
	}
}
