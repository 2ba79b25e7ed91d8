package graph

import (
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/nmc-go/nmc/internal/simplexfit"
	"github.com/nmc-go/nmc/nmc"
)

// hmmParts are the nodes of a test hidden Markov model.
type hmmParts struct {
	logOmega, gamma, rho *Node
	lam, delta           *Node // the lowest rate and the gaps (nil for K = 1)
}

// poissonHMMParts declares a K-state HMM of the counts y with Poisson emissions of
// ordered rates λ_j = λ₀ + δ₀ + … + δ_{j−1}, the transition rows a plate of Dirichlet
// latents and the initial distribution a Dirichlet latent.
func poissonHMMParts(b *Builder, y []float64, K int) hmmParts {
	lam := b.Latent("lam0", Gamma(C(2), C(0.5)))
	var delta *Node
	if K > 1 {
		delta = b.Latent("delta", Gamma(C(2), C(0.5)), K-1)
	}
	alpha := make([]float64, K)
	for j := range alpha {
		alpha[j] = 1 + 0.5*float64(j)
	}
	gamma := b.Latent("Gamma", Dirichlet(Vec(alpha...)), K)
	rho := b.Latent("rho", Dirichlet(Vec(alpha...)))
	cols := make([]*Node, K)
	rate := lam
	for j := 0; j < K; j++ {
		if j > 0 {
			rate = Add(rate, Index(delta, []int{j - 1}))
		}
		cols[j] = LogDensity(Poisson(rate), Data(y))
	}
	return hmmParts{Stack(cols...), gamma, rho, lam, delta}
}

// hmmParams reads the rates, Γ and ρ of poissonHMMParts's model at x.
func hmmParams(t *testing.T, m *Model, x []float64, K int) (rates, gamma, rho []float64) {
	t.Helper()
	at := func(name string) []float64 {
		o, n, err := m.Offset(name)
		if err != nil {
			t.Fatal(err)
		}
		return x[o : o+n]
	}
	rates = make([]float64, K)
	rates[0] = at("lam0")[0]
	for j := 1; j < K; j++ {
		rates[j] = rates[j-1] + at("delta")[j-1]
	}
	return rates, at("Gamma"), at("rho")
}

// bruteForceHMM returns log Σ_z ρ_{z₀} ω₀(z₀) Π_t Γ_{z_{t−1}z_t} ω_t(z_t) by
// enumerating the K^N paths, logOmega[t][j] = log ω_t(j), in log space with one
// log-sum-exp over the paths.
func bruteForceHMM(logOmega [][]float64, gamma, rho []float64) float64 {
	N, K := len(logOmega), len(rho)
	paths := 1
	for range N {
		paths *= K
	}
	terms := make([]float64, 0, paths)
	z := make([]int, N)
	for p := 0; p < paths; p++ {
		r := p
		for t := range z {
			z[t] = r % K
			r /= K
		}
		lp := math.Log(rho[z[0]]) + logOmega[0][z[0]]
		for t := 1; t < N; t++ {
			lp += math.Log(gamma[z[t-1]*K+z[t]]) + logOmega[t][z[t]]
		}
		terms = append(terms, lp)
	}
	m := math.Inf(-1)
	for _, v := range terms {
		m = math.Max(m, v)
	}
	if math.IsInf(m, -1) {
		return m
	}
	s := 0.0
	for _, v := range terms {
		s += math.Exp(v - m)
	}
	return m + math.Log(s)
}

func poissonLogPMF(y, l float64) float64 {
	lg, _ := math.Lgamma(y + 1)
	return y*math.Log(l) - l - lg
}

func randomCounts(rng *rand.Rand, n int) []float64 {
	y := make([]float64, n)
	for i := range y {
		y[i] = float64(rng.IntN(12))
	}
	return y
}

