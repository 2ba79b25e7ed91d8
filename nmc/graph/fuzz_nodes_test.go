package graph_test

import (
	"fmt"
	"testing"

	"github.com/nmc-go/nmc/nmc/graph"
)

// The fuzz target of this file runs its committed seed corpus
// (testdata/fuzz/FuzzBuildNodes/) with plain `go test`; explore with
//
//	go test -run '^$' -fuzz '^FuzzBuildNodes$' -fuzztime 10m -parallel 1 ./nmc/graph/

// nodeList decodes up to n earlier nodes (nil now and then).
func (s *fuzzBuilder) nodeList(n int) []*graph.Node {
	out := make([]*graph.Node, int(s.p.byte())%(n+1))
	for i := range out {
		out[i] = s.node()
	}
	return out
}

// components returns the number of components of nodes, or 1 when one is nil
// or carries an error (the function's program then reads out of range, and its
// panic must come back as an error).
func components(nodes []*graph.Node) int {
	if n := countComponents(nodes); n > 0 {
		return n
	}
	return 1
}

// nodeStep decodes and runs one call of the newer builder API with arbitrary
// earlier nodes as arguments: any shape, constants with NaN and ±Inf, latents,
// nil.
func (s *fuzzBuilder) nodeStep() {
	p := s.p
	push := func(n *graph.Node, call string) {
		s.nodes = append(s.nodes, n)
		s.trace = append(s.trace, call)
	}
	shape := func() []int {
		sh := make([]int, int(p.byte()%3))
		for i := range sh {
			sh[i] = int(p.byte() % 4)
		}
		return sh
	}
	orNil := func() *graph.Node {
		if p.byte()%3 == 0 {
			return nil
		}
		return s.node()
	}
	switch p.byte() % 17 {
	case 0:
		ns := s.nodeList(3)
		push(graph.LogSumExp(ns...), fmt.Sprintf("LogSumExp(%d nodes)", len(ns)))
	case 1:
		push(graph.LogMix(s.node(), s.node(), s.node()), "LogMix")
	case 2:
		ns := s.nodeList(3)
		push(graph.Stack(ns...), fmt.Sprintf("Stack(%d nodes)", len(ns)))
	case 3:
		ns := s.nodeList(3)
		push(graph.Concat(ns...), fmt.Sprintf("Concat(%d nodes)", len(ns)))
	case 4:
		l, w := int(p.byte()%6)-1, int(p.byte()%5)-1
		push(graph.Reshape(s.node(), l, w), fmt.Sprintf("Reshape(%d, %d)", l, w))
	case 5:
		push(graph.Components(s.node()), "Components")
	case 6:
		push(graph.LogDensity(s.dist(), s.node()), "LogDensity")
	case 7:
		push(graph.HMMMarginal(s.node(), s.node(), s.node()), "HMMMarginal")
	case 8:
		name := s.name()
		s.b.HiddenMarkov(name, s.node(), s.node(), s.node())
		s.trace = append(s.trace, fmt.Sprintf("HiddenMarkov(%q)", name))
	case 9:
		k := int(p.byte() % 3)
		kern := []func(x, a, r *graph.Node) *graph.Node{graph.ExpQuadCov, graph.Matern32Cov, graph.Matern52Cov}[k]
		push(kern(s.node(), s.node(), s.node()), fmt.Sprintf("kernel %d", k))
	case 10:
		push(graph.AddDiag(s.node(), s.node()), "AddDiag")
	case 11:
		push(graph.CholeskyMul(s.node(), s.node()), "CholeskyMul")
	case 12:
		d := graph.MultivariateNormalCov(s.node(), s.node())
		if p.byte()%2 == 0 {
			d = graph.MultivariateNormalCholesky(s.node(), s.node())
		}
		name := s.name()
		switch p.byte() % 3 {
		case 0:
			sh := shape()
			push(s.b.Latent(name, d, sh...), fmt.Sprintf("Latent(%q, MVN, shape %v)", name, sh))
		case 1:
			v := p.floats(int(p.byte() % 7))
			s.b.Observe(name, d, v)
			s.trace = append(s.trace, fmt.Sprintf("Observe(%q, MVN, %v)", name, v))
		default:
			push(graph.LogDensity(d, s.node()), "LogDensity(MVN)")
		}
	case 13:
		name, k := s.name(), int(p.byte()%4)
		if p.byte()%2 == 0 {
			push(s.b.Ordered(name, k, s.dist()), fmt.Sprintf("Ordered(%q, %d)", name, k))
		} else {
			push(s.b.PositiveOrdered(name, k, s.dist()), fmt.Sprintf("PositiveOrdered(%q, %d)", name, k))
		}
	case 14:
		name, lo, hi, d := s.name(), orNil(), orNil(), s.dist()
		if p.byte()%3 == 0 {
			d = graph.Flat()
		}
		sh := shape()
		push(s.b.Bounded(name, lo, hi, d, sh...), fmt.Sprintf("Bounded(%q, shape %v)", name, sh))
	case 15:
		ins := s.nodeList(3)
		prog := decodeFuncProg(p, components(ins))
		nout := int(p.byte()%4) - 1
		if p.byte()%2 == 0 {
			name := s.name()
			s.b.Func(name, jetProg(prog), ins...)
			s.trace = append(s.trace, fmt.Sprintf("Builder.Func(%q, %d inputs, %v)", name, len(ins), prog))
		} else {
			push(graph.Func(jetProg(prog), nout, ins...), fmt.Sprintf("Func(%d outputs, %d inputs, %v)", nout, len(ins), prog))
		}
	case 16:
		name, a := s.name(), s.node()
		s.b.Factor(name, a)
		s.trace = append(s.trace, fmt.Sprintf("Factor(%q)", name))
	}
}

// FuzzBuildNodes decodes fuzzer bytes into a builder program as FuzzBuild does,
// its calls drawn from FuzzBuild's and from the newer API (LogSumExp, LogMix,
// Stack, Concat, Reshape, Components, LogDensity, HMMMarginal, HiddenMarkov,
// kernels, AddDiag, CholeskyMul, multivariate normals with node covariances,
// Ordered, PositiveOrdered, Bounded, Go functions, Factor) with arbitrary
// arguments: any shapes, NaN and ±Inf, nil. Build must return a model or an
// error naming the package, never panic; the built model's Init, scores, log
// joint, derived values and offsets are checked as FuzzBuild checks them.
func FuzzBuildNodes(f *testing.F) {
	f.Add([]byte{0, 5, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 1, 1, 1})
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) > 512 {
			return
		}
		s := &fuzzBuilder{p: &fuzzProg{b: data}, b: graph.New()}
		for steps := 0; steps < 24 && len(s.p.b) > 0; steps++ {
			if s.p.byte()%2 == 0 {
				s.step()
			} else {
				s.nodeStep()
			}
		}
		checkFuzzBuild(t, s, data)
	})
}
