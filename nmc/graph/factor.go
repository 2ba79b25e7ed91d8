package graph

import (
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/nmc-go/nmc/nmc/dist"
)

// Factor adds every element of expr (a node of width 1) to the model's log density,
// as Stan's `target +=`: for a likelihood no built-in family provides, or the log
// Jacobian of a change of variables. Its derivatives flow through the engine like
// those of any term; each element joins the Markov blankets of the sites it depends
// on (and the orbit scores of their groups). A constant element only shifts the log
// density and has no effect on sampling.
//
// The model is proper only if the resulting density is; an element that evaluates to
// NaN or +Inf makes the state impossible (log density −Inf), as does −Inf.
//
// A Student-t likelihood with scale sigma, for example, written out:
//
//	z := graph.Div(graph.Sub(graph.Data(y), mu), sigma)
//	b.Factor("t_lik", graph.Neg(graph.Add(graph.Log(sigma),
//		graph.Mul(graph.C((nu+1)/2), graph.Log1p(graph.Div(graph.Mul(z, z), graph.C(nu)))))))
//
// Errors (a nil node, a node of width other than 1, a constant element that is NaN
// or +Inf, a duplicate name) are returned by Build, naming the factor.
func (b *Builder) Factor(name string, expr *Node) {
	if expr == nil {
		b.fail(fmt.Errorf("graph: factor %q: nil node", name))
		return
	}
	if expr.err != nil {
		b.fail(fmt.Errorf("graph: factor %q: %w", name, expr.err))
		return
	}
	if expr.width != 1 {
		b.fail(fmt.Errorf("graph: factor %q: node has width %d, want 1 (a scalar per element)", name, expr.width))
		return
	}
	if err := b.claim(name, expr.length == 1); err != nil {
		b.fail(err)
		return
	}
	d := NewDist(exprFactor{}, 1, expr)
	if d.err != nil {
		b.fail(fmt.Errorf("graph: factor %q: %w", name, d.err))
		return
	}
	b.factors = append(b.factors, &factor{name: name, d: d, obs: make([]float64, expr.length), length: expr.length, width: 1})
}

// exprFactor is the family behind Factor: log p(v | e) = e for any (dummy) value v,
// with ∂/∂e = 1 and no curvature.
type exprFactor struct{}

var _ dist.Family = exprFactor{}

func (exprFactor) Name() string                  { return "Factor" }
func (exprFactor) ParamNames() []string          { return []string{"expr"} }
func (exprFactor) Layout(int) (int, []int)       { return 1, []int{1} }
func (exprFactor) InSupport([]float64, int) bool { return true }

func factorOK(e float64) bool { return !math.IsNaN(e) && !math.IsInf(e, 1) }

func (exprFactor) LogProb(args []float64, _ int) float64 {
	if !factorOK(args[1]) {
		return math.Inf(-1)
	}
	return args[1]
}

func (exprFactor) Derivs(args []float64, _ int, grad, hess []float64) float64 {
	clear(grad[:2])
	clear(hess[:4])
	if !factorOK(args[1]) || math.IsInf(args[1], -1) {
		return math.Inf(-1)
	}
	grad[1] = 1
	return args[1]
}

func (exprFactor) CheckParams(params []float64, _ int) error {
	if len(params) != 1 {
		return fmt.Errorf("graph: Factor takes 1 parameter, got %d", len(params))
	}
	if !factorOK(params[0]) {
		return &dist.ParamError{Family: "Factor", Param: "expr", Index: -1, Value: params[0], Reason: "must not be NaN or +Inf"}
	}
	return nil
}

func (exprFactor) Support([]float64, int) (dist.Support, float64, float64, int) {
	return dist.Real, math.Inf(-1), math.Inf(1), 0
}

func (exprFactor) Rand(_ *rand.Rand, _ []float64, _ int, dst []float64) { dst[0] = 0 }
