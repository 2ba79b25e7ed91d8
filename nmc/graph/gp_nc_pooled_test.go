package graph_test

import (
	"context"
	"fmt"
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/nmc-go/nmc/diagnostics"
	"github.com/nmc-go/nmc/nmc"
	"github.com/nmc-go/nmc/nmc/graph"
	"github.com/nmc-go/nmc/sbc"
)

// TestGPNCPooled is a diagnosis run, not a check: TestGPPoissonNonCentredCalibrated's
// SBC pooled over the seeds NMC_GPNC_SEEDS names ("13-18"), 200 simulations each
// (NMC_GPNC_SIMS), with the group moves in the schedule unless NMC_GPNC_GROUP=off,
// NMC_GPNC_STEPS lead moves per lead and sweep (3), the adaptive warm-up or
// NMC_GPNC_WARMUP sweeps, every NMC_GPNC_THIN-th sweep (5) of NMC_GPNC_MAXRANK
// (49) ranked; with NMC_GPNC_DEFAULTS set, the model without leads under the
// default schedule instead (TestGPPoissonNonCentredDefaultsCalibrated). It logs each seed's p-values, the pooled χ²
// test of rho's and alpha's ranks, and the simulations with a rank at an end or an
// ESS below 8 (with eta's accepted steps: a trapped chain accepts next to none).
func TestGPNCPooled(t *testing.T) {
	spec := os.Getenv("NMC_GPNC_SEEDS")
	if spec == "" {
		t.Skip("set NMC_GPNC_SEEDS=13-18 to run")
	}
	env := func(name string, def int) int {
		if v, err := strconv.Atoi(os.Getenv(name)); err == nil {
			return v
		}
		return def
	}
	lo, hi, _ := strings.Cut(spec, "-")
	first, err1 := strconv.Atoi(lo)
	last, err2 := strconv.Atoi(hi)
	if err1 != nil || err2 != nil {
		t.Fatalf("NMC_GPNC_SEEDS=%q, want FIRST-LAST", spec)
	}
	sims, thin, maxRank, warm := env("NMC_GPNC_SIMS", 200), env("NMC_GPNC_THIN", 5), env("NMC_GPNC_MAXRANK", 49), env("NMC_GPNC_WARMUP", nmc.AutoWarmup)
	moves := gpLeadSchedule(nmc.LeadMoves{Follow: -1, Steps: env("NMC_GPNC_STEPS", 3)})
	if os.Getenv("NMC_GPNC_GROUP") != "off" {
		moves = append(moves, nmc.GroupMoves{})
	}
	lead := true
	if os.Getenv("NMC_GPNC_DEFAULTS") != "" {
		// The model as a user writes it, no leads declared, and the default schedule.
		moves, lead = nil, false
	}
	vars := []string{"rho", "alpha"}
	sim := gpSimulator(func(k []float64) *graph.Builder { return gpPoisNCBuild(gpPoisX, ints(k), lead) }, len(gpPoisX), vars)
	pooled := make([][]int, len(vars))
	for seed := first; seed <= last; seed++ {
		res, err := sbc.Run(context.Background(), sbc.Config{Simulator: sim, Sims: sims, MaxRank: maxRank, Seed: uint64(seed), Warmup: warm, Thin: thin,
			Sampler: &nmc.Options{Moves: moves}})
		if err != nil {
			t.Fatal(err)
		}
		for i, r := range res.Ranks {
			eta := ""
			for _, s := range res.Stats[i] {
				if s.Name == "eta" {
					eta = fmt.Sprintf("%d/%d", s.Accepted, s.Proposals)
				}
			}
			for v := range vars {
				pooled[v] = append(pooled[v], r[v])
			}
			if r[0] == 0 || r[0] == maxRank || r[1] == 0 || r[1] == maxRank || res.ESS[i][0] < 8 || res.ESS[i][1] < 8 {
				t.Logf("seed %d sim %d: rho %.3f alpha %.3f ranks %v ESS %.1f %.1f eta accepted %s", seed, i, res.Simulated[i][0], res.Simulated[i][1], r, res.ESS[i][0], res.ESS[i][1], eta)
			}
		}
		u, err := res.Uniformity(10)
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("seed %d: rho p %.3g, alpha p %.3g", seed, u[0].PValue, u[1].PValue)
	}
	for v, name := range vars {
		u, err := diagnostics.RankChiSquare(pooled[v], maxRank, 10)
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("pooled %s (%d simulations): χ² = %.2f on %d df, p = %.3g, counts %v", name, len(pooled[v]), u.ChiSquare, u.DF, u.PValue, u.Counts)
	}
}