// TestHMMMarginalEnumeration: HMMMarginal's value equals the log-sum-exp over every
// path of the hidden states, on short chains (N ≤ 8, K = 2 and 3) at random states.
func TestHMMMarginalEnumeration(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(3, 1))
	checked := 0
	for _, K := range []int{1, 2, 3} {
		for N := 1; N <= 8; N++ {
			y := randomCounts(rng, N)
			b := New()
			p := poissonHMMParts(b, y, K)
			b.Deterministic("marg", HMMMarginal(p.logOmega, p.gamma, p.rho))
			m, err := b.Build()
			if err != nil {
				t.Fatal(err)
			}
			x := make([]float64, m.dim)
			got := make([]float64, 1)
			for rep := 0; rep < 5; rep++ {
				if err := m.Init(rng, x); err != nil {
					t.Fatal(err)
				}
				rates, gamma, rho := hmmParams(t, m, x, K)
				lo := make([][]float64, N)
				for i := range lo {
					lo[i] = make([]float64, K)
					for j := range lo[i] {
						lo[i][j] = poissonLogPMF(y[i], rates[j])
					}
				}
				want := bruteForceHMM(lo, gamma, rho)
				m.Derive(x, got)
				if !close(got[0], want, 1e-12) {
					t.Errorf("K=%d N=%d rep %d: HMMMarginal %.17g, enumeration %.17g", K, N, rep, got[0], want)
				}
				checked++
			}
		}
	}
	t.Logf("%d values checked", checked)
}

// TestHMMMarginalZeros: transitions and emissions of probability 0 (a left-to-right
// chain with a constant Gamma, a state whose data are impossible), the log density
// where no path is possible, a far-off emission scale that would underflow
// without the per-step scaling, and a largest emission in an unreachable state.
func TestHMMMarginalZeros(t *testing.T) {
	t.Parallel()
	gamma := []float64{0.7, 0.3, 0, 0, 0.6, 0.4, 0, 0, 1}
	rho := []float64{1, 0, 0}
	rows := [][]float64{gamma[0:3], gamma[3:6], gamma[6:9]}
	cases := []struct {
		name string
		lo   [][]float64
	}{
		{"finite", [][]float64{{-1, -2, -3}, {-0.5, -4, -1}, {-2, -1, -0.1}, {-3, -0.2, -1}}},
		{"impossible state", [][]float64{{-1, math.Inf(-1), -3}, {-0.5, -4, math.Inf(-1)}, {math.Inf(-1), -1, -0.1}, {-3, -0.2, -1}}},
		{"underflow", [][]float64{{-900, -950, -1000}, {-800, -801, -900}, {-1200, -1100, -1000}, {-700, -800, -720}}},
		{"no path", [][]float64{{math.Inf(-1), -1, -1}, {-1, -1, -1}}},
		// The largest emission in a state that cannot be reached (probability 0
		// at t = 0, 1) or has probability ~e^-1000 (t = 2), every reachable
		// one more than 708 nats below it: the scaled steps underflowed to −Inf.
		{"unreachable largest", [][]float64{{-800, 0, 0}, {-900, -1600, 0}, {-700, -1000, -1}, {-2, -1, -1}}},
	}
	for _, c := range cases {
		// log ω = finite + log(mask), mask 0 where log ω is −Inf and 1 elsewhere.
		var finite, mask []float64
		for _, r := range c.lo {
			for _, v := range r {
				if math.IsInf(v, -1) {
					finite, mask = append(finite, 0), append(mask, 0)
				} else {
					finite, mask = append(finite, v), append(mask, 1)
				}
			}
		}
		b := New()
		b.Latent("u", Normal(C(0), C(1)))
		lo := Reshape(Add(Data(finite), Log(Data(mask))), len(c.lo), 3)
		b.Deterministic("marg", HMMMarginal(lo, Rows(rows), Vec(rho...)))
		m, err := b.Build()
		if err != nil {
			t.Fatal(err)
		}
		got := make([]float64, 1)
		m.Derive([]float64{0}, got)
		want := bruteForceHMM(c.lo, gamma, rho)
		if !(got[0] == want || close(got[0], want, 1e-12)) {
			t.Errorf("%s: HMMMarginal %.17g, enumeration %.17g", c.name, got[0], want)
		}
	}
}

