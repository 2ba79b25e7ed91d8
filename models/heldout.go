package models

import (
	"fmt"
	"math"

	"github.com/nmc-go/nmc/internal/special"
	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
)

// checkLinear validates the shapes shared by the regression pointwise functions.
func checkLinear(model string, test RegressionData, beta, dst []float64) error {
	if test.X == nil {
		return fmt.Errorf("models: %s pointwise: test X is nil", model)
	}
	n, k := test.X.Dims()
	if len(test.Y) != n {
		return fmt.Errorf("models: %s pointwise: test X has %d rows but Y has %d values", model, n, len(test.Y))
	}
	if len(beta) != k {
		return fmt.Errorf("models: %s pointwise: beta has %d values, want %d (columns of X)", model, len(beta), k)
	}
	if len(dst) != n {
		return fmt.Errorf("models: %s pointwise: dst has length %d, want %d (test rows)", model, len(dst), n)
	}
	return nil
}

// linearPredictor writes η = α + X β into dst.
func linearPredictor(test RegressionData, alpha float64, beta, dst []float64) {
	raw := test.X.RawMatrix()
	blas64.Gemv(blas.NoTrans, 1, raw,
		blas64.Vector{N: raw.Cols, Inc: 1, Data: beta}, 0,
		blas64.Vector{N: raw.Rows, Inc: 1, Data: dst})
	for i := range dst {
		dst[i] += alpha
	}
}

// LogisticPointwise writes into dst[i] the log-likelihood of test row i under logistic
// regression, log p(y_i | α, β) = y_i η_i − log(1 + e^{η_i}) with η_i = α + X_i·β,
// computed without overflow. It does not allocate. It returns an error when the shapes
// disagree (len(beta) ≠ columns of test.X, len(dst) ≠ rows) or a y is not 0 or 1; dst
// is then unspecified.
func LogisticPointwise(test RegressionData, alpha float64, beta []float64, dst []float64) error {
	if err := checkLinear("logistic", test, beta, dst); err != nil {
		return err
	}
	linearPredictor(test, alpha, beta, dst)
	for i, eta := range dst {
		switch test.Y[i] {
		case 1:
			dst[i] = -special.Log1pExp(-eta)
		case 0:
			dst[i] = -special.Log1pExp(eta)
		default:
			return fmt.Errorf("models: logistic pointwise: y[%d] = %v, want 0 or 1", i, test.Y[i])
		}
	}
	return nil
}

// RobustPointwise writes into dst[i] the log-likelihood of test row i under robust
// regression, the Student-t log density log t_ν(y_i | α + X_i·β, σ) =
// lnΓ((ν+1)/2) − lnΓ(ν/2) − ½ ln(νπ) − ln σ − (ν+1)/2 · ln(1 + r²/ν), r = (y_i − η_i)/σ.
// It does not allocate. It returns an error when the shapes disagree or ν or σ is not
// a positive finite number; dst is then unspecified.
func RobustPointwise(test RegressionData, nu, sigma, alpha float64, beta []float64, dst []float64) error {
	if err := checkLinear("robust", test, beta, dst); err != nil {
		return err
	}
	if !positive(nu) || !positive(sigma) {
		return fmt.Errorf("models: robust pointwise: nu = %v, sigma = %v; want both positive and finite", nu, sigma)
	}
	linearPredictor(test, alpha, beta, dst)
	lg1, _ := math.Lgamma((nu + 1) / 2)
	lg2, _ := math.Lgamma(nu / 2)
	c := lg1 - lg2 - 0.5*math.Log(nu*math.Pi) - math.Log(sigma)
	h := (nu + 1) / 2
	for i, eta := range dst {
		r := (test.Y[i] - eta) / sigma
		dst[i] = c - h*math.Log1p(r*r/nu)
	}
	return nil
}

