package graph_test

import (
	"fmt"
	"log"

	"github.com/nmc-go/nmc/nmc"
	"github.com/nmc-go/nmc/nmc/graph"
)

// A varying-intercept regression written without group moves: Build finds the
// scale of the intercepts (sigma_a, dilated with them about mu_a), their location
// (mu_a, shifted with them) and the coefficient b, whose predictor is far from
// centred (b shifted against the intercepts and mu_a). The schedule lists them
// after the site steps; NoAutoGroups turns the rules off.
func ExampleBuilder_NoAutoGroups() {
	g := []int{0, 0, 0, 1, 1, 2}
	x := []float64{2.1, 3.4, 2.8, 3.9, 3.1, 2.5}
	y := []float64{1.2, 0.4, 0.9, -0.2, 0.3, 0.8}
	build := func(auto bool) *graph.Model {
		b := graph.New()
		mu := b.Latent("mu_a", graph.Normal(graph.C(0), graph.C(5)))
		sa := b.Latent("sigma_a", graph.HalfNormal(graph.C(2)))
		a := b.Latent("a", graph.Normal(mu, sa), 3)
		coef := b.Latent("b", graph.Normal(graph.C(0), graph.C(5)))
		sy := b.Latent("sigma_y", graph.HalfNormal(graph.C(2)))
		b.Observe("y", graph.Normal(graph.Add(graph.Index(a, g), graph.Mul(coef, graph.Data(x))), sy), y)
		if !auto {
			b.NoAutoGroups()
		}
		m, err := b.Build()
		if err != nil {
			log.Fatal(err)
		}
		return m
	}
	sched, err := nmc.Plan(build(true), &nmc.Options{Moves: []nmc.Move{nmc.Defaults{NoFitted: true}}})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Print(sched)
	fmt.Println("with NoAutoGroups:", len(build(false).Groups()), "groups")
	// Output:
	// sites: an NMC step of each of 7 sites, in a fresh random order (mu_a, sigma_a, a[0] … a[2], b, sigma_y)
	// auto: dilate a about mu_a with sigma_a: a step along the group's orbit (orbit-newton), dilating 4 coordinates
	// auto: shift mu_a with a: a step along the group's orbit (orbit-newton), shifting 4
	// auto: shift b against a and mu_a: a step along the group's orbit (orbit-newton), shifting 5
	// with NoAutoGroups: 0 groups
}
