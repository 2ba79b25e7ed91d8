package graph_test

import (
	"context"
	"math"
	"math/rand/v2"
	"os"
	"syscall"
	"testing"
	"time"

	"github.com/nmc-go/nmc/diagnostics"
	"github.com/nmc-go/nmc/nmc"
	"github.com/nmc-go/nmc/nmc/graph"
	"github.com/nmc-go/nmc/sbc"
)

// gpPoisX are the points of posteriordb's gp_pois_regr: −10, −8, …, 10.
var gpPoisX = []float64{-10, -8, -6, -4, -2, 0, 2, 4, 6, 8, 10}

// gpPoisModel is posteriordb's gp_pois_regr written with a latent GP (the centred
// form of the same posterior): rho ~ Gamma(25, 4), alpha ~ HalfNormal(2),
// f ~ MVN(0, K(x | alpha, rho) + 1e-10·I) with K the exponentiated quadratic
// kernel, k ~ PoissonLog(f).
func gpPoisModel(x []float64, k []int) *graph.Builder {
	b := graph.New()
	rho := b.Latent("rho", graph.Gamma(graph.C(25), graph.C(4)))
	alpha := b.Latent("alpha", graph.HalfNormal(graph.C(2)))
	K := graph.AddDiag(graph.ExpQuadCov(graph.Data(x), alpha, rho), graph.C(1e-10))
	f := b.Latent("f", graph.MultivariateNormalCov(graph.C(0), K))
	if k != nil {
		b.ObserveInts("k", graph.PoissonLog(graph.Components(f)), k)
	}
	return b
}

// gpRegModel is a GP regression with the marginal likelihood:
// rho ~ InvGamma(5, 5), alpha ~ HalfNormal(1), sigma ~ HalfNormal(1),
// y ~ MVN(0, K(x | alpha, rho) + sigma²·I).
func gpRegModel(x, y []float64) *graph.Builder {
	b := graph.New()
	rho := b.Latent("rho", graph.InverseGamma(graph.C(5), graph.C(5)))
	alpha := b.Latent("alpha", graph.HalfNormal(graph.C(1)))
	sigma := b.Latent("sigma", graph.HalfNormal(graph.C(1)))
	K := graph.AddDiag(graph.ExpQuadCov(graph.Data(x), alpha, rho), graph.Mul(sigma, sigma))
	b.Observe("y", graph.MultivariateNormalCov(graph.C(0), K), y)
	return b
}

// gpRegX returns n points evenly spread over [−5, 5].
func gpRegX(n int) []float64 {
	x := make([]float64, n)
	for i := range x {
		x[i] = -5 + 10*float64(i)/float64(n-1)
	}
	return x
}

// simulate draws a state and a data set from the prior predictive of the model b
// makes with placeholder data (prior builds the model without data, for the
// state's layout, and withData the posterior given data).
func simulateGP(rng *rand.Rand, prior *graph.Builder) ([]float64, []float64, *graph.Model, error) {
	m, err := prior.Build()
	if err != nil {
		return nil, nil, nil, err
	}
	x := make([]float64, nmc.Dim(m.Sites()))
	y := make([]float64, m.NumReplicated())
	if err := m.PriorPredictive(rng, x, y); err != nil {
		return nil, nil, nil, err
	}
	return x, y, m, nil
}

// cpuSeconds returns the process's user and system CPU time.
func cpuSeconds() float64 {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return math.NaN()
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano()).Seconds()
}

// runGP samples m with 4 chains of 1000 draws after the adaptive warm-up and logs
// the minimum bulk ESS, the maximum R-hat, the wall and CPU time.
func runGP(t *testing.T, name string, m nmc.Model, seed uint64) {
	t.Helper()
	cpu0, wall0 := cpuSeconds(), time.Now()
	r, err := nmc.Sample(context.Background(), m, &nmc.Options{Chains: 4, Draws: 1000, Warmup: nmc.AutoWarmup, Seed: seed})
	if err != nil {
		t.Fatal(err)
	}
	wall, cpu := time.Since(wall0).Seconds(), cpuSeconds()-cpu0
	rows, err := diagnostics.Summarize(r.Draws, nil)
	if err != nil {
		t.Fatal(err)
	}
	minESS, maxRhat := math.Inf(1), 0.0
	var minName, rhatName string
	for _, row := range rows {
		if row.ESSBulk < minESS {
			minESS, minName = row.ESSBulk, row.Variable
		}
		if row.RHat > maxRhat {
			maxRhat, rhatName = row.RHat, row.Variable
		}
	}
	for _, row := range rows {
		if row.Variable == "rho" || row.Variable == "alpha" || row.Variable == "sigma" {
			t.Logf("%s %s: mean %.4g sd %.4g ess_bulk %.0f rhat %.4f", name, row.Variable, row.Mean, row.SD, row.ESSBulk, row.RHat)
		}
	}
	for _, s := range r.Sites {
		t.Logf("%s site %s: %s accepted %d/%d, fallbacks %d", name, s.Name, s.Proposer, s.Accepted, s.Proposals, s.Fallbacks)
	}
	for _, s := range r.Fitted {
		t.Logf("%s %s: accepted %d/%d", name, s.Name, s.Accepted, s.Proposals)
	}
	t.Logf("%s: warm-up sweeps %v; min bulk ESS %.0f (%s), max R-hat %.4f (%s); wall %.2f s, CPU %.2f s", name, r.WarmupSweeps, minESS, minName, maxRhat, rhatName, wall, cpu)
}

// TestGPRuns samples the two GPs with 4 × 1000 draws after the adaptive warm-up
// and logs ESS, R-hat and times (set NMC_GP_RUNS=1; the numbers of the report).
func TestGPRuns(t *testing.T) {
	if os.Getenv("NMC_GP_RUNS") == "" {
		t.Skip("set NMC_GP_RUNS=1 to run")
	}
	rng := rand.New(rand.NewPCG(27, 4))
	{
		st, y, _, err := simulateGP(rng, gpPoisModel(gpPoisX, make([]int, len(gpPoisX))))
		if err != nil {
			t.Fatal(err)
		}
		k := make([]int, len(y))
		for i, v := range y {
			k[i] = int(v)
		}
		t.Logf("gp_pois_regr simulated at rho %.3f alpha %.3f: k = %v", st[0], st[1], k)
		m, err := gpPoisModel(gpPoisX, k).Build()
		if err != nil {
			t.Fatal(err)
		}
		runGP(t, "gp_pois_regr", m, 1)
	}
	for _, n := range []int{30, 133} {
		x := gpRegX(n)
		st, y, _, err := simulateGP(rng, gpRegModel(x, make([]float64, n)))
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("regression n = %d simulated at rho %.3f alpha %.3f sigma %.3f", n, st[0], st[1], st[2])
		m, err := gpRegModel(x, y).Build()
		if err != nil {
			t.Fatal(err)
		}
		runGP(t, "gp_regression", m, 1)
	}
}

var _ = sbc.Run
