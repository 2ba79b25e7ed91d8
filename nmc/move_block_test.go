package nmc

import (
	"context"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
)

// coupledModel is a hand-written model with a JointHessianer whose posterior
// couples its sites strongly, with closed-form moments:
//
//	a, b   Real scalars, bivariate normal: means 1, −2, sds 1, 2, correlation −0.99
//	y      Interval (0, 1), Beta(5, 8)
//	z      Positive, z | y ~ LogNormal(log y, σ)         (E[z | y] = y·e^{σ²/2})
//	w      Positive, 2 coordinates: w0 ~ Gamma(3, 1), w1 | w0 ~ LogNormal(log w0, σ)
//	p      Simplex, 3 coordinates, Dirichlet(4, 6, 8)
//	t      Positive, t | p ~ LogNormal(log p0, σ)
//
// with σ = 0.3 (where the log density is concave in the unconstrained
// coordinates but for a sliver: NMC's full Newton steps then mix). Its log density, gradient and Hessian are computed over all
// coordinates at once (the simplex's coordinates as free); Score and JointHessian
// read their parts.
type coupledModel struct{}

const (
	coupledSigma = 0.3
	coupledRho   = -0.99
	coupledDim   = 10 // a, b, y, z, w0, w1, p0, p1, p2, t
)

func (coupledModel) Sites() []Site {
	return []Site{
		{Name: "a", Size: 1, Support: Real}, {Name: "b", Size: 1, Support: Real},
		{Name: "y", Size: 1, Support: Interval, Upper: 1}, {Name: "z", Size: 1, Support: Positive},
		{Name: "w", Size: 2, Support: Positive}, {Name: "p", Size: 3, Support: Simplex},
		{Name: "t", Size: 1, Support: Positive},
	}
}

func (m coupledModel) NewScorer() Scorer { return m }

func (coupledModel) Init(rng *rand.Rand, x []float64) error {
	x[0], x[1] = 1+rng.NormFloat64(), -2+2*rng.NormFloat64()
	x[2] = 0.2 + 0.6*rng.Float64()
	x[3] = x[2] * math.Exp(0.2*rng.NormFloat64())
	x[4] = 1 + 3*rng.Float64()
	x[5] = x[4] * math.Exp(0.2*rng.NormFloat64())
	q := [3]float64{1 + rng.Float64(), 1 + rng.Float64(), 1 + rng.Float64()}
	s := q[0] + q[1] + q[2]
	x[6], x[7], x[8] = q[0]/s, q[1]/s, q[2]/s
	x[9] = x[6] * math.Exp(0.2*rng.NormFloat64())
	return nil
}

// all returns the log density at x with, when g and h are not nil, its gradient
// and Hessian (coupledDim × coupledDim) over every coordinate.
func (coupledModel) all(x, g, h []float64) float64 {
	for _, v := range x[2:] {
		if !(v > 0) {
			return math.Inf(-1)
		}
	}
	if !(x[2] < 1) {
		return math.Inf(-1)
	}
	n := coupledDim
	d := g != nil
	if d {
		clear(g)
		clear(h)
	}
	f := 0.0
	// Bivariate normal: precision of Σ = [[1, 2ρ], [2ρ, 4]].
	r := coupledRho
	det := 4 * (1 - r*r)
	p00, p11, p01 := 4/det, 1/det, -2*r/det
	da, db := x[0]-1, x[1]+2
	f -= 0.5 * (p00*da*da + 2*p01*da*db + p11*db*db)
	if d {
		g[0] -= p00*da + p01*db
		g[1] -= p01*da + p11*db
		h[0] -= p00
		h[1] -= p01
		h[n] -= p01
		h[n+1] -= p11
	}
	// log v terms: c·log x_i.
	logTerm := func(i int, c float64) {
		f += c * math.Log(x[i])
		if d {
			g[i] += c / x[i]
			h[i*n+i] -= c / (x[i] * x[i])
		}
	}
	// Beta(5, 8) of y: 4 log y + 7 log(1 − y).
	y := x[2]
	f += 4*math.Log(y) + 7*math.Log1p(-y)
	if d {
		g[2] += 4/y - 7/(1-y)
		h[2*n+2] += -4/(y*y) - 7/((1-y)*(1-y))
	}
	// v | m ~ LogNormal(log m, σ): −log v − (log v − log m)²/(2σ²).
	gammaGiven := func(mi, vi int) {
		s2, mv, v := coupledSigma*coupledSigma, x[mi], x[vi]
		l := math.Log(v) - math.Log(mv)
		f += -math.Log(v) - l*l/(2*s2)
		if d {
			g[mi] += l / (s2 * mv)
			g[vi] += -1/v - l/(s2*v)
			h[mi*n+mi] -= (1 + l) / (s2 * mv * mv)
			h[vi*n+vi] += (1 - 1/s2 + l/s2) / (v * v)
			h[mi*n+vi] += 1 / (s2 * mv * v)
			h[vi*n+mi] += 1 / (s2 * mv * v)
		}
	}
	gammaGiven(2, 3)
	// w0 ~ Gamma(3, 1): 2 log w0 − w0.
	logTerm(4, 2)
	f -= x[4]
	if d {
		g[4]--
	}
	gammaGiven(4, 5)
	// Dirichlet(4, 6, 8): 3 log p0 + 5 log p1 + 7 log p2.
	logTerm(6, 3)
	logTerm(7, 5)
	logTerm(8, 7)
	gammaGiven(6, 9)
	return f
}

