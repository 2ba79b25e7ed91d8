package graph

import (
	"context"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/nmc-go/nmc/diagnostics"
	"github.com/nmc-go/nmc/nmc"
	jetpkg "github.com/nmc-go/nmc/nmc/jet"
)

// TestFuncBuildErrors checks that Build names the factor and the problem of a bad
// Func: bad arguments, a function that panics at the probe points or at constant
// inputs, and an output never written.
func TestFuncBuildErrors(t *testing.T) {
	ok := func(_ *jetpkg.Space, in, out []jetpkg.Number) {
		for c := range out {
			out[c] = in[0].MulConst(float64(c + 1))
		}
	}
	outOfRange := func(_ *jetpkg.Space, in, out []jetpkg.Number) { out[0] = in[0].Add(in[3]) }
	half := func(_ *jetpkg.Space, in, out []jetpkg.Number) { out[0] = in[0] } // out[1] never written
	nan := func(_ *jetpkg.Space, _, out []jetpkg.Number) { out[0] = jetpkg.Const(math.NaN()) }
	cases := []struct {
		name  string
		build func(b *Builder, a *Node)
		want  []string
	}{
		{"nil-function", func(b *Builder, a *Node) { b.Func("f", nil, a) }, []string{`factor "f"`, "Func: nil function"}},
		{"no-outputs", func(b *Builder, a *Node) { b.Deterministic("d", Func(ok, 0, a)) }, []string{`deterministic "d"`, "Func: 0 outputs"}},
		{"no-inputs", func(b *Builder, _ *Node) { b.Func("f", ok) }, []string{`factor "f"`, "Func: no inputs"}},
		{"nil-input", func(b *Builder, a *Node) { b.Func("f", ok, a, nil) }, []string{`factor "f"`, "Func: operand 1 is a nil node"}},
		{"bad-input", func(b *Builder, a *Node) { b.Func("f", ok, a, C(math.Inf(1))) }, []string{`factor "f"`, "C: constant is +Inf"}},
		{"too-many-inputs", func(b *Builder, a *Node) { b.Func("f", ok, a, Data(make([]float64, 300))) },
			[]string{`factor "f"`, "Func: 301 input components, at most 256"}},
		{"panic-at-probe", func(b *Builder, a *Node) { b.Func("f", outOfRange, a, a) },
			[]string{`factor "f"`, "Func: the function panicked at inputs", "index out of range [3] with length 2"}},
		{"panic-in-prior", func(b *Builder, a *Node) { b.Latent("c", Normal(Func(outOfRange, 1, a), C(1))) },
			[]string{"Func: the function panicked at inputs", "index out of range [3] with length 1"}},
		{"panic-at-constants", func(b *Builder, a *Node) { b.Observe("y", Normal(Func(outOfRange, 1, C(2)), C(1)), []float64{1}) },
			[]string{`observed "y"`, "Func: the function panicked at inputs [2]", "index out of range [3]"}},
		{"output-not-written", func(b *Builder, a *Node) {
			b.Observe("y", Normal(Components(Func(half, 2, a)), C(1)), []float64{1, 2})
		}, []string{`observed "y"`, "Func: output 1 is NaN or infinite at each of 10 draws from the prior"}},
		{"nan-at-constants", func(b *Builder, a *Node) { b.Func("f", nan, C(1)) }, []string{`"f"`, "expr = NaN"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			b := New()
			a := b.Latent("a", Normal(C(0), C(1)))
			c.build(b, a)
			_, err := b.Build()
			if err == nil {
				t.Fatalf("Build succeeded, want an error containing %q", c.want)
			}
			for _, w := range c.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("Build: %v\nwant it to contain %q", err, w)
				}
			}
		})
	}
}

// TestFuncImpossibleOutputs checks that an output of NaN or −Inf makes a state
// impossible: the log joint and the scores of the sites read are −Inf there and
// finite elsewhere.
func TestFuncImpossibleOutputs(t *testing.T) {
	for _, bad := range []float64{math.NaN(), math.Inf(-1), math.Inf(1)} {
		f := func(_ *jetpkg.Space, in, out []jetpkg.Number) {
			if in[0].Value() > 1 {
				out[0] = jetpkg.Const(bad)
				return
			}
			out[0] = in[0].Square().MulConst(-0.5)
		}
		b := New()
		a := b.Latent("a", Normal(C(0), C(1)))
		s := b.Latent("s", Gamma(C(2), C(2)))
		b.Func("f", f, a)
		b.Observe("y", Normal(Func(f, 1, a), s), []float64{0.5})
		m, err := b.Build()
		if err != nil {
			t.Fatalf("%v: Build: %v", bad, err)
		}
		sc := m.NewScorer()
		g, h := make([]float64, 1), make([]float64, 1)
		for _, x := range [][]float64{{0.5, 1}, {2, 1}} {
			lj, fa, fs := sc.LogJoint(x), sc.Score(x, 0, g, h), sc.Score(x, 1, g, h)
			want := x[0] > 1
			for what, v := range map[string]float64{"log joint": lj, "score of a": fa, "score of s": fs} {
				if got := math.IsInf(v, -1) || math.IsNaN(v); got != want {
					t.Errorf("output %v, a = %v: %s = %v", bad, x[0], what, v)
				}
			}
		}
	}
}

