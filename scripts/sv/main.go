// Command sv measures the stochastic volatility model as a new user writes it
// with the graph API, centred (h[t] declared one by one in a Go loop) or
// non-centred (-nc: h built from standardised innovations), on a simulated
// series of T steps (μ = −1, φ = 0.95, σ = 0.25), and prints the least mixed
// parameters, the moves and the CPU time. -stan FILE writes the series as
// CmdStan JSON for sv_c.stan and sv_nc.stan beside this file (run them with
// scripts/stan/run.R FILE.stan DATA.json SEED mu,phi,sigma).
//
//	go run ./scripts/sv -T 200 -seed 1
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"log"
	"math"
	"math/rand/v2"
	"os"
	"sort"

	"github.com/nmc-go/nmc/diagnostics"
	"github.com/nmc-go/nmc/nmc"
	"github.com/nmc-go/nmc/nmc/graph"
)

func main() {
	T := flag.Int("T", 200, "time steps")
	nc := flag.Bool("nc", false, "the non-centred form")
	seed := flag.Uint64("seed", 1, "the sampler's seed")
	thin := flag.Int("thin", 0, "record every thin-th sweep (0: the sampler chooses)")
	stan := flag.String("stan", "", "write the data as CmdStan JSON to this file and stop")
	flag.Parse()
	if *T < 2 {
		log.Fatalf("sv: -T %d, want at least 2", *T)
	}
	y := simulate(*T)
	if *stan != "" {
		b, err := json.Marshal(map[string]any{"T": *T, "y": y})
		if err != nil {
			log.Fatal(err)
		}
		if err := os.WriteFile(*stan, b, 0o644); err != nil {
			log.Fatal(err)
		}
		return
	}
	m, err := build(y, *nc)
	if err != nil {
		log.Fatal(err)
	}
	res, err := nmc.Sample(context.Background(), m, &nmc.Options{Seed: *seed, Thin: *thin})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(res.Schedule)
	rows, err := diagnostics.Summarize(res.Draws, nil)
	if err != nil {
		log.Fatal(err)
	}
	sort.Slice(rows, func(i, j int) bool { return rows[i].ESSBulk < rows[j].ESSBulk })
	for _, r := range rows {
		if r.Variable == "mu" || r.Variable == "phi" || r.Variable == "sigma" {
			fmt.Printf("%-6s mean %8.4f sd %7.4f R-hat %.3f bulk ESS %6.0f tail ESS %6.0f\n", r.Variable, r.Mean, r.SD, r.RHat, r.ESSBulk, r.ESSTail)
		}
	}
	fmt.Printf("least bulk ESS %.0f (%s); warm-up %v sweeps, thin %v; CPU %.1f s\n", rows[0].ESSBulk, rows[0].Variable, res.WarmupSweeps, res.Thin, res.CPU.Seconds())
}

// simulate returns a series of t steps from the model at μ = −1, φ = 0.95,
// σ = 0.25 (a fixed seed).
func simulate(t int) []float64 {
	rng := rand.New(rand.NewPCG(7, 7))
	mu, phi, sigma := -1.0, 0.95, 0.25
	h := mu + sigma/math.Sqrt(1-phi*phi)*rng.NormFloat64()
	y := make([]float64, t)
	for i := range y {
		if i > 0 {
			h = mu + phi*(h-mu) + sigma*rng.NormFloat64()
		}
		y[i] = math.Exp(h/2) * rng.NormFloat64()
	}
	return y
}

// build declares the model as sv_c.stan (nc: sv_nc.stan) states it.
func build(y []float64, nc bool) (*graph.Model, error) {
	b := graph.New()
	mu := b.Latent("mu", graph.Cauchy(graph.C(0), graph.C(10)))
	phi := b.Latent("phi", graph.Uniform(graph.C(-1), graph.C(1)))
	sigma := b.Latent("sigma", graph.HalfCauchy(graph.C(5)))
	sd0 := graph.Div(sigma, graph.Sqrt(graph.Sub(graph.C(1), graph.Mul(phi, phi))))
	h := make([]*graph.Node, len(y))
	if nc {
		hstd := b.Latent("h_std", graph.Normal(graph.C(0), graph.C(1)), len(y))
		h[0] = graph.Add(mu, graph.Mul(graph.Index(hstd, []int{0}), sd0))
		for t := 1; t < len(y); t++ {
			h[t] = graph.Add(graph.Add(mu, graph.Mul(phi, graph.Sub(h[t-1], mu))), graph.Mul(graph.Index(hstd, []int{t}), sigma))
		}
	} else {
		h[0] = b.Latent("h[0]", graph.Normal(mu, sd0))
		for t := 1; t < len(y); t++ {
			h[t] = b.Latent(fmt.Sprintf("h[%d]", t), graph.Normal(graph.Add(mu, graph.Mul(phi, graph.Sub(h[t-1], mu))), sigma))
		}
	}
	b.Observe("y", graph.Normal(graph.C(0), graph.Exp(graph.Mul(graph.C(0.5), graph.Concat(h...)))), y)
	return b.Build()
}