// offsets of the sites' coordinates.
var coupledOff = []int{0, 1, 2, 3, 4, 6, 9}

func (m coupledModel) LogJoint(x []float64) float64 { return m.all(x, nil, nil) }

func (m coupledModel) Score(x []float64, i int, grad, hess []float64) float64 {
	return m.JointHessian(x, []int{i}, grad, hess)
}

func (m coupledModel) JointHessian(x []float64, sites []int, grad, hess []float64) float64 {
	if grad == nil || hess == nil {
		return m.all(x, nil, nil)
	}
	var g [coupledDim]float64
	var h [coupledDim * coupledDim]float64
	f := m.all(x, g[:], h[:])
	var idx []int
	all := m.Sites()
	for _, i := range sites {
		for c := range all[i].Size {
			idx = append(idx, coupledOff[i]+c)
		}
	}
	n := len(idx)
	for a, p := range idx {
		grad[a] = g[p]
		for b, q := range idx {
			hess[a*n+b] = h[p*coupledDim+q]
		}
	}
	return f
}

var _ JointHessianer = coupledModel{}

// TestBlockEvalFiniteDifferences checks the block's target in unconstrained
// coordinates, t(u) = F(x(u)) + log|J(u)|, its gradient and its Hessian
// (blockCoords.derivs: the chain rule of every support's map) against finite
// differences of t computed from LogJoint and the maps alone, for the block of all
// sites and for a block of a Real, an Interval and a simplex site, at random
// states.
func TestBlockEvalFiniteDifferences(t *testing.T) {
	m := coupledModel{}
	sites := m.Sites()
	off := Offsets(sites)
	rng := rand.New(rand.NewPCG(3, 4))
	x := make([]float64, Dim(sites))
	for _, block := range [][]int{{0, 1, 2, 3, 4, 5, 6}, {5, 2, 0}} {
		coords := newBlockCoords(block, sites, off)
		ev := newBlockEval(coords, block, m)
		du := coords.du
		u, gu, hu := make([]float64, du), make([]float64, du*1), make([]float64, du*du)
		xb := make([]float64, coords.dx)
		for range 5 {
			if err := m.Init(rng, x); err != nil {
				t.Fatal(err)
			}
			coords.gather(x, xb)
			coords.toFree(xb, u)
			f0 := ev.at(x, xb, u, gu, hu)
			// t from scratch: LogJoint at x(u) plus log|J(u)|.
			y := slices.Clone(x)
			yb := make([]float64, coords.dx)
			target := func(v []float64) float64 {
				lj := coords.fromFree(v, yb)
				coords.scatter(yb, y)
				return m.LogJoint(y) + lj
			}
			if tv := target(u); math.Abs(tv-f0) > 1e-9*math.Max(1, math.Abs(f0)) {
				t.Errorf("block %v: target %.12g, from scratch %.12g", block, f0, tv)
			}
			const step = 1e-4
			v := slices.Clone(u)
			for a := range du {
				at := func(e float64) float64 { v[a] = u[a] + e; r := target(v); v[a] = u[a]; return r }
				fd := (8*(at(step)-at(-step)) - (at(2*step) - at(-2*step))) / (12 * step)
				if math.Abs(fd-gu[a]) > 1e-6*math.Max(1, math.Abs(gu[a])) {
					t.Errorf("block %v: gradient[%d] %.10g, finite difference %.10g", block, a, gu[a], fd)
				}
				// Row a of the Hessian: differences of the gradient along e_a.
				g1, h1 := make([]float64, du), make([]float64, du*du)
				grad := func(e float64, c int) float64 {
					v[a] = u[a] + e
					lj := coords.fromFree(v, yb)
					_ = lj
					coords.scatter(yb, y)
					ev.at(y, yb, v, g1, h1)
					v[a] = u[a]
					return g1[c]
				}
				for c := range du {
					fdh := (8*(grad(step, c)-grad(-step, c)) - (grad(2*step, c) - grad(-2*step, c))) / (12 * step)
					if math.Abs(fdh-hu[a*du+c]) > 1e-5*math.Max(1, math.Abs(hu[a*du+c])) {
						t.Errorf("block %v: H[%d,%d] %.10g, finite difference %.10g", block, a, c, hu[a*du+c], fdh)
					}
				}
			}
		}
	}
}

