package graph

import (
	"math"
	"math/rand/v2"
	"strings"
	"testing"
)

// TestLogSumExpDerivatives checks LogSumExp, LogMix and LogDensity as TestOpDerivatives
// checks the other ops: f, ∇f and ∇²f of every site against finite differences of
// the log joint, with the op's result as the location of normal observations (and
// of another latent's prior when it is a scalar), on structured and dense jets,
// broadcasting, constants and terms far apart.
func TestLogSumExpDerivatives(t *testing.T) {
	cases := []struct {
		name string
		expr func(o *opBase) *Node
	}{
		{"LogSumExp/dense", func(o *opBase) *Node { return LogSumExp(o.a, Index(o.p, o.idx)) }},
		{"LogSumExp/same-site", func(o *opBase) *Node { return LogSumExp(o.a, Mul(o.a, o.a), C(1)) }},
		{"LogSumExp/same-row", func(o *opBase) *Node {
			r := MatVec(o.x, o.v)
			return LogSumExp(r, Mul(C(0.5), Mul(r, r)), Data([]float64{0, 1, 2, -1, -2, 0.5}))
		}},
		{"LogSumExp/three", func(o *opBase) *Node {
			return LogSumExp(Mul(C(3), o.a), Data([]float64{0, 1, 2, -1, -2, 0.5}), MatVec(o.x, o.v), Index(o.p, o.idx))
		}},
		{"LogSumExp/far-apart", func(o *opBase) *Node {
			return LogSumExp(Add(o.a, C(40)), Mul(o.s, Index(o.p, o.idx)), Sub(MatVec(o.x, o.v), C(60)))
		}},
		{"LogSumExp/components", func(o *opBase) *Node {
			return LogSumExp(Stack(o.a, Exp(Index(o.v, o.idx)), Mul(o.s, Index(o.p, o.idx)), C(0.3)))
		}},
		{"LogSumExp/elements", func(o *opBase) *Node { return LogSumExp(Mul(o.s, o.v)) }},
		{"LogSumExp/elements-plate", func(o *opBase) *Node { return LogSumExp(Add(o.p, Index(o.v, []int{1, 2, 0}))) }},
		{"LogSumExp/width", func(o *opBase) *Node {
			return Components(LogSumExp(Stack(o.a, o.s, Index(o.v, []int{0})), Vec(0.5, -1, 2), Reshape(o.p, 1, 3)))
		}},
		{"LogMix/dense", func(o *opBase) *Node {
			return LogMix(Logistic(o.a), Index(o.p, o.idx), MatVec(o.x, o.v))
		}},
		{"LogMix/constant-theta", func(o *opBase) *Node {
			return LogMix(C(0.3), Mul(o.s, Index(o.p, o.idx)), Neg(Index(o.p, o.idx)))
		}},
		{"LogMix/theta-node", func(o *opBase) *Node {
			return LogMix(Logistic(Index(o.p, o.idx)), o.a, Sub(Index(o.v, o.idx), C(3)))
		}},
		{"LogMix/theta-near-0", func(o *opBase) *Node {
			return LogMix(Logistic(Sub(o.a, C(25))), Add(Index(o.p, o.idx), C(20)), MatVec(o.x, o.v))
		}},
		// θ = 1 − e^{−8−a}: nearer 1, 1 − θ has few correct digits in a float θ, and
		// finite differences of the log joint see its rounding.
		{"LogMix/theta-near-1", func(o *opBase) *Node {
			return LogMix(Logistic(Add(o.a, C(8))), MatVec(o.x, o.v), Add(Index(o.p, o.idx), C(20)))
		}},
		{"LogMix/far-apart", func(o *opBase) *Node {
			return LogMix(Logistic(o.a), Mul(C(50), Index(o.p, o.idx)), Sub(Mul(o.s, MatVec(o.x, o.v)), C(80)))
		}},
		{"LogDensity/normal", func(o *opBase) *Node { return LogDensity(Normal(o.a, o.s), Index(o.p, o.idx)) }},
		{"LogDensity/normal-data", func(o *opBase) *Node {
			return LogDensity(Normal(MatVec(o.x, o.v), o.s), Data([]float64{0, 1, 2, -1, -2, 0.5}))
		}},
		{"LogDensity/gamma", func(o *opBase) *Node { return LogDensity(Gamma(o.s, Exp(Index(o.p, o.idx))), Exp(o.a)) }},
		{"LogDensity/student", func(o *opBase) *Node {
			return LogDensity(StudentT(Add(o.s, C(2)), Index(o.v, o.idx), C(1.5)), Add(o.a, Index(o.p, o.idx)))
		}},
		{"LogDensity/dirichlet", func(o *opBase) *Node {
			return LogDensity(Dirichlet(Add(Vec(1, 2, 3), Mul(o.s, Vec(1, 1, 0.5)))), Rows([][]float64{{0.2, 0.3, 0.5}, {0.6, 0.3, 0.1}}))
		}},
		{"LogMix/normal-mixture", func(o *opBase) *Node {
			y := Data([]float64{0, 1, 2, -1, -2, 0.5})
			return LogMix(Logistic(o.a), LogDensity(Normal(Index(o.v, []int{0}), o.s), y), LogDensity(Normal(Index(o.v, []int{1}), o.s), y))
		}},
	}
	for ci, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			b := New()
			o := newOpBase(b)
			e := c.expr(o)
			if err := e.Err(); err != nil {
				t.Fatalf("expression: %v", err)
			}
			b.Observe("y", Normal(e, C(1.3)), o.obs[:max(e.Len(), 1)])
			if e.Len() == 1 {
				b.Latent("c", Normal(e, C(2)))
			}
			m, err := b.Build()
			if err != nil {
				t.Fatalf("Build: %v", err)
			}
			st := checkModelDerivs(t, c.name, m, rand.New(rand.NewPCG(8, uint64(ci))), 4, 40)
			if !t.Failed() && st.points < 4 {
				t.Errorf("only %d acceptable points out of 40 prior draws", st.points)
			}
		})
	}
}

