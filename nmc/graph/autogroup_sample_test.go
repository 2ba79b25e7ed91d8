package graph_test

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/nmc-go/nmc/nmc"
	"github.com/nmc-go/nmc/nmc/graph"
	"github.com/nmc-go/nmc/sbc"
)

// centredEightSchools is the centred eight-schools model, with the two groups
// models.EightSchools declares by hand when declare is set.
func centredEightSchools(declare bool) *graph.Builder {
	y := []float64{28, 8, -3, 7, -1, 1, 18, 12}
	sd := []float64{15, 10, 16, 11, 9, 11, 10, 18}
	b := graph.New()
	mu := b.Latent("mu", graph.Normal(graph.C(0), graph.C(5)))
	tau := b.Latent("tau", graph.HalfCauchy(graph.C(5)))
	theta := b.Latent("theta", graph.Normal(mu, tau), len(y))
	if declare {
		b.Group("scale(theta, tau)", graph.DilateAbout(theta, mu, 1), graph.Dilate(tau, 1))
		b.Group("shift(mu, theta)", graph.Shift(mu, 1), graph.Shift(theta, 1))
	}
	b.Observe("y", graph.Normal(theta, graph.Data(sd)), y)
	return b
}

// TestAutoGroupsEightSchoolsDraws checks that the centred eight schools written
// without groups draws, bit for bit, what it draws with the groups declared by
// hand (the groups found are the same orbits in the same order), with the
// adaptive warm-up and the default schedule, and that the moves' statistics
// differ only in the groups' names.
func TestAutoGroupsEightSchoolsDraws(t *testing.T) {
	var res [2]*nmc.Result
	for k, declare := range []bool{false, true} {
		m, err := centredEightSchools(declare).Build()
		if err != nil {
			t.Fatal(err)
		}
		r, err := nmc.Sample(context.Background(), m, &nmc.Options{Seed: 7, Chains: 2, Draws: 300, Warmup: nmc.AutoWarmup})
		if err != nil {
			t.Fatal(err)
		}
		res[k] = r
	}
	a, h := res[0], res[1]
	if !slices.Equal(a.Draws.Names, h.Draws.Names) {
		t.Fatalf("columns %v and %v", a.Draws.Names, h.Draws.Names)
	}
	for c := range a.Draws.Chains {
		ca, ch := a.Draws.Chains[c], h.Draws.Chains[c]
		if len(ca) != len(ch) {
			t.Fatalf("chain %d: %d and %d values", c, len(ca), len(ch))
		}
		for i := range ca {
			if math.Float64bits(ca[i]) != math.Float64bits(ch[i]) {
				t.Fatalf("chain %d value %d (%s): found groups %v, declared %v", c, i/len(a.Draws.Names), a.Draws.Names[i%len(a.Draws.Names)], ca[i], ch[i])
			}
		}
	}
	rename := map[string]string{"auto: dilate theta about mu with tau": "scale(theta, tau)", "auto: shift mu with theta": "shift(mu, theta)"}
	if len(a.Moves) != len(h.Moves) {
		t.Fatalf("moves %d and %d", len(a.Moves), len(h.Moves))
	}
	groups := 0
	for i := range a.Moves {
		sa := a.Moves[i]
		if n, ok := rename[sa.Name]; ok {
			sa.Name = n
			groups++
		}
		if sa != h.Moves[i] && fmt.Sprint(sa) != fmt.Sprint(h.Moves[i]) {
			t.Errorf("move %d: %+v, declared %+v", i, a.Moves[i], h.Moves[i])
		}
	}
	if groups != 2 {
		t.Errorf("%d group moves under automatic names, want 2: %+v", groups, a.Moves)
	}
}

