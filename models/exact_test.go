package models

import (
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"gonum.org/v1/gonum/floats/scalar"
	"gonum.org/v1/gonum/integrate/quad"
	"gonum.org/v1/gonum/mat"
	"gonum.org/v1/gonum/stat/distuv"
)

// testData returns the path of a file in the repository's testdata folder (the data set
// shared with the Stan and JAGS versions, copied into the repository), found from the package
// directory. A missing folder fails the test: nothing is skipped.
func testData(t *testing.T, parts ...string) string {
	t.Helper()
	dir, err := filepath.Abs(filepath.Join("..", "testdata"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(dir, "conjugate", "hyperparameters.csv")); err != nil {
		t.Fatalf("repository test data missing (expected testdata/ at the module root): %v", err)
	}
	return filepath.Join(append([]string{dir}, parts...)...)
}

// conjugatePosteriors computes the closed-form posteriors of the four shared conjugate
// data sets from their data files and hyperparameters.csv.
func conjugatePosteriors(t *testing.T) map[string]*Posterior {
	t.Helper()
	hyper, err := ReadHyperparameters(testData(t, "conjugate", "hyperparameters.csv"))
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]*Posterior{}
	{
		h := hyper["normal_known_sigma"]
		y, err := ReadNormalData(testData(t, "conjugate", "normal_known_sigma.csv"))
		if err != nil {
			t.Fatal(err)
		}
		if out["normal_known_sigma"], err = NormalKnownSigmaPosterior(y, h["mu0"], h["tau0"], h["sigma"]); err != nil {
			t.Fatal(err)
		}
	}
	{
		h := hyper["gamma_poisson"]
		y, err := ReadCountData(testData(t, "conjugate", "gamma_poisson.csv"))
		if err != nil {
			t.Fatal(err)
		}
		if out["gamma_poisson"], err = GammaPoissonPosterior(y, h["a"], h["b"]); err != nil {
			t.Fatal(err)
		}
	}
	{
		alpha, err := HyperVector(hyper["dirichlet_categorical"], "alpha")
		if err != nil {
			t.Fatal(err)
		}
		y, err := ReadCategoricalData(testData(t, "conjugate", "dirichlet_categorical.csv"), len(alpha))
		if err != nil {
			t.Fatal(err)
		}
		if out["dirichlet_categorical"], err = DirichletCategoricalPosterior(y, alpha); err != nil {
			t.Fatal(err)
		}
	}
	{
		h := hyper["beta_binomial"]
		trials, succ, err := ReadBinomialData(testData(t, "conjugate", "beta_binomial.csv"))
		if err != nil {
			t.Fatal(err)
		}
		if out["beta_binomial"], err = BetaBinomialPosterior(trials, succ, h["a"], h["b"]); err != nil {
			t.Fatal(err)
		}
	}
	return out
}

// TestExactPosteriorFile checks that the closed forms reproduce every row of
// exact_posterior.csv (computed by the peer systems' scripts) to 1e-9 relative.
func TestExactPosteriorFile(t *testing.T) {
	t.Parallel()
	rows, err := ReadExactPosterior(testData(t, "conjugate", "exact_posterior.csv"))
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) != 7 {
		t.Fatalf("%d rows in exact_posterior.csv, want 7", len(rows))
	}
	posts := conjugatePosteriors(t)
	const tol = 1e-9
	for _, row := range rows {
		p := posts[row.Model]
		if p == nil {
			t.Errorf("no posterior for model %q", row.Model)
			continue
		}
		m, err := p.Marginal(row.Parameter)
		if err != nil {
			t.Errorf("%s: %v", row.Model, err)
			continue
		}
		if m.Family != row.Marginal.Family {
			t.Errorf("%s %s: family %q, want %q", row.Model, row.Parameter, m.Family, row.Marginal.Family)
		}
		for _, c := range []struct {
			what      string
			got, want float64
		}{
			{"par1", m.Par1, row.Marginal.Par1},
			{"par2", m.Par2, row.Marginal.Par2},
			{"mean", m.Mean(), row.Mean},
			{"sd", m.SD(), row.SD},
			{"q5", m.Quantile(0.05), row.Q5},
			{"q95", m.Quantile(0.95), row.Q95},
		} {
			if !scalar.EqualWithinRel(c.got, c.want, tol) {
				t.Errorf("%s %s %s = %.17g, want %.17g (rel. err %.2g)", row.Model, row.Parameter, c.what,
					c.got, c.want, math.Abs(c.got-c.want)/math.Abs(c.want))
			}
		}
		// The Posterior methods agree with the marginal.
		mean, err1 := p.Mean(row.Parameter)
		sd, err2 := p.SD(row.Parameter)
		q, err3 := p.Quantile(row.Parameter, 0.95)
		if err1 != nil || err2 != nil || err3 != nil || mean != m.Mean() || sd != m.SD() || q != m.Quantile(0.95) {
			t.Errorf("%s %s: Posterior methods disagree with the marginal", row.Model, row.Parameter)
		}
	}
}