// TestLogSumExpValues checks the values of LogSumExp, LogMix and LogDensity against
// direct computations: log Σ exp where nothing overflows or underflows, and the
// asymptotic forms where the naive sum would (log Σ exp(aᵢ) = a_max + Σ_{i≠max}
// e^{aᵢ−a_max} to within the square of the terms).
func TestLogSumExpValues(t *testing.T) {
	b := New()
	a := b.Latent("a", Normal(C(0), C(1)))
	v := b.Vector("v", 3, Normal(C(0), C(1)))
	th := b.Latent("th", Beta(C(1), C(1)))
	y := Data([]float64{0.5, -1, 2})
	b.Deterministic("lse2", LogSumExp(a, v))
	b.Deterministic("lse3", LogSumExp(Add(a, C(1000)), Add(v, C(1000)), C(999)))
	b.Deterministic("lseComp", LogSumExp(Stack(a, Mul(C(2), a), C(-1))))
	b.Deterministic("lseElem", LogSumExp(v))
	b.Deterministic("lseFar", LogSumExp(Sub(a, C(800)), Add(v, C(-750))))
	b.Deterministic("mix", LogMix(th, a, v))
	b.Deterministic("mixFar", LogMix(th, Sub(a, C(300)), v))
	b.Deterministic("mixTiny", LogMix(C(1e-300), a, Sub(v, C(1000))))
	b.Deterministic("dens", LogDensity(Normal(v, Exp(a)), y))
	m, err := b.Build()
	if err != nil {
		t.Fatal(err)
	}
	x := []float64{0.3, -0.2, 1.1, 0.7, 0.25} // a, v[0..2], th
	got := make([]float64, len(m.DerivedNames()))
	m.Derive(x, got)
	av, vv, t0 := x[0], x[1:4], x[4]
	naive := func(xs ...float64) float64 {
		s := 0.0
		for _, z := range xs {
			s += math.Exp(z)
		}
		return math.Log(s)
	}
	var want []float64
	for _, z := range vv {
		want = append(want, naive(av, z))
	}
	for _, z := range vv {
		want = append(want, 1000+naive(av, z, -1))
	}
	want = append(want, naive(av, 2*av, -1))
	want = append(want, naive(vv...))
	for _, z := range vv {
		// a − 800 is e^{−50} below v − 750 and smaller: log(e^{v−750} + e^{a−800}).
		want = append(want, z-750+math.Exp(av-800-(z-750)))
	}
	for _, z := range vv {
		want = append(want, math.Log(t0*math.Exp(av)+(1-t0)*math.Exp(z)))
	}
	for _, z := range vv {
		want = append(want, math.Log1p(-t0)+z+t0/(1-t0)*math.Exp(av-300-z))
	}
	for range vv {
		// 1e−300·e^a against e^{v−1000}: log(1e−300) + a, the other term e^{−310} smaller.
		want = append(want, math.Log(1e-300)+av)
	}
	for i, z := range vv {
		yi := []float64{0.5, -1, 2}[i]
		s := math.Exp(av)
		want = append(want, -0.5*math.Log(2*math.Pi)-math.Log(s)-0.5*(yi-z)*(yi-z)/(s*s))
	}
	if len(got) != len(want) {
		t.Fatalf("%d values (%v), want %d", len(got), m.DerivedNames(), len(want))
	}
	for i := range want {
		if !(math.Abs(got[i]-want[i]) <= 1e-13*math.Max(1, math.Abs(want[i]))) {
			t.Errorf("%s = %.17g, want %.17g", m.DerivedNames()[i], got[i], want[i])
		}
	}
}

