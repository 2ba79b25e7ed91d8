package nmc

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

// TestBlockMapCurv checks blockCoords.mapCurv against finite differences: for an
// Interval coordinate, g_x·∂²x/∂u² with ∂²x/∂u² from differences of the map
// x(u), and 0 for every other coordinate.
func TestBlockMapCurv(t *testing.T) {
	m := coupledModel{}
	sites := m.Sites()
	off := Offsets(sites)
	rng := rand.New(rand.NewPCG(5, 6))
	x := make([]float64, Dim(sites))
	block := []int{0, 2, 3, 4, 6}
	coords := newBlockCoords(block, sites, off)
	ev := newBlockEval(coords, block, m)
	du := coords.du
	u, gu, hu := make([]float64, du), make([]float64, du), make([]float64, du*du)
	xb, yb := make([]float64, coords.dx), make([]float64, coords.dx)
	for range 5 {
		if err := m.Init(rng, x); err != nil {
			t.Fatal(err)
		}
		coords.gather(x, xb)
		coords.toFree(xb, u)
		if f := ev.at(x, xb, u, gu, hu); !isFinite(f) {
			t.Fatalf("at %v: %v", x, f)
		}
		for n, sg := range coords.segs {
			for j := range sg.k {
				p := sg.u + j
				want := 0.0
				if sg.support == Interval {
					const h = 1e-4
					v := slices.Clone(u)
					xat := func(e float64) float64 { v[p] = u[p] + e; coords.fromFree(v, yb); return yb[sg.x+j] }
					d2 := (-xat(2*h) + 16*xat(h) - 30*xat(0) + 16*xat(-h) - xat(-2*h)) / (12 * h * h)
					want = ev.gx[sg.x+j] * d2
				}
				if got := coords.mapCurv[p]; math.Abs(got-want) > 1e-6*math.Max(1, math.Abs(want)) {
					t.Errorf("segment %d coordinate %d at %v: mapCurv %.10g, want %.10g", n, j, x, got, want)
				}
			}
		}
	}
}

// TestBlockNewtonSecondTry checks the block proposal's fit where −H is not
// positive definite: with the logit maps' curvature terms left out it is, and
// the proposal is that Newton-fitted Gaussian (counted as a fallback), its
// density the Gaussian's from an independent computation; without such terms
// the proposal falls back per coordinate.
func TestBlockNewtonSecondTry(t *testing.T) {
	p := newBlockProposer(2)
	s := newSlot(2)
	copy(s.x, []float64{0.3, -1.2})
	copy(s.g, []float64{0.5, -0.7})
	copy(s.h, []float64{-2, 1.5, 1.5, 0.4}) // indefinite
	mapCurv := []float64{0, 1.6}            // without it: [[-2, 1.5], [1.5, -1.2]], negative definite
	p.fit(&s, mapCurv)
	if s.mode != blockChol || !s.fb {
		t.Fatalf("mode %d, fallback %v; want the Newton fit, counted as a fallback", s.mode, s.fb)
	}
	// A = −(H − diag(mapCurv)) = [[2, −1.5], [−1.5, 1.2]], the mean x + A⁻¹g.
	a00, a01, a11 := 2.0, -1.5, 1.2
	det := a00*a11 - a01*a01
	d0 := (a11*s.g[0] - a01*s.g[1]) / det
	d1 := (-a01*s.g[0] + a00*s.g[1]) / det
	if math.Abs(s.d[0]-d0) > 1e-12 || math.Abs(s.d[1]-d1) > 1e-12 {
		t.Errorf("Newton step %v, want [%v %v]", s.d, d0, d1)
	}
	y := []float64{0.1, 0.4}
	r0, r1 := y[0]-s.x[0]-d0, y[1]-s.x[1]-d1
	want := 0.5*math.Log(det) - math.Log(2*math.Pi) - 0.5*(a00*r0*r0+2*a01*r0*r1+a11*r1*r1)
	if got := p.logq(&s, y); math.Abs(got-want) > 1e-12 {
		t.Errorf("log q %v, want %v", got, want)
	}
	p.fit(&s, []float64{0, 0})
	if s.mode != blockDiag || !s.fb {
		t.Errorf("without the maps' terms: mode %d, fallback %v; want the per-coordinate fallback", s.mode, s.fb)
	}
}

