package graph_test

import (
	"context"
	"math"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/nmc-go/nmc/diagnostics"
	"github.com/nmc-go/nmc/nmc"
	"github.com/nmc-go/nmc/nmc/graph"
	"github.com/nmc-go/nmc/nmc/jet"
)

// pkRK4 integrates the PK ODE in plain float64 with step h and returns C at
// pkTimes: an implementation of the example's integrator that shares no code
// with it.
func pkRK4(theta []float64, h float64) []float64 {
	ka, v, vm, km := theta[0], theta[1], theta[2], theta[3]
	f := func(t, c float64) float64 { return math.Exp(-ka*t)*pkDose*ka/v - vm/v*c/(km+c) }
	var out []float64
	c, n := 0.0, int(math.Round(pkTimes[len(pkTimes)-1]/h))
	for i := 0; i < n; i++ {
		t := float64(i) * h
		k1 := f(t, c)
		k2 := f(t+h/2, c+h/2*k1)
		k3 := f(t+h/2, c+h/2*k2)
		k4 := f(t+h, c+h*k3)
		c += h / 6 * (k1 + 2*k2 + 2*k3 + k4)
		for _, tt := range pkTimes {
			if int(math.Round(tt/h)) == i+1 {
				out = append(out, c)
			}
		}
	}
	return out
}

// TestPKConcentrations checks the example's recorded parameters and Func
// outputs against exp(logtheta) and the float64 integrator at random states (to
// rounding), and the integrator at the example's step against one a hundred
// times finer (the discretisation error, small beside the noise).
func TestPKConcentrations(t *testing.T) {
	m, err := pkModel(pkData(1))
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(5, 5))
	x := make([]float64, nmc.Dim(m.Sites()))
	got := make([]float64, len(m.DerivedNames()))
	theta := make([]float64, 4)
	for range 5 {
		if err := m.Init(rng, x); err != nil {
			t.Fatal(err)
		}
		m.Derive(x, got)
		for i := range theta {
			theta[i] = math.Exp(x[i])
			if got[i] != theta[i] {
				t.Errorf("%s = %v, exp(logtheta[%d]) = %v", pkNames[i], got[i], i, theta[i])
			}
		}
		want := pkRK4(theta, pkStep)
		for j := range want {
			if c := got[4+j]; math.Abs(c-want[j]) > 1e-12*math.Abs(want[j]) {
				t.Errorf("at %v: C(%g) = %.17g, float64 RK4 %.17g", theta, pkTimes[j], c, want[j])
			}
		}
	}
	coarse, fine := pkRK4(pkTruth, pkStep), pkRK4(pkTruth, pkStep/100)
	for j := range coarse {
		if rel := math.Abs(coarse[j]-fine[j]) / fine[j]; rel > 1e-5 {
			t.Errorf("C(%g): step %g gives %.8g, step %g %.8g (relative %.1e)", pkTimes[j], pkStep, coarse[j], pkStep/100, fine[j], rel)
		}
	}
}

// pkModelPositive is the example with the four parameters as positive latents
// (one site each, lognormal priors): the same posterior, sampled by per-site
// Gamma proposals.
func pkModelPositive(y []float64) (*graph.Model, error) {
	b := graph.New()
	var theta [4]*graph.Node
	for i, name := range pkNames {
		theta[i] = b.Latent(name, graph.LogNormal(graph.C(pkPrior.mu[i]), graph.C(pkPrior.scale)))
	}
	conc := graph.Func(pkConcentrations, len(pkTimes), theta[:]...)
	b.Observe("y", graph.LogNormal(graph.Log(graph.Components(conc)), graph.C(pkSigma)), y)
	return b.Build()
}

// pkModelFactor is the example with its likelihood computed in Go by one
// Builder.Func factor: the lognormal log densities of the observations, summed
// over the ODE's outputs.
func pkModelFactor(y []float64) (*graph.Model, error) {
	b := graph.New()
	logtheta := b.Vector("logtheta", 4, graph.Normal(graph.Data(pkPrior.mu[:]), graph.C(pkPrior.scale)))
	conc := make([]jet.Number, len(pkTimes))
	b.Func("likelihood", func(s *jet.Space, in, out []jet.Number) {
		pkConcentrations(s, in, conc)
		ll := jet.Const(0)
		for j, c := range conc {
			z := c.Log().SubConst(math.Log(y[j])).DivConst(pkSigma)
			ll = ll.AddScaled(-0.5, z.Square()).SubConst(math.Log(y[j]*pkSigma) + 0.5*math.Log(2*math.Pi))
		}
		out[0] = ll
	}, graph.Exp(logtheta))
	return b.Build()
}