// hmmDerivModels are models with an HMM factor whose sites are every kind of
// argument: emission parameters (a scalar, a plate, a Vector read through rows of a
// data matrix), transition rows, the initial distribution, and nodes built from
// them.
func hmmDerivModels(t *testing.T) map[string]*Model {
	t.Helper()
	rng := rand.New(rand.NewPCG(5, 2))
	out := map[string]*Model{}
	add := func(name string, b *Builder) {
		m, err := b.Build()
		if err != nil {
			t.Fatalf("%s: Build: %v", name, err)
		}
		out[name] = m
	}
	for _, K := range []int{2, 3} {
		y := randomCounts(rng, 7)
		b := New()
		p := poissonHMMParts(b, y, K)
		b.HiddenMarkov("z", p.logOmega, p.gamma, p.rho)
		add("poisson K="+string(rune('0'+K)), b)
	}
	// Emissions not in the planned form (an expression, not a LogDensity), and
	// emissions that read the initial distribution.
	for _, readsRho := range []bool{false, true} {
		y := randomCounts(rng, 6)
		b := New()
		lam := b.Latent("lam", Gamma(C(2), C(0.5)))
		gamma := b.Latent("Gamma", Dirichlet(Vec(1, 2)), 2)
		rho := b.Latent("rho", Dirichlet(Vec(2, 1)))
		rate := Add(lam, C(3))
		if readsRho {
			rate = Add(rate, Index(Components(rho), []int{0}))
		}
		col0 := Sub(Mul(Data(y), Log(lam)), lam) // log p(y | lam) + log y!
		b.HiddenMarkov("z", Stack(col0, LogDensity(Poisson(rate), Data(y))), gamma, rho)
		if readsRho {
			add("expression, reads rho", b)
		} else {
			add("expression", b)
		}
	}
	// Normal emissions: state means a Vector site (several coordinates live in each
	// step, through Index), a common scale, plus a regression on a covariate read
	// through a data matrix (row jets); Gamma from a softmax of a Real plate, rho
	// constant.
	{
		N, K := 6, 3
		yv := make([]float64, N)
		X := mat.NewDense(N, 2, nil)
		for i := range yv {
			yv[i] = rng.NormFloat64() * 2
			X.Set(i, 0, 1)
			X.Set(i, 1, rng.NormFloat64())
		}
		b := New()
		mu := b.Vector("mu", K, Normal(C(0), C(2)))
		beta := b.Vector("beta", 2, Normal(C(0), C(1)))
		sigma := b.Latent("sigma", Gamma(C(4), C(4)))
		// Row 0 from a plate of scalar sites, rows 1 and 2 from Vector sites (each
		// moves one row: dense jets in one row's entries).
		etas := []*Node{b.Latent("eta0", Normal(C(0), C(1)), K), b.Vector("eta1", K, Normal(C(0), C(1))), b.Vector("eta2", K, Normal(C(0), C(1)))}
		e := Exp(Concat(etas...))
		rowsum := make([]*Node, K)
		for i := 0; i < K; i++ {
			rowsum[i] = Sum(Index(e, []int{i * K, i*K + 1, i*K + 2}))
		}
		gam := Reshape(Div(e, Index(Concat(rowsum...), []int{0, 0, 0, 1, 1, 1, 2, 2, 2})), K, K)
		cols := make([]*Node, K)
		for j := 0; j < K; j++ {
			cols[j] = LogDensity(Normal(Add(Index(mu, []int{j}), MatVec(X, beta)), sigma), Data(yv))
		}
		b.HiddenMarkov("z", Stack(cols...), gam, Vec(0.2, 0.5, 0.3))
		add("normal", b)
	}
	return out
}

