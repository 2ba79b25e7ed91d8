package nmc

import (
	"math"

	"github.com/nmc-go/nmc/internal/special"
)

// The Hamiltonian block's coordinates (HamiltonianMove): the sites' segments and
// runs, the maps between a site's coordinates and its unconstrained ones, and the
// two passes of a leapfrog step over the runs.

// hamSeg is one site of the block as the transforms read it: its support and
// bounds, its number of coordinates k and where its coordinates are in the chain's
// state (x), in the unconstrained coordinates (u, freeDim of them) and in the
// gradient in x (g, k of them, in the order of the block).
type hamSeg struct {
	support      Support
	k            int
	x, u, g      int
	lower, upper float64
	// ref, for a 3-simplex of the block, is a one-entry view of the block's
	// reference coordinates (hamiltonianBlock.ref); nil means coordinate 0.
	ref []uint8
}

// hamSegs returns the segments of the given sites with state offsets off, the
// number of unconstrained coordinates and the number of coordinates.
func hamSegs(blockSites []int, sites []Site, off []int) (segs []hamSeg, du, dx int) {
	segs = make([]hamSeg, len(blockSites))
	for n, i := range blockSites {
		s := sites[i]
		segs[n] = hamSeg{support: s.Support, k: s.Size, x: off[i], u: du, g: dx, lower: s.Lower, upper: s.Upper}
		du += freeDim(s)
		dx += s.Size
	}
	return segs, du, dx
}

// hamToFree writes the unconstrained coordinates u of the segments at the state x.
func hamToFree(segs []hamSeg, x, u []float64) {
	for i := range segs {
		sg := &segs[i]
		xs := x[sg.x : sg.x+sg.k]
		switch sg.support {
		case Real:
			copy(u[sg.u:], xs)
		case Positive:
			us := u[sg.u : sg.u+sg.k]
			for j, v := range xs {
				us[j] = math.Log(v - sg.lower)
			}
		case Interval:
			us := u[sg.u : sg.u+sg.k]
			for j, v := range xs {
				us[j] = math.Log(v-sg.lower) - math.Log(sg.upper-v)
			}
		case Simplex:
			us := u[sg.u : sg.u+sg.k-1]
			if sg.k == 3 {
				i := rot3(sg.ref, 0)
				l0 := math.Log(xs[i[0]])
				us[0], us[1] = math.Log(xs[i[1]])-l0, math.Log(xs[i[2]])-l0
				break
			}
			l0 := math.Log(xs[0])
			for j := range us {
				us[j] = math.Log(xs[j+1]) - l0
			}
		}
	}
}

// hamRun is a run of consecutive sites of the block with the same support, size
// and bounds whose coordinates follow each other in the state in the block's order,
// so at constant strides in x, u and g: the transforms and the leapfrog steps loop
// over a run's coordinates at once instead of reading each site's segment.
type hamRun struct {
	support      Support
	k, n         int // coordinates per site, sites
	x, u, g      int // the first site's offsets, as in hamSeg
	lower, upper float64
	ref          []uint8 // per site, its reference coordinate (as hamSeg.ref); nil: 0
}

// refRatio: chooseRefs keeps coordinate 0 as a 3-simplex's reference unless it is
// below refRatio times the largest.
const refRatio = 0.1

// rot3Order lists, for each reference coordinate a of a 3-simplex, the order
// (a, a+1, a+2 mod 3) in which its coordinates are p_0, p_1, p_2 of the
// transform: u_j = log(p_j / p_0).
var rot3Order = [3][3]int{{0, 1, 2}, {1, 2, 0}, {2, 0, 1}}

// rot3 returns the coordinate order of site s of a run (or segment) with
// references ref: coordinate 0 as reference when ref is nil.
func rot3(ref []uint8, s int) [3]int {
	if ref == nil {
		return rot3Order[0]
	}
	return rot3Order[ref[s]%3]
}

// chooseRefs makes each 3-simplex's largest coordinate at x its reference
// coordinate, so that u_j = log(p_j / p_ref) divides by a coordinate far from 0:
// with a rare coordinate as reference (the prevalence of Dawid-Skene's rare class
// when it is class 0), every u_j moves with its logarithm, a direction the diagonal
// mass matrix cannot follow (seed 7 of `nmc sample -model annotation -n 10000 -k
// 100`: π₀ ≈ 0.01, min bulk ESS 291 with coordinate 0 as reference, and R-hat 1.013).
// Called in warm-up before the mass matrix's window, so the map is fixed from
// then on.
func (h *hamiltonianBlock) chooseRefs(x []float64) {
	for n := range h.segs {
		sg := &h.segs[n]
		if sg.ref == nil {
			continue
		}
		xs := x[sg.x : sg.x+3]
		best := 0
		for j := 1; j < 3; j++ {
			if xs[j] > xs[best] {
				best = j
			}
		}
		if xs[0] >= refRatio*xs[best] {
			best = 0
		}
		h.ref[n] = uint8(best)
	}
}