// hierSim draws a small centred hierarchical normal and its data from the prior:
// mu ~ N(0, 2), tau ~ HalfNormal(1), sigma ~ HalfNormal(1), theta_j ~ N(mu, tau)
// (with studentT, theta_j ~ StudentT(4, mu, tau)) for 6 groups of 1, 1, 2, 3, 5
// and 8 rows, y_ij ~ N(theta_j, sigma). The model declares no group: Build finds
// the scale and location groups (at partial rates from the simulated data unless
// noPartial).
func hierSim(noPartial, studentT bool) sbc.Simulator {
	sizes := []int{1, 1, 2, 3, 5, 8}
	return func(rng *rand.Rand) (nmc.Model, map[string]float64, error) {
		mu := 2 * rng.NormFloat64()
		tau := math.Abs(rng.NormFloat64())
		sigma := math.Abs(rng.NormFloat64())
		truth := map[string]float64{"mu": mu, "tau": tau, "sigma": sigma}
		var g []int
		var y []float64
		for j, n := range sizes {
			z := rng.NormFloat64()
			if studentT { // a t with 4 degrees of freedom: z / sqrt(χ²₄/4)
				chi2 := 0.0
				for range 4 {
					e := rng.NormFloat64()
					chi2 += e * e
				}
				z /= math.Sqrt(chi2 / 4)
			}
			th := mu + tau*z
			truth[fmt.Sprintf("theta[%d]", j)] = th
			for range n {
				g, y = append(g, j), append(y, th+sigma*rng.NormFloat64())
			}
		}
		b := graph.New()
		if noPartial {
			b.NoAutoGroups(graph.AutoPartialRates)
		}
		muN := b.Latent("mu", graph.Normal(graph.C(0), graph.C(2)))
		tauN := b.Latent("tau", graph.HalfNormal(graph.C(1)))
		sigmaN := b.Latent("sigma", graph.HalfNormal(graph.C(1)))
		prior := graph.Normal(muN, tauN)
		if studentT {
			prior = graph.StudentT(graph.C(4), muN, tauN)
		}
		theta := b.Latent("theta", prior, len(sizes))
		b.Observe("y", graph.Normal(graph.Index(theta, g), sigmaN), y)
		m, err := b.Build()
		if err != nil {
			return nil, nil, err
		}
		if err := wantGroups(m, "auto: dilate theta about mu with tau", "auto: shift mu with theta"); err != nil {
			return nil, nil, err
		}
		for _, k := range []string{"theta[1]", "theta[2]", "theta[4]"} {
			delete(truth, k)
		}
		return m, truth, nil
	}
}

// varyingSim draws a small varying-intercept regression and its data from the
// prior: mu ~ N(0, 2), tau ~ HalfNormal(1), b ~ N(0, 1), sigma ~ HalfNormal(1),
// a_j ~ N(mu, tau) for 5 groups of 1, 2, 3, 4 and 6 rows, x_i ~ N(3, 1) (far from
// centred), y_i ~ N(a[g_i] + b·x_i, sigma). Build finds the scale and location
// groups, and the coefficient's where b and the intercepts pin each other in
// the simulated data (counted in *coef).
func varyingSim(noPartial bool, coef *int) sbc.Simulator {
	sizes := []int{1, 2, 3, 4, 6}
	return func(rng *rand.Rand) (nmc.Model, map[string]float64, error) {
		mu := 2 * rng.NormFloat64()
		tau := math.Abs(rng.NormFloat64())
		beta := rng.NormFloat64()
		sigma := math.Abs(rng.NormFloat64())
		truth := map[string]float64{"mu": mu, "tau": tau, "b": beta, "sigma": sigma}
		var g []int
		var x, y []float64
		for j, n := range sizes {
			a := mu + tau*rng.NormFloat64()
			if j == 0 || j == 4 {
				truth[fmt.Sprintf("a[%d]", j)] = a
			}
			for range n {
				xi := 3 + rng.NormFloat64()
				g, x, y = append(g, j), append(x, xi), append(y, a+beta*xi+sigma*rng.NormFloat64())
			}
		}
		b := graph.New()
		if noPartial {
			b.NoAutoGroups(graph.AutoPartialRates)
		}
		muN := b.Latent("mu", graph.Normal(graph.C(0), graph.C(2)))
		tauN := b.Latent("tau", graph.HalfNormal(graph.C(1)))
		a := b.Latent("a", graph.Normal(muN, tauN), len(sizes))
		bN := b.Latent("b", graph.Normal(graph.C(0), graph.C(1)))
		sigmaN := b.Latent("sigma", graph.HalfNormal(graph.C(1)))
		b.Observe("y", graph.Normal(graph.Add(graph.Index(a, g), graph.Mul(bN, graph.Data(x))), sigmaN), y)
		m, err := b.Build()
		if err != nil {
			return nil, nil, err
		}
		if err := wantGroups(m, "auto: dilate a about mu with tau", "auto: shift mu with a"); err != nil {
			return nil, nil, err
		}
		if len(m.Groups()) == 3 {
			if err := wantGroups(m, "auto: dilate a about mu with tau", "auto: shift mu with a", "auto: shift b against a and mu"); err != nil {
				return nil, nil, err
			}
			*coef++ // the caller runs one simulation at a time (Workers: 1)
		}
		return m, truth, nil
	}
}

