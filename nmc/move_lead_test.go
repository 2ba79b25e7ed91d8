package nmc

import (
	"context"
	"math"
	"math/rand/v2"
	"strings"
	"testing"
)

// dirichletGamma: pi ~ Dirichlet(2, 3, 4), lam | pi ~ Gamma(shape 3, rate 1/pi_0): the
// conditional of lam scales with pi_0. Marginals: pi Dirichlet; E lam = 3 E pi_0 = 2/3,
// E lam² = 12 E pi_0² = 0.8. It declares pi as its lead unless noLead.
type dirichletGamma struct{ noLead bool }

var dgAlpha = [3]float64{2, 3, 4}

func (dirichletGamma) Sites() []Site {
	return []Site{{Name: "pi", Size: 3, Support: Simplex}, {Name: "lam", Size: 1, Support: Positive}}
}
func (m dirichletGamma) NewScorer() Scorer { return m }
func (m dirichletGamma) Leads() []string {
	if m.noLead {
		return nil
	}
	return []string{"pi"}
}
func (dirichletGamma) Init(rng *rand.Rand, x []float64) error {
	s := 0.0
	for i, a := range dgAlpha {
		x[i] = math.Exp(logGammaRand(rng, a))
		s += x[i]
	}
	for i := range dgAlpha {
		x[i] /= s
	}
	x[3] = 3 * x[0]
	return nil
}
func (m dirichletGamma) LogJoint(x []float64) float64 {
	return m.Score(x, 0, nil, nil) + 2*math.Log(x[3])
}
func (dirichletGamma) Score(x []float64, i int, grad, hess []float64) float64 {
	p0, lam := x[0], x[3]
	if !(x[0] > 0 && x[1] > 0 && x[2] > 0 && lam > 0) {
		return math.Inf(-1)
	}
	gam := -3*math.Log(p0) - lam/p0 // the Gamma terms that depend on pi_0
	if i == 1 {
		if grad != nil {
			grad[0], hess[0] = 2/lam-1/p0, -2/(lam*lam)
		}
		return gam + 2*math.Log(lam)
	}
	f := gam
	for n, a := range dgAlpha {
		f += (a - 1) * math.Log(x[n])
	}
	if grad != nil {
		clear(hess[:9])
		for n, a := range dgAlpha {
			grad[n] = (a - 1) / x[n]
			hess[n*3+n] = -(a - 1) / (x[n] * x[n])
		}
		grad[0] += -3/p0 + lam/(p0*p0)
		hess[0] += 3/(p0*p0) - 2*lam/(p0*p0*p0)
	}
	return f
}

// dirichletSD returns the sd of coordinate n of Dirichlet(a).
func dirichletSD(a []float64, n int) float64 {
	s := 0.0
	for _, v := range a {
		s += v
	}
	return math.Sqrt(a[n] * (s - a[n]) / (s * s * (s + 1)))
}