// hamRunsOf returns the runs of the segments, in their order.
func hamRunsOf(segs []hamSeg) []hamRun {
	var runs []hamRun
	for _, sg := range segs {
		if n := len(runs); n > 0 {
			r := &runs[n-1]
			if r.support == sg.support && r.k == sg.k && r.lower == sg.lower && r.upper == sg.upper && r.x+r.n*r.k == sg.x &&
				(r.ref == nil) == (sg.ref == nil) && (r.ref == nil || &r.ref[:r.n+1][r.n] == &sg.ref[0]) {
				r.n++
				if r.ref != nil {
					r.ref = r.ref[:r.n]
				}
				continue
			}
		}
		runs = append(runs, hamRunOf(sg))
	}
	return runs
}

// hamRunOf returns the run of the one segment sg.
func hamRunOf(sg hamSeg) hamRun {
	return hamRun{support: sg.support, k: sg.k, n: 1, x: sg.x, u: sg.u, g: sg.g, lower: sg.lower, upper: sg.upper, ref: sg.ref}
}

// free returns the number of the run's unconstrained coordinates.
func (r *hamRun) free() int {
	if r.support == Simplex {
		return r.n * (r.k - 1)
	}
	return r.n * r.k
}

// simplexNoShift bounds the simplex coordinates u whose softmax is taken without
// shifting by their maximum: below it, 1 + Σ e^{u_j} is far from overflowing and
// p_0 = 1/(1 + Σ e^{u_j}) far from underflowing.
const simplexNoShift = 300

// hamFromFreeRuns writes the runs' coordinates into the state x from their
// unconstrained coordinates u and returns Σ log|J(u)| (see the comment at the top)
// when logJ is true, else 0 (or a sum of terms it costs nothing to add).
func hamFromFreeRuns(runs []hamRun, u, x []float64, logJ bool) float64 {
	lj := 0.0
	for i := range runs {
		lj += runs[i].fromFree(u, x, logJ)
	}
	return lj
}

// fromFree is hamFromFreeRuns for the run r alone.
func (r *hamRun) fromFree(u, x []float64, logJ bool) float64 {
	lj := 0.0
	us := u[r.u : r.u+r.free()]
	xs := x[r.x : r.x+r.n*r.k]
	switch r.support {
	case Real:
		copy(xs, us)
	case Positive:
		for j, v := range us {
			xs[j] = r.lower + math.Exp(v)
			lj += v
		}
	case Interval:
		w := r.upper - r.lower
		for j, v := range us {
			xs[j] = r.lower + w*special.Logistic(v)
			if xs[j] >= r.upper { // the same point from the other end, without rounding up to Upper
				xs[j] = r.upper - w*special.Logistic(-v)
			}
			if logJ {
				lj += math.Log(w) - special.Log1pExp(-v) - special.Log1pExp(v)
			}
		}
	case Simplex:
		if r.k == 3 {
			for s := range r.n {
				i := rot3(r.ref, s)
				var l float64
				xs[3*s+i[0]], xs[3*s+i[1]], xs[3*s+i[2]], l = simplex3(us[2*s], us[2*s+1], logJ)
				lj += l
			}
			break
		}
		d := r.k - 1
		for s := range r.n {
			lj += simplexFromFree(us[d*s:d*s+d], xs[r.k*s:r.k*s+r.k], logJ)
		}
	}
	return lj
}

// simplex3 returns p = softmax(0, u1, u2) and, when logJ is true, Σ log p_i (else
// 0): two exponentials and one division, p_0 = 1/(1 + e^{u1} + e^{u2}), unless a
// coordinate is outside (simplexLow, simplexNoShift) (see simplexFromFree).
func simplex3(u1, u2 float64, logJ bool) (p0, p1, p2, lj float64) {
	if !(u1 > simplexLow && u1 < simplexNoShift && u2 > simplexLow && u2 < simplexNoShift) {
		return simplex3Shifted(u1, u2, logJ)
	}
	e1, e2 := hamExp(u1), hamExp(u2)
	p0 = 1 / (1 + e1 + e2)
	if logJ {
		lj = u1 + u2 + 3*math.Log(p0)
	}
	return p0, e1 * p0, e2 * p0, lj
}