// TestMVNNormalPosteriorDesign checks the DESIGN.md exact-recovery example: prior
// N([1,1], S), one observation [2,2] with covariance S = [[1,.8],[.8,1]] gives mean
// [1.5,1.5] and covariance S/2 = [[.5,.4],[.4,.5]].
func TestMVNNormalPosteriorDesign(t *testing.T) {
	t.Parallel()
	s := mat.NewSymDense(2, []float64{1, 0.8, 0.8, 1})
	y := mat.NewDense(1, 2, []float64{2, 2})
	p, err := MVNNormalPosterior(y, []float64{1, 1}, s, s)
	if err != nil {
		t.Fatal(err)
	}
	want := []float64{1.5, 1.5, 0.5, 0.4, 0.4, 0.5}
	for i, w := range want {
		if !scalar.EqualWithinAbsOrRel(p.Params[i], w, 1e-13, 1e-13) {
			t.Errorf("Params[%d] = %.17g, want %v", i, p.Params[i], w)
		}
	}
	if p.Names[1] != "mu[1]" {
		t.Errorf("names %v, want mu[0], mu[1]", p.Names)
	}
	sd, err := p.SD("mu[1]")
	if err != nil || !scalar.EqualWithinRel(sd, math.Sqrt(0.5), 1e-13) {
		t.Errorf("SD(mu[1]) = %v, %v; want √0.5", sd, err)
	}
	// The joint density at the mean: −log(2π) − ½ log det(S/2); det(S/2) = 0.25 − 0.16.
	lp, err := p.JointLogPDF([]float64{1.5, 1.5})
	if err != nil {
		t.Fatal(err)
	}
	if want := -math.Log(2*math.Pi) - 0.5*math.Log(0.09); !scalar.EqualWithinRel(lp, want, 1e-12) {
		t.Errorf("JointLogPDF at the mean = %.17g, want %.17g", lp, want)
	}
}

// TestPosteriorProportionalToJoint checks each closed form against Bayes' rule: the
// posterior log density minus (log prior + log likelihood) is the same constant at
// every point, and the marginal densities integrate to 1.
func TestPosteriorProportionalToJoint(t *testing.T) {
	t.Parallel()
	yn := []float64{1.2, -0.3, 2.5, 0.7}
	yc := []int{3, 0, 5, 2, 2}
	trials, succ := []int{10, 4, 7}, []int{3, 4, 0}
	ycat := []int{0, 2, 2, 1, 2, 0}
	alpha := []float64{0.5, 1.5, 2}

	normal, _ := NormalKnownSigmaPosterior(yn, 1, 3, 1.5)
	gp, _ := GammaPoissonPosterior(yc, 2, 0.5)
	bb, _ := BetaBinomialPosterior(trials, succ, 2, 3)
	gn, _ := GammaNormalPrecisionPosterior(yn, 0.5, 3, 2)
	dc, _ := DirichletCategoricalPosterior(ycat, alpha)
	for _, p := range []*Posterior{normal, gp, bb, gn, dc} {
		if p == nil {
			t.Fatal("a closed form returned nil for valid input")
		}
	}
	cases := []struct {
		name   string
		post   *Posterior
		joint  func(x []float64) float64
		points [][]float64
	}{
		{"normal", normal, func(x []float64) float64 {
			lp := distuv.Normal{Mu: 1, Sigma: 3}.LogProb(x[0])
			for _, v := range yn {
				lp += distuv.Normal{Mu: x[0], Sigma: 1.5}.LogProb(v)
			}
			return lp
		}, [][]float64{{0}, {1.1}, {-2}, {3.3}}},
		{"gamma-poisson", gp, func(x []float64) float64 {
			lp := distuv.Gamma{Alpha: 2, Beta: 0.5}.LogProb(x[0])
			for _, v := range yc {
				lp += distuv.Poisson{Lambda: x[0]}.LogProb(float64(v))
			}
			return lp
		}, [][]float64{{0.5}, {2}, {3.7}}},
		{"beta-binomial", bb, func(x []float64) float64 {
			lp := distuv.Beta{Alpha: 2, Beta: 3}.LogProb(x[0])
			for j, n := range trials {
				lp += distuv.Binomial{N: float64(n), P: x[0]}.LogProb(float64(succ[j]))
			}
			return lp
		}, [][]float64{{0.1}, {0.4}, {0.85}}},
		{"gamma-normal", gn, func(x []float64) float64 {
			lp := distuv.Gamma{Alpha: 3, Beta: 2}.LogProb(x[0])
			for _, v := range yn {
				lp += distuv.Normal{Mu: 0.5, Sigma: 1 / math.Sqrt(x[0])}.LogProb(v)
			}
			return lp
		}, [][]float64{{0.3}, {1}, {2.2}}},
		{"dirichlet-categorical", dc, func(x []float64) float64 {
			// Dirichlet(α) prior density on the simplex, then Π p[y].
			var lp, a0 float64
			for i, a := range alpha {
				lg, _ := math.Lgamma(a)
				lp += (a-1)*math.Log(x[i]) - lg
				a0 += a
			}
			lg0, _ := math.Lgamma(a0)
			lp += lg0
			for _, v := range ycat {
				lp += math.Log(x[v])
			}
			return lp
		}, [][]float64{{0.2, 0.3, 0.5}, {0.6, 0.1, 0.3}, {0.1, 0.1, 0.8}}},
	}
	for _, c := range cases {
		var offset float64
		for i, x := range c.points {
			lp, err := c.post.JointLogPDF(x)
			if err != nil {
				t.Fatalf("%s: %v", c.name, err)
			}
			d := lp - c.joint(x)
			if i == 0 {
				offset = d
			} else if !scalar.EqualWithinAbsOrRel(d, offset, 1e-10, 1e-10) {
				t.Errorf("%s: log posterior − log joint = %.15g at %v, %.15g at %v", c.name, d, x, offset, c.points[0])
			}
		}
		for _, name := range c.post.Names {
			m, _ := c.post.Marginal(name)
			lo, hi := m.Quantile(1e-12), m.Quantile(1-1e-12)
			area := quad.Fixed(func(x float64) float64 { return math.Exp(m.LogPDF(x)) }, lo, hi, 2000, nil, 0)
			if !scalar.EqualWithinAbs(area, 1, 1e-8) {
				t.Errorf("%s %s: marginal density integrates to %.12g", c.name, name, area)
			}
		}
	}
}