// TestJointMovesAlone: with only the lead-and-follow moves after warm-up, the draws
// keep the target's closed-form moments (within the Monte Carlo error): a simplex
// lead with a Positive follower whose conditional scales with it (followers in the
// random order of the moves: every exact piece of the ratio is needed, a missing
// Jacobian or reverse term moves these moments by many MCSE), a Real lead with a
// Real follower found through the model's Neighbors (Neal's funnel), and an Interval
// lead alone (a Beta posterior on (−2, 3)).
func TestJointMovesAlone(t *testing.T) {
	t.Parallel()
	o := &Options{Chains: 4, Draws: 4000, Warmup: 300, Seed: 501, Moves: leadsOnly(LeadMoves{Follow: -1, Steps: 2})}
	r := sample(t, dirichletGamma{}, o)
	if len(movesOf(r, "lead")) != 1 || movesOf(r, "lead")[0].Name != "lead-follow(pi)" || movesOf(r, "lead")[0].Proposer != jointProposer || movesOf(r, "lead")[0].Proposals != 4*4000*2 {
		t.Fatalf("Joint %+v", movesOf(r, "lead"))
	}
	rate := movesOf(r, "lead")[0].AcceptRate()
	if !(rate > 0.1 && rate < 1) {
		t.Errorf("dirichlet-gamma: acceptance %.3f, want in (0.1, 1)", rate)
	}
	t.Logf("dirichlet-gamma: lead-follow acceptance %.3f", rate)
	a := dgAlpha[:]
	for n := 0; n < 2; n++ {
		name := []string{"pi[0]", "pi[1]"}[n]
		checkMoments(t, name, column(t, r, name), a[n]/9, dirichletSD(a, n), nil)
	}
	checkMoments(t, "lam", column(t, r, "lam"), 2.0/3, math.Sqrt(0.8-4.0/9), nil)

	o.Moves = leadsOnly(LeadMoves{Leads: []string{"z"}, Follow: -1, Steps: 2})
	r = sample(t, funnelModel{}, o)
	checkMoments(t, "funnel z", column(t, r, "z"), 0, 3, nil)
	checkMean(t, "funnel P(x > 0)", mapSeries(column(t, r, "x"), func(v float64) float64 {
		if v > 0 {
			return 1
		}
		return 0
	}), 0.5)
	t.Logf("funnel: lead-follow acceptance %.3f", movesOf(r, "lead")[0].AcceptRate())

	m, pa, pb := betaBinomialModel(2, 3, 7, 20, 1, -2, 3)
	o.Moves = leadsOnly(LeadMoves{Leads: []string{"p"}, Follow: -1, Steps: 2})
	r = sample(t, m, o)
	mean := pa / (pa + pb)
	sd := math.Sqrt(pa * pb / ((pa + pb) * (pa + pb) * (pa + pb + 1)))
	checkMoments(t, "beta p", column(t, r, "p"), -2+5*mean, 5*sd, nil)
	t.Logf("beta: lead-follow acceptance %.3f", movesOf(r, "lead")[0].AcceptRate())
}

// allocation: pi ~ Dirichlet(dgAlpha + counts), k | pi ~ Categorical(pi) over 3
// values. Marginals: pi Dirichlet(a), P(k = v) = a_v / Σa with a = dgAlpha + counts.
type allocation struct{ counts [3]float64 }

func (allocation) Sites() []Site {
	return []Site{{Name: "pi", Size: 3, Support: Simplex}, {Name: "k", Size: 1, Support: Discrete, NumValues: 3}}
}
func (m allocation) NewScorer() Scorer { return m }
func (allocation) Init(rng *rand.Rand, x []float64) error {
	x[0], x[1], x[2], x[3] = 0.2, 0.3, 0.5, float64(rng.IntN(3))
	return nil
}
func (m allocation) LogJoint(x []float64) float64 { return m.Score(x, 0, nil, nil) }
func (m allocation) Score(x []float64, i int, grad, hess []float64) float64 {
	if !(x[0] > 0 && x[1] > 0 && x[2] > 0) {
		return math.Inf(-1)
	}
	k := int(x[3])
	if i == 1 {
		return math.Log(x[k])
	}
	f := math.Log(x[k])
	for n, a := range dgAlpha {
		f += (a + m.counts[n] - 1) * math.Log(x[n])
	}
	if grad != nil {
		clear(hess[:9])
		for n, a := range dgAlpha {
			e := a + m.counts[n] - 1
			if n == k {
				e++
			}
			grad[n] = e / x[n]
			hess[n*3+n] = -e / (x[n] * x[n])
		}
	}
	return f
}

