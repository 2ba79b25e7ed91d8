package graph_test

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/nmc-go/nmc/nmc"
	"github.com/nmc-go/nmc/nmc/graph"
	"github.com/nmc-go/nmc/nmc/jet"
)

// Explore with
//
//	go test -run '^$' -fuzz '^FuzzFunc$' -fuzztime 10m -parallel 1 ./nmc/graph/

// funcProgOp is one instruction of a decoded function: register dst gets op
// applied to registers a and b (b unused by unary ops).
type funcProgOp struct{ op, a, b int }

// funcProgOps is the number of instructions' kinds: Add, Sub, Mul, Div, Neg, Exp,
// Log, Log1p, Sqrt, Logistic, Softplus, Square.
const funcProgOps = 12

// decodeFuncProg decodes up to 6 instructions over n input registers.
func decodeFuncProg(p *fuzzProg, n int) []funcProgOp {
	var prog []funcProgOp
	for i := 0; i < 1+int(p.byte()%6); i++ {
		regs := n + i
		prog = append(prog, funcProgOp{int(p.byte()) % funcProgOps, int(p.byte()) % regs, int(p.byte()) % regs})
	}
	return prog
}

// jetProg runs prog on Numbers; the last register is the output.
func jetProg(prog []funcProgOp) graph.GoFunc {
	return func(_ *jet.Space, in, out []jet.Number) {
		r := append([]jet.Number(nil), in...)
		for _, o := range prog {
			a, b := r[o.a], r[o.b]
			var v jet.Number
			switch o.op {
			case 0:
				v = a.Add(b)
			case 1:
				v = a.Sub(b)
			case 2:
				v = a.Mul(b)
			case 3:
				v = a.Div(b)
			case 4:
				v = a.Neg()
			case 5:
				v = a.Exp()
			case 6:
				v = a.Log()
			case 7:
				v = a.Log1p()
			case 8:
				v = a.Sqrt()
			case 9:
				v = a.Logistic()
			case 10:
				v = a.Softplus()
			default:
				v = a.Square()
			}
			r = append(r, v)
		}
		out[0] = r[len(r)-1]
	}
}

// nodeProg builds prog from graph expressions over the scalar nodes in.
func nodeProg(prog []funcProgOp, in []*graph.Node) *graph.Node {
	r := append([]*graph.Node(nil), in...)
	for _, o := range prog {
		a, b := r[o.a], r[o.b]
		var v *graph.Node
		switch o.op {
		case 0:
			v = graph.Add(a, b)
		case 1:
			v = graph.Sub(a, b)
		case 2:
			v = graph.Mul(a, b)
		case 3:
			v = graph.Div(a, b)
		case 4:
			v = graph.Neg(a)
		case 5:
			v = graph.Exp(a)
		case 6:
			v = graph.Log(a)
		case 7:
			v = graph.Log1p(a)
		case 8:
			v = graph.Sqrt(a)
		case 9:
			v = graph.Logistic(a)
		case 10:
			v = graph.Softplus(a)
		default:
			v = graph.Mul(a, a)
		}
		r = append(r, v)
	}
	return r[len(r)-1]
}

// buildFuncFuzz decodes data into a builder program as FuzzBuild does, then a
// function of up to three earlier nodes, added as a Builder.Func factor
// (asFunc) or as the same function in expressions, a Factor.
func buildFuncFuzz(data []byte, asFunc bool) (*graph.Model, []string, error) {
	s := &fuzzBuilder{p: &fuzzProg{b: data}, b: graph.New()}
	for steps := 0; steps < 12 && len(s.p.b) > 0; steps++ {
		s.step()
	}
	var inputs, scalars []*graph.Node
	for i := 0; i < 1+int(s.p.byte()%3); i++ {
		n := s.node()
		inputs = append(inputs, n)
		if n == nil || n.Err() != nil {
			continue
		}
		for c := 0; c < n.Len()*n.Width() && c < 8; c++ {
			scalars = append(scalars, graph.Index(graph.Components(n), []int{c}))
		}
	}
	nin := len(scalars)
	prog := decodeFuncProg(s.p, max(nin, 1))
	s.trace = append(s.trace, fmt.Sprintf("Func(%d inputs, %v)", nin, prog))
	if nin == 0 || len(scalars) != countComponents(inputs) {
		// A bad input (a nil node, an error, a large node): Func must refuse it.
		s.b.Func("f", jetProg(prog), inputs...)
		m, err := s.b.Build()
		return m, s.trace, err
	}
	if asFunc {
		s.b.Func("f", jetProg(prog), inputs...)
	} else {
		s.b.Factor("f", nodeProg(prog, scalars))
	}
	m, err := s.b.Build()
	return m, s.trace, err
}