// TestBlockNewtonExact samples the coupled model with every site in one declared
// block, with blocks of two and of one sites, and with the single-site steps, and
// checks the means of a, b, ab, y, z, zy, w0, w1, p0, t against their closed forms
// within Monte Carlo error (ESS-based MCSE).
func TestBlockNewtonExact(t *testing.T) {
	c := math.Exp(coupledSigma * coupledSigma / 2) // E[v | m] = c·m
	ey2 := 5.0*8/(13*13*14) + 25.0/169             // E[y²] = Var y + (E y)²
	exact := map[string]float64{
		"a": 1, "b": -2, "ab": coupledRho*2 + 1*-2,
		"y": 5.0 / 13, "z": 5.0 / 13 * c, "zy": ey2 * c,
		"w[0]": 3, "w[1]": 3 * c,
		"p[0]": 2.0 / 9, "t": 2.0 / 9 * c,
	}
	for _, tc := range []struct {
		name   string
		blocks []Move
	}{
		{"one block", []Move{BlockNewton{Sites: []string{"a", "b", "y", "z", "w", "p", "t"}}}},
		{"pairs", []Move{BlockNewton{Sites: []string{"a", "b"}}, BlockNewton{Sites: []string{"y", "z"}}, BlockNewton{Sites: []string{"w"}}, BlockNewton{Sites: []string{"p", "t"}}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			moves := append([]Move{SiteSteps{}}, tc.blocks...)
			r, err := Sample(context.Background(), coupledModel{}, &Options{Seed: 5, Chains: 4, Draws: 2000, Warmup: 200, Moves: moves})
			if err != nil {
				t.Fatal(err)
			}
			for _, st := range r.Moves {
				t.Logf("%s (%s): %d of %d accepted, %d fallbacks %s", st.Name, st.Proposer, st.Accepted, st.Proposals, st.Fallbacks, st.Unused)
				if !strings.HasPrefix(st.Name, "block(") || (st.Proposer == blockProposerName && st.Accepted == 0) {
					t.Errorf("move %+v", st)
				}
			}
			// The sites' own steps: every warm-up sweep, then every 8th sweep of
			// a chain whose block accepted ≥ 50% in warm-up (all here: a and b's
			// accepts every proposal).
			for _, s := range r.Sites {
				if s.Proposals != 4*200+4*2000/8 {
					t.Errorf("site %s stepped %d times, want 4 × (200 + 2000/8)", s.Name, s.Proposals)
				}
			}
			a, b := column(t, r, "a"), column(t, r, "b")
			y, z := column(t, r, "y"), column(t, r, "z")
			ab, zy := make([][]float64, len(a)), make([][]float64, len(a))
			for c := range a {
				for i := range a[c] {
					ab[c] = append(ab[c], a[c][i]*b[c][i])
					zy[c] = append(zy[c], z[c][i]*y[c][i])
				}
			}
			for _, name := range slices.Sorted(func(yield func(string) bool) {
				for k := range exact {
					if !yield(k) {
						return
					}
				}
			}) {
				var series [][]float64
				switch name {
				case "ab":
					series = ab
				case "zy":
					series = zy
				default:
					series = column(t, r, name)
				}
				checkMean(t, tc.name+" "+name, series, exact[name])
			}
		})
	}
}

// TestBlockNewtonBadInput checks the errors of BlockNewton's and AutoBlocks' plans:
// no sites, an unknown name, a site given twice, a model whose Scorer is not a
// JointHessianer, invalid AutoBlocks settings; and that AutoBlocks plans nothing
// for such a model.
func TestBlockNewtonBadInput(t *testing.T) {
	for _, tc := range []struct {
		m    Model
		move Move
		want string
	}{
		{coupledModel{}, BlockNewton{}, "no sites"},
		{coupledModel{}, BlockNewton{Sites: []string{"a", "q"}}, `no site or family "q"`},
		{coupledModel{}, BlockNewton{Sites: []string{"a", "a"}}, `"a" is given twice`},
		{newMVNModel(), BlockNewton{Sites: []string{"x"}}, "does not implement JointHessianer"},
		{coupledModel{}, AutoBlocks{Threshold: 1.5}, "Threshold = 1.5"},
		{coupledModel{}, AutoBlocks{MaxCoords: -1}, "MaxCoords = -1"},
	} {
		_, err := Plan(tc.m, &Options{Moves: []Move{SiteSteps{}, tc.move}})
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%+v: error %v, want one containing %q", tc.move, err, tc.want)
		}
	}
	s, err := Plan(newMVNModel(), &Options{Moves: []Move{SiteSteps{}, AutoBlocks{}}})
	if err != nil || strings.Contains(s.String(), "block(") {
		t.Errorf("AutoBlocks on a model without JointHessianer: %v, %q", err, s)
	}
}