// TestWithinStrong checks the automatic blocks' rule between rounds as
// confirmed and withinStrong apply it: a block moved is kept when found again
// alone or within a larger block, and a block found within a larger block moved
// is kept when coupled at least autoStrongCoupling.
func TestWithinStrong(t *testing.T) {
	b := func(sites ...int) autoBlock { return autoBlock{sites: sites, coupling: 0.9} }
	weak := func(sites ...int) autoBlock { return autoBlock{sites: sites, coupling: 0.6} }
	sitesOf := func(bs []autoBlock) [][]int {
		var out [][]int
		for _, x := range bs {
			out = append(out, x.sites)
		}
		return out
	}
	for _, tc := range []struct {
		found, moved, want []autoBlock
	}{
		{[]autoBlock{b(1, 3)}, []autoBlock{b(1, 3)}, []autoBlock{b(1, 3)}},
		{[]autoBlock{b(1, 2, 3)}, []autoBlock{b(1, 3)}, []autoBlock{b(1, 3)}},
		{[]autoBlock{b(1, 2)}, []autoBlock{b(1, 3)}, nil},
		{nil, []autoBlock{b(1, 3)}, nil},
		{[]autoBlock{b(1, 3)}, []autoBlock{b(1, 2, 3)}, []autoBlock{b(1, 3)}},
		{[]autoBlock{b(1, 3), b(5, 6)}, []autoBlock{b(1, 2, 3)}, []autoBlock{b(1, 3)}},
		{[]autoBlock{weak(1, 3)}, []autoBlock{b(1, 2, 3)}, nil},
		{[]autoBlock{b(0, 4), b(1, 3)}, []autoBlock{b(0, 4), b(1, 2, 3)}, []autoBlock{b(0, 4), b(1, 3)}},
	} {
		got := withinStrong(confirmed(tc.moved, tc.found), tc.moved, tc.found)
		if !slices.EqualFunc(sitesOf(got), sitesOf(tc.want), slices.Equal) {
			t.Errorf("found %v, moved %v: kept %v, want %v", sitesOf(tc.found), sitesOf(tc.moved), sitesOf(got), sitesOf(tc.want))
		}
	}
}

// TestBlockFitAcceptance checks the estimate of a block's fitted acceptance
// rate that chooseFit reads, on the coupled model's block of y (an
// Interval site) and z (Positive, z | y log-normal): after 300 warm-up sweeps
// the chosen fit's estimate lies within 0.15 of the rate its steps then
// realise over 2000 sweeps (a Monte Carlo error of about 0.01), and a fit moved
// 20 scale units away gets an estimate below blockFitMinAccept.
func TestBlockFitAcceptance(t *testing.T) {
	c := newTestChain(t, coupledModel{}, &Options{Seed: 3, Moves: []Move{SiteSteps{}, BlockNewton{Sites: []string{"y", "z"}}}})
	st := stepperOf[*blockStepper](t, c)
	for n := 1; n <= 300; n++ {
		c.testSweep(true, n)
		st.Adapt(c, Warmup{Sweep: n})
	}
	f := st.fit
	if !st.chooseFit(c) {
		t.Fatalf("no fit: estimated acceptance %v", f.trialAccept)
	}
	f.on = true
	est := f.trialAccept
	for n := 1; n <= 2000; n++ {
		c.testSweep(false, n)
	}
	got := f.stats.AcceptRate()
	t.Logf("estimated acceptance %.3f, realised %.3f over %d proposals", est, got, f.stats.Proposals)
	if math.Abs(est-got) > 0.15 {
		t.Errorf("estimated acceptance %.3f, realised %.3f", est, got)
	}
	for j := range f.mean {
		f.mean[j] += 20 * f.l[j*st.coords.du+j]
	}
	f.c = logDiag(f.l, st.coords.du)
	if a := st.fitAcceptance(c); !(a < blockFitMinAccept) {
		t.Errorf("a fit 20 scale units away: estimated acceptance %.3f, want below %v", a, blockFitMinAccept)
	}
}
