package graph

import (
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/nmc-go/nmc/nmc"
)

// hmmDecl is a hidden Markov model whose states are recorded (Builder.HiddenMarkov).
type hmmDecl struct {
	name string
	node *Node // its HMMMarginal node
}

// HiddenMarkov adds the log marginal likelihood of a hidden Markov model to the log
// density, as Factor(name, HMMMarginal(logOmega, gamma, rho)) does (see HMMMarginal
// for the arguments), and records its hidden states with every draw: at each
// recorded draw the states name[0] … name[N−1] (values 0 … K−1) are drawn jointly
// from their exact conditional p(z | θ, y) given the state θ, by forward filtering
// and backward sampling, from the generated quantities' random stream (the compiled
// Model is an nmc.Generator). The other columns of the draws are those of the same
// model declared with Factor.
//
// ExampleBuilder_HiddenMarkov declares a two-state HMM of counts with Poisson
// emissions and ordered rates.
//
// Errors are those of Factor and HMMMarginal, returned by Build.
func (b *Builder) HiddenMarkov(name string, logOmega, gamma, rho *Node) {
	marg := HMMMarginal(logOmega, gamma, rho)
	before := len(b.factors)
	b.Factor(name, marg)
	if len(b.factors) == before {
		return // Factor recorded the error
	}
	b.hmms = append(b.hmms, hmmDecl{name: name, node: marg})
}

var _ nmc.Generator = (*Model)(nil)

// GeneratedNames names the hidden states of the models declared with HiddenMarkov,
// name[0] … name[N−1] for each in declaration order (none without).
func (m *Model) GeneratedNames() []string {
	var out []string
	for _, h := range m.hmms {
		op := h.node.impl.(*hmmOp)
		for t := 0; t < op.steps; t++ {
			out = append(out, fmt.Sprintf("%s[%d]", h.name, t))
		}
	}
	return out
}

// Generate writes into dst a draw of the hidden states of every HiddenMarkov model
// at state x, by forward filtering, backward sampling: the filtered probabilities
// α̂_t(i) = p(z_t = i | y_{0:t}) forward, then z_{N−1} ~ α̂_{N−1} and z_t ~ α̂_t(i)
// Γ_{i z_{t+1}} (normalised) backward, an exact draw of p(z | x, y). It reuses value
// scorers and their buffers (no allocation once warm) and is safe for concurrent
// use with distinct rng and dst. States whose conditional is not defined (a log
// density at x that is not finite) are NaN.
func (m *Model) Generate(rng *rand.Rand, x []float64, dst []float64) {
	if len(m.hmms) == 0 {
		return
	}
	sc := m.pooledValueScorer(x)
	sc.active, sc.orbit, sc.top, sc.ops.k = -1, nil, 0, 0
	sc.newCall()
	at := 0
	for _, h := range m.hmms {
		op := h.node.impl.(*hmmOp)
		op.sample(sc, h.node, rng, dst[at:at+op.steps])
		at += op.steps
	}
	m.releaseValueScorer(sc)
}

// sample writes into z a draw of the N hidden states given the value scorer's state.
func (o *hmmOp) sample(s *scorer, n *Node, rng *rand.Rand, z []float64) {
	K, N := o.states, o.steps
	x := s.ext.hmmFor(n, K, 0)
	if len(x.filt) < N*K {
		x.filt = make([]float64, N*K)
	}
	filt := x.filt[:N*K]
	if lp := o.forward(s, n, filt); math.IsNaN(lp.v) || math.IsInf(lp.v, 0) {
		for t := range z {
			z[t] = math.NaN()
		}
		return
	}
	// x.gam holds Γ at this state (forward evaluated it).
	z[N-1] = float64(drawIndex(rng, filt[(N-1)*K:]))
	p := x.probs[:K]
	for t := N - 2; t >= 0; t-- {
		j := int(z[t+1])
		for i := 0; i < K; i++ {
			p[i] = filt[t*K+i] * x.gam[i*K+j].v
		}
		z[t] = float64(drawIndex(rng, p))
	}
}

// drawIndex draws an index with probability proportional to the non-negative
// weights p (not all 0).
func drawIndex(rng *rand.Rand, p []float64) int {
	sum := 0.0
	for _, v := range p {
		sum += v
	}
	u := rng.Float64() * sum
	last := 0
	for i, v := range p {
		if v > 0 {
			if u < v {
				return i
			}
			u -= v
			last = i
		}
	}
	return last // rounding left u ≥ the last weight
}