// countComponents returns the number of components of nodes (−1 if one is nil
// or carries an error).
func countComponents(nodes []*graph.Node) int {
	n := 0
	for _, a := range nodes {
		if a == nil || a.Err() != nil {
			return -1
		}
		n += a.Len() * a.Width()
	}
	return n
}

// FuzzFunc decodes a builder program as FuzzBuild does and adds a Go function of
// up to three earlier nodes (of any kind: latents, data, expressions, nil) as a
// Builder.Func factor. Build must return a model or an error naming the package,
// never panic; a built model's Init, scores, log joint and derived values must not
// panic. When the same function written with the package's expressions as a
// Factor builds too, the two models' log joints agree, and so do the scores,
// gradients and Hessians of every continuous site where they are finite and
// moderate.
func FuzzFunc(f *testing.F) {
	f.Add([]byte{5, 0, 0, 0, 0, 0, 6, 1, 3, 0, 0, 0, 0, 1, 0, 0, 2, 2, 0, 0, 5, 1, 0})
	f.Add([]byte{6, 2, 3, 0, 0, 0, 0, 5, 0, 6, 2, 0, 0, 1, 2, 1, 3, 0, 1, 2, 9, 2, 2, 6, 3, 3})
	f.Add([]byte{5, 2, 6, 0, 0, 1, 2, 1, 1, 0, 2, 8, 1, 0, 3, 2, 2, 1})
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) > 512 {
			return
		}
		mf, trace, err := buildFuncFuzz(data, true)
		if err != nil {
			if mf != nil {
				t.Fatalf("Build returned a model with error %v", err)
			}
			if !strings.HasPrefix(err.Error(), "graph: ") && !strings.HasPrefix(err.Error(), "dist: ") {
				t.Fatalf("Build error without a package prefix: %v\ncalls: %v", err, trace)
			}
			return
		}
		sites := mf.Sites()
		x := make([]float64, nmc.Dim(sites))
		if err := mf.Init(rand.New(rand.NewPCG(uint64(len(data)), 9)), x); err != nil {
			return
		}
		sf := mf.NewScorer()
		ljf := sf.LogJoint(x)
		mf.Derive(x, make([]float64, len(mf.DerivedNames())))
		me, _, err := buildFuncFuzz(data, false)
		if err != nil {
			return // the expression form is refused (a Func's refusals differ)
		}
		se := me.NewScorer()
		lje := se.LogJoint(x)
		bad := func(v float64) bool { return math.IsNaN(v) || math.IsInf(v, 0) || math.Abs(v) > 1e6 }
		if bad(ljf) || bad(lje) {
			if bad(ljf) != bad(lje) && !(math.Abs(ljf) > 1e5 || math.Abs(lje) > 1e5) {
				t.Fatalf("log joint %v with Func, %v with expressions\ncalls: %v", ljf, lje, trace)
			}
			return
		}
		if math.Abs(ljf-lje) > 1e-9*math.Max(1, math.Abs(lje)) {
			t.Fatalf("log joint %.17g with Func, %.17g with expressions\ncalls: %v", ljf, lje, trace)
		}
		for i, st := range sites {
			if st.Support == nmc.Discrete {
				continue
			}
			k := st.Size
			gf, hf, ge, he := make([]float64, k), make([]float64, k*k), make([]float64, k), make([]float64, k*k)
			ff, fe := sf.Score(x, i, gf, hf), se.Score(x, i, ge, he)
			all := append(append(append(append([]float64{ff, fe}, gf...), hf...), ge...), he...)
			scale := 1.0
			for _, v := range all {
				if bad(v) {
					return // derivatives too large or not finite: rounding decides
				}
				scale = math.Max(scale, math.Abs(v))
			}
			for p := range gf {
				if math.Abs(gf[p]-ge[p]) > 1e-7*scale {
					t.Fatalf("site %s: gradient %v with Func, %v with expressions\ncalls: %v", st.Name, gf, ge, trace)
				}
			}
			for p := range hf {
				if math.Abs(hf[p]-he[p]) > 1e-7*scale {
					t.Fatalf("site %s: Hessian %v with Func, %v with expressions\ncalls: %v", st.Name, hf, he, trace)
				}
			}
		}
	})
}
