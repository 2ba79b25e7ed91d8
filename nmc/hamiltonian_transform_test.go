package nmc

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// TestHamiltonianTransforms checks the block's coordinate maps for every continuous
// support: u → x → u is the identity, log|J| is the log determinant of ∂x/∂u (the
// first k − 1 coordinates for a simplex) by central differences, and the gradient
// of log p(x(u)) + log|J(u)| from a log density's gradient in x matches central
// differences of that function of u.
func TestHamiltonianTransforms(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(1, 2))
	cases := []Site{
		{Name: "real", Size: 3, Support: Real},
		{Name: "pos", Size: 2, Support: Positive, Lower: -1.5},
		{Name: "int", Size: 3, Support: Interval, Lower: -2, Upper: 3},
		{Name: "simplex3", Size: 3, Support: Simplex},
		{Name: "simplex5", Size: 5, Support: Simplex},
	}
	// logp is a smooth test log density in x with its gradient in x (for a simplex,
	// all k coordinates taken as free: the homogeneous form).
	logp := func(s Site, x, g []float64) float64 {
		f := 0.0
		for j, v := range x {
			a := 0.3 + 0.2*float64(j)
			switch s.Support {
			case Simplex:
				f += (a + 1) * math.Log(v)
				if g != nil {
					g[j] = (a + 1) / v
				}
			default:
				f += -a*v*v + math.Sin(v)
				if g != nil {
					g[j] = -2*a*v + math.Cos(v)
				}
			}
		}
		return f
	}
	const h = 1e-5
	for ci := 0; ci < len(cases)+2; ci++ {
		// Two more runs of the first 3-simplex case with coordinates 1 and 2 as the
		// reference (chooseRefs).
		s, ref := Site{}, -1
		if ci < len(cases) {
			s = cases[ci]
		} else {
			ref = ci - len(cases) + 1
			for _, c := range cases {
				if c.Support == Simplex && c.Size == 3 {
					s = c
					break
				}
			}
			if s.Size != 3 {
				t.Fatal("no 3-simplex case")
			}
			s.Name += fmt.Sprintf(" (reference %d)", ref)
		}
		d, k := freeDim(s), s.Size
		segs, _, _ := hamSegs([]int{0}, []Site{s}, []int{0})
		if ref >= 0 {
			segs[0].ref = []uint8{uint8(ref)}
			if x := []float64{0.2, 0.5, 0.3}; true {
				u := make([]float64, 2)
				hamToFree(segs, x, u)
				if want := math.Log(x[(ref+1)%3] / x[ref]); math.Abs(u[0]-want) > 1e-12 {
					t.Errorf("%s: u[0] = %g, want log(x[%d]/x[%d]) = %g", s.Name, u[0], (ref+1)%3, ref, want)
				}
			}
		}
		u, x, u2 := make([]float64, d), make([]float64, k), make([]float64, d)
		g, gu := make([]float64, k), make([]float64, d)
		xp, xm := make([]float64, k), make([]float64, k)
		for trial := 0; trial < 20; trial++ {
			for j := range u {
				u[j] = 1.5 * rng.NormFloat64()
			}
			lj := hamFromFree(segs, u, x, true)
			if msg := outsideSupport(s, x); msg != "" {
				t.Fatalf("%s: x(u) outside the support: %s", s.Name, msg)
			}
			hamToFree(segs, x, u2)
			for j := range u {
				if math.Abs(u2[j]-u[j]) > 1e-9*(1+math.Abs(u[j])) {
					t.Errorf("%s: u → x → u gives %v, want %v", s.Name, u2, u)
					break
				}
			}
			// The Jacobian ∂x_a/∂u_b (a over the first k − 1 coordinates for a
			// simplex) by central differences.
			jac := mat.NewDense(d, d, nil)
			up := slices.Clone(u)
			for b := 0; b < d; b++ {
				up[b] = u[b] + h
				hamFromFree(segs, up, xp, false)
				up[b] = u[b] - h
				hamFromFree(segs, up, xm, false)
				up[b] = u[b]
				for a := 0; a < d; a++ {
					jac.Set(a, b, (xp[a]-xm[a])/(2*h))
				}
			}
			var lu mat.LU
			lu.Factorize(jac)
			ld, sign := lu.LogDet()
			if sign == 0 || math.Abs(ld-lj) > 1e-6*(1+math.Abs(lj)) {
				t.Errorf("%s: log|J| = %.10g, finite differences %.10g (sign %g)", s.Name, lj, ld, sign)
			}
			// The gradient in u.
			logp(s, x, g)
			hamGradFree(segs, u, x, g, gu)
			target := func(v []float64) float64 {
				l := hamFromFree(segs, v, xp, true)
				return logp(s, xp, nil) + l
			}
			for b := 0; b < d; b++ {
				up[b] = u[b] + h
				fp := target(up)
				up[b] = u[b] - h
				fm := target(up)
				up[b] = u[b]
				fd := (fp - fm) / (2 * h)
				if math.Abs(fd-gu[b]) > 1e-5*(1+math.Abs(fd)) {
					t.Errorf("%s: d/du[%d] = %.10g, finite differences %.10g", s.Name, b, gu[b], fd)
				}
			}
			// A simplex's gradient ignores multiples of (1, …, 1) added to g.
			if s.Support == Simplex {
				g2, gu2 := slices.Clone(g), make([]float64, d)
				for j := range g2 {
					g2[j] += 7.5
				}
				hamGradFree(segs, u, x, g2, gu2)
				for b := range gu {
					if math.Abs(gu2[b]-gu[b]) > 1e-9*(1+math.Abs(gu[b])) {
						t.Errorf("%s: gradient changes when (1, …, 1) is added to g: %v, want %v", s.Name, gu2, gu)
						break
					}
				}
			}
		}
	}
}