// TestPKDerivatives checks every site's score, gradient and Hessian against
// finite differences of the log joint, in the example and in its forms with
// positive latents and with the likelihood as a Builder.Func factor.
func TestPKDerivatives(t *testing.T) {
	y := pkData(1)
	for _, c := range []struct {
		name  string
		build func([]float64) (*graph.Model, error)
	}{{"vector", pkModel}, {"positive", pkModelPositive}, {"factor", pkModelFactor}} {
		m, err := c.build(y)
		if err != nil {
			t.Fatal(err)
		}
		if n := graph.CheckModelDerivs(t, "pk-"+c.name, m, rand.New(rand.NewPCG(3, 1)), 5, 50); !t.Failed() && n < 5 {
			t.Errorf("%s: only %d acceptable points", c.name, n)
		}
	}
}

// TestPKFactorMatchesObserve checks that the likelihood written as one
// Builder.Func factor gives the example's log joint, score, gradient and Hessian
// to rounding.
func TestPKFactorMatchesObserve(t *testing.T) {
	y := pkData(1)
	mo, err := pkModel(y)
	if err != nil {
		t.Fatal(err)
	}
	mf, err := pkModelFactor(y)
	if err != nil {
		t.Fatal(err)
	}
	so, sf := mo.NewScorer(), mf.NewScorer()
	rng := rand.New(rand.NewPCG(8, 8))
	x := make([]float64, 4)
	go1, ho, gf, hf := make([]float64, 4), make([]float64, 16), make([]float64, 4), make([]float64, 16)
	for range 10 {
		if err := mo.Init(rng, x); err != nil {
			t.Fatal(err)
		}
		if lo, lf := so.LogJoint(x), sf.LogJoint(x); math.Abs(lo-lf) > 1e-12*math.Max(1, math.Abs(lo)) {
			t.Errorf("at %v: log joint %.17g with Observe, %.17g with Builder.Func", x, lo, lf)
		}
		fo, ff := so.Score(x, 0, go1, ho), sf.Score(x, 0, gf, hf)
		if math.Abs(fo-ff) > 1e-12*math.Max(1, math.Abs(fo)) {
			t.Errorf("at %v: score %.17g with Observe, %.17g with Builder.Func", x, fo, ff)
		}
		for p := range go1 {
			if math.Abs(go1[p]-gf[p]) > 1e-10*math.Max(1, math.Abs(go1[p])) {
				t.Errorf("at %v: gradient[%d] %.17g with Observe, %.17g with Builder.Func", x, p, go1[p], gf[p])
			}
		}
		for p := range ho {
			if math.Abs(ho[p]-hf[p]) > 1e-10*math.Max(1, math.Abs(ho[p])) {
				t.Errorf("at %v: Hessian[%d] %.17g with Observe, %.17g with Builder.Func", x, p, ho[p], hf[p])
			}
		}
	}
}

// pkReference is the PK example's posterior written by hand as an nmc.Model of
// one site, the four log-parameters u: the log density (priors and likelihood,
// constants dropped) computed in jet Numbers over u by Space.Derivs, without
// package graph; the parameters e^u are recorded (nmc.Deriver).
type pkReference struct{ y []float64 }

func (pkReference) Sites() []nmc.Site {
	return []nmc.Site{{Name: "logtheta", Size: 4, Support: nmc.Real}}
}

func (r pkReference) NewScorer() nmc.Scorer {
	return &pkRefScorer{y: r.y, sp: jet.NewSpace(4), conc: make([]jet.Number, len(pkTimes))}
}

func (pkReference) Init(rng *rand.Rand, x []float64) error {
	for i := range x {
		x[i] = pkPrior.mu[i] + pkPrior.scale*rng.NormFloat64()
	}
	return nil
}

func (pkReference) DerivedNames() []string { return pkNames }

func (pkReference) Derive(x, dst []float64) {
	for i := range dst {
		dst[i] = math.Exp(x[i])
	}
}

type pkRefScorer struct {
	y    []float64
	sp   *jet.Space
	conc []jet.Number
}

// logDensity is log p(u, y) up to a constant:
// −Σ_i (u_i − μ_i)²/2s² − Σ_j (log y_j − log C_j(e^u))²/2σ².
func (s *pkRefScorer) logDensity(sp *jet.Space, u []jet.Number) jet.Number {
	lp := jet.Const(0)
	var theta [4]jet.Number
	for i, ui := range u {
		lp = lp.AddScaled(-0.5, ui.SubConst(pkPrior.mu[i]).DivConst(pkPrior.scale).Square())
		theta[i] = ui.Exp()
	}
	pkConcentrations(sp, theta[:], s.conc)
	for j, c := range s.conc {
		lp = lp.AddScaled(-0.5, c.Log().SubConst(math.Log(s.y[j])).DivConst(pkSigma).Square())
	}
	return lp
}

func (s *pkRefScorer) Score(x []float64, _ int, grad, hess []float64) float64 {
	f := s.sp.Derivs(s.logDensity, x[:4], grad, hess)
	if math.IsNaN(f) {
		return math.Inf(-1)
	}
	return f
}

