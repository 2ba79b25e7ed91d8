package nmc_test

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/nmc-go/nmc/draws"
	"github.com/nmc-go/nmc/nmc"
)

// normalMeans has one Real site per data set k, its mean μ_k ~ N(0, 10²), with
// observations y ~ N(μ_k, 1): the posterior of μ_k is N(Σy/(n + 0.01), 1/(n + 0.01)),
// the sites independent.
type normalMeans struct {
	names []string
	ys    [][]float64
}

func (m normalMeans) Sites() []nmc.Site {
	s := make([]nmc.Site, len(m.names))
	for k, name := range m.names {
		s[k] = nmc.Site{Name: name, Size: 1, Support: nmc.Real}
	}
	return s
}

func (m normalMeans) NewScorer() nmc.Scorer { return m }

func (m normalMeans) Init(rng *rand.Rand, x []float64) error {
	for k := range x {
		x[k] = rng.NormFloat64()
	}
	return nil
}

// Score is site k's log density given its data, constants dropped, with its
// derivatives.
func (m normalMeans) Score(x []float64, k int, grad, hess []float64) float64 {
	mu := x[k]
	f := -mu * mu / 200
	g, h := -mu/100, -0.01
	for _, y := range m.ys[k] {
		f -= (y - mu) * (y - mu) / 2
		g += y - mu
		h--
	}
	if grad != nil {
		grad[0], hess[0] = g, h
	}
	return f
}

func (m normalMeans) LogJoint(x []float64) float64 {
	f := 0.0
	for k := range x {
		f += m.Score(x, k, nil, nil)
	}
	return f
}

// exact returns the posterior mean and standard deviation of site k.
func (m normalMeans) exact(k int) (mean, sd float64) {
	n, sum := float64(len(m.ys[k])), 0.0
	for _, y := range m.ys[k] {
		sum += y
	}
	return sum / (n + 0.01), math.Sqrt(1 / (n + 0.01))
}

// walk is a move of one's own: a Metropolis-Hastings random walk on one scalar
// Real site, x′ = x + Scale·ε with ε ~ N(0, 1), accepted with probability
// min(1, p(x′)/p(x)) from the site's Markov-blanket score.
type walk struct {
	Site  string  // the site it moves
	Scale float64 // the walk's standard deviation
}

// Plan finds the site and takes its steps over from nmc.SiteSteps.
func (w walk) Plan(p *nmc.Planner) ([]nmc.Planned, error) {
	i, err := p.Site(w.Site)
	if err != nil {
		return nil, err
	}
	if s := p.Sites()[i]; s.Support != nmc.Real || s.Size != 1 {
		return nil, fmt.Errorf("walk: site %q is not a scalar Real site", w.Site)
	}
	if err := p.Take(i); err != nil {
		return nil, err
	}
	return []nmc.Planned{walkPlan{site: i, scale: w.Scale, name: "walk(" + w.Site + ")"}}, nil
}

// walkPlan is the walk planned for a model: the site's index.
type walkPlan struct {
	site  int
	scale float64
	name  string
}

func (w walkPlan) Name() string { return w.name }

// Start returns the walk's state in one chain: its counts.
func (w walkPlan) Start(*nmc.Chain) (nmc.Stepper, error) { return &walkState{walkPlan: w}, nil }

type walkState struct {
	walkPlan
	stats draws.SiteStats
}

// Step is one Metropolis-Hastings step of the walk.
func (s *walkState) Step(c *nmc.Chain) {
	sc, x, xs := c.Scorer(), c.State(), c.Coords(s.site)
	old := xs[0]
	f0 := sc.Score(x, s.site, nil, nil)
	xs[0] = old + s.scale*c.Rand().NormFloat64()
	f1 := sc.Score(x, s.site, nil, nil)
	s.stats.Proposals++
	if math.Log(c.Rand().Float64()) < f1-f0 {
		s.stats.Accepted++
		c.Changed(s.site)
		return
	}
	xs[0] = old
	c.Reverted()
}

// Stats names the walk's counts.
func (s *walkState) Stats() []draws.SiteStats {
	st := s.stats
	st.Name, st.Proposer, st.Sites = s.name, "random-walk", 1
	return []draws.SiteStats{st}
}

// A move of one's own in the schedule: a random-walk Metropolis-Hastings step of
// mu, which it takes over from the site steps, added to the model's default
// schedule (the NMC steps of the other site, nu).
func ExampleMove() {
	m := normalMeans{names: []string{"mu", "nu"}, ys: [][]float64{{1.2, 0.8, 1.9, 1.4}, {-0.3, 0.2}}}
	opts := &nmc.Options{Warmup: nmc.NoWarmup, Chains: 4, Draws: 5000, Seed: 1, Moves: []nmc.Move{nmc.Defaults{}, walk{Site: "mu", Scale: 1}}}
	schedule, err := nmc.Plan(m, opts)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Print(schedule)
	res, err := nmc.Sample(context.Background(), m, opts)
	if err != nil {
		fmt.Println(err)
		return
	}
	mu, _ := res.Draws.Param("mu")
	sum, n := 0.0, 0
	for _, chain := range mu {
		for _, v := range chain {
			sum += v
			n++
		}
	}
	mean, _ := m.exact(0)
	fmt.Printf("posterior mean of mu %.1f (exact %.1f)\n", sum/float64(n), mean)
	w := res.Moves[0]
	fmt.Printf("%s (%s): %d proposals, accepted 30–70%%: %v\n", w.Name, w.Proposer, w.Proposals, w.AcceptRate() > 0.3 && w.AcceptRate() < 0.7)
	// Output:
	// sites: an NMC step of nu
	// walk(mu)
	// posterior mean of mu 1.3 (exact 1.3)
	// walk(mu) (random-walk): 20000 proposals, accepted 30–70%: true
}
