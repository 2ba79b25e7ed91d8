package graph

import (
	"fmt"

	"github.com/nmc-go/nmc/nmc"
)

// The non-centred forms of rules 1–3 (autogroup.go): a linear predictor with a
// term σ·z[g], z ~ Normal(0, c) a plate of standardised effects and σ their scale.
//
// Where the data pin every group's fitted value, the centred form's slow
// directions (a location or a coefficient against the effects, a scale against
// their spread) move to other places: b0 + σ·z[g] is pinned, so b0 given z is
// pinned too, and single-site steps crawl along the ridge b0 + t, z − t/σ; σ·z is
// pinned, and σ given z crawls along σ·e^t, z·e^{−t}. On a Poisson regression
// with 30 groups of 20 rows (4 × 1000 draws) the non-centred form gave a least
// bulk ESS of 511 in 22 s, the centred one 1476 in 2.8 s (its rules follow the
// centred form's directions); with the orbits below, 1456 in 7.4 s.
//
//   - Scale (AutoScale): σ·e^t, z·e^{−t}, which keeps σ·z, when every factor that
//     reads z reads it only through such a term (as the amplitude of a non-centred
//     Gaussian process, amplitudeGroups).
//   - Location (AutoLocation): a scalar real latent b0 that is a term of the same
//     predictor moves as b0 + t with z_j − t/σ for every group j with rows
//     (nmc.ShiftOver: the rate divided by σ, which stays), keeping every fitted
//     value.
//   - Coefficient (AutoCoefficient): a term b·x moves as b + t with
//     z_j − t·x̄_j/σ, x̄_j the mean of x over group j's rows, which keeps every
//     group's mean fitted value, when the share Σ n_j x̄_j² / Σ x_i² is at least
//     minPinned (as rule 3 without partial rates).
//
// A predictor with two such terms (crossed effects) is left out, as rule 3 leaves
// out two plates of intercepts; so is a plate with one effect per row, or fewer
// than two rows per group on average (z indexed by every row, as the non-centred
// eight schools' θ = μ + τ·θ_raw): one row pins its effect least, and there the
// non-centred form mixes by itself (eight schools: least bulk ESS 1387–2932 with
// the orbits, 1480–2361 without, at 0.6–0.7 times the ESS per CPU second).

// ncTerm is a term σ·z[g] of a linear predictor.
type ncTerm struct {
	sigma, z *family
	g        []int
}

// ncTermOf returns the term σ·z[g] that t is, or ok = false.
func (a *autoFinder) ncTermOf(t *Node, rows int) (nc ncTerm, ok bool) {
	if t.op != opMul {
		return ncTerm{}, false
	}
	for _, order := range [2][2]*Node{{t.args[0], t.args[1]}, {t.args[1], t.args[0]}} {
		s, eff := order[0], order[1]
		if s.op != opLatent {
			continue
		}
		sigma := a.m.famOf(s)
		z, g := groupIndex(eff, rows)
		if eff.op == opLatent || !groupsOfRows(g) { // one effect per row: see above
			continue
		}
		if sigma == nil || z == nil || sigma == z || len(g) != rows || !a.free(sigma) || sigma.length != 1 ||
			!a.allSupport(sigma, nmc.Positive) || !a.free(z) || z.length < 2 || !a.allSupport(z, nmc.Real) {
			continue
		}
		if loc, scale, isLS := locScale(z.d); !isLS || !isZero(loc) || scale.op != opConst {
			continue
		}
		return ncTerm{sigma: sigma, z: z, g: g}, true
	}
	return ncTerm{}, false
}

// groupsOfRows reports whether the rows' groups g hold two rows or more per group
// on average (over the groups with rows).
func groupsOfRows(g []int) bool {
	seen := map[int]bool{}
	for _, j := range g {
		seen[j] = true
	}
	return len(g) >= 2*len(seen)
}

// ncRidge accumulates, for a coefficient b (an intercept: x = 1) and a term
// σ·z[g], the rows that read both: per group the count and sum of x, and Σ x².
type ncRidge struct {
	b      *family
	nc     ncTerm
	n, sx  []float64
	sumXX  float64
	interc bool
}