// TestJointMovesDiscreteFollowers: a simplex lead whose finite Discrete follower is
// drawn from its exact conditional (the allocation of one item to a class with
// weights pi): with the moves alone the joint keeps its closed-form marginals; the
// move is a random walk on pi's marginal with k summed out.
func TestJointMovesDiscreteFollowers(t *testing.T) {
	t.Parallel()
	m := allocation{counts: [3]float64{5, 1, 0}}
	a := []float64{dgAlpha[0] + 5, dgAlpha[1] + 1, dgAlpha[2]}
	sum := a[0] + a[1] + a[2]
	r := sample(t, m, &Options{Chains: 4, Draws: 4000, Warmup: 300, Seed: 505, Moves: leadsOnly(LeadMoves{Leads: []string{"pi"}, Follow: -1, Steps: 2})})
	checkMoments(t, "allocation pi[0]", column(t, r, "pi[0]"), a[0]/sum, dirichletSD(a, 0), nil)
	checkMean(t, "allocation P(k = 0)", mapSeries(column(t, r, "k"), func(v float64) float64 {
		if v == 0 {
			return 1
		}
		return 0
	}), a[0]/sum)
	t.Logf("allocation: lead-follow acceptance %.3f", movesOf(r, "lead")[0].AcceptRate())
}

// TestJointMovesDefault: with the default sweeps the model's declared lead gets its
// moves (ten per sweep after the warm-up, counted; none without a warm-up or with Off), the
// moments stay exact (also with followers chosen by JointMoves.Follow), and Off gives
// the draws of a model without leads.
func TestJointMovesDefault(t *testing.T) {
	t.Parallel()
	o := &Options{Chains: 4, Draws: 2000, Warmup: AutoWarmup, Seed: 502}
	r := sample(t, dirichletGamma{}, o)
	sweeps := 0 // after warm-up, the thinning's
	for _, th := range r.Thin {
		sweeps += 2000 * th
	}
	if len(movesOf(r, "lead")) != 1 || movesOf(r, "lead")[0].Proposals != sweeps*defaultJointSteps {
		t.Fatalf("Joint %+v (thinned %v)", movesOf(r, "lead"), r.Thin)
	}
	checkMoments(t, "default pi[0]", column(t, r, "pi[0]"), 2.0/9, dirichletSD(dgAlpha[:], 0), nil)
	checkMoments(t, "default lam", column(t, r, "lam"), 2.0/3, math.Sqrt(0.8-4.0/9), nil)

	// Followers chosen by the shift of their fit (lam's Gamma fit moves with pi_0).
	o.Moves = []Move{SiteSteps{}, FittedSteps{}, LeadMoves{Follow: 0.05}}
	r = sample(t, dirichletGamma{}, o)
	checkMoments(t, "follow lam", column(t, r, "lam"), 2.0/3, math.Sqrt(0.8-4.0/9), nil)

	off := sample(t, dirichletGamma{}, &Options{Chains: 2, Draws: 200, Warmup: AutoWarmup, Seed: 503, Moves: []Move{Defaults{NoLeadMoves: true}}})
	none := sample(t, dirichletGamma{noLead: true}, &Options{Chains: 2, Draws: 200, Warmup: AutoWarmup, Seed: 503})
	if movesOf(off, "lead") != nil || movesOf(none, "lead") != nil {
		t.Fatalf("Joint with Off %+v, without leads %+v", movesOf(off, "lead"), movesOf(none, "lead"))
	}
	for c := range off.Draws.Chains {
		for k, v := range off.Draws.Chains[c] {
			if v != none.Draws.Chains[c][k] {
				t.Fatalf("chain %d value %d: %v with Off, %v without leads", c, k, v, none.Draws.Chains[c][k])
			}
		}
	}
	if r := sample(t, dirichletGamma{}, &Options{Warmup: NoWarmup, Chains: 2, Draws: 100, Seed: 504}); movesOf(r, "lead") != nil {
		t.Errorf("no warm-up: Joint %+v", movesOf(r, "lead"))
	}
}

