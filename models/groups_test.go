package models

import (
	"math"
	"math/rand/v2"
	"reflect"
	"testing"

	"github.com/nmc-go/nmc/nmc"
)

// TestBuiltInGroups checks the group moves the built-in models declare: their names
// and coordinates (state indices, kinds, rates, anchors), the same groups on
// Built.Model and Built.Graph, scorers that score their orbits, and exact orbit
// derivatives of the funnel and eight schools against finite differences of the
// log joint (relative 1e-6).
func TestBuiltInGroups(t *testing.T) {
	rng := rand.New(rand.NewPCG(6, 6))
	lt, _, _, err := GenerateLogistic(rng, 40, 3)
	if err != nil {
		t.Fatal(err)
	}
	rt, _, _, err := GenerateRobust(rng, 40, 3)
	if err != nil {
		t.Fatal(err)
	}
	dil := func(c, a int) nmc.OrbitCoord { return nmc.OrbitCoord{Coord: c, Kind: nmc.Dilate, Rate: 1, Anchor: a} }
	scale := func(from, to int) []nmc.OrbitCoord {
		var out []nmc.OrbitCoord
		for c := from; c < to; c++ {
			out = append(out, dil(c, -1))
		}
		return out
	}
	var schools []nmc.OrbitCoord
	for j := 0; j < 8; j++ {
		schools = append(schools, dil(2+j, 0)) // theta[j] about mu (state: mu, tau, theta)
	}
	schools = append(schools, dil(1, -1))
	level := []nmc.OrbitCoord{{Coord: 0, Kind: nmc.Shift, Rate: 1, Anchor: -1}}
	for j := 0; j < 8; j++ {
		level = append(level, nmc.OrbitCoord{Coord: 2 + j, Kind: nmc.Shift, Rate: 1, Anchor: -1})
	}
	cases := []struct {
		name  string
		build func() (*Built, error)
		want  []nmc.Group
	}{
		{"funnel", Funnel, []nmc.Group{{Name: "funnel(z, x)", Coords: []nmc.OrbitCoord{{Coord: 0, Kind: nmc.Shift, Rate: 2, Anchor: -1}, dil(1, -1)}}}},
		{"eight schools", func() (*Built, error) { return EightSchools(EightSchoolsData.Y, EightSchoolsData.Sigma, false) },
			[]nmc.Group{{Name: "scale(theta, tau)", Coords: schools}, {Name: "shift(mu, theta)", Coords: level}}},
		{"eight schools, non-centred", func() (*Built, error) { return EightSchools(EightSchoolsData.Y, EightSchoolsData.Sigma, true) }, nil},
		{"logistic", func() (*Built, error) { return Logistic(lt, nil, nil) }, []nmc.Group{{Name: "scale(alpha, beta)", Coords: scale(0, 4)}}},
		{"robust", func() (*Built, error) { return Robust(rt, nil, nil) }, []nmc.Group{{Name: "scale(alpha, beta)", Coords: scale(2, 6)}}},
		{"normal known sigma", func() (*Built, error) { return NormalKnownSigma([]float64{1, 2}, 0, 1, 1) }, nil},
	}
	for _, c := range cases {
		b, err := c.build()
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		if got := b.Graph.Groups(); !reflect.DeepEqual(got, c.want) {
			t.Errorf("%s: Graph.Groups() = %+v, want %+v", c.name, got, c.want)
		}
		gr, ok := b.Model.(nmc.Grouper)
		if !ok {
			t.Errorf("%s: Built.Model (%T) is not an nmc.Grouper", c.name, b.Model)
			continue
		}
		if got := gr.Groups(); !reflect.DeepEqual(got, c.want) {
			t.Errorf("%s: Model.Groups() = %+v, want %+v", c.name, got, c.want)
		}
		sc, ok := b.Model.NewScorer().(nmc.OrbitScorer)
		if !ok {
			t.Errorf("%s: the scorer of Built.Model is not an nmc.OrbitScorer", c.name)
			continue
		}
		if c.name != "funnel" && c.name != "eight schools" {
			continue // the regressions are checked in regression_orbit_test.go
		}
		lj := b.Model.NewScorer()
		x := make([]float64, nmc.Dim(b.Model.Sites()))
		xt := make([]float64, len(x))
		for trial := 0; trial < 10; trial++ {
			if err := b.Model.Init(rng, x); err != nil {
				t.Fatal(err)
			}
			for gi, g := range c.want {
				var d [2]float64
				sc.ScoreOrbit(x, gi, &d)
				fd1, fd2, r1, r2 := orbitFD(lj, x, xt, g)
				if math.Abs(d[0]-fd1) > 1e-6*max(1, math.Abs(d[0]))+r1 || math.Abs(d[1]-fd2) > 1e-6*max(1, math.Abs(d[1]))+r2 {
					t.Errorf("%s, group %q at %v: d = (%.10g, %.10g), finite differences (%.10g, %.10g)", c.name, g.Name, x, d[0], d[1], fd1, fd2)
				}
			}
		}
	}
}
