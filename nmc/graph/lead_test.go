package graph

import (
	"context"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/nmc-go/nmc/diagnostics"
	"github.com/nmc-go/nmc/draws"
	"github.com/nmc-go/nmc/nmc"
)

// TestLeadBuildErrors checks that Lead refuses a nil node, a node that is not a
// latent, a latent declared twice and a discrete latent, naming it.
func TestLeadBuildErrors(t *testing.T) {
	cases := map[string]struct {
		declare func(b *Builder)
		want    string
	}{
		"nil":        {func(b *Builder) { b.Lead(nil) }, "nil node"},
		"not latent": {func(b *Builder) { b.Lead(Add(C(1), C(2))) }, "not a latent"},
		"twice": {func(b *Builder) {
			mu := b.Latent("mu2", Normal(C(0), C(1)))
			b.Lead(mu)
			b.Lead(mu)
		}, `"mu2"`},
		"discrete": {func(b *Builder) {
			w := b.Latent("w", Dirichlet(Vec(1, 1)))
			b.Lead(b.Latent("k", Categorical(w)))
		}, `Lead "k": a discrete latent`},
	}
	for name, c := range cases {
		b := New()
		b.Latent("mu", Normal(C(0), C(1)))
		c.declare(b)
		_, err := b.Build()
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: Build error %v, want one containing %q", name, err, c.want)
		}
	}
}

// TestLeadNames checks Model.Leads: every site of a plate, the one site of a
// Vector, in declaration order, and nil without leads.
func TestLeadNames(t *testing.T) {
	b := New()
	v := b.Vector("v", 2, Normal(C(0), C(1)))
	p := b.Latent("p", Beta(C(2), C(2)), 3)
	b.Lead(p)
	b.Lead(v)
	m, err := b.Build()
	if err != nil {
		t.Fatal(err)
	}
	if got, want := m.Leads(), []string{"p[0]", "p[1]", "p[2]", "v"}; !slices.Equal(got, want) {
		t.Errorf("Leads() = %v, want %v", got, want)
	}
	var _ nmc.Leader = m
	b = New()
	b.Latent("mu", Normal(C(0), C(1)))
	if m, err = b.Build(); err != nil || m.Leads() != nil {
		t.Errorf("no leads: Leads() = %v (err %v), want nil", m.Leads(), err)
	}
}

// TestLeadSamePosterior samples a small Dawid-Skene model with the classes summed
// out and pi declared a lead, and the same model with the classes explicit and no
// lead (4 chains × 2000 draws, warm-up 300, fixed seeds), and checks that the
// lead's moves ran and accepted, and that every pi and theta mean agrees within 4
// combined Monte Carlo standard errors.
func TestLeadSamePosterior(t *testing.T) {
	if testing.Short() {
		t.Skip("samples two models (about 2 s)")
	}
	rng := rand.New(rand.NewPCG(8, 1))
	ds := makeDS(rng, 40, 3, 2, 3)
	b, pi, z, _ := declareDS(ds)
	b.Marginalise(z)
	b.Lead(pi)
	led, err := b.Build()
	if err != nil {
		t.Fatal(err)
	}
	opts := func(seed uint64) *nmc.Options { return &nmc.Options{Chains: 4, Draws: 2000, Warmup: 300, Seed: seed} }
	re, err := nmc.Sample(context.Background(), buildDS(t, ds, false), opts(1))
	if err != nil {
		t.Fatal(err)
	}
	rl, err := nmc.Sample(context.Background(), led, opts(2))
	if err != nil {
		t.Fatal(err)
	}
	var lead []draws.SiteStats
	for _, s := range rl.Moves {
		if s.Proposer == "lead-follow" {
			lead = append(lead, s)
		}
	}
	if len(lead) != 1 || lead[0].Name != "lead-follow(pi)" || lead[0].Accepted == 0 {
		t.Fatalf("lead moves: %+v, want one row for pi with accepted moves", lead)
	}
	t.Logf("pi's lead moves: %d of %d accepted", lead[0].Accepted, lead[0].Proposals)
	column := func(r *nmc.Result, j int) [][]float64 {
		out := make([][]float64, len(r.Draws.Chains))
		d := len(r.Draws.Names)
		for c, ch := range r.Draws.Chains {
			for n := 0; n+d <= len(ch); n += d {
				out[c] = append(out[c], ch[n+j])
			}
		}
		return out
	}
	checked, worst := 0, 0.0
	for j, name := range re.Draws.Names {
		if strings.HasPrefix(name, "z[") {
			continue
		}
		a, l := column(re, j), column(rl, j)
		sa, err1 := diagnostics.MCSEMean(a)
		sl, err2 := diagnostics.MCSEMean(l)
		if err1 != nil || err2 != nil {
			t.Fatal(err1, err2)
		}
		zv := (mean2(a) - mean2(l)) / math.Hypot(sa, sl)
		worst = max(worst, math.Abs(zv))
		if math.Abs(zv) > 4 {
			t.Errorf("%s: mean %.4f explicit, %.4f with the lead: z = %.2f", name, mean2(a), mean2(l), zv)
		}
		checked++
	}
	if checked != 2+3*2*2 {
		t.Errorf("compared %d coordinates, want %d", checked, 2+3*2*2)
	}
	t.Logf("pi and theta: %d means, largest |z| %.2f", checked, worst)
}

