package graph

import (
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/nmc-go/nmc/nmc/dist"
)

// buildErr declares a model with decl and returns Build's error, failing the test
// if anything panics.
func buildErr(t *testing.T, decl func(b *Builder)) (err error) {
	t.Helper()
	defer func() {
		if r := recover(); r != nil {
			t.Fatalf("panic: %v", r)
		}
	}()
	b := New()
	decl(b)
	m, err := b.Build()
	if err == nil && m == nil {
		t.Fatalf("Build returned neither a model nor an error")
	}
	return err
}

// TestBadInput checks that each kind of bad input is reported by Build, without a
// panic, by an error naming the variable, the element and the value.
func TestBadInput(t *testing.T) {
	nan, inf := math.NaN(), math.Inf(1)
	std := func(b *Builder) *Node { return b.Latent("a", Normal(C(0), C(1))) }
	cases := []struct {
		name string
		decl func(b *Builder)
		want []string // substrings of the error
	}{
		// Shapes.
		{"MatVec columns", func(b *Builder) {
			v := b.Vector("v", 3, Normal(C(0), C(1)))
			b.Observe("y", Normal(MatVec(mat.NewDense(2, 4, nil), v), C(1)), []float64{1, 2})
		}, []string{`observed "y"`, "MatVec", "4 columns", "3 elements"}},
		{"broadcast lengths", func(b *Builder) {
			a := std(b)
			b.Observe("y", Normal(Add(Mul(a, Data([]float64{1, 2, 3})), Data([]float64{1, 2, 3, 4})), C(1)), []float64{1, 2, 3})
		}, []string{`observed "y"`, "Add", "lengths 3 and 4"}},
		{"broadcast widths", func(b *Builder) {
			a := std(b)
			b.Latent("w", Dirichlet(Add(Mul(Exp(a), Vec(1, 2)), Vec(1, 2, 3))))
		}, []string{`latent "w"`, "Add", "widths 2 and 3"}},
		{"Observe value count", func(b *Builder) {
			a := std(b)
			b.Observe("y", Normal(Add(a, Data([]float64{1, 2, 3})), C(1)), []float64{1, 2, 3, 4})
		}, []string{`observed "y"`, "4 values", "want 3"}},
		{"observation parameter lengths", func(b *Builder) {
			a := std(b)
			b.Observe("y", Normal(Add(a, Data([]float64{1, 2, 3})), Data([]float64{1, 2})), []float64{1, 2, 3})
		}, []string{`observed "y"`, "sigma", "2 elements", "3"}},
		{"plate parameter length", func(b *Builder) {
			b.Latent("t", Normal(Data([]float64{1, 2, 3}), C(1)), 4)
		}, []string{`latent "t"`, "mu", "3 elements", "4"}},
		{"Dist parameter width", func(b *Builder) {
			b.Latent("x", Normal(Vec(0, 1), C(1)))
		}, []string{`latent "x"`, "Normal", "mu", "width 2"}},
		{"At dimensions", func(b *Builder) {
			p := b.Latent("p", Normal(C(0), C(1)), 2, 3)
			b.Observe("y", Normal(At(p, By([]int{0, 1})), C(1)), []float64{1, 2})
		}, []string{`observed "y"`, "At", "1 indices", "2 dimensions"}},
		{"plate dimension", func(b *Builder) {
			b.Latent("p", Normal(C(0), C(1)), 3, 0)
		}, []string{`latent "p"`, "dimension 0"}},
		{"Vector size", func(b *Builder) {
			b.Vector("v", 0, Normal(C(0), C(1)))
		}, []string{`vector "v"`, "size 0"}},

		// NaN and Inf in data.
		{"NaN in Data", func(b *Builder) {
			a := std(b)
			b.Observe("y", Normal(Add(a, Data([]float64{1, 2, nan})), C(1)), []float64{1, 2, 3})
		}, []string{`observed "y"`, "Data", "element 2", "NaN"}},
		{"Inf in Rows", func(b *Builder) {
			b.Latent("w", Dirichlet(Index(Rows([][]float64{{1, 2}, {inf, 1}}), []int{1})))
		}, []string{`latent "w"`, "Rows", "[1,0]", "+Inf"}},
		{"NaN in MatVec matrix", func(b *Builder) {
			v := b.Vector("v", 2, Normal(C(0), C(1)))
			b.Observe("y", Normal(MatVec(mat.NewDense(3, 2, []float64{1, 2, 3, nan, 5, 6}), v), C(1)), []float64{1, 2, 3})
		}, []string{`observed "y"`, "MatVec", "[1,1]", "NaN"}},
		{"Inf in Observe values", func(b *Builder) {
			a := std(b)
			b.Observe("y", Normal(a, C(1)), []float64{1, 2, -inf})
		}, []string{`observed "y"`, "element 2", "-Inf"}},
		{"NaN constant", func(b *Builder) {
			b.Latent("x", Normal(C(nan), C(1)))
		}, []string{`latent "x"`, "constant", "NaN"}},
		{"Inf exponent", func(b *Builder) {
			a := std(b)
			b.Deterministic("d", Pow(a, inf))
		}, []string{`deterministic "d"`, "Pow", "+Inf"}},

		// Parameters outside their domain.
		{"negative scale", func(b *Builder) {
			b.Latent("x", Normal(C(0), C(-1)))
		}, []string{`latent "x"`, "element 0", "sigma", "-1"}},
		{"negative scale element", func(b *Builder) {
			a := std(b)
			b.Observe("y", Normal(a, Data([]float64{1, 2, -3})), []float64{1, 2, 3})
		}, []string{`observed "y"`, "element 2", "sigma", "-3"}},
		{"negative scale in a plate prior", func(b *Builder) {
			a := std(b)
			b.Latent("t", Normal(a, Data([]float64{1, -0.5})), 2)
		}, []string{`latent "t"`, "element 1", "sigma", "-0.5"}},
		{"Categorical probabilities", func(b *Builder) {
			b.Latent("z", Categorical(Vec(0.5, 0.6)), 3)
		}, []string{`latent "z"`, "probs", "1.1"}},
		{"Categorical observation probabilities", func(b *Builder) {
			std(b)
			b.ObserveInts("y", Categorical(Vec(0.2, 0.2, 0.2)), []int{0, 1})
		}, []string{`observed "y"`, "probs", "0.6"}},
		{"Dirichlet concentration", func(b *Builder) {
			b.Latent("w", Dirichlet(Vec(1, -1, 1)))
		}, []string{`latent "w"`, "alpha[1]", "-1"}},
		{"Uniform latent bounds", func(b *Builder) {
			a := std(b)
			b.Latent("u", Uniform(a, C(3)))
		}, []string{`latent "u"`, "Uniform", "constant"}},
		{"MultivariateNormal covariance", func(b *Builder) {
			b.Latent("x", MultivariateNormal(Vec(0, 0), mat.NewSymDense(2, []float64{1, 2, 2, 1})))
		}, []string{`latent "x"`, "positive definite"}},

		// Observed values outside the support.
		{"Bernoulli 2", func(b *Builder) {
			std(b)
			b.Observe("y", Bernoulli(C(0.3)), []float64{0, 1, 2})
		}, []string{`observed "y"`, "element 2", "[2]", "Bernoulli"}},
		{"BernoulliLogit 2, latent parameter", func(b *Builder) {
			a := std(b)
			b.Observe("y", BernoulliLogit(a), []float64{0, 2})
		}, []string{`observed "y"`, "element 1", "[2]", "BernoulliLogit"}},
		{"Poisson -1", func(b *Builder) {
			std(b)
			b.Observe("y", Poisson(C(2)), []float64{3, -1})
		}, []string{`observed "y"`, "element 1", "[-1]", "Poisson"}},
		{"PoissonLog -1, latent parameter", func(b *Builder) {
			a := std(b)
			b.Observe("y", PoissonLog(a), []float64{3, 4, -1})
		}, []string{`observed "y"`, "element 2", "[-1]", "PoissonLog"}},
		{"Categorical 1.5", func(b *Builder) {
			std(b)
			b.Observe("y", Categorical(Vec(0.2, 0.8)), []float64{0, 1.5})
		}, []string{`observed "y"`, "element 1", "[1.5]", "Categorical"}},
		{"CategoricalLogits 1.5, latent parameter", func(b *Builder) {
			a := std(b)
			b.Observe("y", CategoricalLogits(Mul(a, Vec(1, 2, 3))), []float64{0, 1.5})
		}, []string{`observed "y"`, "element 1", "[1.5]", "CategoricalLogits"}},
		{"Gamma -2, latent parameter", func(b *Builder) {
			a := std(b)
			b.Observe("y", Gamma(Exp(a), C(1)), []float64{1, -2})
		}, []string{`observed "y"`, "element 1", "[-2]", "Gamma"}},
		{"Dirichlet off the simplex", func(b *Builder) {
			a := std(b)
			b.Observe("y", Dirichlet(Mul(Exp(a), Vec(1, 1, 1))), []float64{0.2, 0.3, 0.5, 0.2, 0.2, 0.2})
		}, []string{`observed "y"`, "element 1", "[0.2 0.2 0.2]", "Dirichlet"}},

		// Names.
		{"duplicate latent", func(b *Builder) {
			std(b)
			b.Latent("a", Normal(C(0), C(1)))
		}, []string{"duplicate", `"a"`}},
		{"duplicate observation", func(b *Builder) {
			std(b)
			b.Observe("a", Normal(C(0), C(1)), []float64{1})
		}, []string{"duplicate", `"a"`}},
		{"duplicate deterministic", func(b *Builder) {
			a := std(b)
			b.Deterministic("a", a)
		}, []string{"duplicate", `"a"`}},
		{"invalid name", func(b *Builder) {
			b.Latent("a[01]", Normal(C(0), C(1)))
		}, []string{"invalid", `"a[01]"`, "z[3]"}},
		{"indexed plate name", func(b *Builder) {
			b.Latent("a[1]", Normal(C(0), C(1)), 3)
		}, []string{"invalid", `"a[1]"`, "one scalar", `Latent("a", d, n)`}},

		// Indices out of range.
		{"Index", func(b *Builder) {
			p := b.Latent("p", Normal(C(0), C(1)), 3)
			b.Observe("y", Normal(Index(p, []int{0, 5}), C(1)), []float64{1, 2})
		}, []string{`observed "y"`, "Index", "index 5", "element 1", "[0, 3)"}},
		{"Index negative", func(b *Builder) {
			p := b.Latent("p", Normal(C(0), C(1)), 3)
			b.Deterministic("d", Index(p, []int{-1}))
		}, []string{`deterministic "d"`, "Index", "-1", "element 0"}},
		{"At By", func(b *Builder) {
			p := b.Latent("p", Normal(C(0), C(1)), 2, 3)
			b.Observe("y", Normal(At(p, By([]int{0, 1}), By([]int{2, 3})), C(1)), []float64{1, 2})
		}, []string{`observed "y"`, "At", "index 1", "element 1", "value 3", "[0, 3)"}},
		{"At ByNode continuous", func(b *Builder) {
			a := std(b)
			p := b.Latent("p", Normal(C(0), C(1)), 3)
			b.Observe("y", Normal(At(p, ByNode(a)), C(1)), []float64{1, 2})
		}, []string{`observed "y"`, "At index 0", `continuous latent "a"`}},

		// Nil nodes and distributions.
		{"nil operand", func(b *Builder) {
			a := std(b)
			b.Observe("y", Normal(Add(a, nil), C(1)), []float64{1, 2})
		}, []string{`observed "y"`, "Add", "operand 1", "nil"}},
		{"nil unary operand", func(b *Builder) {
			std(b)
			b.Observe("y", Normal(Exp(nil), C(1)), []float64{1, 2})
		}, []string{`observed "y"`, "Exp", "nil"}},
		{"nil parameter", func(b *Builder) {
			b.Latent("x", Normal(C(0), nil))
		}, []string{`latent "x"`, "Normal", "sigma", "nil"}},
		{"nil Dirichlet concentration", func(b *Builder) {
			b.Latent("w", Dirichlet(nil))
		}, []string{`latent "w"`, "Dirichlet", "nil"}},
		{"nil latent distribution", func(b *Builder) {
			b.Latent("x", nil)
		}, []string{`latent "x"`, "nil distribution"}},
		{"nil observed distribution", func(b *Builder) {
			std(b)
			b.Observe("y", nil, []float64{1})
		}, []string{`observed "y"`, "nil distribution"}},
		{"nil deterministic", func(b *Builder) {
			std(b)
			b.Deterministic("d", nil)
		}, []string{`deterministic "d"`, "nil"}},
		{"nil matrix", func(b *Builder) {
			v := b.Vector("v", 2, Normal(C(0), C(1)))
			b.Observe("y", Normal(MatVec(nil, v), C(1)), []float64{1, 2})
		}, []string{`observed "y"`, "MatVec", "nil matrix"}},
		{"nil index node", func(b *Builder) {
			p := b.Latent("p", Normal(C(0), C(1)), 3)
			b.Observe("y", Normal(At(p, ByNode(nil)), C(1)), []float64{1, 2})
		}, []string{`observed "y"`, "At", "index 0", "nil"}},
		{"empty index data", func(b *Builder) { // found by FuzzBuild: a nil dereference at Score
			p := b.Latent("p", Normal(C(0), C(1)), 3)
			b.Observe("y", Normal(At(p, By([]int{})), C(1)), []float64{1, 2})
		}, []string{`observed "y"`, "At", "index 0", "empty"}},
		{"nil covariance", func(b *Builder) {
			b.Latent("x", MultivariateNormal(Vec(0, 0), nil))
		}, []string{`latent "x"`, "covariance", "nil"}},

		// Empty models and misplaced families.
		{"empty model", func(b *Builder) {}, []string{"no latent variables"}},
		{"observations only", func(b *Builder) {
			b.Observe("y", Normal(C(0), C(1)), []float64{1})
		}, []string{"no latent variables"}},
		{"empty Data", func(b *Builder) {
			b.Latent("x", Normal(Data(nil), C(1)))
		}, []string{`latent "x"`, "Data", "no values"}},
		{"empty Vec", func(b *Builder) {
			b.Latent("w", Dirichlet(Vec()))
		}, []string{`latent "w"`, "Vec", "no values"}},
		{"Flat observation", func(b *Builder) {
			std(b)
			b.Observe("y", Flat(), []float64{1, 2})
		}, []string{`observed "y"`, "Flat", "improper", "add nothing"}},
		{"HalfFlat observation", func(b *Builder) {
			std(b)
			b.ObserveInts("counts", HalfFlat(), []int{1, 2})
		}, []string{`observed "counts"`, "HalfFlat", "improper", "add nothing"}},
		{"Flat observation by NewDist", func(b *Builder) {
			std(b)
			b.Observe("y", NewDist(&dist.Flat{}, 1), []float64{1})
		}, []string{`observed "y"`, "Flat", "improper"}},
		{"Vector of a Dirichlet", func(b *Builder) {
			b.Vector("w", 3, Dirichlet(Vec(1, 1, 1)))
		}, []string{`vector "w"`, "Dirichlet", "not a scalar"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			err := buildErr(t, c.decl)
			if err == nil {
				t.Fatalf("Build accepted the model; want an error containing %q", c.want)
			}
			msg := err.Error()
			if !strings.HasPrefix(msg, "graph: ") {
				t.Errorf("error %q lacks the package prefix", msg)
			}
			for _, w := range c.want {
				if !strings.Contains(msg, w) {
					t.Errorf("error %q does not mention %q", msg, w)
				}
			}
		})
	}
}

