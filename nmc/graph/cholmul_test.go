package graph

import (
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/nmc-go/nmc/nmc"
)

// cholMulModels are small models reading CholeskyMul in each of its modes: eta
// the active Vector site (jRow jets), the amplitude or the length scale active
// (one direction), a Vector site moving the amplitude and the length scale (two
// directions, dense jets), a Vector site holding both eta and the hyperparameters
// (everything moves, with one or two directions of the covariance), and eta one
// element of a width-n latent.
func cholMulModels(t *testing.T) map[string]*Model {
	t.Helper()
	out := map[string]*Model{}
	add := func(name string, b *Builder) {
		m, err := b.Build()
		if err != nil {
			t.Fatalf("%s: Build: %v", name, err)
		}
		out[name] = m
	}
	x := gpPoints(6, -5, 5)
	counts := []int{1, 0, 3, 7, 2, 1}
	{
		b := New()
		rho := b.Latent("rho", Gamma(C(25), C(4)))
		alpha := b.Latent("alpha", HalfNormal(C(2)))
		eta := b.Vector("eta", 6, Normal(C(0), C(1)))
		K := AddDiag(ExpQuadCov(Data(x), alpha, rho), C(1e-2))
		b.ObserveInts("k", PoissonLog(CholeskyMul(K, eta)), counts)
		add("non-centred", b)
	}
	{
		b := New()
		u := b.Vector("u", 2, Normal(C(0), C(0.3)))
		eta := b.Vector("eta", 6, Normal(C(0), C(1)))
		K := AddDiag(Matern32Cov(Data(x), Exp(Index(u, []int{0})), Mul(C(3), Exp(Index(u, []int{1})))), C(1e-2))
		b.ObserveInts("k", PoissonLog(CholeskyMul(K, eta)), counts)
		add("two directions", b)
	}
	{
		b := New()
		u := b.Vector("u", 8, Normal(C(0), C(0.5)))
		eta := Index(u, []int{2, 3, 4, 5, 6, 7})
		K := AddDiag(ExpQuadCov(Data(x), Exp(Index(u, []int{0})), Mul(C(3), Exp(Index(u, []int{1})))), C(1e-2))
		b.ObserveInts("k", PoissonLog(CholeskyMul(K, eta)), counts)
		add("everything moves", b)
	}
	{
		b := New()
		u := b.Vector("u", 7, Normal(C(0), C(0.5)))
		eta := Index(u, []int{1, 2, 3, 4, 5, 6})
		K := AddDiag(ExpQuadCov(Data(x), C(1.5), Mul(C(3), Exp(Index(u, []int{0})))), C(1e-2))
		b.ObserveInts("k", PoissonLog(CholeskyMul(K, eta)), counts)
		add("length scale and eta move", b)
	}
	{
		b := New()
		alpha := b.Latent("alpha", HalfNormal(C(2)))
		id := mat.NewSymDense(6, nil)
		for i := 0; i < 6; i++ {
			id.SetSym(i, i, 1)
		}
		eta := b.Latent("eta", MultivariateNormal(Vec(0, 0, 0, 0, 0, 0), id))
		K := AddDiag(ExpQuadCov(Data(x), alpha, C(2.5)), C(1e-2))
		b.Observe("y", Normal(CholeskyMul(K, eta), C(0.5)), []float64{0.1, 0.4, -0.3, 0.2, 1.1, 0.6})
		add("eta one element", b)
	}
	return out
}

// TestCholeskyMulDerivatives checks every site of cholMulModels against finite
// differences of the log joint.
func TestCholeskyMulDerivatives(t *testing.T) {
	for name, m := range cholMulModels(t) {
		t.Run(name, func(t *testing.T) {
			st := checkModelDerivs(t, name, m, rand.New(rand.NewPCG(23, uint64(len(name)))), 5, 200)
			if !t.Failed() && st.points < 5 {
				t.Errorf("only %d acceptable points", st.points)
			}
		})
	}
}

// TestCholeskyMulValues checks CholeskyMul's values against L·eta with L from
// gonum's Cholesky factorisation, through a deterministic quantity.
func TestCholeskyMulValues(t *testing.T) {
	x := gpPoints(7, 0, 3)
	b := New()
	alpha := b.Latent("alpha", HalfNormal(C(2)))
	rho := b.Latent("rho", Gamma(C(4), C(4)))
	eta := b.Vector("eta", 7, Normal(C(0), C(1)))
	b.Deterministic("f", CholeskyMul(AddDiag(ExpQuadCov(Data(x), alpha, rho), C(0.01)), eta))
	m, err := b.Build()
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(8, 8))
	st := make([]float64, nmc.Dim(m.Sites()))
	got := make([]float64, 7)
	for trial := 0; trial < 10; trial++ {
		if err := m.Init(rng, st); err != nil {
			t.Fatal(err)
		}
		m.Derive(st, got)
		a, r := st[0], st[1]
		k := mat.NewSymDense(7, nil)
		for i := 0; i < 7; i++ {
			for j := 0; j <= i; j++ {
				d := x[i] - x[j]
				v := a * a * math.Exp(-d*d/(2*r*r))
				if i == j {
					v += 0.01
				}
				k.SetSym(i, j, v)
			}
		}
		var ch mat.Cholesky
		if !ch.Factorize(k) {
			t.Fatal("not positive definite")
		}
		var l mat.TriDense
		ch.LTo(&l)
		var want mat.VecDense
		want.MulVec(&l, mat.NewVecDense(7, append([]float64(nil), st[2:]...)))
		for i := range got {
			if !close(got[i], want.AtVec(i), 1e-12) {
				t.Errorf("f[%d] = %.15g, want %.15g", i, got[i], want.AtVec(i))
			}
		}
	}
}