// simplexLow bounds the simplex coordinates whose exponential hamExp takes from
// below (e^{−700} is a normal number).
const simplexLow = -700

// hamExpTable holds the bits of 2^{j/256}, j = 0 … 255.
var hamExpTable = func() (t [256]uint64) {
	for j := range t {
		t[j] = math.Float64bits(math.Exp2(float64(j) / 256))
	}
	return t
}()

// hamExp returns e^x for simplexLow < x < simplexNoShift (outside, anything),
// within a few ulps of math.Exp and cheaper (no call, no division, inlined):
// e^x = 2^{m + j/256} e^r with n = 256m + j = round(256x/ln 2) and |r| ≤ ln 2/512,
// e^r by its Taylor polynomial of degree 4 (error below 4·10⁻¹⁷).
func hamExp(x float64) float64 {
	const (
		shift = 0x1.8p52                         // adding it rounds to an integer in the low bits
		ln2Hi = 6.93147180369123816490e-01 / 256 // ln 2/256 to 32 bits: n·ln2Hi is exact
		ln2Lo = 1.90821492927058770002e-10 / 256
	)
	t := x*(256/math.Ln2) + shift
	n := t - shift
	r := (x - n*ln2Hi) - n*ln2Lo
	b := math.Float64bits(t)
	s := math.Float64frombits(hamExpTable[b&255] + b>>8<<52)
	return s + s*(r+r*r*(1.0/2+r*(1.0/6+r*(1.0/24))))
}

// simplex3Shifted is simplex3 by simplexFromFree, out of simplex3's frame.
//
//go:noinline
func simplex3Shifted(u1, u2 float64, logJ bool) (p0, p1, p2, lj float64) {
	var p [3]float64
	lj = simplexFromFree([]float64{u1, u2}, p[:], logJ)
	return p[0], p[1], p[2], lj
}

// simplexFromFree writes p = softmax(0, us) into xs (len(us) + 1 coordinates) and
// returns Σ log p_i when logJ is true, else 0. With every u_j in (simplexLow,
// simplexNoShift) it takes p_0 = 1/(1 + Σ_j e^{u_j}) and p_j = e^{u_j} p_0, the
// exponentials by hamExp; otherwise (a large, very negative or not finite u_j) it
// shifts by the largest u_j and takes math.Exp.
func simplexFromFree(us, xs []float64, logJ bool) float64 {
	top := 0.0
	for _, v := range us {
		if !(v > simplexLow && v < simplexNoShift) {
			top = math.Inf(1) // shift below
			break
		}
	}
	k := float64(len(xs))
	if top == 0 {
		// p_0 = 1/(1 + Σ_j e^{u_j}), p_j = e^{u_j} p_0: k − 1 exponentials, one division.
		sum := 1.0
		for j, v := range us {
			e := hamExp(v)
			xs[j+1] = e
			sum += e
		}
		p0 := 1 / sum
		xs[0] = p0
		lj := 0.0
		for j, v := range us {
			xs[j+1] *= p0
			lj += v
		}
		if !logJ {
			return 0
		}
		return lj + k*math.Log(p0)
	}
	// p_j = e^{u_j − top}/sum with u_0 = 0 and top = max u: the largest term is
	// exactly 1, no exponential needed.
	top = 0
	for _, v := range us {
		if v > top {
			top = v
		}
	}
	e0 := 1.0
	if top != 0 {
		e0 = math.Exp(-top)
	}
	xs[0] = e0
	sum := e0
	for j, v := range us {
		e := 1.0
		if v != top {
			e = math.Exp(v - top)
		}
		xs[j+1] = e
		sum += e
	}
	inv := 1 / sum
	for j := range xs {
		xs[j] *= inv
	}
	if !logJ {
		return 0
	}
	// Σ_i log p_i = Σ_j u_j − k (top + log sum).
	lj := -k * (top + math.Log(sum))
	for _, v := range us {
		lj += v
	}
	return lj
}