// nonCentredGroups applies the non-centred forms of rules 1–3 (above) that off
// leaves on.
func (a *autoFinder) nonCentredGroups(off AutoRule) []groupDecl {
	var ridges []*ncRidge
	a.eachPredictor(func(fc *factor, terms []*Node) {
		var nc ncTerm
		at := -1
		for k, t := range terms {
			if c, ok := a.ncTermOf(t, fc.length); ok {
				if at >= 0 {
					at = -2 // two such terms: crossed effects, no rule
					break
				}
				nc, at = c, k
			}
		}
		if at < 0 {
			return
		}
		for k, t := range terms {
			if k == at {
				continue
			}
			var b *family
			var x []float64
			if t.op == opLatent && t.length == 1 && t.width == 1 {
				b = a.m.famOf(t)
			} else {
				b, x = coefTerm(t, fc.length)
			}
			if b == nil || b == nc.sigma || b == nc.z || !a.free(b) || b.length != 1 || !a.allSupport(b, nmc.Real) {
				continue
			}
			var r *ncRidge
			for _, q := range ridges {
				if q.b == b && q.nc.z == nc.z && q.nc.sigma == nc.sigma && q.interc == (x == nil) {
					r = q
				}
			}
			if r == nil {
				r = &ncRidge{b: b, nc: nc, n: make([]float64, nc.z.length), sx: make([]float64, nc.z.length), interc: x == nil}
				ridges = append(ridges, r)
			}
			for i, j := range nc.g {
				xi := 1.0
				if x != nil {
					xi = x[i]
				}
				r.n[j]++
				r.sx[j] += xi
				r.sumXX += xi * xi
			}
		}
	})
	var out []groupDecl
	if off&AutoScale == 0 {
		done := map[[2]*family]bool{}
		for _, r := range ridges { // the pairs in the order their first ridge was found
			key := [2]*family{r.nc.sigma, r.nc.z}
			if !done[key] && a.readOnlyScaled(r.nc) {
				done[key] = true
				out = append(out, groupDecl{name: "auto: dilate " + r.nc.sigma.name + ", contract " + r.nc.z.name,
					members: []GroupMember{Dilate(r.nc.sigma.node, 1), Dilate(r.nc.z.node, -1)}})
			}
		}
	}
	for _, r := range ridges {
		if r.interc && off&AutoLocation != 0 || !r.interc && off&AutoCoefficient != 0 {
			continue
		}
		rates := make([]float64, len(r.n))
		between := 0.0
		for j, n := range r.n {
			if n > 0 {
				rates[j] = -r.sx[j] / n
				between += r.sx[j] * r.sx[j] / n
			}
		}
		if !(r.sumXX > 0) || !(between >= minPinned*r.sumXX) {
			continue
		}
		out = append(out, groupDecl{name: fmt.Sprintf("auto: shift %s against %s over %s", r.b.name, r.nc.z.name, r.nc.sigma.name),
			members: []GroupMember{Shift(r.b.node, 1), ShiftOverEach(r.nc.z.node, r.nc.sigma.node, rates)}})
	}
	return out
}

// readOnlyScaled reports whether every factor that reads nc.z is an observation
// that reads it only through terms σ·z[g] of its linear predictor, σ = nc.sigma.
func (a *autoFinder) readOnlyScaled(nc ncTerm) bool {
	for _, fc := range a.readers[nc.z.id] {
		if fc.fam != nil || fc.obs == nil {
			return false
		}
		lp := linearPredictor(fc.d)
		if lp == nil || lp.length != fc.length || lp.width != 1 {
			return false
		}
		for _, p := range fc.d.params {
			if p != lp && reads(p, nc.z) {
				return false
			}
		}
		for _, t := range addTerms(lp, nil) {
			if c, ok := a.ncTermOf(t, fc.length); reads(t, nc.z) && !(ok && c.z == nc.z && c.sigma == nc.sigma) {
				return false
			}
		}
	}
	return true
}