// TestLogSumExpErrors checks that Build names the operation and the problem.
func TestLogSumExpErrors(t *testing.T) {
	cases := []struct {
		name string
		node func(v, w *Node) *Node
		want string
	}{
		{"lse-empty", func(v, w *Node) *Node { return LogSumExp() }, "LogSumExp: no nodes"},
		{"lse-length", func(v, w *Node) *Node { return LogSumExp(v, Data([]float64{1, 2})) }, "LogSumExp: node 1 has 2 elements, others 3"},
		{"lse-width", func(v, w *Node) *Node { return LogSumExp(w, Vec(1, 2)) }, "LogSumExp: node 1 has width 2, others 3"},
		{"lse-nil", func(v, w *Node) *Node { return LogSumExp(v, nil) }, "LogSumExp: operand 1 is a nil node"},
		{"mix-length", func(v, w *Node) *Node { return LogMix(C(0.5), v, Data([]float64{1, 2})) }, "LogMix: node 2 has 2 elements, others 3"},
		{"mix-nil", func(v, w *Node) *Node { return LogMix(nil, v, v) }, "LogMix: operand 0 is a nil node"},
		{"density-width", func(v, w *Node) *Node { return LogDensity(Normal(C(0), C(1)), w) }, "LogDensity: the value has width 3, Normal takes values of width 1"},
		{"density-length", func(v, w *Node) *Node { return LogDensity(Normal(v, C(1)), Data([]float64{1, 2})) }, "LogDensity: the value has 2 elements, the parameters 3"},
		{"density-param", func(v, w *Node) *Node { return LogDensity(Normal(v, Data([]float64{1, 2})), C(0)) }, "LogDensity: Normal parameter sigma has 2 elements, others 3"},
		{"density-nil", func(v, w *Node) *Node { return LogDensity(nil, v) }, "LogDensity: nil distribution"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			b := New()
			v := b.Vector("v", 3, Normal(C(0), C(1)))
			w := b.Latent("w", Dirichlet(Vec(1, 1, 1)))
			b.Factor("f", Sum(c.node(v, w)))
			_, err := b.Build()
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Errorf("error %v, want one containing %q", err, c.want)
			}
		})
	}
}