// TestHamExp: the simplex transform's exponential is within 2 ulps of math.Exp
// over its range (simplexLow, simplexNoShift).
func TestHamExp(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(3, 4))
	check := func(x float64) {
		want := math.Exp(x)
		if got := hamExp(x); math.Abs(got-want) > 2*ulp(want) {
			t.Errorf("hamExp(%.17g) = %.17g, math.Exp %.17g (%.2g ulps)", x, got, want, math.Abs(got-want)/ulp(want))
		}
	}
	for x := simplexLow + 1e-9; x < simplexNoShift; x += 0.0137 {
		check(x)
	}
	for range 200000 {
		check(rng.NormFloat64() * 5)
		check((rng.Float64() - 0.5) * 1e-3)
	}
	for _, x := range []float64{0, -0.0, 1, -1, math.Ln2, -math.Ln2, 299.999, -699.999} {
		check(x)
	}
}

// ulp returns the spacing of the floating-point numbers at v > 0.
func ulp(v float64) float64 { return math.Nextafter(v, math.Inf(1)) - v }

// TestHamiltonianFusedSteps: the leapfrog's fused passes over runs (hamDrift,
// hamKick) give bit for bit what the step's parts give one after the other over
// the sites (the momentum's half step, the position's step, hamFromFree;
// hamGradFree, the half step), for a layout with runs of several supports, and
// simplex coordinates outside the unshifted range.
func TestHamiltonianFusedSteps(t *testing.T) {
	t.Parallel()
	sites := []Site{
		{Name: "a", Size: 3, Support: Simplex},
		{Name: "b", Size: 3, Support: Simplex},
		{Name: "c", Size: 3, Support: Simplex},
		{Name: "pos", Size: 2, Support: Positive, Lower: -1.5},
		{Name: "pos2", Size: 2, Support: Positive, Lower: -1.5},
		{Name: "int", Size: 3, Support: Interval, Lower: -2, Upper: 3},
		{Name: "s5", Size: 5, Support: Simplex},
		{Name: "s5b", Size: 5, Support: Simplex},
		{Name: "real", Size: 2, Support: Real},
		{Name: "d", Size: 3, Support: Simplex},
	}
	off := make([]int, len(sites))
	n := 0
	for i, s := range sites {
		off[i] = n
		n += s.Size
	}
	// The block, in state order: a, b, c (one run), pos, pos2 (one run), int, s5, s5b
	// (one run), real, d; sites listed out of state order make runs of one.
	block := []int{0, 1, 2, 3, 4, 5, 6, 7, 8, 9}
	segs, du, dx := hamSegs(block, sites, off)
	// The 3-simplices' reference coordinates as newHamiltonianBlock lays them out,
	// with b's and d's moved off coordinate 0 (chooseRefs).
	refs := make([]uint8, len(segs))
	for n := range segs {
		if segs[n].support == Simplex && segs[n].k == 3 {
			segs[n].ref = refs[n : n+1 : len(refs)]
		}
	}
	refs[1], refs[9] = 2, 1
	runs := hamRunsOf(segs)
	if len(runs) != 6 || runs[0].n != 3 || runs[1].n != 2 || runs[3].n != 2 {
		t.Fatalf("runs %+v", runs)
	}
	if r := hamRunsOf(segs[:0]); len(r) != 0 {
		t.Fatalf("no sites: runs %+v", r)
	}
	if r, _, _ := hamSegs([]int{1, 0, 2}, sites, off); len(hamRunsOf(r)) != 3 {
		t.Fatalf("sites out of state order: runs %+v", hamRunsOf(r))
	}
	rng := rand.New(rand.NewPCG(5, 6))
	vec := func(n int, sd float64) []float64 {
		v := make([]float64, n)
		for j := range v {
			v[j] = sd * rng.NormFloat64()
		}
		return v
	}
	for trial := range 50 {
		u, gu, mom, im := vec(du, 2), vec(du, 3), vec(du, 1), vec(du, 1)
		for j := range im {
			im[j] = math.Abs(im[j]) + 0.1
		}
		if trial%5 == 0 { // simplex coordinates beyond the unshifted range
			u[1], u[3], u[len(u)-1] = 400, -800, math.Inf(-1)
		}
		eps := 0.05 + 0.1*rng.Float64()
		half := 0.5 * eps
		logJ := trial%2 == 0
		u1, mom1, x1 := slices.Clone(u), slices.Clone(mom), make([]float64, dx)
		lj1 := hamDrift(runs, half, eps, gu, mom1, im, u1, x1, logJ)
		u2, mom2, x2 := slices.Clone(u), slices.Clone(mom), make([]float64, dx)
		for j := range mom2 {
			mom2[j] += 0.5 * eps * gu[j]
		}
		for j := range u2 {
			u2[j] += eps * im[j] * mom2[j]
		}
		lj2 := hamFromFree(segs, u2, x2, logJ)
		if lj := hamFromFreeRuns(runs, u2, x2, logJ); logJ && lj1 != lj || math.Abs(lj-lj2) > 1e-12*(1+math.Abs(lj2)) {
			t.Fatalf("trial %d: log|J| = %v by hamDrift, %v by hamFromFreeRuns, %v by hamFromFree", trial, lj1, lj, lj2)
		}
		if !slices.Equal(u1, u2) || !slices.Equal(mom1, mom2) || !slices.Equal(x1, x2) {
			t.Fatalf("trial %d: hamDrift gives u %v, r %v, x %v, log|J| %v; the steps one after the other u %v, r %v, x %v, log|J| %v",
				trial, u1, mom1, x1, lj1, u2, mom2, x2, lj2)
		}
		if logJ && !(lj1 > math.Inf(-1)) && trial%5 != 0 {
			t.Fatalf("trial %d: log|J| = %v", trial, lj1)
		}
		g := vec(dx, 4)
		gu1, gu2 := make([]float64, du), make([]float64, du)
		hamKick(runs, u1, x1, g, gu1, mom1, half)
		hamGradFree(segs, u2, x2, g, gu2)
		for j := range mom2 {
			mom2[j] += 0.5 * eps * gu2[j]
		}
		if !slices.Equal(gu1, gu2) && !(trial%5 == 0 && slices.EqualFunc(gu1, gu2, func(a, b float64) bool { return a == b || math.IsNaN(a) && math.IsNaN(b) })) {
			t.Fatalf("trial %d: hamKick's gradient %v, hamGradFree's %v", trial, gu1, gu2)
		}
		if !slices.EqualFunc(mom1, mom2, func(a, b float64) bool { return a == b || math.IsNaN(a) && math.IsNaN(b) }) {
			t.Fatalf("trial %d: hamKick's momentum %v, the half step's %v", trial, mom1, mom2)
		}
	}
}