// nonCentredSim simulates the varying-intercept regression of varyingSim in its
// non-centred form, y ~ Normal(b0 + b·x + tau·z[g], sigma) with z ~ Normal(0, 1),
// whose groups Build finds by the non-centred rules (autogroup_nc.go).
func nonCentredSim() sbc.Simulator {
	sizes := []int{1, 2, 3, 4, 6}
	return func(rng *rand.Rand) (nmc.Model, map[string]float64, error) {
		b0 := 2 * rng.NormFloat64()
		tau := math.Abs(rng.NormFloat64())
		beta := rng.NormFloat64()
		sigma := math.Abs(rng.NormFloat64())
		truth := map[string]float64{"b0": b0, "tau": tau, "b": beta, "sigma": sigma}
		var g []int
		var x, y []float64
		for j, n := range sizes {
			z := rng.NormFloat64()
			if j == 0 || j == 4 {
				truth[fmt.Sprintf("z[%d]", j)] = z
			}
			for range n {
				xi := 3 + rng.NormFloat64()
				g, x, y = append(g, j), append(x, xi), append(y, b0+beta*xi+tau*z+sigma*rng.NormFloat64())
			}
		}
		b := graph.New()
		b0N := b.Latent("b0", graph.Normal(graph.C(0), graph.C(2)))
		tauN := b.Latent("tau", graph.HalfNormal(graph.C(1)))
		z := b.Latent("z", graph.Normal(graph.C(0), graph.C(1)), len(sizes))
		bN := b.Latent("b", graph.Normal(graph.C(0), graph.C(1)))
		sigmaN := b.Latent("sigma", graph.HalfNormal(graph.C(1)))
		b.Observe("y", graph.Normal(graph.Add(graph.Add(b0N, graph.Mul(bN, graph.Data(x))), graph.Mul(tauN, graph.Index(z, g))), sigmaN), y)
		m, err := b.Build()
		if err != nil {
			return nil, nil, err
		}
		if err := wantGroups(m, "auto: dilate tau, contract z", "auto: shift b0 against z over tau", "auto: shift b against z over tau"); err != nil {
			return nil, nil, err
		}
		return m, truth, nil
	}
}

// wantGroups returns an error unless m's groups are exactly the named ones (or,
// with fewer names, start with them).
func wantGroups(m *graph.Model, names ...string) error {
	gs := m.Groups()
	if len(gs) < len(names) {
		return fmt.Errorf("groups %v, want %q", gs, names)
	}
	for i, n := range names {
		if gs[i].Name != n {
			return fmt.Errorf("group %d is %q, want %q", i, gs[i].Name, n)
		}
	}
	return nil
}

// TestAutoGroupsCalibrated runs simulation-based calibration (300 simulations of
// 49 draws thinned by 10) of a centred hierarchical normal (and Student-t) and a
// varying-intercept regression written without groups, with the groups Build
// finds, at partial rates and at rate 1, and of the regression's non-centred
// form with the groups the non-centred rules find.
func TestAutoGroupsCalibrated(t *testing.T) {
	if testing.Short() {
		t.Skip("SBC")
	}
	for _, c := range []struct {
		name      string
		varying   bool
		noPartial bool
		studentT  bool
		seed      uint64
	}{
		{"hierarchical normal", false, false, false, 21},
		{"hierarchical normal at rate 1", false, true, false, 22},
		{"hierarchical Student-t", false, false, true, 25},
		{"varying intercept", true, false, false, 23},
		{"varying intercept at rate 1", true, true, false, 24},
		{"non-centred varying intercept", false, false, false, 26},
	} {
		t.Run(c.name, func(t *testing.T) {
			coef := 0
			sim := hierSim(c.noPartial, c.studentT)
			workers := 0
			if c.varying {
				sim = varyingSim(c.noPartial, &coef)
				workers = 1 // the count of coefficient groups is not synchronised
			}
			if c.seed == 26 { // non-centred
				sim = nonCentredSim()
			}
			res, err := sbc.Run(context.Background(), sbc.Config{Simulator: sim, Sims: 300, MaxRank: 49, Seed: c.seed, Workers: workers})
			if err != nil {
				t.Fatal(err)
			}
			checkCalibrated(t, c.name, res)
			if c.varying {
				t.Logf("%s: %d of 300 simulations with the coefficient's group", c.name, coef)
				if coef < 75 {
					t.Errorf("%s: only %d of 300 simulations with the coefficient's group", c.name, coef)
				}
			}
		})
	}
}
