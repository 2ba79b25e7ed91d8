package models

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strconv"

	"github.com/nmc-go/nmc/internal/special"
	"gonum.org/v1/gonum/mat"
	"gonum.org/v1/gonum/stat/distuv"
)

// Hyperparameters of the paper's regression models (shared data README).
const (
	// RegressionXSD is the standard deviation of the design entries, X_ik ~ N(0, 10).
	RegressionXSD = 10.0
	// RegressionAlphaSD is the prior standard deviation of the intercept, α ~ N(0, 10).
	RegressionAlphaSD = 10.0
	// RegressionBetaSD is the prior standard deviation of each coefficient, β_k ~ N(0, 2.5).
	RegressionBetaSD = 2.5
	// RobustNuShape and RobustNuRate give the prior of the degrees of freedom,
	// ν ~ Gamma(shape 2, rate 0.1).
	RobustNuShape, RobustNuRate = 2.0, 0.1
	// RobustSigmaRate is the rate of the scale's prior, σ ~ Exponential(rate 0.1), mean 10.
	RobustSigmaRate = 0.1
)

// RegressionData is a regression data set: X is n × K (row i holds the predictors of
// observation i) and Y has length n. For logistic regression Y holds 0 or 1.
type RegressionData struct {
	X *mat.Dense
	Y []float64
}

// Dims returns the number of observations n and of predictors K; both are 0 when X is nil.
func (d RegressionData) Dims() (n, k int) {
	if d.X == nil {
		return 0, 0
	}
	return d.X.Dims()
}

// Validate checks that X is present, that Y has one entry per row of X and that every
// value is finite. With binary set it also checks that every y is 0 or 1. The error
// names the offending row (0-based) and column.
func (d RegressionData) Validate(binary bool) error {
	if d.X == nil {
		return fmt.Errorf("models: regression data: X is nil")
	}
	n, _ := d.X.Dims()
	if len(d.Y) != n {
		return fmt.Errorf("models: regression data: X has %d rows but Y has %d values", n, len(d.Y))
	}
	for i := 0; i < n; i++ {
		y := d.Y[i]
		if math.IsNaN(y) || math.IsInf(y, 0) {
			return fmt.Errorf("models: regression data: y[%d] = %v is not finite", i, y)
		}
		if binary && y != 0 && y != 1 {
			return fmt.Errorf("models: regression data: y[%d] = %v, want 0 or 1", i, y)
		}
		for j, x := range d.X.RawRowView(i) {
			if math.IsNaN(x) || math.IsInf(x, 0) {
				return fmt.Errorf("models: regression data: X[%d,%d] = %v is not finite", i, j, x)
			}
		}
	}
	return nil
}

// LinearTruth holds the generating parameters of a regression data set: the intercept
// Alpha, the coefficients Beta (length K) and, for robust regression only, the Student-t
// degrees of freedom Nu and scale Sigma (both 0 for logistic regression).
type LinearTruth struct {
	Alpha float64
	Beta  []float64
	Nu    float64
	Sigma float64
}

// Named returns the parameters as 0-based scalar names ("alpha", "beta[0]", …, then
// "nu", "sigma" when Sigma > 0) and their values, in that order.
func (t LinearTruth) Named() (names []string, values []float64) {
	names = append(names, "alpha")
	values = append(values, t.Alpha)
	for k, b := range t.Beta {
		names = append(names, "beta["+strconv.Itoa(k)+"]")
		values = append(values, b)
	}
	if t.Sigma > 0 {
		names = append(names, "nu", "sigma")
		values = append(values, t.Nu, t.Sigma)
	}
	return names, values
}

// checkRegressionArgs validates the common arguments of the regression generators.
func checkRegressionArgs(model string, rng *rand.Rand, n, k int) error {
	if rng == nil {
		return fmt.Errorf("models: %s: nil random generator", model)
	}
	if n < 2 {
		return fmt.Errorf("models: %s: n = %d rows, want at least 2 (half train, half test)", model, n)
	}
	if k < 1 {
		return fmt.Errorf("models: %s: k = %d predictors, want at least 1", model, k)
	}
	return nil
}