// TestCholeskyMulErrors checks the shapes Build refuses.
func TestCholeskyMulErrors(t *testing.T) {
	x := gpPoints(4, 0, 1)
	for _, c := range []struct {
		name string
		eta  func(b *Builder) *Node
		cov  *Node
		want string
	}{
		{"short eta", func(b *Builder) *Node { return b.Vector("eta", 3, Normal(C(0), C(1))) }, ExpQuadCov(Data(x), C(1), C(1)), "eta has 3 elements of width 1, want 4 scalars"},
		{"not square", func(b *Builder) *Node { return b.Vector("eta", 4, Normal(C(0), C(1))) }, Data(x), "the covariance has 4 elements of width 1"},
	} {
		b := New()
		b.Observe("y", Normal(CholeskyMul(c.cov, c.eta(b)), C(1)), []float64{0, 0, 0, 0})
		if _, err := b.Build(); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: Build error %v, want one containing %q", c.name, err, c.want)
		}
	}
}

// TestGPOrbitScores checks group moves through the Gaussian-process nodes: a
// latent GP's amplitude dilated with its values (the multivariate normal's
// covariance and value moving along one orbit), the same in the non-centred form
// (CholeskyMul's factor and eta moving together) and a shift of the length scale
// with the noise. ScoreOrbit's derivatives are compared with fourth-order
// differences of the log joint along the orbit, its value with and without
// derivatives, and score differences with log-joint differences at orbit points.
func TestGPOrbitScores(t *testing.T) {
	x := gpPoints(6, -5, 5)
	counts := []int{1, 0, 3, 7, 2, 1}
	models := map[string]*Builder{}
	{
		b := New()
		rho := b.Latent("rho", Gamma(C(25), C(4)))
		alpha := b.Latent("alpha", HalfNormal(C(2)))
		f := b.Latent("f", MultivariateNormalCov(C(0), AddDiag(ExpQuadCov(Data(x), alpha, rho), C(0.05))))
		b.ObserveInts("k", PoissonLog(Components(f)), counts)
		b.Group("scale", Dilate(alpha, 1), Dilate(f, 1))
		b.Group("length", Dilate(rho, 1))
		models["centred"] = b
	}
	{
		b := New()
		rho := b.Latent("rho", Gamma(C(25), C(4)))
		alpha := b.Latent("alpha", HalfNormal(C(2)))
		eta := b.Vector("eta", 6, Normal(C(0), C(1)))
		b.ObserveInts("k", PoissonLog(CholeskyMul(AddDiag(ExpQuadCov(Data(x), alpha, rho), C(0.05)), eta)), counts)
		b.Group("scale", Dilate(alpha, 1), Dilate(eta, -1))
		b.Group("both", Dilate(alpha, 0.5), Dilate(rho, -0.7), Dilate(eta, 0.3))
		models["non-centred"] = b
	}
	{
		b := New()
		rho := b.Latent("rho", LogNormal(C(0), C(0.5)))
		alpha := b.Latent("alpha", HalfNormal(C(1)))
		sigma := b.Latent("sigma", HalfNormal(C(0.5)))
		K := AddDiag(ExpQuadCov(Data(x), alpha, rho), Mul(sigma, sigma))
		b.Observe("y", MultivariateNormalCov(C(0), K), []float64{0.3, -0.1, 0.8, 1.2, 0.4, -0.6})
		b.Group("noise", Dilate(sigma, 1), Dilate(rho, 0.4))
		b.Group("all", Dilate(sigma, 1), Dilate(rho, 1), Dilate(alpha, 1))
		models["regression"] = b
	}
	for name, b := range models {
		t.Run(name, func(t *testing.T) {
			m, err := b.Build()
			if err != nil {
				t.Fatal(err)
			}
			rng := rand.New(rand.NewPCG(31, uint64(len(name))))
			sc := m.NewScorer()
			os := sc.(nmc.OrbitScorer)
			dim := nmc.Dim(m.Sites())
			st, xt := make([]float64, dim), make([]float64, dim)
			points := 0
			for try := 0; try < 200 && points < 5; try++ {
				if err := m.Init(rng, st); err != nil {
					t.Fatal(err)
				}
				if !acceptablePoint(m, sc, st) {
					continue
				}
				points++
				for g, grp := range m.Groups() {
					var d [2]float64
					f := os.ScoreOrbit(st, g, &d)
					if fv := os.ScoreOrbit(st, g, nil); !close(f, fv, 1e-12) {
						t.Errorf("group %q: value with derivatives %.15g, without %.15g", grp.Name, f, fv)
					}
					const h = 1e-3
					var lj [5]float64
					for i := range lj {
						orbitPoint(xt, st, grp, float64(i-2)*h)
						lj[i] = sc.LogJoint(xt)
					}
					if fd1, fd2 := first4(lj, h), second4(lj, h); !close(d[0], fd1, 1e-6) || !close(d[1], fd2, 1e-6) {
						t.Errorf("group %q at %v: d = (%.10g, %.10g), finite differences (%.10g, %.10g)", grp.Name, st, d[0], d[1], fd1, fd2)
					}
					for _, tt := range []float64{0.3, -0.45} {
						orbitPoint(xt, st, grp, tt)
						f1, j0, j1 := os.ScoreOrbit(xt, g, nil), sc.LogJoint(st), sc.LogJoint(xt)
						if diff, scale := math.Abs((f1-f)-(j1-j0)), math.Max(1, math.Max(math.Abs(j0), math.Abs(j1))); diff > 1e-9*scale {
							t.Errorf("group %q t = %v: orbit score difference %.15g, log-joint difference %.15g", grp.Name, tt, f1-f, j1-j0)
						}
					}
				}
			}
			if points < 5 {
				t.Fatalf("only %d acceptable points", points)
			}
		})
	}
}
