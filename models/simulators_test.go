package models

import (
	"errors"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/nmc-go/nmc/nmc"
)

// TestSimulatorNames checks that every simulator's truth names are draw columns of
// its model and that the same seed gives the same simulation.
func TestSimulatorNames(t *testing.T) {
	t.Parallel()
	for _, name := range SimulatorNames() {
		sim, err := Simulator(name, 0, 0)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		m, truth, err := sim(rand.New(rand.NewPCG(1, 2)))
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		var coords []string
		for _, s := range m.Sites() {
			coords = append(coords, s.Coords()...)
		}
		for v := range truth {
			if !slices.Contains(coords, v) {
				t.Errorf("%s: simulated %q is not a coordinate of the model (%v)", name, v, coords)
			}
		}
		if len(truth) != len(coords) {
			t.Errorf("%s: %d simulated values for %d coordinates", name, len(truth), len(coords))
		}
		_, again, _ := sim(rand.New(rand.NewPCG(1, 2)))
		for v, x := range truth {
			if again[v] != x {
				t.Errorf("%s: %s = %v, then %v with the same seed", name, v, x, again[v])
			}
		}
		g, ok := m.(nmc.Grouper)
		if grouped := ok && len(g.Groups()) > 0; grouped != (name == "blr" || name == "robust" || name == "funnel") {
			t.Errorf("%s: declares group moves: %v", name, grouped)
		}
	}
}

func TestSimulatorErrors(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name string
		n, k int
		want string
	}{
		{"annotation", 0, -1, "k = -1"},
		{"eight_schools", 0, 0, "has no simulator"},
		{"nope", 0, 0, "unknown model"},
		{"blr", -1, 0, "n = -1"},
		{"gamma_poisson", 0, 2, "no second size"},
		{"dirichlet_categorical", 0, 3, "4 categories"},
		{"funnel", 3, 0, "no data"},
	} {
		_, err := Simulator(c.name, c.n, c.k)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("Simulator(%s, %d, %d): error %v, want %q", c.name, c.n, c.k, err, c.want)
		}
	}
	if _, err := Simulator("blr", 0, -2); !errors.As(err, new(*SizeError)) {
		t.Errorf("Simulator(blr, 0, -2): %v, want a *SizeError", err)
	}
}

// TestAnnotationSimulator checks the two forms of the annotation simulator: the same
// seed simulates the same parameters and data, and only the marginalised form marks
// the z sites Marginalised.
func TestAnnotationSimulator(t *testing.T) {
	t.Parallel()
	truths := map[bool]map[string]float64{}
	for _, marginalise := range []bool{true, false} {
		sim, err := AnnotationSimulator(10, 3, marginalise)
		if err != nil {
			t.Fatal(err)
		}
		m, truth, err := sim(rand.New(rand.NewPCG(5, 6)))
		if err != nil {
			t.Fatal(err)
		}
		truths[marginalise] = truth
		if want := 3 + 3*3*3 + 10; len(truth) != want {
			t.Errorf("marginalise %v: %d simulated values, want %d", marginalise, len(truth), want)
		}
		for _, s := range m.Sites() {
			if s.Marginalised != (marginalise && strings.HasPrefix(s.Name, "z[")) {
				t.Errorf("marginalise %v: site %s Marginalised = %v", marginalise, s.Name, s.Marginalised)
			}
		}
	}
	for v, x := range truths[true] {
		if truths[false][v] != x {
			t.Errorf("%s = %v marginalised, %v explicit, with the same seed", v, x, truths[false][v])
		}
	}
	for _, c := range []struct {
		n, k int
		want string
	}{{-1, 0, "n = -1"}, {0, -2, "k = -2"}} {
		if _, err := AnnotationSimulator(c.n, c.k, true); !errors.As(err, new(*SizeError)) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("AnnotationSimulator(%d, %d): error %v, want a *SizeError with %q", c.n, c.k, err, c.want)
		}
	}
}
