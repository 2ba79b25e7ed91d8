package dist

import (
	"math"
	"testing"

	"gonum.org/v1/gonum/mat"
	"gonum.org/v1/gonum/stat/distuv"

	"github.com/nmc-go/nmc/internal/special"
)

// eqLP reports whether two log densities agree to tol, relative to max(1, |want|).
func eqLP(got, want, tol float64) bool {
	if got == want {
		return true
	}
	if math.IsInf(got, 0) || math.IsInf(want, 0) {
		return false // unequal, and an infinite difference is within no tolerance
	}
	return math.Abs(got-want) <= tol*math.Max(1, math.Abs(want))
}

type lpCase struct {
	args []float64
	want float64
	src  string
}

func checkLP(t *testing.T, f Family, k int, tol float64, cases []lpCase) {
	t.Helper()
	for _, c := range cases {
		if got := f.LogProb(c.args, k); !eqLP(got, c.want, tol) {
			t.Errorf("%s.LogProb(%v) = %.17g, want %.17g (%s)", f.Name(), c.args, got, c.want, c.src)
		}
	}
}

// TestLogProbReference compares every family's log density with a second,
// independent computation: gonum's stat/distuv and stat/distmv implementations,
// closed forms at special parameter values, and change-of-variable identities between
// families. Constants: −½ log 2π = −0.91893853320467274 (OEIS A075700 gives log √(2π)).
func TestLogProbReference(t *testing.T) {
	t.Parallel()
	const tol = 1e-12
	ln := math.Log

	t.Run("Normal", func(t *testing.T) {
		cases := []lpCase{{[]float64{0, 0, 1}, -0.91893853320467274, "−½ log 2π"}}
		for _, a := range [][]float64{{0.3, -0.2, 1.5}, {1e3 + 0.002, 1e3, 1e-3}, {-4, 0, 1e3}, {1e3, -1e3, 50}} {
			cases = append(cases, lpCase{a, distuv.Normal{Mu: a[1], Sigma: a[2]}.LogProb(a[0]), "distuv.Normal"})
		}
		checkLP(t, Normal{}, 1, tol, cases)
	})
	t.Run("HalfNormal", func(t *testing.T) {
		var cases []lpCase
		for _, a := range [][]float64{{0.7, 1.2}, {1e-4, 1e-3}, {2e3, 1e3}, {0, 2}} {
			cases = append(cases, lpCase{a, math.Ln2 + distuv.Normal{Mu: 0, Sigma: a[1]}.LogProb(a[0]), "log 2 + N(x|0,σ)"})
		}
		checkLP(t, HalfNormal{}, 1, tol, cases)
	})
	t.Run("LogNormal", func(t *testing.T) {
		var cases []lpCase
		for _, a := range [][]float64{{2.5, 0.3, 0.8}, {1e-3, -6.9, 1e-3}, {1e3, 7, 0.5}} {
			cases = append(cases,
				lpCase{a, distuv.LogNormal{Mu: a[1], Sigma: a[2]}.LogProb(a[0]), "distuv.LogNormal"},
				lpCase{a, distuv.Normal{Mu: a[1], Sigma: a[2]}.LogProb(ln(a[0])) - ln(a[0]), "N(log x|μ,σ)/x"})
		}
		checkLP(t, LogNormal{}, 1, tol, cases)
	})
	t.Run("StudentT", func(t *testing.T) {
		var cases []lpCase
		for _, a := range [][]float64{{0.4, 3.5, -0.1, 1.3}, {1e3, 1e3, 999, 1.5}, {-1e3, 0.5, 0, 1e-3}, {0.1, 0.01, 0, 1}} {
			cases = append(cases, lpCase{a, distuv.StudentsT{Mu: a[2], Sigma: a[3], Nu: a[1]}.LogProb(a[0]), "distuv.StudentsT"})
		}
		for _, x := range []float64{0, 0.5, -3, 40} {
			// ν = 1 is Cauchy: 1/(π(1+x²)); ν = 2: 1/(2√2 (1+x²/2)^{3/2}).
			cases = append(cases,
				lpCase{[]float64{x, 1, 0, 1}, -ln(math.Pi * (1 + x*x)), "Cauchy = t₁"},
				lpCase{[]float64{x, 2, 0, 1}, -ln(2*math.Sqrt2) - 1.5*ln(1+x*x/2), "t₂ closed form"})
		}
		checkLP(t, StudentT{}, 1, tol, cases)
		// ν → ∞ is the normal: the difference is O(1/ν).
		for _, x := range []float64{0, 1.5, -2} {
			got := (StudentT{}).LogProb([]float64{x, 1e9, 0.5, 2}, 1)
			want := (Normal{}).LogProb([]float64{x, 0.5, 2}, 1)
			if math.Abs(got-want) > 1e-8 {
				t.Errorf("StudentT(ν=1e9) at %v = %.12g, Normal %.12g", x, got, want)
			}
		}
	})
	t.Run("Cauchy", func(t *testing.T) {
		var cases []lpCase
		for _, a := range [][]float64{{0.5, -1, 2}, {1e3, 0, 1e-3}, {1.0001, 1, 1e-3}, {3, 3.5, 1e3}} {
			z := (a[0] - a[1]) / a[2]
			cases = append(cases,
				lpCase{a, distuv.StudentsT{Mu: a[1], Sigma: a[2], Nu: 1}.LogProb(a[0]), "distuv.StudentsT ν=1"},
				lpCase{a, -ln(math.Pi * a[2] * (1 + z*z)), "1/(πγ(1+z²))"})
		}
		checkLP(t, Cauchy{}, 1, tol, cases)
	})
	t.Run("HalfCauchy", func(t *testing.T) {
		var cases []lpCase
		for _, a := range [][]float64{{0.5, 2}, {1e3, 1e-3}, {0, 1e3}} {
			cases = append(cases, lpCase{a, math.Ln2 + distuv.StudentsT{Mu: 0, Sigma: a[1], Nu: 1}.LogProb(a[0]), "2 Cauchy(x|0,s)"})
		}
		checkLP(t, HalfCauchy{}, 1, tol, cases)
	})
	t.Run("Gamma", func(t *testing.T) {
		cases := []lpCase{
			{[]float64{0.7, 1, 3}, ln(3) - 2.1, "α=1: log β − βx"},
			{[]float64{2.5, 2, 1}, ln(2.5) - 2.5, "α=2, β=1: log x − x"},
			{[]float64{4, 0.5, 0.5}, -0.5*ln(2*math.Pi*4) - 2, "χ²₁: e^{−x/2}/√(2πx)"},
		}
		for _, a := range [][]float64{{1.3, 2.5, 0.7}, {1e-3, 1e-3, 1}, {1e3, 1e3, 1}, {0.01, 0.5, 1e3}} {
			cases = append(cases, lpCase{a, distuv.Gamma{Alpha: a[1], Beta: a[2]}.LogProb(a[0]), "distuv.Gamma"})
		}
		checkLP(t, Gamma{}, 1, tol, cases)
	})
	t.Run("InverseGamma", func(t *testing.T) {
		var cases []lpCase
		for _, a := range [][]float64{{0.8, 3, 2}, {1e3, 1e-3, 1e3}, {1e-3, 2, 1e-3}} {
			cases = append(cases,
				lpCase{a, distuv.InverseGamma{Alpha: a[1], Beta: a[2]}.LogProb(a[0]), "distuv.InverseGamma"},
				lpCase{a, distuv.Gamma{Alpha: a[1], Beta: a[2]}.LogProb(1/a[0]) - 2*ln(a[0]), "Gamma(1/x)/x²"})
		}
		checkLP(t, InverseGamma{}, 1, tol, cases)
	})
	t.Run("Exponential", func(t *testing.T) {
		var cases []lpCase
		for _, a := range [][]float64{{0.5, 2}, {1e-6, 1e3}, {1e3, 1e-3}, {0, 4}} {
			cases = append(cases, lpCase{a, distuv.Exponential{Rate: a[1]}.LogProb(a[0]), "distuv.Exponential"})
		}
		checkLP(t, Exponential{}, 1, tol, cases)
	})
	t.Run("Beta", func(t *testing.T) {
		cases := []lpCase{
			{[]float64{0.3, 1, 1}, 0, "uniform"},
			{[]float64{0.3, 2, 1}, ln(0.6), "2x"},
			{[]float64{0.3, 2, 2}, ln(6 * 0.3 * 0.7), "6x(1−x)"},
			{[]float64{0.25, 0.5, 0.5}, -ln(math.Pi * math.Sqrt(0.25*0.75)), "arcsine 1/(π√(x(1−x)))"},
		}
		for _, a := range [][]float64{{0.3, 2, 5}, {1e-6, 0.5, 0.5}, {0.5, 1e3, 1e3}} {
			cases = append(cases, lpCase{a, distuv.Beta{Alpha: a[1], Beta: a[2]}.LogProb(a[0]), "distuv.Beta"})
		}
		checkLP(t, Beta{}, 1, 1e-11, cases)
	})
	t.Run("Uniform", func(t *testing.T) {
		checkLP(t, Uniform{}, 1, tol, []lpCase{
			{[]float64{0.5, 0, 1}, 0, "U(0,1)"},
			{[]float64{-999, -1e3, 1e3}, -ln(2000), "U(−1000,1000)"},
			{[]float64{1e-3, 0, 2e-3}, ln(500), "U(0,0.002)"},
			{[]float64{0, 0, 2}, -math.Ln2, "closed interval: a"},
			{[]float64{2, 0, 2}, -math.Ln2, "closed interval: b"},
		})
	})
	t.Run("Dirichlet", func(t *testing.T) {
		// Stick-breaking: x₀ ~ Beta(α₀, α₁+α₂) and x₁/(1−x₀) ~ Beta(α₁, α₂), with
		// Jacobian 1/(1−x₀).
		var cases []lpCase
		for _, a := range [][]float64{{0.2, 0.3, 0.5, 1, 2, 3}, {1e-4, 0.5, 0.4999, 1e-3, 1e-3, 1e-3}, {1.0 / 3, 1.0 / 3, 1.0 / 3, 1e3, 1e3, 1e3}} {
			x, al := a[:3], a[3:]
			want := distuv.Beta{Alpha: al[0], Beta: al[1] + al[2]}.LogProb(x[0]) +
				distuv.Beta{Alpha: al[1], Beta: al[2]}.LogProb(x[1]/(1-x[0])) - ln(1-x[0])
			cases = append(cases, lpCase{a, want, "stick-breaking with distuv.Beta"})
		}
		cases = append(cases, lpCase{[]float64{0.2, 0.3, 0.5, 1, 1, 1}, ln(2), "flat: Γ(3) = 2"})
		checkLP(t, Dirichlet{}, 3, 1e-11, cases)
		// k = 2 is the beta distribution of the first coordinate.
		checkLP(t, Dirichlet{}, 2, 1e-12, []lpCase{
			{[]float64{0.3, 0.7, 2, 5}, distuv.Beta{Alpha: 2, Beta: 5}.LogProb(0.3), "Beta(2,5)"},
		})
	})
	t.Run("MultivariateNormal", func(t *testing.T) {
		d := testMVN(t)
		cov := mat.NewSymDense(3, []float64{2, 0.3, 0.1, 0.3, 1, -0.2, 0.1, -0.2, 0.5})
		// Reference through an LU inverse and determinant (mat.Dense.Inverse, mat.LogDet)
		// rather than the Cholesky factor the family uses.
		var inv mat.Dense
		if err := inv.Inverse(cov); err != nil {
			t.Fatal(err)
		}
		logDet, _ := mat.LogDet(cov)
		var cases []lpCase
		for _, a := range [][]float64{{0.1, -0.3, 2, 0, 0, 0}, {1e3, -1e3, 5, 999, -998, 4}} {
			r := mat.NewVecDense(3, []float64{a[0] - a[3], a[1] - a[4], a[2] - a[5]})
			want := -0.5*mat.Inner(r, &inv, r) - 0.5*logDet - 1.5*ln(2*math.Pi)
			cases = append(cases, lpCase{a, want, "LU inverse and determinant"})
		}
		checkLP(t, d, 3, tol, cases)
		// A diagonal covariance is a product of univariate normals.
		diag, err := NewMultivariateNormal(mat.NewSymDense(2, []float64{4, 0, 0, 0.25}))
		if err != nil {
			t.Fatal(err)
		}
		want := distuv.Normal{Mu: 1, Sigma: 2}.LogProb(2) + distuv.Normal{Mu: -1, Sigma: 0.5}.LogProb(0)
		checkLP(t, diag, 2, tol, []lpCase{{[]float64{2, 0, 1, -1}, want, "product of normals"}})
	})
	t.Run("Bernoulli", func(t *testing.T) {
		checkLP(t, Bernoulli{}, 1, tol, []lpCase{
			{[]float64{1, 0.3}, ln(0.3), "log p"},
			{[]float64{0, 0.3}, ln(0.7), "log(1−p)"},
			{[]float64{0, 1e-20}, -1e-20, "log(1−p) ≈ −p"},
			{[]float64{1, 1}, 0, "certain"},
			{[]float64{0, 0}, 0, "certain"},
		})
	})
	// referenceLogistic is the oracle of the logit families below: the textbook
	// 1/(1 + e^−l), deliberately not special.Logistic nor the fused form of
	// bernoulli.go, so that an error there cannot cancel; at the moderate l it is
	// used for it is accurate to an ulp or two.
	referenceLogistic := func(l float64) float64 { return 1 / (1 + math.Exp(-l)) }
	t.Run("BernoulliLogit", func(t *testing.T) {
		var cases []lpCase
		for _, l := range []float64{-5, -0.3, 0, 0.7, 4} {
			p := referenceLogistic(l)
			cases = append(cases, lpCase{[]float64{1, l}, ln(p), "log σ(l)"}, lpCase{[]float64{0, l}, ln(1 - p), "log(1−σ(l))"})
		}
		// Far tails: log σ(l) = −log(1+e^{−l}) ≈ l for l ≪ 0 and ≈ −e^{−l} for l ≫ 0.
		cases = append(cases,
			lpCase{[]float64{1, -700}, -700, "l ≪ 0"},
			lpCase{[]float64{0, 700}, -700, "l ≫ 0"},
			lpCase{[]float64{1, 40}, -math.Exp(-40), "l ≫ 0"})
		checkLP(t, BernoulliLogit{}, 1, tol, cases)
	})
	t.Run("Binomial", func(t *testing.T) {
		// log C(10, 3) = log 120.
		cases := []lpCase{
			{[]float64{3, 10, 0.4}, ln(120) + 3*ln(0.4) + 7*ln(0.6), "C(10,3) p³ q⁷"},
			{[]float64{0, 0, 0.5}, 0, "n = 0"},
			{[]float64{0, 5, 0}, 0, "p = 0"},
			{[]float64{5, 5, 1}, 0, "p = 1"},
		}
		for _, a := range [][]float64{{0, 5, 1e-6}, {1000, 1000, 0.999}, {400, 1000, 0.37}} {
			cases = append(cases, lpCase{a, distuv.Binomial{N: a[1], P: a[2]}.LogProb(a[0]), "distuv.Binomial"})
		}
		checkLP(t, Binomial{}, 1, 1e-11, cases)
	})
	t.Run("BinomialLogit", func(t *testing.T) {
		var cases []lpCase
		for _, a := range [][]float64{{3, 10, 0.2}, {0, 1000, -5}, {500, 1000, 1e-3}} {
			p := referenceLogistic(a[2])
			cases = append(cases, lpCase{a, distuv.Binomial{N: a[1], P: p}.LogProb(a[0]), "Binomial(n, σ(l))"})
		}
		// All successes at large l: n log σ(l) ≈ −n e^{−l}.
		cases = append(cases, lpCase{[]float64{1000, 1000, 30}, -1000 * math.Exp(-30), "y = n, l ≫ 0"})
		checkLP(t, BinomialLogit{}, 1, 1e-11, cases)
	})
	t.Run("Categorical", func(t *testing.T) {
		checkLP(t, Categorical{}, 4, tol, []lpCase{
			{[]float64{2, 0.1, 0.2, 0.3, 0.4}, ln(0.3), "log p₂"},
			{[]float64{0, 1e-6, 0.5, 0.5 - 1e-6, 0}, ln(1e-6), "log p₀"},
			// Homogeneous form: not divided by Σp = 2.
			{[]float64{1, 0.2, 0.4, 0.6, 0.8}, ln(0.4), "log p₁ without normalising"},
		})
		c := distuv.NewCategorical([]float64{0.1, 0.2, 0.3, 0.4}, nil)
		checkLP(t, Categorical{}, 4, tol, []lpCase{{[]float64{3, 0.1, 0.2, 0.3, 0.4}, c.LogProb(3), "distuv.Categorical"}})
	})
	t.Run("CategoricalLogits", func(t *testing.T) {
		e := math.Exp
		checkLP(t, CategoricalLogits{}, 3, tol, []lpCase{
			{[]float64{1, 0.5, -1, 2}, ln(e(-1) / (e(0.5) + e(-1) + e(2))), "softmax"},
			{[]float64{2, 1e3, -1e3, 0}, -1e3, "shifted: log(e⁰/e¹⁰⁰⁰)"},
			{[]float64{0, 7, 7, 7}, -ln(3), "equal logits"},
		})
	})
	t.Run("Poisson", func(t *testing.T) {
		cases := []lpCase{
			{[]float64{3, 2.5}, ln(math.Pow(2.5, 3) * math.Exp(-2.5) / 6), "λ³e^{−λ}/3!"},
			{[]float64{0, 0}, 0, "λ = 0"},
			{[]float64{0, 1e-6}, -1e-6, "e^{−λ}"},
		}
		for _, a := range [][]float64{{1000, 1e3}, {5, 1e-3}} {
			cases = append(cases, lpCase{a, distuv.Poisson{Lambda: a[1]}.LogProb(a[0]), "distuv.Poisson"})
		}
		checkLP(t, Poisson{}, 1, tol, cases)
	})
	t.Run("PoissonLog", func(t *testing.T) {
		var cases []lpCase
		for _, a := range [][]float64{{3, 0.9}, {0, -20}, {1000, 6.9}} {
			cases = append(cases, lpCase{a, distuv.Poisson{Lambda: math.Exp(a[1])}.LogProb(a[0]), "Poisson(e^η)"})
		}
		checkLP(t, PoissonLog{}, 1, tol, cases)
	})
}