// TestHMMMarginalDerivatives checks the scores of every site of the HMM models
// against finite differences of the log joint (checkModelDerivs), with the simplex
// sites' Hessians as computed (not steered), and then that the steered Hessians
// equal them along the simplex: P H̃ P = P H P, P the projection onto Σ = 0.
func TestHMMMarginalDerivatives(t *testing.T) {
	t.Parallel()
	for name, m := range hmmDerivModels(t) {
		steer := m.hmmSteer
		m.hmmSteer = make([]bool, len(m.Sites()))
		st := checkModelDerivs(t, name, m, rand.New(rand.NewPCG(17, uint64(len(name)))), 6, 200)
		if st.points < 3 {
			t.Errorf("%s: only %d acceptable points", name, st.points)
		}
		t.Logf("%s: %d points, %d sites, %d directions", name, st.points, st.sites, st.directions)

		rng := rand.New(rand.NewPCG(2, 2))
		x := make([]float64, m.dim)
		steered, expected := 0, 0
		for pt := 0; pt < 5; pt++ {
			if err := m.Init(rng, x); err != nil {
				t.Fatal(err)
			}
			for i, s := range m.Sites() {
				if s.Support != nmc.Simplex {
					continue
				}
				if !steer[i] {
					t.Errorf("%s: simplex site %s is not steered", name, s.Name)
				}
				k := s.Size
				g, h, g2, h2 := make([]float64, k), make([]float64, k*k), make([]float64, k), make([]float64, k*k)
				m.hmmSteer = make([]bool, len(m.Sites()))
				m.NewScorer().Score(x, i, g, h)
				m.hmmSteer = steer
				m.NewScorer().Score(x, i, g2, h2)
				for p := range g {
					if g[p] != g2[p] {
						t.Fatalf("%s site %s: steered gradient %v, computed %v", name, s.Name, g2, g)
					}
				}
				xi := x[m.offsets[i] : m.offsets[i]+k]
				exact := append([]float64(nil), h...)
				simplexfit.SteerHessian(exact, g, xi, k, make([]float64, simplexfit.ScratchLen(k)))
				if dirichletFits(exact, xi, k) {
					// Steered exactly: equal along the simplex.
					ph, ph2 := projectSym(h, k), projectSym(h2, k)
					for p := range ph {
						if !close(ph[p], ph2[p], 1e-9) {
							t.Errorf("%s site %s: along the simplex, steered Hessian %v, computed %v", name, s.Name, ph2, ph)
							break
						}
					}
					steered++
					continue
				}
				// No Dirichlet matches: the expected-count Hessian diag(−g/x).
				for p := 0; p < k; p++ {
					for q := 0; q < k; q++ {
						want := 0.0
						if p == q {
							want = -g[p] / xi[p]
						}
						if h2[p*k+q] != want {
							t.Errorf("%s site %s at %v: Hessian %v, want the expected-count form diag(−g/x), g = %v", name, s.Name, xi, h2, g)
							p, q = k, k
						}
					}
				}
				expected++
			}
		}
		m.hmmSteer = steer
		if name != "normal" && steered == 0 {
			t.Errorf("%s: no Hessian was steered", name)
		}
		t.Logf("%s: %d simplex Hessians steered exactly, %d in the expected-count form", name, steered, expected)
	}
}

// dirichletFits reports whether the Dirichlet proposer's fit α_n = 1 − x_n²(h_nn −
// max_{j≠n} h_nj) from the Hessian h at x has every α_n ≥ 1.
func dirichletFits(h, x []float64, k int) bool {
	for n := 0; n < k; n++ {
		top := math.Inf(-1)
		for j := 0; j < k; j++ {
			if j != n {
				top = math.Max(top, h[n*k+j])
			}
		}
		if !(1-x[n]*x[n]*(h[n*k+n]-top) >= 1) {
			return false
		}
	}
	return true
}

// projectSym returns P h P for the k×k matrix h, P = I − 11ᵀ/k.
func projectSym(h []float64, k int) []float64 {
	ph := make([]float64, k*k)
	row, col, all := make([]float64, k), make([]float64, k), 0.0
	for p := 0; p < k; p++ {
		for q := 0; q < k; q++ {
			row[p] += h[p*k+q] / float64(k)
			col[q] += h[p*k+q] / float64(k)
			all += h[p*k+q] / float64(k*k)
		}
	}
	for p := 0; p < k; p++ {
		for q := 0; q < k; q++ {
			ph[p*k+q] = h[p*k+q] - row[p] - col[q] + all
		}
	}
	return ph
}