func (s *pkRefScorer) LogJoint(x []float64) float64 { return s.Score(x, 0, nil, nil) }

// pkRun samples m with 4 chains of draws after the adaptive warm-up and returns
// the summary of the four parameters and the run's CPU time (Result.CPU). It
// keeps the former starts (one prior draw per chain): with the default 8
// candidates the graph run of TestPKPosteriorMatchesHandWritten mixed Vm and Km
// worse (bulk ESS 148 and 161, R-hat 1.028, against 443 and 460) — one seed
// each, not yet known to be more than chance.
func pkRun(t testing.TB, m nmc.Model, draws int, seed uint64) ([]diagnostics.SummaryRow, time.Duration) {
	res, err := nmc.Sample(context.Background(), m, &nmc.Options{Chains: 4, Draws: draws, Warmup: nmc.AutoWarmup, Seed: seed, StartCandidates: 1})
	if err != nil {
		t.Fatal(err)
	}
	rows, err := diagnostics.Summarize(res.Draws, &diagnostics.SummaryOptions{Variables: pkNames})
	if err != nil {
		t.Fatal(err)
	}
	return rows, res.CPU
}

// TestPKPosteriorMatchesHandWritten checks the PK example's posterior (4 chains of
// 1000 draws after the adaptive warm-up) against a longer run of the hand-written
// reference model of the same density: every parameter's mean and standard
// deviation agree within 4.5 combined Monte Carlo standard errors, and the graph
// model's chains have converged (R-hat < 1.01, and a bulk ESS above 250, enough
// for the standard errors the comparison rests on; V_m and K_m, strongly
// correlated, have about 430).
func TestPKPosteriorMatchesHandWritten(t *testing.T) {
	if testing.Short() {
		t.Skip("two sampling runs of an ODE model")
	}
	y := pkData(1)
	m, err := pkModel(y)
	if err != nil {
		t.Fatal(err)
	}
	got, cpu := pkRun(t, m, 1000, 1)
	want, cpuRef := pkRun(t, pkReference{y}, 3000, 2)
	t.Logf("CPU time: graph.Func 4×1000 %v, hand-written reference 4×3000 %v", cpu, cpuRef)
	for i, g := range got {
		w := want[i]
		t.Logf("%-2s graph mean %.4f sd %.4f (mcse %.4f, %.4f; ESS bulk %.0f tail %.0f; R-hat %.4f); reference mean %.4f sd %.4f (mcse %.4f, %.4f)",
			g.Variable, g.Mean, g.SD, g.MCSEMean, g.MCSESD, g.ESSBulk, g.ESSTail, g.RHat, w.Mean, w.SD, w.MCSEMean, w.MCSESD)
		if z := math.Abs(g.Mean-w.Mean) / math.Hypot(g.MCSEMean, w.MCSEMean); z > 4.5 {
			t.Errorf("%s: mean %.4f, reference %.4f (z = %.1f)", g.Variable, g.Mean, w.Mean, z)
		}
		if z := math.Abs(g.SD-w.SD) / math.Hypot(g.MCSESD, w.MCSESD); z > 4.5 {
			t.Errorf("%s: sd %.4f, reference %.4f (z = %.1f)", g.Variable, g.SD, w.SD, z)
		}
		if g.RHat >= 1.01 || g.ESSBulk <= 250 {
			t.Errorf("%s: R-hat %.4f, bulk ESS %.0f", g.Variable, g.RHat, g.ESSBulk)
		}
	}
}

// BenchmarkPKSample runs the PK example's 4×1000 sampling run once per iteration
// and reports its CPU time, the smallest bulk and tail ESS and the largest R-hat
// of the four parameters.
func BenchmarkPKSample(b *testing.B) {
	m, err := pkModel(pkData(1))
	if err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		rows, cpu := pkRun(b, m, 1000, 1)
		b.ReportMetric(cpu.Seconds(), "CPU-s")
		minBulk, minTail, maxRHat := math.Inf(1), math.Inf(1), 0.0
		for _, r := range rows {
			minBulk, minTail, maxRHat = min(minBulk, r.ESSBulk), min(minTail, r.ESSTail), max(maxRHat, r.RHat)
		}
		b.ReportMetric(minBulk, "min-ESS-bulk")
		b.ReportMetric(minTail, "min-ESS-tail")
		b.ReportMetric(maxRHat, "max-R-hat")
	}
}

// BenchmarkPKReferenceSample is BenchmarkPKSample for the hand-written reference.
func BenchmarkPKReferenceSample(b *testing.B) {
	ref := pkReference{pkData(1)}
	for b.Loop() {
		rows, cpu := pkRun(b, ref, 1000, 1)
		b.ReportMetric(cpu.Seconds(), "CPU-s")
		minBulk := math.Inf(1)
		for _, r := range rows {
			minBulk = min(minBulk, r.ESSBulk)
		}
		b.ReportMetric(minBulk, "min-ESS-bulk")
	}
}