// TestLogProbOutside checks −Inf (never NaN, never a panic) outside the support and
// for invalid parameters.
func TestLogProbOutside(t *testing.T) {
	t.Parallel()
	nan, inf := math.NaN(), math.Inf(1)
	mvn := testMVN(t)
	cases := []struct {
		f    Family
		k    int
		args []float64
	}{
		{Normal{}, 1, []float64{0, 0, 0}}, {Normal{}, 1, []float64{0, 0, -1}}, {Normal{}, 1, []float64{nan, 0, 1}},
		{Normal{}, 1, []float64{inf, 0, 1}}, {Normal{}, 1, []float64{0, inf, 1}},
		{HalfNormal{}, 1, []float64{-1e-9, 1}}, {LogNormal{}, 1, []float64{0, 0, 1}},
		{StudentT{}, 1, []float64{0, 0, 0, 1}}, {StudentT{}, 1, []float64{0, 1, 0, -1}},
		{Cauchy{}, 1, []float64{0, 0, 0}}, {HalfCauchy{}, 1, []float64{-1, 1}},
		{Gamma{}, 1, []float64{0, 1, 1}}, {Gamma{}, 1, []float64{-1, 1, 1}}, {Gamma{}, 1, []float64{1, 0, 1}},
		{Gamma{}, 1, []float64{1, 1, -2}}, {InverseGamma{}, 1, []float64{0, 1, 1}},
		{Exponential{}, 1, []float64{-1, 1}}, {Exponential{}, 1, []float64{1, 0}},
		{Beta{}, 1, []float64{0, 1, 1}}, {Beta{}, 1, []float64{1, 1, 1}}, {Beta{}, 1, []float64{0.5, -1, 1}},
		{Uniform{}, 1, []float64{2, 0, 1}}, {Uniform{}, 1, []float64{0.5, 1, 0}},
		{Dirichlet{}, 2, []float64{0, 1, 1, 1}}, {Dirichlet{}, 2, []float64{0.5, 0.5, 0, 1}},
		{mvn, 3, []float64{0, 0, nan, 0, 0, 0}}, {mvn, 2, []float64{0, 0, 0, 0}},
		{&MultivariateNormal{}, 1, []float64{0, 0}},
		{Bernoulli{}, 1, []float64{2, 0.5}}, {Bernoulli{}, 1, []float64{0.5, 0.5}}, {Bernoulli{}, 1, []float64{1, 1.5}},
		{Bernoulli{}, 1, []float64{1, 0}},
		{BernoulliLogit{}, 1, []float64{-1, 0}}, {BernoulliLogit{}, 1, []float64{1, nan}},
		{Binomial{}, 1, []float64{6, 5, 0.5}}, {Binomial{}, 1, []float64{1, 5.5, 0.5}}, {Binomial{}, 1, []float64{1, 5, 0}},
		{BinomialLogit{}, 1, []float64{-1, 5, 0}},
		{Categorical{}, 3, []float64{3, 0.2, 0.3, 0.5}}, {Categorical{}, 3, []float64{1.5, 0.2, 0.3, 0.5}},
		{Categorical{}, 3, []float64{0, 0, 0.5, 0.5}}, {Categorical{}, 3, []float64{0, -0.1, 0.6, 0.5}},
		{CategoricalLogits{}, 2, []float64{0, 0, inf}}, {CategoricalLogits{}, 2, []float64{-1, 0, 0}},
		{Poisson{}, 1, []float64{-1, 1}}, {Poisson{}, 1, []float64{1.5, 1}}, {Poisson{}, 1, []float64{1, 0}},
		{Poisson{}, 1, []float64{1, -1}}, {PoissonLog{}, 1, []float64{-1, 0}}, {PoissonLog{}, 1, []float64{1, inf}},
	}
	for _, c := range cases {
		if lp := c.f.LogProb(c.args, c.k); !math.IsInf(lp, -1) {
			t.Errorf("%s.LogProb(%v) = %v, want -Inf", c.f.Name(), c.args, lp)
		}
		n := len(c.args)
		grad, hess := make([]float64, n), make([]float64, n*n)
		if lp := c.f.Derivs(c.args, c.k, grad, hess); !math.IsInf(lp, -1) {
			t.Errorf("%s.Derivs(%v) = %v, want -Inf", c.f.Name(), c.args, lp)
		}
	}
}