// AnnotationPointwise writes into dst[j] the log-likelihood of the labels of test item j
// with its true class summed out, log Σ_m π_m Π_{labels (l, y) of j} θ[l][m][y], computed
// by log-sum-exp; an item without labels scores log Σ_m π_m. theta is indexed
// [labeler][true class][label]. Rows of one item must be contiguous, as the generators
// and the files keep them. It does not allocate for up to 64 classes. It returns an error
// when the shapes disagree (len(pi) ≠ NumClasses, len(dst) ≠ NumItems, a θ row of the
// wrong length), an id is out of range, an item's rows are not contiguous, or a
// probability is negative or not finite; dst is then unspecified.
func AnnotationPointwise(test AnnotationData, pi []float64, theta [][][]float64, dst []float64) error {
	C := test.NumClasses
	if len(theta) != test.NumLabelers {
		return fmt.Errorf("models: annotation pointwise: theta has %d labelers, want %d", len(theta), test.NumLabelers)
	}
	for l, tl := range theta {
		if len(tl) != C {
			return fmt.Errorf("models: annotation pointwise: theta[%d] has %d rows, want %d", l, len(tl), C)
		}
		for m, row := range tl {
			if len(row) != C {
				return fmt.Errorf("models: annotation pointwise: theta[%d][%d] has %d values, want %d", l, m, len(row), C)
			}
		}
	}
	return annotationPointwise(test, pi, dst, func(l, m, y int) float64 { return theta[l][m][y] })
}

// AnnotationPointwiseFlat is AnnotationPointwise with theta flattened row-major:
// θ[l][m][n] is theta[(l·C + m)·C + n], C = test.NumClasses, so len(theta) must be
// NumLabelers·C·C.
func AnnotationPointwiseFlat(test AnnotationData, pi, theta []float64, dst []float64) error {
	C := test.NumClasses
	if want := test.NumLabelers * C * C; len(theta) != want {
		return fmt.Errorf("models: annotation pointwise: theta has %d values, want %d (labelers × classes × classes)", len(theta), want)
	}
	return annotationPointwise(test, pi, dst, func(l, m, y int) float64 { return theta[(l*C+m)*C+y] })
}

// annotationPointwise is the shared body of AnnotationPointwise and
// AnnotationPointwiseFlat; th(l, m, y) returns θ[l][m][y].
func annotationPointwise(test AnnotationData, pi, dst []float64, th func(l, m, y int) float64) error {
	const name = "models: annotation pointwise"
	C := test.NumClasses
	if C < 1 {
		return fmt.Errorf("%s: %d classes, want at least 1", name, C)
	}
	if len(pi) != C {
		return fmt.Errorf("%s: pi has %d values, want %d", name, len(pi), C)
	}
	if len(dst) != test.NumItems {
		return fmt.Errorf("%s: dst has length %d, want %d (test items)", name, len(dst), test.NumItems)
	}
	if len(test.Labeler) != len(test.Item) || len(test.Label) != len(test.Item) {
		return fmt.Errorf("%s: %d items, %d labelers, %d labels in the rows; want equal lengths", name,
			len(test.Item), len(test.Labeler), len(test.Label))
	}
	var stack [64]float64
	var acc []float64
	if C <= len(stack) {
		acc = stack[:C]
	} else {
		acc = make([]float64, C)
	}
	var piSum float64
	for m, p := range pi {
		if !(p >= 0) || math.IsInf(p, 1) {
			return fmt.Errorf("%s: pi[%d] = %v, want a finite value ≥ 0", name, m, p)
		}
		piSum += p
	}
	// dst doubles as the record of finished items: NaN until the item's group is scored.
	for j := range dst {
		dst[j] = math.NaN()
	}
	logPiSum := math.Log(piSum)
	rows := len(test.Item)
	for r := 0; r < rows; {
		j := test.Item[r]
		if j < 0 || j >= test.NumItems {
			return fmt.Errorf("%s: row %d: item %d out of range [0, %d)", name, r, j, test.NumItems)
		}
		if !math.IsNaN(dst[j]) {
			return fmt.Errorf("%s: row %d: rows of item %d are not contiguous", name, r, j)
		}
		for m := range acc {
			acc[m] = math.Log(pi[m])
		}
		for ; r < rows && test.Item[r] == j; r++ {
			l, y := test.Labeler[r], test.Label[r]
			if l < 0 || l >= test.NumLabelers {
				return fmt.Errorf("%s: row %d: labeler %d out of range [0, %d)", name, r, l, test.NumLabelers)
			}
			if y < 0 || y >= C {
				return fmt.Errorf("%s: row %d: label %d out of range [0, %d)", name, r, y, C)
			}
			for m := range acc {
				t := th(l, m, y)
				if !(t >= 0) || math.IsInf(t, 1) {
					return fmt.Errorf("%s: theta[%d][%d][%d] = %v, want a finite value ≥ 0", name, l, m, y, t)
				}
				acc[m] += math.Log(t)
			}
		}
		dst[j] = special.LogSumExp(acc)
	}
	for j := range dst {
		if math.IsNaN(dst[j]) { // no labels: Σ_m π_m
			dst[j] = logPiSum
		}
	}
	return nil
}