// hamDrift is the first half of a leapfrog step of size eps over the runs: the
// momentum's half step r += ½ε g_u (half = ½ε), the position's step u += ε M⁻¹ r and
// the state x = x(u), in one pass over a run of 3-simplices; it returns Σ log|J(u)|
// when logJ is true, as hamFromFreeRuns does (same sums in the same order).
func hamDrift(runs []hamRun, half, eps float64, gu, mom, invMass, u, x []float64, logJ bool) float64 {
	lj := 0.0
	for i := range runs {
		r := &runs[i]
		d := r.free()
		us := u[r.u : r.u+d]
		ms := mom[r.u : r.u+d]
		gs := gu[r.u : r.u+d]
		ims := invMass[r.u : r.u+d]
		if r.support != Simplex || r.k != 3 {
			for j := range us {
				m := ms[j] + half*gs[j]
				ms[j] = m
				us[j] += eps * ims[j] * m
			}
			lj += r.fromFree(u, x, logJ)
			continue
		}
		xs := x[r.x : r.x+3*r.n]
		rl := 0.0 // summed as fromFree does
		for s := range r.n {
			j := 2 * s
			m1 := ms[j] + half*gs[j]
			m2 := ms[j+1] + half*gs[j+1]
			ms[j], ms[j+1] = m1, m2
			u1 := us[j] + eps*ims[j]*m1
			u2 := us[j+1] + eps*ims[j+1]*m2
			us[j], us[j+1] = u1, u2
			i0, i1, i2 := 3*s, 3*s+1, 3*s+2
			if r.ref != nil && r.ref[s] != 0 {
				o := rot3Order[r.ref[s]%3]
				i0, i1, i2 = 3*s+o[0], 3*s+o[1], 3*s+o[2]
			}
			if logJ || !(u1 > simplexLow && u1 < simplexNoShift && u2 > simplexLow && u2 < simplexNoShift) {
				var l float64
				xs[i0], xs[i1], xs[i2], l = simplex3(u1, u2, logJ)
				rl += l
				continue
			}
			// simplex3's common case, inlined.
			e1, e2 := hamExp(u1), hamExp(u2)
			p0 := 1 / (1 + e1 + e2)
			xs[i0], xs[i1], xs[i2] = p0, e1*p0, e2*p0
		}
		lj += rl
	}
	return lj
}

// hamKick writes into gu the gradient with respect to u of log p(x(u)) +
// log|J(u)| for the runs, given the state x = x(u) and g, the gradient of log p
// with respect to their coordinates (homogeneous for a simplex), followed by the
// momentum's half step mom += half·gu, in one pass.
func hamKick(runs []hamRun, u, x, g, gu, mom []float64, half float64) {
	for i := range runs {
		runs[i].gradFree(u, x, g, gu, mom, half)
	}
}

// gradFree is hamKick for the run r alone, without the momentum step when mom is
// nil.
func (r *hamRun) gradFree(u, x, g, gu, mom []float64, half float64) {
	d := r.free()
	gus := gu[r.u : r.u+d]
	gs := g[r.g : r.g+r.n*r.k]
	switch r.support {
	case Real:
		copy(gus, gs)
	case Positive:
		for j, v := range u[r.u : r.u+d] {
			gus[j] = gs[j]*math.Exp(v) + 1
		}
	case Interval:
		w := r.upper - r.lower
		for j, v := range u[r.u : r.u+d] {
			lo, hi := special.Logistic(v), special.Logistic(-v)
			gus[j] = gs[j]*w*lo*hi + hi - lo
		}
	case Simplex:
		xs := x[r.x : r.x+r.n*r.k]
		if r.k == 3 {
			var ms []float64
			if mom != nil {
				ms = mom[r.u : r.u+d]
			}
			for s := range r.n {
				i0, i1, i2 := 3*s, 3*s+1, 3*s+2
				if r.ref != nil && r.ref[s] != 0 {
					o := rot3Order[r.ref[s]%3]
					i0, i1, i2 = 3*s+o[0], 3*s+o[1], 3*s+o[2]
				}
				g0, g1, g2 := gs[i0], gs[i1], gs[i2]
				p0, p1, p2 := xs[i0], xs[i1], xs[i2]
				pg := p0*g0 + p1*g1 + p2*g2
				d1 := p1*(g1-pg) + 1 - 3*p1
				d2 := p2*(g2-pg) + 1 - 3*p2
				gus[2*s], gus[2*s+1] = d1, d2
				if ms != nil {
					ms[2*s] += half * d1
					ms[2*s+1] += half * d2
				}
			}
			return
		}
		k, kf := r.k, float64(r.k)
		for s := range r.n {
			ps, gss, out := xs[k*s:k*s+k], gs[k*s:k*s+k], gus[(k-1)*s:(k-1)*s+k-1]
			pg := 0.0
			for i, p := range ps {
				pg += p * gss[i]
			}
			for j := range out {
				p := ps[j+1]
				out[j] = p*(gss[j+1]-pg) + 1 - kf*p
			}
		}
	}
	if mom != nil {
		for j, v := range gus {
			mom[r.u+j] += half * v
		}
	}
}