// TestHalfDiffs checks the large-argument forms of log Γ(a+½) − log Γ(a) − ½ log a and
// of the ψ, ψ₁ differences against the direct forms where those are still accurate
// (a up to a few hundred, absolute error ≲ 1e-13), and their limits 1/(2a),
// −1/(2a²) and −1/(8a) for huge a.
func TestHalfDiffs(t *testing.T) {
	t.Parallel()
	for _, a := range []float64{halfDiffSwitch, 25.5, 60, 300} {
		// The direct form loses about eps·log Γ(a) to cancellation.
		direct := lgamma(a+0.5) - lgamma(a) - 0.5*math.Log(a)
		if got := lgammaHalfDiff(a); math.Abs(got-direct) > 1e-15*(1+lgamma(a+0.5)) {
			t.Errorf("lgammaHalfDiff(%v) = %.17g, direct %.17g", a, got, direct)
		}
		dd := special.Digamma(a+0.5) - special.Digamma(a)
		if got := digammaHalfDiff(a); math.Abs(got-dd) > 1e-14 {
			t.Errorf("digammaHalfDiff(%v) = %.17g, direct %.17g", a, got, dd)
		}
		td := special.Trigamma(a+0.5) - special.Trigamma(a)
		if got := trigammaHalfDiff(a); math.Abs(got-td) > 1e-15 {
			t.Errorf("trigammaHalfDiff(%v) = %.17g, direct %.17g", a, got, td)
		}
	}
	for _, a := range []float64{1e6, 1e9} {
		// Leading terms (DLMF 5.11.13 with b − a = ½, and its derivatives):
		// −1/(8a) + 1/(192a³); 1/(2a) + 1/(8a²); −1/(2a²) − 1/(4a³).
		if got, want := lgammaHalfDiff(a), -1/(8*a); math.Abs(got-want) > 1e-12*math.Abs(want) {
			t.Errorf("lgammaHalfDiff(%g) = %.17g, want %.17g", a, got, want)
		}
		if got, want := digammaHalfDiff(a), 1/(2*a)+1/(8*a*a); math.Abs(got-want) > 1e-12*math.Abs(want) {
			t.Errorf("digammaHalfDiff(%g) = %.17g, want %.17g", a, got, want)
		}
		if got, want := trigammaHalfDiff(a), -1/(2*a*a)-1/(4*a*a*a); math.Abs(got-want) > 1e-12*math.Abs(want) {
			t.Errorf("trigammaHalfDiff(%g) = %.17g, want %.17g", a, got, want)
		}
	}
}

