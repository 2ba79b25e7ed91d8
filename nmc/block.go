package nmc

import (
	"math"

	"github.com/nmc-go/nmc/internal/special"
)

// JointHessianer is an optional interface of a Scorer that gives the gradient and
// the dense Hessian of the log joint with respect to the coordinates of several
// continuous sites at once: the input of the block Newton move (BlockNewton) and of
// the automatic blocks' coupling measure (Defaults). Package graph's scorers
// implement it exactly.
type JointHessianer interface {
	// JointHessian returns f(x), the log joint at x up to a term that does not
	// depend on the coordinates of the continuous sites listed (the sum of the
	// factor terms that depend on any of them, say: a block's Markov-blanket
	// score), and writes into grad and hess the gradient (n entries) and the
	// Hessian (n×n, row-major, both triangles) of f with respect to their
	// coordinates, one site after another in the order given (n is the sum of
	// their Sizes), in the coordinates Score uses: all k coordinates of a Simplex
	// site, each taken as free (the homogeneous form, see JointGradienter; the
	// gradient and the Hessian are those of one extension of f off the simplex).
	// Marginalised sites are summed out, as in LogJoint. Outside the support it
	// returns −Inf (grad and hess unspecified); a non-finite return value means no
	// derivatives. With grad and hess nil it returns f(x) alone (the same f as
	// with them, to rounding). It leaves x unchanged, and the same x and sites give
	// the same results on every call.
	JointHessian(x []float64, sites []int, grad, hess []float64) float64
}

// blockCoords maps the coordinates of a block of sites, held compactly (the
// sites' coordinates one after another, dx of them), to unconstrained ones (du):
// the maps of the Hamiltonian block (hamiltonian_transform.go; a simplex's
// reference coordinate is always 0), with the chain rule for Hessians besides
// gradients. All of it is allocated by newBlockCoords.
type blockCoords struct {
	segs   []hamSeg // x and g offsets into the compact coordinates, u into u
	stateX []int    // per segment: its site's offset in the chain's state
	runs   []hamRun // one per segment
	du, dx int
	jac    []float64 // dx×du: ∂x/∂u, block diagonal
	hj     []float64 // dx×du scratch: H_x·J
	// mapCurv holds, per unconstrained coordinate of an Interval site, the term
	// gx_i·∂²x_i/∂u² of the last derivs' hu (0 elsewhere): the part of the
	// Hessian the curvature of the logit map adds, which the block proposal
	// leaves out in its second try where hu is not negative definite
	// (blockNewtonProposer.fit).
	mapCurv []float64
}

// newBlockCoords returns the maps of the listed sites (off: their state offsets).
func newBlockCoords(blockSites []int, sites []Site, off []int) *blockCoords {
	b := &blockCoords{}
	for _, i := range blockSites {
		s := sites[i]
		b.segs = append(b.segs, hamSeg{support: s.Support, k: s.Size, x: b.dx, u: b.du, g: b.dx, lower: s.Lower, upper: s.Upper})
		b.stateX = append(b.stateX, off[i])
		b.du += freeDim(s)
		b.dx += s.Size
	}
	for _, sg := range b.segs {
		b.runs = append(b.runs, hamRunOf(sg))
	}
	b.jac, b.hj = make([]float64, b.dx*b.du), make([]float64, b.dx*b.du)
	b.mapCurv = make([]float64, b.du)
	return b
}

// gather copies the block's coordinates from the state into xb (compact).
func (b *blockCoords) gather(state, xb []float64) {
	for n, sg := range b.segs {
		copy(xb[sg.x:sg.x+sg.k], state[b.stateX[n]:])
	}
}

// scatter copies the block's compact coordinates xb into the state.
func (b *blockCoords) scatter(xb, state []float64) {
	for n, sg := range b.segs {
		copy(state[b.stateX[n]:b.stateX[n]+sg.k], xb[sg.x:sg.x+sg.k])
	}
}

// toFree writes the unconstrained coordinates u of the compact coordinates xb.
func (b *blockCoords) toFree(xb, u []float64) { hamToFree(b.segs, xb, u) }

// fromFree writes the compact coordinates xb = x(u) and returns log|J(u)|, the
// log-Jacobian of u ↦ x (a simplex: of u ↦ its first k − 1 coordinates).
func (b *blockCoords) fromFree(u, xb []float64) float64 {
	return hamFromFreeRuns(b.runs, u, xb, true)
}