// TestFuncPanicWhileSampling checks that a function that panics only where the
// posterior goes (a > 4, with the prior N(0, 1) and data at 5) passes Build's
// probe and makes Sample return an error quoting the panic, without crashing.
func TestFuncPanicWhileSampling(t *testing.T) {
	b := New()
	a := b.Latent("a", Normal(C(0), C(1)))
	b.Observe("y", Normal(a, C(0.1)), []float64{5})
	b.Func("f", func(_ *jetpkg.Space, in, out []jetpkg.Number) {
		if in[0].Value() > 4 {
			panic("a beyond 4")
		}
		out[0] = in[0].MulConst(0.01)
	}, a)
	m, err := b.Build()
	if err != nil {
		t.Fatalf("Build: %v", err)
	}
	_, err = nmc.Sample(context.Background(), m, &nmc.Options{Warmup: nmc.NoWarmup, Chains: 2, Draws: 50, Seed: 1})
	if err == nil || !strings.Contains(err.Error(), "Func: the function panicked") || !strings.Contains(err.Error(), "a beyond 4") {
		t.Errorf("Sample: %v, want an error quoting the panic", err)
	}
}

// TestFuncTruncation samples N(0, 1) truncated to a < 1 by a Builder.Func factor
// that is −Inf beyond 1 and checks the posterior mean −φ(1)/Φ(1) and standard
// deviation within 4.5 Monte Carlo standard errors.
func TestFuncTruncation(t *testing.T) {
	b := New()
	a := b.Latent("a", Normal(C(0), C(1)))
	b.Func("trunc", func(_ *jetpkg.Space, in, out []jetpkg.Number) {
		out[0] = jetpkg.Const(0)
		if in[0].Value() >= 1 {
			out[0] = jetpkg.Const(math.Inf(-1))
		}
	}, a)
	m, err := b.Build()
	if err != nil {
		t.Fatal(err)
	}
	res, err := nmc.Sample(context.Background(), m, &nmc.Options{Chains: 4, Draws: 2000, Warmup: 200, Seed: 11})
	if err != nil {
		t.Fatal(err)
	}
	draws, err := res.Draws.Param("a")
	if err != nil {
		t.Fatal(err)
	}
	phi := math.Exp(-0.5) / math.Sqrt(2*math.Pi)
	cdf := 0.5 * math.Erfc(-1/math.Sqrt2)
	mean := -phi / cdf
	sd := math.Sqrt(1 - phi/cdf - mean*mean) // 1 − φ(1)/Φ(1) − mean²
	var s, s2, n float64
	for _, ch := range draws {
		for _, v := range ch {
			if v >= 1 {
				t.Fatalf("draw %v beyond the truncation", v)
			}
			s, s2, n = s+v, s2+v*v, n+1
		}
	}
	gotMean := s / n
	gotSD := math.Sqrt(s2/n - gotMean*gotMean)
	mcseMean, err1 := diagnostics.MCSEMean(draws)
	mcseSD, err2 := diagnostics.MCSESD(draws)
	if err1 != nil || err2 != nil {
		t.Fatal(err1, err2)
	}
	if z := math.Abs(gotMean-mean) / mcseMean; z > 4.5 {
		t.Errorf("mean %.4f, truncated normal %.4f (z = %.1f)", gotMean, mean, z)
	}
	if z := math.Abs(gotSD-sd) / mcseSD; z > 4.5 {
		t.Errorf("sd %.4f, truncated normal %.4f (z = %.1f)", gotSD, sd, z)
	}
}

// TestFuncInGroupOrbit checks a group's orbit score through a Func against finite
// differences of the log joint along the orbit.
func TestFuncInGroupOrbit(t *testing.T) {
	b := New()
	a := b.Latent("a", Normal(C(0.3), C(1)))
	s := b.Latent("s", Gamma(C(4), C(3)))
	f, _ := mixFunc(2)
	b.Observe("y", Normal(Components(Func(f, 2, a, s)), C(0.7)), []float64{0.4, -0.3})
	b.Group("g", Shift(a, 1.5), Dilate(s, 0.7))
	m, err := b.Build()
	if err != nil {
		t.Fatal(err)
	}
	sc := m.NewScorer()
	os := sc.(nmc.OrbitScorer)
	grp := m.Groups()[0]
	rng := rand.New(rand.NewPCG(6, 6))
	x, xt := make([]float64, 2), make([]float64, 2)
	for range 5 {
		if err := m.Init(rng, x); err != nil {
			t.Fatal(err)
		}
		var d [2]float64
		os.ScoreOrbit(x, 0, &d)
		const h = 1e-3
		var lj [5]float64
		for i := range lj {
			orbitPoint(xt, x, grp, float64(i-2)*h)
			lj[i] = sc.LogJoint(xt)
		}
		if fd1, fd2 := first4(lj, h), second4(lj, h); !close(d[0], fd1, 1e-6) || !close(d[1], fd2, 1e-6) {
			t.Errorf("at %v: orbit derivatives (%.10g, %.10g), finite differences (%.10g, %.10g)", x, d[0], d[1], fd1, fd2)
		}
	}
}

// TestFuncPanicInConstantExpression checks that a Func of constant expressions
// (not data: evaluated by Build's checks of constant parameters) whose function
// panics makes Build return an error quoting the panic, not panic.
func TestFuncPanicInConstantExpression(t *testing.T) {
	b := New()
	b.Latent("a", Normal(C(0), C(1)))
	b.Observe("y", Normal(Func(func(_ *jetpkg.Space, in, out []jetpkg.Number) { out[0] = in[2] }, 1, Exp(C(1))), C(1)), []float64{1})
	_, err := b.Build()
	if err == nil || !strings.Contains(err.Error(), "Func: the function panicked at inputs [2.718281828459045]") ||
		!strings.Contains(err.Error(), "index out of range [2] with length 1") {
		t.Errorf("Build: %v, want an error quoting the panic", err)
	}
}