// TestHMMBuildErrors: Build names the argument of a wrong shape and the problem.
func TestHMMBuildErrors(t *testing.T) {
	t.Parallel()
	y := []float64{1, 2, 0}
	cases := []struct {
		name string
		decl func(b *Builder, lam *Node)
		want string
	}{
		{"log_omega width", func(b *Builder, lam *Node) {
			g := b.Latent("G", Dirichlet(Vec(1, 1)), 2)
			lo := Stack(LogDensity(Poisson(lam), Data(y)), LogDensity(Poisson(lam), Data(y)), LogDensity(Poisson(lam), Data(y)))
			b.HiddenMarkov("z", lo, g, Vec(0.5, 0.5))
		}, "HMMMarginal: log_omega has width 3, want K = 2"},
		{"Gamma not square", func(b *Builder, lam *Node) {
			g := b.Latent("G", Dirichlet(Vec(1, 1)), 3)
			b.HiddenMarkov("z", Stack(LogDensity(Poisson(lam), Data(y)), LogDensity(Poisson(lam), Data(y))), g, Vec(0.5, 0.5))
		}, "HMMMarginal: Gamma has 3 elements of width 2, want K×K"},
		{"rho width", func(b *Builder, lam *Node) {
			g := b.Latent("G", Dirichlet(Vec(1, 1)), 2)
			b.HiddenMarkov("z", Stack(LogDensity(Poisson(lam), Data(y)), LogDensity(Poisson(lam), Data(y))), g, Vec(0.2, 0.3, 0.5))
		}, "HMMMarginal: rho has 1 elements of width 3, want 1 element of K = 2 components"},
		{"rho elements", func(b *Builder, lam *Node) {
			g := b.Latent("G", Dirichlet(Vec(1, 1)), 2)
			b.HiddenMarkov("z", Stack(LogDensity(Poisson(lam), Data(y)), LogDensity(Poisson(lam), Data(y))), g, g)
		}, "HMMMarginal: rho has 2 elements of width 2"},
		{"Gamma row", func(b *Builder, lam *Node) {
			b.HiddenMarkov("z", Stack(LogDensity(Poisson(lam), Data(y)), LogDensity(Poisson(lam), Data(y))), Rows([][]float64{{0.5, 0.5}, {0.7, 0.4}}), Vec(0.5, 0.5))
		}, "HMMMarginal: Gamma row 1 = [0.7 0.4] is not a probability vector"},
		{"rho negative", func(b *Builder, lam *Node) {
			b.HiddenMarkov("z", Stack(LogDensity(Poisson(lam), Data(y)), LogDensity(Poisson(lam), Data(y))), Rows([][]float64{{0.5, 0.5}, {0.5, 0.5}}), Vec(1.5, -0.5))
		}, "HMMMarginal: rho row 0 = [1.5 -0.5] is not a probability vector (element -0.5 < 0)"},
		{"nil Gamma", func(b *Builder, lam *Node) {
			b.HiddenMarkov("z", Stack(LogDensity(Poisson(lam), Data(y)), LogDensity(Poisson(lam), Data(y))), nil, Vec(0.5, 0.5))
		}, "HMMMarginal: Gamma is a nil node"},
		{"name", func(b *Builder, lam *Node) {
			g := b.Latent("z", Dirichlet(Vec(1, 1)), 2)
			b.HiddenMarkov("z", Stack(LogDensity(Poisson(lam), Data(y)), LogDensity(Poisson(lam), Data(y))), g, Vec(0.5, 0.5))
		}, `duplicate variable name "z"`},
		{"datum outside the support", func(b *Builder, lam *Node) {
			g := b.Latent("G", Dirichlet(Vec(1, 1)), 2)
			bad := []float64{1, 2.5, 0}
			b.HiddenMarkov("z", Stack(LogDensity(Poisson(lam), Data(bad)), LogDensity(Poisson(lam), Data(bad))), g, Vec(0.5, 0.5))
		}, "HMMMarginal: log_omega column 0: datum 2.5 (step 1) is outside the support of Poisson"},
		{"constant parameter", func(b *Builder, lam *Node) {
			g := b.Latent("G", Dirichlet(Vec(1, 1)), 2)
			b.HiddenMarkov("z", Stack(LogDensity(Poisson(lam), Data(y)), LogDensity(Poisson(C(-1)), Data(y))), g, Vec(0.5, 0.5))
		}, "HMMMarginal: log_omega column 1: dist: Poisson parameter rate = -1"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			b := New()
			lam := b.Latent("lam", Gamma(C(2), C(1)))
			c.decl(b, lam)
			_, err := b.Build()
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Errorf("Build: %v, want an error containing %q", err, c.want)
			}
		})
	}
}

