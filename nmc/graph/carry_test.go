package graph_test

import (
	"context"
	"fmt"
	"math"
	"slices"
	"testing"

	"github.com/nmc-go/nmc/nmc"
	"github.com/nmc-go/nmc/nmc/graph"
	"github.com/nmc-go/nmc/sbc"
)

// TestKernelCarryDeclared checks where rule AutoKernelCarry makes its move: the
// non-centred gp_pois_regr, alpha and rho carrying eta, in the default schedule
// after the group moves; not with the rule turned off, nor in the centred form.
func TestKernelCarryDeclared(t *testing.T) {
	m, err := gpPoisNCModel(gpPoisX, gpPoisK).Build()
	if err != nil {
		t.Fatal(err)
	}
	moves := m.ModelMoves()
	if len(moves) != 1 {
		t.Fatalf("ModelMoves: %d moves, want 1", len(moves))
	}
	sched, err := nmc.Plan(m, &nmc.Options{})
	if err != nil {
		t.Fatal(err)
	}
	names := fmt.Sprint(sched)
	const want = "auto: alpha, rho carrying eta"
	if !slices.ContainsFunc(sched, func(p nmc.Planned) bool { return p.Name() == want }) {
		t.Errorf("default schedule %s has no move %q", names, want)
	}
	off := gpPoisNCModel(gpPoisX, gpPoisK)
	off.NoAutoGroups(graph.AutoKernelCarry)
	mo, err := off.Build()
	if err != nil {
		t.Fatal(err)
	}
	if n := len(mo.ModelMoves()); n != 0 {
		t.Errorf("NoAutoGroups(AutoKernelCarry): %d moves, want none", n)
	}
	mc, err := gpPoisModel(gpPoisX, gpPoisK).Build()
	if err != nil {
		t.Fatal(err)
	}
	if n := len(mc.ModelMoves()); n != 0 {
		t.Errorf("centred form: %d moves, want none", n)
	}
}

// TestKernelCarryKeepsF runs the carry move alone, at the prior draw Init makes:
// alpha and rho move (69 of 300 proposals accepted at seed 5) and the process f = L·eta, recorded as a derived quantity,
// does not, to rounding.
func TestKernelCarryKeepsF(t *testing.T) {
	m, err := gpPoisNCModel(gpPoisX, gpPoisK).Build()
	if err != nil {
		t.Fatal(err)
	}
	res, err := nmc.Sample(context.Background(), m, &nmc.Options{Chains: 1, Draws: 200, Warmup: 100, Seed: 5, Moves: m.ModelMoves()})
	if err != nil {
		t.Fatal(err)
	}
	st := res.Moves[0]
	if st.Proposals != 300 || !(float64(st.Accepted) > 0.1*float64(st.Proposals)) {
		t.Errorf("move %s: %d of %d proposals accepted, want over 10%% of 300", st.Name, st.Accepted, st.Proposals)
	}
	for _, name := range []string{"alpha", "rho"} {
		col, err := res.Draws.Param(name)
		if err != nil {
			t.Fatal(err)
		}
		v := slices.Clone(col[0])
		slices.Sort(v)
		if n := len(slices.Compact(v)); n < 20 {
			t.Errorf("%s took %d distinct values in 200 draws, want at least 20", name, n)
		}
	}
	for i := range gpPoisX {
		col, err := res.Draws.Param(fmt.Sprintf("f[%d]", i))
		if err != nil {
			t.Fatal(err)
		}
		f0 := col[0][0]
		for d, f := range col[0] {
			if !(math.Abs(f-f0) <= 1e-8*math.Max(1, math.Abs(f0))) {
				t.Fatalf("f[%d] at draw %d is %.17g, at draw 0 %.17g", i, d, f, f0)
			}
		}
	}
}

// TestGPPoissonNonCentredDefaultsCalibrated runs SBC on the non-centred
// gp_pois_regr as a user writes it (no leads declared) under the default
// schedule, adaptive warm-up, every 5th sweep ranked, pooled over seeds 13–18
// (1200 simulations of 49 draws). Without the carry move (rule AutoKernelCarry)
// rho's ranks rejected uniformity (p 5·10⁻⁵, piling up at both ends: rho pinned
// by eta); with it rho p 0.085, alpha 0.089.
func TestGPPoissonNonCentredDefaultsCalibrated(t *testing.T) {
	if testing.Short() {
		t.Skip("SBC")
	}
	t.Parallel()
	vars := []string{"rho", "alpha"}
	sim := gpSimulator(func(k []float64) *graph.Builder { return gpPoisNCModel(gpPoisX, ints(k)) }, len(gpPoisX), vars)
	var pooled *sbc.Result
	for seed := uint64(13); seed <= 18; seed++ {
		res, err := sbc.Run(context.Background(), sbc.Config{Simulator: sim, Sims: 200, MaxRank: 49, Seed: seed, Warmup: nmc.AutoWarmup, Thin: 5})
		if err != nil {
			t.Fatal(err)
		}
		if pooled == nil {
			pooled = res
			continue
		}
		pooled.Ranks = append(pooled.Ranks, res.Ranks...)
		pooled.ESS = append(pooled.ESS, res.ESS...)
	}
	checkCalibrated(t, "gp_pois_regr non-centred, default schedule", pooled)
}

// TestKernelCarryOnePoint runs the carry move on a GP of one point, whose
// CholeskyMul reads its covariance without a Reshape: f = √(α² + 0.5)·η stays
// while α and ρ move (with K's kernel alone taken for K, α·η would).
func TestKernelCarryOnePoint(t *testing.T) {
	b := graph.New()
	rho := b.Latent("rho", graph.Gamma(graph.C(25), graph.C(4)))
	alpha := b.Latent("alpha", graph.HalfNormal(graph.C(2)))
	eta := b.Vector("eta", 1, graph.Normal(graph.C(0), graph.C(1)))
	f := graph.CholeskyMul(graph.AddDiag(graph.ExpQuadCov(graph.Data([]float64{0.5}), alpha, rho), graph.C(0.5)), eta)
	b.Deterministic("f", f)
	b.ObserveInts("k", graph.PoissonLog(f), []int{7})
	m, err := b.Build()
	if err != nil {
		t.Fatal(err)
	}
	if len(m.ModelMoves()) != 1 {
		t.Fatalf("ModelMoves: %d moves, want 1", len(m.ModelMoves()))
	}
	res, err := nmc.Sample(context.Background(), m, &nmc.Options{Chains: 1, Draws: 100, Warmup: 50, Seed: 2, Moves: m.ModelMoves()})
	if err != nil {
		t.Fatal(err)
	}
	if st := res.Moves[0]; !(st.Accepted > 15) {
		t.Errorf("%d of %d proposals accepted", st.Accepted, st.Proposals)
	}
	col, err := res.Draws.Param("f")
	if err != nil {
		t.Fatal(err)
	}
	for d, v := range col[0] {
		if !(math.Abs(v-col[0][0]) <= 1e-8*math.Max(1, math.Abs(v))) {
			t.Fatalf("f at draw %d is %.17g, at draw 0 %.17g", d, v, col[0][0])
		}
	}
}