// drawLinear draws α ~ N(0, 10), β_k ~ N(0, 2.5) and X_ik ~ N(0, 10) (row by row) and
// returns X and the linear predictors η_i = α + X_i·β.
func drawLinear(rng *rand.Rand, n, k int, truth *LinearTruth) (x *mat.Dense, eta []float64) {
	truth.Alpha = RegressionAlphaSD * rng.NormFloat64()
	truth.Beta = make([]float64, k)
	for j := range truth.Beta {
		truth.Beta[j] = RegressionBetaSD * rng.NormFloat64()
	}
	data := make([]float64, n*k)
	for i := range data {
		data[i] = RegressionXSD * rng.NormFloat64()
	}
	x = mat.NewDense(n, k, data)
	eta = make([]float64, n)
	for i := range eta {
		s := truth.Alpha
		for j, b := range truth.Beta {
			s += data[i*k+j] * b
		}
		eta[i] = s
	}
	return x, eta
}

// splitRegression puts the first n/2 rows (rounded down) in train and the rest in test.
// The two data sets share no storage with each other.
func splitRegression(x *mat.Dense, y []float64) (train, test RegressionData) {
	n, k := x.Dims()
	h := n / 2
	train = RegressionData{X: mat.DenseCopyOf(x.Slice(0, h, 0, k)), Y: append([]float64(nil), y[:h]...)}
	test = RegressionData{X: mat.DenseCopyOf(x.Slice(h, n, 0, k)), Y: append([]float64(nil), y[h:]...)}
	return train, test
}

// GenerateLogistic draws a logistic regression data set of n rows and k predictors from
// the paper's generative process: α ~ N(0, 10); β_k ~ N(0, 2.5); X_ik ~ N(0, 10);
// y_i ~ Bernoulli(logit⁻¹(α + X_i·β)). The first n/2 rows (rounded down) are returned as
// train, the rest as test; truth holds α and β (Nu and Sigma are 0). The paper uses
// n = 20,000 and k = 40. It returns an error for a nil rng, n < 2 or k < 1.
func GenerateLogistic(rng *rand.Rand, n, k int) (train, test RegressionData, truth LinearTruth, err error) {
	if err := checkRegressionArgs("logistic", rng, n, k); err != nil {
		return train, test, truth, err
	}
	x, eta := drawLinear(rng, n, k, &truth)
	y := make([]float64, n)
	for i, e := range eta {
		if rng.Float64() < special.Logistic(e) {
			y[i] = 1
		}
	}
	train, test = splitRegression(x, y)
	return train, test, truth, nil
}

// GenerateRobust draws a robust (Student-t) regression data set of n rows and k
// predictors from the paper's generative process: ν ~ Gamma(shape 2, rate 0.1);
// σ ~ Exponential(rate 0.1); α ~ N(0, 10); β_k ~ N(0, 2.5); X_ik ~ N(0, 10);
// y_i ~ StudentT(ν, α + X_i·β, σ). The first n/2 rows (rounded down) are returned as
// train, the rest as test. The paper uses n = 20,000 and k = 40. It returns an error for
// a nil rng, n < 2 or k < 1.
func GenerateRobust(rng *rand.Rand, n, k int) (train, test RegressionData, truth LinearTruth, err error) {
	if err := checkRegressionArgs("robust", rng, n, k); err != nil {
		return train, test, truth, err
	}
	truth.Nu = distuv.Gamma{Alpha: RobustNuShape, Beta: RobustNuRate, Src: rng}.Rand()
	truth.Sigma = rng.ExpFloat64() / RobustSigmaRate
	x, eta := drawLinear(rng, n, k, &truth)
	y := make([]float64, n)
	t := distuv.StudentsT{Mu: 0, Sigma: truth.Sigma, Nu: truth.Nu, Src: rng}
	for i, e := range eta {
		y[i] = e + t.Rand()
	}
	train, test = splitRegression(x, y)
	return train, test, truth, nil
}