// TestCategoricalLogitsTails checks the derivatives at logits (−30, 30, 0), where the
// dominant probability is 1 − 1e-13, against closed forms in the differences
// (shifted logits −60, 0, −30): with D = 1 + e⁻³⁰ + e⁻⁶⁰, s₀ = e⁻⁶⁰/D, s₂ = e⁻³⁰/D and
// 1 − s₁ = (e⁻³⁰ + e⁻⁶⁰)/D, exact to rounding.
func TestCategoricalLogitsTails(t *testing.T) {
	t.Parallel()
	e30, e60 := math.Exp(-30), math.Exp(-60)
	D := 1 + e30 + e60
	s0, s2, rest1 := e60/D, e30/D, (e30+e60)/D
	s1 := 1 / D
	args := []float64{1, -30, 30, 0}
	grad, hess := make([]float64, 4), make([]float64, 16)
	(CategoricalLogits{}).Derivs(args, 3, grad, hess)
	want := []struct {
		got, want float64
		what      string
	}{
		{grad[1], -s0, "∂ logits[0]"},
		{grad[2], rest1, "∂ logits[1] = 1 − s₁"},
		{grad[3], -s2, "∂ logits[2]"},
		{hess[2*4+2], -s1 * rest1, "∂² logits[1]² = −s₁(1 − s₁)"},
		{hess[3*4+3], -s2 * (s0 + s1), "∂² logits[2]²"},
		{hess[2*4+3], s1 * s2, "∂² logits[1] logits[2]"},
	}
	for _, w := range want {
		if math.Abs(w.got-w.want) > 1e-14*math.Abs(w.want) {
			t.Errorf("%s = %.17g, want %.17g", w.what, w.got, w.want)
		}
	}
}