// TestJointMovesBadOptions: invalid settings are errors naming the field or the lead.
func TestJointMovesBadOptions(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		m    Model
		j    LeadMoves
		want string
	}{
		{dirichletGamma{}, LeadMoves{Leads: []string{"nope"}}, `LeadMoves.Leads names "nope", which is not a site`},
		{dirichletGamma{}, LeadMoves{Leads: []string{"pi", "pi"}}, `names "pi" twice`},
		{&mixtureModel{}, LeadMoves{Leads: []string{"k"}}, `"k", a Discrete site`},
		{dirichletGamma{}, LeadMoves{Steps: -1}, "LeadMoves.Steps = -1"},
		{dirichletGamma{}, LeadMoves{Scale: math.NaN()}, "LeadMoves.Scale = NaN"},
		{dirichletGamma{}, LeadMoves{Follow: math.Inf(1)}, "LeadMoves.Follow = +Inf"},
		{badLeader{}, LeadMoves{}, `the model's Leads() names "x"`},
	} {
		_, err := Sample(context.Background(), c.m, &Options{Moves: []Move{SiteSteps{}, c.j}, Warmup: 10})
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%+v: error %v, want one containing %q", c.j, err, c.want)
		}
	}
}

// badLeader declares a lead that is not one of its sites.
type badLeader struct{ dirichletGamma }

func (badLeader) Leads() []string { return []string{"x"} }

// TestFreeCoordinates: fromFree inverts toFree and its log-Jacobian matches
// logJacobianAt and a finite-difference determinant.
func TestFreeCoordinates(t *testing.T) {
	for _, c := range []struct {
		s Site
		x []float64
	}{
		{Site{Name: "r", Size: 2, Support: Real}, []float64{-1.5, 2}},
		{Site{Name: "p", Size: 2, Support: Positive, Lower: 1}, []float64{1.2, 7}},
		{Site{Name: "i", Size: 1, Support: Interval, Lower: -2, Upper: 3}, []float64{2.5}},
		{Site{Name: "s", Size: 4, Support: Simplex}, []float64{0.1, 0.2, 0.3, 0.4}},
	} {
		d := freeDim(c.s)
		u := make([]float64, d)
		toFree(c.s, c.x, u)
		x := make([]float64, c.s.Size)
		lj := fromFree(c.s, u, x)
		for i := range x {
			if math.Abs(x[i]-c.x[i]) > 1e-12 {
				t.Errorf("%s: round trip %v, want %v", c.s.Name, x, c.x)
			}
		}
		if math.Abs(lj-logJacobianAt(c.s, c.x)) > 1e-12 {
			t.Errorf("%s: log Jacobian %g, logJacobianAt %g", c.s.Name, lj, logJacobianAt(c.s, c.x))
		}
		// Finite-difference Jacobian of the first d coordinates with respect to u.
		jac := make([]float64, d*d)
		h := 1e-6
		up, xp, xm := make([]float64, d), make([]float64, c.s.Size), make([]float64, c.s.Size)
		for b := 0; b < d; b++ {
			copy(up, u)
			up[b] += h
			fromFree(c.s, up, xp)
			up[b] -= 2 * h
			fromFree(c.s, up, xm)
			for a := 0; a < d; a++ {
				jac[a*d+b] = (xp[a] - xm[a]) / (2 * h)
			}
		}
		if fd := math.Log(math.Abs(det(jac, d))); math.Abs(fd-lj) > 1e-6 {
			t.Errorf("%s: log Jacobian %g, finite differences %g", c.s.Name, lj, fd)
		}
	}
}

// det returns the determinant of the d×d matrix a (Gaussian elimination with partial
// pivoting; a is overwritten).
func det(a []float64, d int) float64 {
	out := 1.0
	for k := 0; k < d; k++ {
		p := k
		for i := k + 1; i < d; i++ {
			if math.Abs(a[i*d+k]) > math.Abs(a[p*d+k]) {
				p = i
			}
		}
		if p != k {
			for j := 0; j < d; j++ {
				a[k*d+j], a[p*d+j] = a[p*d+j], a[k*d+j]
			}
			out = -out
		}
		out *= a[k*d+k]
		for i := k + 1; i < d; i++ {
			f := a[i*d+k] / a[k*d+k]
			for j := k; j < d; j++ {
				a[i*d+j] -= f * a[k*d+j]
			}
		}
	}
	return out
}
