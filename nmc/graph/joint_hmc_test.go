package graph_test

import (
	"context"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/nmc-go/nmc/diagnostics"
	"github.com/nmc-go/nmc/nmc"
	"github.com/nmc-go/nmc/nmc/graph"
)

// smallDawidSkene declares Dawid-Skene on 40 items with 1 to 4 labels each from 4
// labelers, 3 classes, the classes summed out and (pi, theta) the Hamiltonian block.
func smallDawidSkene(t *testing.T) *graph.Model {
	t.Helper()
	rng := rand.New(rand.NewPCG(24, 9))
	const items, labelers, classes = 40, 4, 3
	var item, labeler, label []int
	for i := range items {
		truth := rng.IntN(classes)
		if rng.IntN(4) == 0 {
			truth = 2 // a rarer class
		}
		for range 1 + rng.IntN(4) {
			y := truth
			if rng.Float64() > 0.75 {
				y = rng.IntN(classes)
			}
			item, labeler, label = append(item, i), append(labeler, rng.IntN(labelers)), append(label, y)
		}
	}
	rows := [][]float64{{4, 1, 1}, {1, 4, 1}, {1, 1, 4}}
	classOf := make([]int, labelers*classes)
	for i := range classOf {
		classOf[i] = i % classes
	}
	b := graph.New()
	pi := b.Latent("pi", graph.Dirichlet(graph.Vec(1, 1, 1)))
	z := b.Latent("z", graph.Categorical(pi), items)
	theta := b.Latent("theta", graph.Dirichlet(graph.Index(graph.Rows(rows), classOf)), labelers, classes)
	b.ObserveInts("y", graph.Categorical(graph.At(theta, graph.By(labeler), graph.ByNode(graph.Index(z, item)))), label)
	b.Marginalise(z)
	b.Hamiltonian(pi, theta)
	m, err := b.Build()
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// alrTarget is the log density of a Hamiltonian block of simplex sites in additive
// log-ratio coordinates (u_c = log(x_c / x_0), c ≥ 1, per site) with its gradient,
// from JointGrad: log p(x(u)) + Σ log x_c (the Jacobian), and
// ∂/∂u_j = x_j g_j + 1 − x_j (Σ_c x_c g_c + k) with g JointGrad's gradient of the
// site's k coordinates.
type alrTarget struct {
	m     *graph.Model
	sc    nmc.JointGradienter
	sites []int
	off   []int
	x     []float64 // the full state
	g     []float64 // JointGrad's gradient
}

func (a *alrTarget) eval(u, du []float64) float64 {
	all := a.m.Sites()
	// The sites' coordinates: softmax of (0, u).
	ua := 0
	for _, i := range a.sites {
		k := all[i].Size
		xi := a.x[a.off[i] : a.off[i]+k]
		top := 0.0
		for c := 1; c < k; c++ {
			top = math.Max(top, u[ua+c-1])
		}
		sum := math.Exp(-top)
		xi[0] = sum
		for c := 1; c < k; c++ {
			xi[c] = math.Exp(u[ua+c-1] - top)
			sum += xi[c]
		}
		for c := range xi {
			xi[c] /= sum
		}
		ua += k - 1
	}
	lp := a.sc.JointGrad(a.x, a.sites, a.g, true)
	ga, ua := 0, 0
	for _, i := range a.sites {
		k := all[i].Size
		xi, gi := a.x[a.off[i]:a.off[i]+k], a.g[ga:ga+k]
		dot := 0.0
		for c := range xi {
			dot += xi[c] * gi[c]
			lp += math.Log(xi[c])
		}
		for c := 1; c < k; c++ {
			du[ua+c-1] = xi[c]*gi[c] + 1 - xi[c]*(dot+float64(k))
		}
		ga += k
		ua += k - 1
	}
	return lp
}

// TestJointGradDrivesHMC runs a plain Hamiltonian Monte Carlo sampler (fixed step,
// 12 leapfrogs, unit mass, additive log-ratio coordinates) on a small Dawid-Skene
// model with its classes summed out, driven by JointGrad alone, and checks the
// posterior means of pi and theta against the library sampler's draws of the same
// model (nmc.Sample): every mean within 4.5 combined Monte Carlo standard errors
// (MCSEMean of each), with at least 60% of the trajectories accepted.
func TestJointGradDrivesHMC(t *testing.T) {
	if testing.Short() {
		t.Skip("samples two posteriors")
	}
	m := smallDawidSkene(t)
	all := m.Sites()
	off := nmc.Offsets(all)
	sites := m.HamiltonianSites()
	ng, nu := 0, 0
	for _, i := range sites {
		ng += all[i].Size
		nu += all[i].Size - 1
	}
	const chains, warmup, draws, leaps, eps = 4, 200, 2000, 12, 0.2
	hmc := make([][][]float64, ng) // per block coordinate, per chain, the draws
	for c := range hmc {
		hmc[c] = make([][]float64, chains)
	}
	accepted := 0
	for ch := range chains {
		rng := rand.New(rand.NewPCG(24, uint64(ch)))
		a := &alrTarget{m: m, sc: m.NewScorer().(nmc.JointGradienter), sites: sites, off: off,
			x: make([]float64, nmc.Dim(all)), g: make([]float64, ng)}
		if err := m.Init(rng, a.x); err != nil {
			t.Fatal(err)
		}
		u, du := make([]float64, nu), make([]float64, nu)
		ua := 0
		for _, i := range sites {
			k := all[i].Size
			for c := 1; c < k; c++ {
				u[ua+c-1] = math.Log(a.x[off[i]+c] / a.x[off[i]])
			}
			ua += k - 1
		}
		lp := a.eval(u, du)
		q, dq, p := make([]float64, nu), make([]float64, nu), make([]float64, nu)
		for it := range warmup + draws {
			copy(q, u)
			copy(dq, du)
			h0 := lp
			for c := range p {
				p[c] = rng.NormFloat64()
				h0 -= p[c] * p[c] / 2
			}
			lq := lp
			for range leaps {
				for c := range p {
					p[c] += eps / 2 * dq[c]
					q[c] += eps * p[c]
				}
				lq = a.eval(q, dq)
				for c := range p {
					p[c] += eps / 2 * dq[c]
				}
			}
			h1 := lq
			for c := range p {
				h1 -= p[c] * p[c] / 2
			}
			if math.Log(rng.Float64()) < h1-h0 {
				copy(u, q)
				copy(du, dq)
				lp = lq
				if it >= warmup {
					accepted++
				}
			}
			if it < warmup {
				continue
			}
			a.eval(u, du) // the state x at u
			gc := 0
			for _, i := range sites {
				for c := range all[i].Size {
					hmc[gc][ch] = append(hmc[gc][ch], a.x[off[i]+c])
					gc++
				}
			}
		}
	}
	rate := float64(accepted) / (chains * draws)
	if rate < 0.6 {
		t.Fatalf("HMC accepted %.2f of its trajectories", rate)
	}
	res, err := nmc.Sample(context.Background(), m, &nmc.Options{Warmup: nmc.NoWarmup, Chains: chains, Draws: draws, Seed: 24})
	if err != nil {
		t.Fatal(err)
	}
	gc, worst := 0, 0.0
	for _, i := range sites {
		for c := range all[i].Size {
			name := all[i].CoordNames[c]
			ref, err := res.Draws.Param(name)
			if err != nil {
				t.Fatal(err)
			}
			mh, sh := meanMCSE(t, hmc[gc])
			mr, sr := meanMCSE(t, ref)
			z := (mh - mr) / math.Hypot(sh, sr)
			if math.Abs(z) > 4.5 {
				t.Errorf("%s: HMC mean %.4f ± %.4f, sampler %.4f ± %.4f (z = %.2f)", name, mh, sh, mr, sr, z)
			}
			worst = max(worst, math.Abs(z))
			gc++
		}
	}
	t.Logf("HMC accepted %.3f of its trajectories; %d means, largest |z| %.2f", rate, gc, worst)
}

// meanMCSE returns the mean of the draws of all chains and its Monte Carlo standard
// error.
func meanMCSE(t *testing.T, chains [][]float64) (mean, mcse float64) {
	t.Helper()
	n := 0
	for _, c := range chains {
		for _, v := range c {
			mean += v
			n++
		}
	}
	mcse, err := diagnostics.MCSEMean(chains)
	if err != nil {
		t.Fatal(err)
	}
	return mean / float64(n), mcse
}