// TestKernelLeads checks rule AutoKernelLeads: the continuous latents that a
// latent's multivariate normal covariance reads lead, its sites following; a
// declared lead is not named twice; a constant covariance, a multivariate normal
// observation (a marginal likelihood) and the rule turned off give none.
func TestKernelLeads(t *testing.T) {
	x := []float64{-2, 0, 2, 4}
	gp := func(b *Builder, f func(*Builder, *Node, *Node, *Node)) {
		rho := b.Latent("rho", Gamma(C(25), C(4)))
		alpha := b.Latent("alpha", HalfNormal(C(2)))
		b.Latent("mu", Normal(C(0), C(1))) // read by the mean only
		f(b, rho, alpha, AddDiag(ExpQuadCov(Data(x), alpha, rho), C(1e-10)))
	}
	latent := func(b *Builder, _, _, cov *Node) {
		f := b.Latent("f", MultivariateNormalCov(C(0), cov))
		b.ObserveInts("k", PoissonLog(Components(f)), []int{1, 0, 3, 2})
	}
	cases := []struct {
		name    string
		declare func(b *Builder)
		leads   []string
	}{
		{"latent", func(b *Builder) { gp(b, latent) }, []string{"rho", "alpha"}},
		{"declared", func(b *Builder) {
			gp(b, func(b *Builder, rho, alpha, cov *Node) { b.Lead(alpha); latent(b, rho, alpha, cov) })
		}, []string{"alpha", "rho"}},
		{"off", func(b *Builder) { gp(b, latent); b.NoAutoGroups(AutoKernelLeads) }, nil},
		{"all off", func(b *Builder) { gp(b, latent); b.NoAutoGroups() }, nil},
		{"observed", func(b *Builder) {
			gp(b, func(b *Builder, _, _, cov *Node) {
				b.Observe("y", MultivariateNormalCov(C(0), cov), []float64{1, 0, 3, 2})
			})
		}, nil},
		{"constant", func(b *Builder) {
			b.Latent("rho", Gamma(C(25), C(4)))
			f := b.Latent("f", MultivariateNormalCov(C(0), ExpQuadCov(Data(x), C(1), C(2))))
			b.ObserveInts("k", PoissonLog(Components(f)), []int{1, 0, 3, 2})
		}, nil},
	}
	for _, c := range cases {
		b := New()
		c.declare(b)
		m, err := b.Build()
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		if got := m.Leads(); !slices.Equal(got, c.leads) {
			t.Errorf("%s: leads %q, want %q", c.name, got, c.leads)
		}
		for _, lead := range []string{"rho", "alpha", "mu"} {
			want := []string(nil)
			if slices.Contains(c.leads, lead) {
				want = []string{"f"}
			}
			if got := m.Followers(lead); !slices.Equal(got, want) {
				t.Errorf("%s: followers of %s %q, want %q", c.name, lead, got, want)
			}
		}
	}
}