func TestPosteriorErrors(t *testing.T) {
	t.Parallel()
	s := mat.NewSymDense(2, []float64{1, 0, 0, 1})
	bad := mat.NewSymDense(2, []float64{1, 2, 2, 1}) // indefinite
	cases := []struct {
		name string
		err  error
		want string
	}{
		{"normal sigma", second(NormalKnownSigmaPosterior([]float64{1}, 0, 1, -1)), "sigma = -1"},
		{"normal nan y", second(NormalKnownSigmaPosterior([]float64{1, math.NaN()}, 0, 1, 1)), "y[1] = NaN"},
		{"poisson negative", second(GammaPoissonPosterior([]int{1, -2}, 1, 1)), "y[1] = -2"},
		{"binomial mismatch", second(BetaBinomialPosterior([]int{3}, []int{1, 2}, 1, 1)), "1 trial counts but 2 success"},
		{"binomial range", second(BetaBinomialPosterior([]int{3, 2}, []int{1, 3}, 1, 1)), "group 1 has 3 successes in 2 trials"},
		{"categorical range", second(DirichletCategoricalPosterior([]int{0, 3}, []float64{1, 1, 1})), "y[1] = 3 out of range"},
		{"dirichlet alpha", second(DirichletCategoricalPosterior([]int{0}, []float64{1, 0})), "alpha[1] = 0"},
		{"precision b", second(GammaNormalPrecisionPosterior([]float64{1}, 0, 1, 0)), "b = 0"},
		{"mvn indefinite", second(MVNNormalPosterior(nil, []float64{0, 0}, bad, s)), "sigma0 is not positive definite"},
		{"mvn columns", second(MVNNormalPosterior(mat.NewDense(1, 3, nil), []float64{0, 0}, s, s)), "y has 3 columns, want 2"},
	}
	for _, c := range cases {
		if c.err == nil || !strings.HasPrefix(c.err.Error(), "models: ") || !strings.Contains(c.err.Error(), c.want) {
			t.Errorf("%s: error %v, want one containing %q", c.name, c.err, c.want)
		}
	}
	p, _ := GammaPoissonPosterior([]int{1}, 1, 1)
	if _, err := p.Mean("mu"); err == nil || !strings.Contains(err.Error(), `no parameter "mu"`) {
		t.Errorf("unknown name: error %v", err)
	}
	if _, err := p.Quantile("lambda", 1.5); err == nil {
		t.Error("quantile probability 1.5: no error")
	}
	if _, err := p.JointLogPDF([]float64{1, 2}); err == nil {
		t.Error("JointLogPDF with 2 values for 1 parameter: no error")
	}
	for _, m := range []Marginal{{"beta", -1, 2}, {"gamma", 1, 0}, {"normal", 0, -1}, {"cauchy", 0, 1}} {
		if v := []float64{m.Mean(), m.SD(), m.Quantile(0.5), m.LogPDF(0.5)}; !math.IsNaN(v[0]) || !math.IsNaN(v[1]) || !math.IsNaN(v[2]) || !math.IsNaN(v[3]) {
			t.Errorf("%+v: Mean, SD, Quantile, LogPDF = %v, want NaN", m, v)
		}
	}
	if lp, _ := p.LogPDF("lambda", -1); !math.IsInf(lp, -1) {
		t.Errorf("LogPDF outside the support = %v, want −Inf", lp)
	}
}

// second returns the error of a (value, error) pair.
func second[T any](_ T, err error) error { return err }