// logJacobian returns log|J(u)| at u (the compact coordinates' own map, so the
// same function of u as fromFree's), using xb as scratch.
func (b *blockCoords) logJacobian(u, xb []float64) float64 {
	return hamFromFreeRuns(b.runs, u, xb, true)
}

// blockBoxReal and blockBoxFree bound the block's proposals: a point with a Real
// coordinate beyond ±blockBoxReal or another unconstrained coordinate beyond
// ±blockBoxFree is rejected, as if outside the support. Far out, the graph
// engine's scores can drop terms that depend on a coordinate (an Ordered gap at
// 1e300 scored 0 where the log joint is −Inf: the value's derivative is below its
// rounding), and heavy-tailed fitted or random-walk proposals then drifted there;
// the box is fixed, so the steps stay exact for the target restricted to it.
const (
	blockBoxReal = 1e12
	blockBoxFree = 40
)

// inBox reports whether the unconstrained point u and its coordinates xb are in
// the box.
func (b *blockCoords) inBox(u, xb []float64) bool {
	for _, sg := range b.segs {
		if sg.support == Real {
			for _, v := range xb[sg.x : sg.x+sg.k] {
				if !(math.Abs(v) <= blockBoxReal) {
					return false
				}
			}
			continue
		}
		n := sg.k
		if sg.support == Simplex {
			n = sg.k - 1
		}
		for _, v := range u[sg.u : sg.u+n] {
			if !(math.Abs(v) <= blockBoxFree) {
				return false
			}
		}
	}
	return true
}

// derivs writes the gradient gu and the Hessian hu (du×du) of F(x(u)) + log|J(u)|
// at u, xb = x(u), from the gradient gx and the Hessian hx (dx×dx) of F in x:
// gu = Jᵀgx + ∇log|J| and hu = JᵀhxJ + Σ_i gx_i ∇²x_i + ∇²log|J|, per support:
//
//	Positive  x = L + eᵘ:        ∂x = x − L,  ∂²x = x − L,              log|J| = u
//	Interval  x = L + w·s(u):    ∂x = w s(1−s), ∂²x = ∂x·(1 − 2s),      log|J| = log(w s(1−s))
//	Simplex   p = softmax(0, u): ∂p_i/∂u_j = p_i(δ_ij − p_j),           log|J| = Σ_i log p_i
//
// and for a simplex Σ_i g_i ∂²p_i/∂u_j∂u_l = δ_jl p_j(g_j − ḡ) − p_j p_l(g_j + g_l − 2ḡ),
// ḡ = Σ_i p_i g_i, and ∂²log|J|/∂u_j∂u_l = −k p_j(δ_jl − p_l). Adding c·(1, …, 1)
// to a simplex's part of gx, or terms of the form 1vᵀ + v1ᵀ to its block of hx,
// changes nothing (the columns of its Jacobian sum to 0).
func (b *blockCoords) derivs(u, xb, gx, hx, gu, hu []float64) {
	dx, du := b.dx, b.du
	jac := b.jac
	clear(jac)
	clear(gu)
	for _, sg := range b.segs {
		xs := xb[sg.x : sg.x+sg.k]
		switch sg.support {
		case Real:
			for j := range sg.k {
				jac[(sg.x+j)*du+sg.u+j] = 1
			}
		case Positive:
			for j, v := range xs {
				jac[(sg.x+j)*du+sg.u+j] = v - sg.lower
			}
		case Interval:
			w := sg.upper - sg.lower
			for j := range sg.k {
				s, t := special.Logistic(u[sg.u+j]), special.Logistic(-u[sg.u+j])
				jac[(sg.x+j)*du+sg.u+j] = w * s * t
			}
		case Simplex:
			for i, p := range xs {
				for j := 1; j < sg.k; j++ {
					d := -p * xs[j]
					if i == j {
						d += p
					}
					jac[(sg.x+i)*du+sg.u+j-1] = d
				}
			}
		}
	}
	// gu = Jᵀgx, hj = hx·J, hu = Jᵀ·hj (J block diagonal: only each segment's
	// columns of a row are non-zero).
	for r := range dx {
		for c := range du {
			gu[c] += jac[r*du+c] * gx[r]
		}
	}
	for r := range dx {
		hr := hx[r*dx : r*dx+dx]
		out := b.hj[r*du : r*du+du]
		clear(out)
		for _, sg := range b.segs {
			fu := sg.k
			if sg.support == Simplex {
				fu = sg.k - 1
			}
			for q := sg.x; q < sg.x+sg.k; q++ {
				h := hr[q]
				if h == 0 {
					continue
				}
				jr := jac[q*du+sg.u : q*du+sg.u+fu]
				for c, j := range jr {
					out[sg.u+c] += h * j
				}
			}
		}
	}
	clear(hu)
	for _, sg := range b.segs {
		fu := sg.k
		if sg.support == Simplex {
			fu = sg.k - 1
		}
		for q := sg.x; q < sg.x+sg.k; q++ {
			jr := jac[q*du+sg.u : q*du+sg.u+fu]
			hjq := b.hj[q*du : q*du+du]
			for a, ja := range jr {
				if ja == 0 {
					continue
				}
				row := hu[(sg.u+a)*du : (sg.u+a)*du+du]
				for c, v := range hjq {
					row[c] += ja * v
				}
			}
		}
	}
	// The second-order terms of the maps and the log-Jacobians' derivatives.
	clear(b.mapCurv)
	for _, sg := range b.segs {
		xs := xb[sg.x : sg.x+sg.k]
		gs := gx[sg.x : sg.x+sg.k]
		switch sg.support {
		case Positive:
			for j, v := range xs {
				p := sg.u + j
				gu[p]++
				hu[p*du+p] += gs[j] * (v - sg.lower)
			}
		case Interval:
			w := sg.upper - sg.lower
			for j := range sg.k {
				p := sg.u + j
				s, t := special.Logistic(u[p]), special.Logistic(-u[p])
				gu[p] += t - s
				b.mapCurv[p] = gs[j] * w * s * t * (t - s)
				hu[p*du+p] += b.mapCurv[p] - 2*s*t
			}
		case Simplex:
			k := float64(sg.k)
			gbar := 0.0
			for i, p := range xs {
				gbar += p * gs[i]
			}
			for j := 1; j < sg.k; j++ {
				pj, a := xs[j], sg.u+j-1
				gu[a] += 1 - k*pj
				hu[a*du+a] += pj*(gs[j]-gbar) - k*pj
				for l := 1; l < sg.k; l++ {
					pl, c := xs[l], sg.u+l-1
					hu[a*du+c] += -pj*pl*(gs[j]+gs[l]-2*gbar) + k*pj*pl
				}
			}
		}
	}
	// Exactly symmetric (the products add terms in different orders).
	for a := range du {
		for c := a + 1; c < du; c++ {
			v := 0.5 * (hu[a*du+c] + hu[c*du+a])
			hu[a*du+c], hu[c*du+a] = v, v
		}
	}
}

