package graph

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/nmc-go/nmc/nmc"
)

// pathPosterior returns p(z | y) of every path z of the hidden states (path p has
// z_t = (p / K^t) mod K), by enumeration.
func pathPosterior(logOmega [][]float64, gamma, rho []float64) []float64 {
	N, K := len(logOmega), len(rho)
	paths := 1
	for range N {
		paths *= K
	}
	lp := make([]float64, paths)
	z := make([]int, N)
	top := math.Inf(-1)
	for p := range lp {
		r := p
		for t := range z {
			z[t] = r % K
			r /= K
		}
		v := math.Log(rho[z[0]]) + logOmega[0][z[0]]
		for t := 1; t < N; t++ {
			v += math.Log(gamma[z[t-1]*K+z[t]]) + logOmega[t][z[t]]
		}
		lp[p] = v
		top = math.Max(top, v)
	}
	sum := 0.0
	for p := range lp {
		lp[p] = math.Exp(lp[p] - top)
		sum += lp[p]
	}
	for p := range lp {
		lp[p] /= sum
	}
	return lp
}

// hmmAtState builds poissonHMMParts's model with its states recorded, draws a state
// and returns the model, the state and the exact posterior of the paths there.
func hmmAtState(t *testing.T, y []float64, K int, seed uint64) (*Model, []float64, []float64) {
	t.Helper()
	b := New()
	p := poissonHMMParts(b, y, K)
	b.HiddenMarkov("z", p.logOmega, p.gamma, p.rho)
	m, err := b.Build()
	if err != nil {
		t.Fatal(err)
	}
	x := make([]float64, m.dim)
	if err := m.Init(rand.New(rand.NewPCG(seed, 0)), x); err != nil {
		t.Fatal(err)
	}
	rates, gamma, rho := hmmParams(t, m, x, K)
	lo := make([][]float64, len(y))
	for i := range lo {
		lo[i] = make([]float64, K)
		for j := range lo[i] {
			lo[i][j] = poissonLogPMF(y[i], rates[j])
		}
	}
	return m, x, pathPosterior(lo, gamma, rho)
}

// TestHMMStatesExact: the hidden states drawn by Generate (forward filtering,
// backward sampling) at a fixed state are exact draws of p(z | θ, y): the frequency
// of every path (K = 2, N = 6: 64 paths) and every state's smoothing marginal (K =
// 3, N = 6) agree with enumeration within 4 standard errors of independent draws,
// √(p(1−p)/n).
func TestHMMStatesExact(t *testing.T) {
	t.Parallel()
	const draws = 100000
	for _, c := range []struct {
		K    int
		y    []float64
		seed uint64
	}{
		{2, []float64{0, 1, 7, 6, 1, 3}, 4},
		{3, []float64{2, 9, 0, 4, 4, 11}, 6},
	} {
		m, x, post := hmmAtState(t, c.y, c.K, c.seed)
		N, K := len(c.y), c.K
		if got := m.GeneratedNames(); len(got) != N || got[0] != "z[0]" || got[N-1] != "z[5]" {
			t.Fatalf("GeneratedNames %v", got)
		}
		rng := rand.New(rand.NewPCG(8, uint64(K)))
		z := make([]float64, N)
		count := make([]float64, len(post))
		for range draws {
			m.Generate(rng, x, z)
			p, w := 0, 1
			for t := range z {
				p += int(z[t]) * w
				w *= K
			}
			count[p]++
		}
		check := func(what string, want, got float64) {
			se := math.Sqrt(want * (1 - want) / draws)
			if math.Abs(got-want) > 4*se+1e-12 {
				t.Errorf("K=%d: %s: frequency %.5f, exact %.5f (se %.5f)", K, what, got, want, se)
			}
		}
		if K == 2 {
			for p := range post {
				check(fmt.Sprintf("path %d", p), post[p], count[p]/draws)
			}
		}
		for tt := 0; tt < N; tt++ {
			for j := 0; j < K; j++ {
				want, got := 0.0, 0.0
				for p := range post {
					if (p/pow(K, tt))%K == j {
						want += post[p]
						got += count[p] / draws
					}
				}
				check(fmt.Sprintf("p(z_%d = %d)", tt, j), want, got)
			}
		}
	}
}

func pow(k, n int) int {
	r := 1
	for range n {
		r *= k
	}
	return r
}

// TestHMMStatesRecorded: a sampled HiddenMarkov model records its states after the
// sites, as integers in 0 … K−1, and its other columns are those of the same model
// declared with Factor, bit for bit.
func TestHMMStatesRecorded(t *testing.T) {
	t.Parallel()
	y := []float64{0, 1, 7, 6, 1, 3, 2, 8}
	build := func(record bool) *Model {
		b := New()
		p := poissonHMMParts(b, y, 2)
		if record {
			b.HiddenMarkov("z", p.logOmega, p.gamma, p.rho)
		} else {
			b.Factor("z", HMMMarginal(p.logOmega, p.gamma, p.rho))
		}
		m, err := b.Build()
		if err != nil {
			t.Fatal(err)
		}
		return m
	}
	o := &nmc.Options{Chains: 2, Draws: 50, Warmup: 20, Seed: 3}
	with, err := nmc.Sample(context.Background(), build(true), o)
	if err != nil {
		t.Fatal(err)
	}
	without, err := nmc.Sample(context.Background(), build(false), o)
	if err != nil {
		t.Fatal(err)
	}
	nw, n0 := len(with.Draws.Names), len(without.Draws.Names)
	if nw != n0+len(y) || with.Draws.Names[n0] != "z[0]" || with.Draws.Names[nw-1] != "z[7]" {
		t.Fatalf("names %v", with.Draws.Names)
	}
	for c := range with.Draws.Chains {
		for d := 0; d < 50; d++ {
			row, row0 := with.Draws.Chains[c][d*nw:(d+1)*nw], without.Draws.Chains[c][d*n0:(d+1)*n0]
			if !slices.Equal(row[:n0], row0) {
				t.Fatalf("chain %d draw %d: %v, without the states %v", c, d, row[:n0], row0)
			}
			for _, z := range row[n0:] {
				if z != 0 && z != 1 {
					t.Fatalf("chain %d draw %d: state %v", c, d, z)
				}
			}
		}
	}
}