// TestHMMInvalidAtRuntime: a transition row built from nodes that is not a
// probability vector, and an emission parameter outside its domain, make the log
// density −Inf instead of a wrong value.
func TestHMMInvalidAtRuntime(t *testing.T) {
	t.Parallel()
	b := New()
	u := b.Latent("u", Normal(C(0), C(1)))
	lam := b.Latent("lam", Normal(C(3), C(1))) // may be negative
	y := []float64{1, 2, 0}
	gam := Reshape(Stack(Logistic(u), Logistic(u), C(0.5), C(0.5)), 2, 2) // row 0 sums to 2σ(u)
	b.Factor("hmm", HMMMarginal(Stack(LogDensity(Poisson(lam), Data(y)), LogDensity(Poisson(C(2)), Data(y))), gam, Vec(0.5, 0.5)))
	m, err := b.Build()
	if err != nil {
		t.Fatal(err)
	}
	sc := m.NewScorer()
	if lj := sc.LogJoint([]float64{0, 3}); math.IsInf(lj, 0) || math.IsNaN(lj) {
		t.Errorf("u = 0 (rows are probabilities): log joint %v, want finite", lj)
	}
	if lj := sc.LogJoint([]float64{0.3, 3}); !math.IsInf(lj, -1) {
		t.Errorf("u = 0.3 (row 0 sums to %v): log joint %v, want −Inf", 2/(1+math.Exp(-0.3)), lj)
	}
	if lj := sc.LogJoint([]float64{0, -1}); !math.IsInf(lj, -1) {
		t.Errorf("rate −1: log joint %v, want −Inf", lj)
	}

	// The same with a rate per step (log_omega read step by step).
	b = New()
	lam = b.Latent("lam", Normal(C(3), C(1)))
	rate := Add(lam, Data([]float64{0, 0.5, 0}))
	b.Factor("hmm", HMMMarginal(Stack(LogDensity(Poisson(rate), Data(y)), LogDensity(Poisson(C(2)), Data(y))), Rows([][]float64{{0.5, 0.5}, {0.5, 0.5}}), Vec(0.5, 0.5)))
	if m, err = b.Build(); err != nil {
		t.Fatal(err)
	}
	sc = m.NewScorer()
	if lj := sc.LogJoint([]float64{3}); math.IsInf(lj, 0) || math.IsNaN(lj) {
		t.Errorf("rate 3 per step: log joint %v, want finite", lj)
	}
	if lj := sc.LogJoint([]float64{-0.2}); !math.IsInf(lj, -1) {
		t.Errorf("rate −0.2 at steps 0 and 2: log joint %v, want −Inf", lj)
	}
}

// TestHMMNoAllocation: once warm, a score of every site and a draw of the hidden
// states allocate nothing. Not parallel: AllocsPerRun needs the process to itself.
func TestHMMNoAllocation(t *testing.T) {
	if raceDetector {
		t.Skip("sync.Pool drops items at random under the race detector")
	}
	for name, m := range hmmDerivModels(t) {
		rng := rand.New(rand.NewPCG(1, 2))
		x := make([]float64, m.dim)
		if err := m.Init(rng, x); err != nil {
			t.Fatal(err)
		}
		sc := m.NewScorer()
		for i, s := range m.Sites() {
			k := s.Size
			g, h := make([]float64, k), make([]float64, k*k)
			sc.Score(x, i, g, h)
			if a := testing.AllocsPerRun(20, func() { sc.Score(x, i, g, h) }); a != 0 {
				t.Errorf("%s: Score(%s): %v allocations, want 0", name, s.Name, a)
			}
		}
		dst := make([]float64, len(m.GeneratedNames()))
		m.Generate(rng, x, dst)
		if a := testing.AllocsPerRun(20, func() { m.Generate(rng, x, dst) }); a != 0 {
			t.Errorf("%s: Generate: %v allocations, want 0", name, a)
		}
	}
}

var _ nmc.Generator = (*Model)(nil)