// TestGoodInputAccepted guards the checks above against false alarms: each model is
// valid and must build.
func TestGoodInputAccepted(t *testing.T) {
	cases := map[string]func(b *Builder){
		"Uniform observation, latent lower bound below a constant upper bound": func(b *Builder) {
			a := b.Latent("a", Normal(C(-10), C(1)))
			b.Observe("y", Uniform(a, C(-1)), []float64{-2})
		},
		"Binomial observation, latent trials": func(b *Builder) {
			k := b.Latent("k", Poisson(C(3)))
			b.ObserveInts("y", Binomial(Add(k, C(5)), C(0.3)), []int{2})
		},
		"Beta prior with latent parameters": func(b *Builder) {
			a := b.Latent("a", Gamma(C(2), C(1)))
			b.Latent("p", Beta(a, Add(a, C(1))), 3)
		},
		"ByNode through a discrete latent": func(b *Builder) {
			z := b.Latent("z", Categorical(Vec(0.5, 0.5)), 2)
			p := b.Latent("p", Normal(C(0), C(1)), 2)
			b.Observe("y", Normal(At(p, ByNode(Index(z, []int{0, 1, 1}))), C(1)), []float64{1, 2, 3})
		},
	}
	for name, decl := range cases {
		if err := buildErr(t, decl); err != nil {
			t.Errorf("%s: %v", name, err)
		}
	}
}

// TestZeroBuilder checks that the zero value of Builder works like New().
func TestZeroBuilder(t *testing.T) {
	var b Builder
	b.Latent("a", Normal(C(0), C(1)))
	b.Latent("a", Normal(C(0), C(1)))
	if _, err := b.Build(); err == nil || !strings.Contains(err.Error(), `duplicate variable name "a"`) {
		t.Errorf("zero Builder with a duplicate name: error %v", err)
	}
}

// TestInitBadState checks Init's error for a state of the wrong length.
func TestInitBadState(t *testing.T) {
	b := New()
	b.Vector("v", 3, Normal(C(0), C(1)))
	m, err := b.Build()
	if err != nil {
		t.Fatal(err)
	}
	err = m.Init(rand.New(rand.NewPCG(1, 1)), make([]float64, 2))
	if err == nil || !strings.Contains(err.Error(), "2 coordinates, want 3") {
		t.Errorf("Init with 2 coordinates: error %v", err)
	}
	if _, _, err := m.Offset("w"); err == nil || !strings.Contains(err.Error(), `"w"`) {
		t.Errorf("Offset of an unknown latent: error %v", err)
	}
}
