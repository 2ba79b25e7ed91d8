package graph

import "github.com/nmc-go/nmc/nmc"

// The amplitude rule of a non-centred Gaussian process (rule 1 of autogroup.go).

// amplitudeGroups applies rule 1 to non-centred Gaussian processes: per
// CholeskyMul(K, η) that a factor reads, K a kernel (ExpQuadCov, Matern32Cov,
// Matern52Cov) of amplitude α, plus a constant diagonal or not, α a positive
// scalar latent and η a real latent, the orbit α·e^t, η·e^{−t}, which leaves
// f = L·η unchanged (but for the diagonal's share of K). Where the data pin f,
// α given η is pinned too (f = α·L̃η), and single-site steps move α by a few
// per cent in a thousand sweeps while η sits far outside its prior to make up;
// along the orbit α moves by its law given f, as in the centred form. On the
// non-centred gp_pois_regr (SBC, seeds 13–18, 1200 simulations of 49 draws
// thinned by 20 after 600 warm-up sweeps) α's ranks rejected uniformity without
// the orbit (p 5·10⁻⁶; a chain at α = 0.63 whose simulated α was 4.25 reached
// 0.74 in 980 sweeps) and not with it (p 0.75); a sweep costs 1.6 times as much.
func (a *autoFinder) amplitudeGroups() []groupDecl {
	var out []groupDecl
	done := map[[2]*family]bool{}
	a.m.eachCholMul(func(n *Node, _ cholMulOp) {
		alpha, eta := kernelAmplitude(n.args[0]), a.m.famOf(n.args[1])
		al := a.m.famOf(alpha)
		if al == nil || eta == nil || al == eta || !a.free(al) || al.length != 1 || !a.allSupport(al, nmc.Positive) ||
			!a.free(eta) || !a.allSupport(eta, nmc.Real) || done[[2]*family{al, eta}] {
			return
		}
		done[[2]*family{al, eta}] = true
		out = append(out, groupDecl{name: "auto: dilate " + al.name + ", contract " + eta.name,
			members: []GroupMember{Dilate(al.node, 1), Dilate(eta.node, -1)}})
	})
	return out
}

// eachCholMul calls fn once for each CholeskyMul node a factor reads.
func (m *Model) eachCholMul(fn func(n *Node, op cholMulOp)) {
	seen := map[*Node]bool{}
	var walk func(n *Node)
	walk = func(n *Node) {
		if n == nil || seen[n] {
			return
		}
		seen[n] = true
		for _, arg := range n.args {
			walk(arg)
		}
		if op, ok := n.impl.(cholMulOp); ok && n.op == opCustom && len(n.args) == 2 {
			fn(n, op)
		}
	}
	for _, fc := range m.factors {
		for _, p := range fc.d.params {
			walk(p)
		}
	}
}

// kernelAmplitude returns the amplitude node α of the covariance that
// CholeskyMul reads as its first argument (see kernelParams), or nil.
func kernelAmplitude(cov *Node) *Node {
	if ps := kernelParams(cov); ps != nil {
		return ps[0]
	}
	return nil
}

// kernelParams returns the amplitude and length scale nodes of the covariance
// that CholeskyMul reads as its first argument — a kernel, optionally plus a
// constant diagonal (AddDiag), read through a Reshape — or nil.
func kernelParams(cov *Node) []*Node {
	if cov.op == opCustom {
		if _, ok := cov.impl.(reshapeOp); ok && len(cov.args) == 1 {
			cov = cov.args[0]
		}
	}
	if _, ok := cov.impl.(addDiagOp); ok && cov.op == opCustom && len(cov.args) == 2 && cov.args[1].op == opConst {
		cov = cov.args[0]
	}
	if _, ok := cov.impl.(kernelOp); ok && cov.op == opCustom && len(cov.args) == 2 {
		return cov.args
	}
	return nil
}