// TestHMMMarginalUnreachableLargest: a state that cannot be reached (Γ keeps the
// chain in state 0, ρ starts it there) has emissions 800 nats above state 0's at
// every step. The log marginal likelihood is state 0's alone, Σ_t log N(y_t | u, 1)
// − 800, whatever the path of the summed-out forward algorithm (the emissions vary
// with the active site u, or the transition row or ρ is the active site); the
// scaled forward steps that set their scale by the largest emission underflowed
// to −Inf here.
func TestHMMMarginalUnreachableLargest(t *testing.T) {
	t.Parallel()
	y := []float64{0.3, -1.2, 0.8, 2.1, -0.4}
	b := New()
	u := b.Latent("u", Normal(C(0), C(1)))
	row := b.Latent("row", Dirichlet(Vec(1, 1)))
	rho := b.Latent("rho", Dirichlet(Vec(1, 1)))
	// Γ = [[1, 0], [1, 0]] and ρ = (1, 0) through products with a zero mask: the
	// latents row and ρ are read (their sites' scores go through the HMM) but
	// state 1 is never entered.
	masked := func(p *Node) *Node { return Add(Mul(p, Vec(0, 0)), Vec(1, 0)) }
	gam := Concat(masked(row), masked(row))
	lo := Stack(Sub(LogDensity(Normal(u, C(1)), Data(y)), C(800)), Data(make([]float64, len(y))))
	b.Factor("y", HMMMarginal(lo, gam, masked(rho)))
	m, err := b.Build()
	if err != nil {
		t.Fatal(err)
	}
	sc := m.NewScorer()
	for _, uv := range []float64{-1, 0.7, 3} {
		x := []float64{uv, 0.4, 0.6, 0.2, 0.8}
		// The log joint: u's prior, the Dirichlet(1, 1) densities (log 1 = 0 on
		// the simplex) and state 0's emissions.
		want, wg, wh := -0.5*uv*uv-0.5*math.Log(2*math.Pi), -uv, -1.0
		for _, v := range y {
			want += -0.5*(v-uv)*(v-uv) - 0.5*math.Log(2*math.Pi) - 800
			wg += v - uv
			wh--
		}
		if lj := sc.LogJoint(x); !close(lj, want, 1e-12) {
			t.Errorf("u = %g: LogJoint %.17g, want %.17g", uv, lj, want)
		}
		g, h := make([]float64, 1), make([]float64, 1)
		if f := sc.Score(x, 0, g, h); math.IsInf(f, 0) || !close(g[0], wg, 1e-10) || !close(h[0], wh, 1e-10) {
			t.Errorf("u = %g: score of u %v, gradient %.17g (want %.17g), Hessian %.17g (want %.17g)", uv, f, g[0], wg, h[0], wh)
		}
		for i := 1; i < 3; i++ {
			g, h := make([]float64, 2), make([]float64, 4)
			f := sc.Score(x, i, g, h)
			// The density does not depend on the row or ρ: a flat score.
			if math.IsInf(f, 0) || math.IsNaN(f) || g[0] != g[1] || h[0] != 0 && !close(h[0], h[1], 1e-12) {
				t.Errorf("u = %g: score of site %d %v, gradient %v, Hessian %v", uv, i, f, g, h)
			}
		}
	}
}

// TestHMMMarginalDroppedPath checks the forward pass in logarithms (hmm_log.go)
// on a model whose scaled recursion drops the path that matters: state 0 cannot
// stay (Γ row 0 = (0, 1)), state 1's emissions are 800 nats below state 0's at
// both steps, so state 1 is dropped at step 0 (a share of e^−800) while the path
// (1, 0) has as much weight as (0, 1). The log density must equal the brute-force
// enumeration, and the derivatives in u, the row and ρ central differences.
func TestHMMMarginalDroppedPath(t *testing.T) {
	t.Parallel()
	y := []float64{0.3, -0.2}
	b := New()
	u := b.Latent("u", Normal(C(0), C(1)))
	row := b.Latent("row", Dirichlet(Vec(2, 2)))
	rho := b.Latent("rho", Dirichlet(Vec(2, 2)))
	lo := Stack(LogDensity(Normal(u, C(1)), Data(y)), LogDensity(Normal(Add(u, C(40)), C(1)), Data(y)))
	b.Factor("y", HMMMarginal(lo, Concat(Vec(0, 1), row), rho))
	m, err := b.Build()
	if err != nil {
		t.Fatal(err)
	}
	sc := m.NewScorer()
	for _, x := range [][]float64{{0.1, 0.3, 0.7, 0.4, 0.6}, {-1.3, 0.9, 0.1, 0.05, 0.95}} {
		uv := x[0]
		logOmega := make([][]float64, len(y))
		for i, v := range y {
			logOmega[i] = []float64{
				-0.5*(v-uv)*(v-uv) - 0.5*math.Log(2*math.Pi),
				-0.5*(v-uv-40)*(v-uv-40) - 0.5*math.Log(2*math.Pi),
			}
		}
		hmm := bruteForceHMM(logOmega, []float64{0, 1, x[1], x[2]}, x[3:5])
		// The priors: u's normal, the Dirichlet(2, 2) densities log(6·p·q).
		want := hmm - 0.5*uv*uv - 0.5*math.Log(2*math.Pi) + math.Log(6*x[1]*x[2]) + math.Log(6*x[3]*x[4])
		if lj := sc.LogJoint(x); !close(lj, want, 1e-12) {
			t.Errorf("at %v: LogJoint %.17g, want %.17g", x, lj, want)
		}
	}
	steer := m.hmmSteer
	m.hmmSteer = make([]bool, len(m.Sites()))
	defer func() { m.hmmSteer = steer }()
	st := checkModelDerivs(t, "dropped path", m, rand.New(rand.NewPCG(3, 4)), 6, 200)
	if st.points < 3 {
		t.Errorf("only %d acceptable points", st.points)
	}
}