// TestAutoBlocksCoupled plans AutoBlocks on the coupled model: it finds exactly
// the couplings the model builds in — (a, b), whose coupling is 0.99 everywhere,
// the pairs (y, z) and (p, t) of the LogNormal couplings, and the 2-coordinate
// Positive site w on its own — and a threshold above every coupling finds none.
func TestAutoBlocksCoupled(t *testing.T) {
	s, err := Plan(coupledModel{}, &Options{Seed: 1, Moves: []Move{SiteSteps{}, AutoBlocks{}}})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("schedule:\n%s", s)
	for _, want := range []string{"block(a, b):", "block(y, z):", "block(p, t):", "block(w):"} {
		if !strings.Contains(s.String(), want) {
			t.Errorf("no %s in the schedule:\n%s", want, s)
		}
	}
	if got := strings.Count(s.String(), "\n"); got != 5 {
		t.Errorf("%d moves, want the site steps and the 4 blocks:\n%s", got, s)
	}
	s, err = Plan(coupledModel{}, &Options{Seed: 1, Moves: []Move{SiteSteps{}, AutoBlocks{Threshold: 0.999}}})
	if err != nil || strings.Contains(s.String(), "block(") {
		t.Errorf("threshold 0.999: %v\n%s", err, s)
	}
}

// TestBlockJudge: a chain keeps a block after warm-up when its Newton steps moved
// its coordinates at least as far as the rest of the sweeps (squared jumps in
// units of each coordinate's variance over the latest warm-up draws), and leaves it out when they moved
// them less or not at all; with too few warm-up draws to judge it keeps it.
func TestBlockJudge(t *testing.T) {
	const du = 2
	judge := func(n int, variance, moves, rest [du]float64) bool {
		f := newBlockFit(du)
		f.n = n
		// The latest draws: ±s_j alternately, of sample variance variance[j].
		f.kept = blockFitRing
		for j := range du {
			sj := math.Sqrt(variance[j] * float64(f.kept-1) / float64(f.kept))
			for r := range f.kept {
				f.ring[r*du+j] = sj * float64(1-2*(r%2))
			}
		}
		copy(f.moves, moves[:])
		copy(f.rest, rest[:])
		st := &blockStepper{fit: f, coords: &blockCoords{du: du}}
		return st.judge()
	}
	for _, tc := range []struct {
		name        string
		n           int
		variance    [du]float64
		moves, rest [du]float64
		want        bool
	}{
		{"moves farther", 100, [du]float64{1, 1}, [du]float64{50, 50}, [du]float64{10, 10}, true},
		{"moves less", 100, [du]float64{1, 1}, [du]float64{10, 10}, [du]float64{50, 50}, false},
		{"never moves", 100, [du]float64{1, 1}, [du]float64{0, 0}, [du]float64{50, 50}, false},
		// In units of the variance: coordinate 1's rest jumps are on a scale 100
		// times coordinate 0's, and count as 0.5 + 0.4 against the block's 1 + 0.
		{"scaled", 100, [du]float64{1, 100}, [du]float64{1, 0}, [du]float64{0.5, 40}, true},
		{"scaled, less", 100, [du]float64{1, 100}, [du]float64{1, 0}, [du]float64{0.5, 60}, false},
		{"too few draws", 2*blockFitMinDraws - 1, [du]float64{1, 1}, [du]float64{0, 0}, [du]float64{50, 50}, true},
	} {
		if got := judge(tc.n, tc.variance, tc.moves, tc.rest); got != tc.want {
			t.Errorf("%s: judge = %v, want %v", tc.name, got, tc.want)
		}
	}
}

// TestConfirmedBlocks: a pilot round keeps the blocks it moved that it found
// again, alone or within a larger block, and drops those it found split or not
// at all.
func TestConfirmedBlocks(t *testing.T) {
	b := func(sites ...int) autoBlock { return autoBlock{sites: sites} }
	moved := []autoBlock{b(0, 1), b(3, 4), b(6, 7)}
	found := []autoBlock{b(0, 1, 3, 5), b(3, 8), b(6, 7)}
	got := confirmed(moved, found)
	if !sameBlocks(got, []autoBlock{b(0, 1), b(6, 7)}) {
		t.Errorf("confirmed %v, want [0 1] and [6 7]", got)
	}
	if got := confirmed(moved, nil); got != nil {
		t.Errorf("nothing found: %v", got)
	}
}