// TestLogBeta checks log B(a, b) against B(1, 1) = 1, B(2, 3) = 1/12, B(½, ½) = π and
// B(a, 1) = 1/a, and NaN outside the domain.
func TestLogBeta(t *testing.T) {
	t.Parallel()
	cases := []struct{ a, b, want float64 }{
		{1, 1, 0},
		{2, 3, -math.Log(12)},
		{0.5, 0.5, math.Log(math.Pi)},
		{1e-3, 1, math.Log(1e3)},
		{250, 1, -math.Log(250)},
	}
	for _, c := range cases {
		if got := LogBeta(c.a, c.b); !eqLP(got, c.want, 1e-13) {
			t.Errorf("LogBeta(%v, %v) = %.17g, want %.17g", c.a, c.b, got, c.want)
		}
	}
	for _, ab := range [][2]float64{{0, 1}, {1, -1}, {math.NaN(), 1}} {
		if v := LogBeta(ab[0], ab[1]); !math.IsNaN(v) {
			t.Errorf("LogBeta(%v, %v) = %v, want NaN", ab[0], ab[1], v)
		}
	}
}

// TestLogFactorialTable checks logFactorial against lgamma(y+1) bit for bit: the
// integers of the table and past it, and values the table must not serve
// (fractions, negatives, NaN, +Inf).
func TestLogFactorialTable(t *testing.T) {
	ys := []float64{0.5, 254.5, -1, -0.5, math.NaN(), math.Inf(1), 1e6, 255.000001}
	for y := 0; y < 300; y++ {
		ys = append(ys, float64(y))
	}
	for _, y := range ys {
		if got, want := logFactorial(y), lgamma(y+1); math.Float64bits(got) != math.Float64bits(want) && !(math.IsNaN(got) && math.IsNaN(want)) {
			t.Errorf("logFactorial(%v) = %v, want lgamma(y+1) = %v", y, got, want)
		}
	}
}