// blockEval evaluates a block's target in unconstrained coordinates: t(u) =
// F(x(u)) + log|J(u)| with its gradient and Hessian, F the JointHessian of the
// block's sites.
type blockEval struct {
	coords  *blockCoords
	sites   []int
	jh      JointHessianer
	gx, hx  []float64 // dx, dx×dx
	scratch []float64 // dx
}

func newBlockEval(coords *blockCoords, sites []int, jh JointHessianer) *blockEval {
	return &blockEval{coords: coords, sites: sites, jh: jh,
		gx: make([]float64, coords.dx), hx: make([]float64, coords.dx*coords.dx), scratch: make([]float64, coords.dx)}
}

// value returns t(u) at the chain's state x (block coordinates xb,
// unconstrained u) without derivatives.
func (e *blockEval) value(x, u []float64) float64 {
	f := e.jh.JointHessian(x, e.sites, nil, nil)
	if !isFinite(f) {
		return f
	}
	return f + e.coords.logJacobian(u, e.scratch)
}

// at returns t(u) at the chain's state x, whose block coordinates are xb and
// unconstrained ones u, with its gradient gu and Hessian hu; −Inf (or NaN) when F
// is not finite there, the derivatives then unspecified.
func (e *blockEval) at(x, xb, u, gu, hu []float64) float64 {
	f := e.jh.JointHessian(x, e.sites, e.gx, e.hx)
	if !isFinite(f) {
		clear(e.coords.mapCurv)
		return f
	}
	lj := e.coords.logJacobian(u, e.scratch)
	e.coords.derivs(u, xb, e.gx, e.hx, gu, hu)
	return f + lj
}
