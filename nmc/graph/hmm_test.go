package graph_test

import (
	"context"
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/nmc-go/nmc/diagnostics"
	"github.com/nmc-go/nmc/nmc"
	"github.com/nmc-go/nmc/nmc/graph"
)

// A short hidden Markov chain written as a user writes it: states z[0] … z[3], each
// z_t ~ Categorical(theta[z_{t−1}]) with its row of transition probabilities picked
// from a plate of Dirichlet rows by the previous state (At … ByNode), z0 from a
// fixed initial distribution, and observed emissions y_t ~ Categorical(E[z_t]),
// E known, or a plate of Dirichlet rows phi too.
var (
	hmmInit  = []float64{0.6, 0.4}
	hmmAlpha = []float64{2, 1}   // each transition row's prior
	hmmBeta  = []float64{1, 1.5} // each emission row's prior (latent emissions)
	hmmEmit  = [][]float64{{0.8, 0.2}, {0.3, 0.7}}
	hmmY     = []int{0, 1, 1, 0}
)

// hmmForm is a way to declare and sample the chain: the emission rows latent, the
// states summed out, and the transition rows moved by the Hamiltonian block or by
// data augmentation.
type hmmForm struct {
	latentEmit bool
	marg       []int
	ham, aug   bool
}

// buildHMM declares the chain in form f.
func buildHMM(t *testing.T, f hmmForm) *graph.Model {
	t.Helper()
	b := graph.New()
	theta := b.Latent("theta", graph.Dirichlet(graph.Vec(hmmAlpha...)), 2)
	emit := graph.Rows(hmmEmit)
	if f.latentEmit {
		emit = b.Latent("phi", graph.Dirichlet(graph.Vec(hmmBeta...)), 2)
	}
	zs := make([]*graph.Node, len(hmmY))
	for i := range zs {
		p := graph.Vec(hmmInit...)
		if i > 0 {
			p = graph.At(theta, graph.ByNode(zs[i-1]))
		}
		zs[i] = b.Latent(fmt.Sprintf("z[%d]", i), graph.Categorical(p))
		b.ObserveInts(fmt.Sprintf("y%d", i), graph.Categorical(graph.At(emit, graph.ByNode(zs[i]))), []int{hmmY[i]})
	}
	for _, i := range f.marg {
		b.Marginalise(zs[i])
	}
	if f.ham {
		b.Hamiltonian(theta)
	}
	if f.aug {
		b.Augment(theta)
	}
	m, err := b.Build()
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// hmmExact returns the exact posterior means of the chain declared with latent
// emissions or not — P(z_t = 1 | y), E[theta[i,1] | y] and E[phi[i,1] | y] keyed by
// column name — by enumerating the 2⁴ state paths with the rows integrated out:
// given a path with n_ij transitions i → j (m_iy emissions y from state i), each
// transition row is Dirichlet(α + n_i) a posteriori and contributes B(α + n_i)/B(α)
// to the path's weight (each emission row B(β + m_i)/B(β)).
func hmmExact(latentEmit bool) map[string]float64 {
	T := len(hmmY)
	logB := func(a []float64) float64 {
		s, sum := 0.0, 0.0
		for _, v := range a {
			lg, _ := math.Lgamma(v)
			s += lg
			sum += v
		}
		lg, _ := math.Lgamma(sum)
		return s - lg
	}
	// rowPost adds log B(prior + n)/B(prior) to lw and returns the row's posterior
	// mean of coordinate 1.
	rowPost := func(prior []float64, n [2]float64, lw *float64) float64 {
		a := []float64{prior[0] + n[0], prior[1] + n[1]}
		*lw += logB(a) - logB(prior)
		return a[1] / (a[0] + a[1])
	}
	sums := map[string]float64{}
	total := 0.0
	for path := 0; path < 1<<T; path++ {
		z := make([]int, T)
		for t := range z {
			z[t] = (path >> t) & 1
		}
		var n, em [2][2]float64
		for t := range z {
			if t > 0 {
				n[z[t-1]][z[t]]++
			}
			em[z[t]][hmmY[t]]++
		}
		lw := math.Log(hmmInit[z[0]])
		means := map[string]float64{}
		for i := range n {
			means[fmt.Sprintf("theta[%d,1]", i)] = rowPost(hmmAlpha, n[i], &lw)
			if latentEmit {
				means[fmt.Sprintf("phi[%d,1]", i)] = rowPost(hmmBeta, em[i], &lw)
			}
		}
		if !latentEmit {
			for t := range z {
				lw += math.Log(hmmEmit[z[t]][hmmY[t]])
			}
		}
		for t := range z {
			means[fmt.Sprintf("z[%d]", t)] = float64(z[t])
		}
		w := math.Exp(lw)
		total += w
		for k, v := range means {
			sums[k] += w * v
		}
	}
	for k := range sums {
		sums[k] /= total
	}
	return sums
}

// TestHiddenMarkovChainByNode samples the chain (explicit states, states summed
// out, with the rows in a Hamiltonian block or augmented; emissions known or
// latent) and checks the posterior means of every state and row coordinate against
// exact enumeration, within 4 Monte Carlo standard errors (from the bulk ESS).
// Sampling it once panicked in the selection scorer, which took the selected
// element for an observation, and a state next to a summed-out one was drawn
// ignoring its own value's effect on the summed-out group.
func TestHiddenMarkovChainByNode(t *testing.T) {
	for _, f := range []hmmForm{
		{},
		{marg: []int{0}},
		{marg: []int{1, 3}},
		{marg: []int{0, 2}},
		{marg: []int{1, 3}, ham: true},
		{marg: []int{0, 2}, aug: true},
		{latentEmit: true},
		{latentEmit: true, marg: []int{1, 3}},
		{latentEmit: true, marg: []int{0, 2}, aug: true},
	} {
		name := fmt.Sprintf("%+v", f)
		want := hmmExact(f.latentEmit)
		m := buildHMM(t, f)
		draws := 3000
		if f.ham {
			draws = 1000 // each sweep runs the block's leapfrog steps
		}
		r, err := nmc.Sample(context.Background(), m, &nmc.Options{Warmup: nmc.NoWarmup, Chains: 4, Draws: draws, Seed: 3})
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		checked := 0
		for j, col := range r.Draws.Names {
			w, ok := want[col]
			if !ok {
				continue
			}
			x := r.Draws.Column(j)
			if strings.HasPrefix(col, "z") {
				for _, ch := range x {
					for _, v := range ch {
						if v != 0 && v != 1 {
							t.Fatalf("%s: %s: recorded value %v is not a state", name, col, v)
						}
					}
				}
			}
			mean, err1 := diagnostics.Mean(x)
			se, err2 := diagnostics.MCSEMean(x)
			if err1 != nil || err2 != nil {
				t.Fatalf("%s: %s: %v %v", name, col, err1, err2)
			}
			if z := (mean - w) / se; math.Abs(z) > 4 {
				t.Errorf("%s: %s: posterior mean %.4f, exact %.4f (z = %.1f, MCSE %.4f)", name, col, mean, w, z, se)
			}
			checked++
		}
		if checked != len(want) {
			t.Errorf("%s: checked %d of %d quantities", name, checked, len(want))
		}
	}
}
