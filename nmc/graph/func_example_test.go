package graph_test

import (
	"context"
	"fmt"
	"log"
	"math"
	"math/rand/v2"

	"github.com/nmc-go/nmc/nmc"
	"github.com/nmc-go/nmc/nmc/graph"
	"github.com/nmc-go/nmc/nmc/jet"
)

// The one-compartment pharmacokinetic model of the example: an oral dose D at
// t = 0 is absorbed at rate k_a into a volume V and eliminated with
// Michaelis-Menten kinetics (maximum rate V_m, constant K_m), so that the
// concentration C(t) solves
//
//	dC/dt = e^{−k_a t}·D·k_a/V − (V_m/V)·C/(K_m + C),   C(0) = 0,
//
// integrated by the classical fourth-order Runge-Kutta method with a fixed step,
// and observed at pkTimes with lognormal noise of scale pkSigma.
const (
	pkDose  = 100.0 // mg
	pkStep  = 0.1   // h, the RK4 step
	pkSigma = 0.1   // the observations' log-scale noise
)

// pkTimes are the observation times (hours, multiples of pkStep).
var pkTimes = []float64{0.5, 1, 2, 3, 4, 6, 8, 10, 12, 16, 20, 24}

// pkTruth holds the values the example's data are simulated at: k_a (1/h), V (L),
// V_m (mg/h) and K_m (mg/L).
var pkTruth = []float64{1.0, 10, 8, 4}

// pkConcentrations is the GoFunc of the example: from in = (k_a, V, V_m, K_m) it
// writes the concentrations C(t) at pkTimes into out, integrating the ODE in
// jet Numbers so that every output carries its derivatives in the four inputs.
// Each step's temporaries are released (Mark, Release), so the solve works in a
// few kilobytes whatever its number of steps.
func pkConcentrations(s *jet.Space, in, out []jet.Number) {
	ka, v, vm, km := in[0], in[1], in[2], in[3]
	input, elim := ka.MulConst(pkDose).Div(v), vm.Div(v) // D·k_a/V and V_m/V
	rate := func(t float64, c jet.Number) jet.Number {
		return ka.MulConst(-t).Exp().Mul(input).Sub(elim.Mul(c).Div(km.Add(c)))
	}
	const h = pkStep
	c := jet.Const(0)
	m := s.Mark()
	next := 0
	for i := 0; next < len(out); i++ {
		t := float64(i) * h
		k1 := rate(t, c)
		k2 := rate(t+h/2, c.AddScaled(h/2, k1))
		k3 := rate(t+h/2, c.AddScaled(h/2, k2))
		k4 := rate(t+h, c.AddScaled(h, k3))
		c = c.AddScaled(h/6, k1.AddScaled(2, k2).AddScaled(2, k3).Add(k4))
		s.Release(m, &c)
		if i+1 == int(math.Round(pkTimes[next]/h)) {
			out[next] = c
			next++
			m = s.Mark() // keep out[next−1]: later steps release above it
		}
	}
}

// pkData simulates the example's observations at pkTruth.
func pkData(seed uint64) []float64 {
	conc := make([]jet.Number, len(pkTimes))
	in := make([]jet.Number, 4)
	for i, v := range pkTruth {
		in[i] = jet.Const(v)
	}
	pkConcentrations(jet.NewSpace(0), in, conc)
	rng := rand.New(rand.NewPCG(seed, 27))
	y := make([]float64, len(conc))
	for j, c := range conc {
		y[j] = c.Value() * math.Exp(pkSigma*rng.NormFloat64())
	}
	return y
}

// pkPrior holds the lognormal priors' log-scale means and the common scale.
var pkPrior = struct {
	mu    [4]float64
	scale float64
}{[4]float64{0, math.Log(10), math.Log(8), math.Log(4)}, 0.5}

// pkModel declares the example. The parameters are positive; their logarithms
// logtheta are one Vector site with normal priors (lognormal priors on the
// parameters), so that the sampler moves all four with one Newton step of their
// exact 4×4 Hessian, which follows the strong correlation of V_m and K_m. The
// ODE is solved once per state by graph.Func, whose ten outputs are observed
// with lognormal noise; the parameters and the concentrations are recorded.
func pkModel(y []float64) (*graph.Model, error) {
	b := graph.New()
	logtheta := b.Vector("logtheta", 4, graph.Normal(graph.Data(pkPrior.mu[:]), graph.C(pkPrior.scale)))
	theta := graph.Exp(logtheta) // k_a, V, V_m, K_m
	conc := graph.Func(pkConcentrations, len(pkTimes), theta)
	b.Observe("y", graph.LogNormal(graph.Log(graph.Components(conc)), graph.C(pkSigma)), y)
	for i, name := range pkNames {
		b.Deterministic(name, graph.Index(theta, []int{i}))
	}
	b.Deterministic("C", conc)
	return b.Build()
}

// pkNames name the example's parameters.
var pkNames = []string{"ka", "V", "Vm", "Km"}

// A pharmacokinetic ODE integrated by Runge-Kutta in plain Go inside graph.Func:
// the concentrations at ten times come with exact first and second derivatives
// in the four parameters, so every Newton step of the sampler is exact.
func ExampleFunc() {
	y := pkData(1)
	m, err := pkModel(y)
	if err != nil {
		log.Fatal(err)
	}
	res, err := nmc.Sample(context.Background(), m, &nmc.Options{Chains: 4, Draws: 250, Warmup: nmc.AutoWarmup, Seed: 1})
	if err != nil {
		log.Fatal(err)
	}
	for i, name := range pkNames {
		draws, _ := res.Draws.Param(name)
		var s, s2, n float64
		for _, ch := range draws {
			for _, v := range ch {
				s, s2, n = s+v, s2+v*v, n+1
			}
		}
		mean := s / n
		fmt.Printf("%-2s %4.1f ± %.1f (simulated at %g)\n", name, mean, math.Sqrt(s2/n-mean*mean), pkTruth[i])
	}
	// Output:
	// ka  1.0 ± 0.1 (simulated at 1)
	// V   9.9 ± 0.5 (simulated at 10)
	// Vm  8.8 ± 1.9 (simulated at 8)
	// Km  5.1 ± 2.0 (simulated at 4)
}
