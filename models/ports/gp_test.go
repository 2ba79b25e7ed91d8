package ports

import (
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// mvnLogDensity is log N(v | 0, k) = −½ vᵀk⁻¹v − ½ log det k − (n/2) log 2π, by
// gonum's Cholesky factorisation.
func mvnLogDensity(v []float64, k *mat.SymDense) float64 {
	var ch mat.Cholesky
	if !ch.Factorize(k) {
		return math.NaN()
	}
	var w mat.VecDense
	if err := ch.SolveVecTo(&w, mat.NewVecDense(len(v), slices.Clone(v))); err != nil {
		return math.NaN()
	}
	return -0.5*mat.Dot(mat.NewVecDense(len(v), slices.Clone(v)), &w) - 0.5*ch.LogDet() - 0.5*float64(len(v))*math.Log(2*math.Pi)
}

// gpPoisLogDensity is gp_pois_regr.stan's log density at v = (rho, alpha, f[0],
// …), the multivariate normal by gonum's Cholesky factor and the Poisson mass
// written out.
func gpPoisLogDensity(d GPPoisData, v []float64) float64 {
	rho, alpha, f := v[0], v[1], v[2:]
	lg25, _ := math.Lgamma(25)
	lp := 25*math.Log(4) - lg25 + 24*math.Log(rho) - 4*rho + halfNormalLPDF(alpha, 2)
	lp += mvnLogDensity(f, expQuadCov(d.X, alpha, rho, 1e-10))
	for i, k := range d.K {
		lk, _ := math.Lgamma(float64(k) + 1)
		lp += float64(k)*f[i] - math.Exp(f[i]) - lk
	}
	return lp
}

// gpPoisNCLogDensity is gp_pois_regr_nc.stan's log density at v = (rho, alpha,
// eta[0], …): f = L·eta by gonum's Cholesky factor, the Poisson mass written out.
func gpPoisNCLogDensity(d GPPoisData, v []float64) float64 {
	rho, alpha, eta := v[0], v[1], v[2:]
	lg25, _ := math.Lgamma(25)
	lp := 25*math.Log(4) - lg25 + 24*math.Log(rho) - 4*rho + halfNormalLPDF(alpha, 2)
	var ch mat.Cholesky
	if !ch.Factorize(expQuadCov(d.X, alpha, rho, 1e-10)) {
		return math.NaN()
	}
	var l mat.TriDense
	ch.LTo(&l)
	var f mat.VecDense
	f.MulVec(&l, mat.NewVecDense(len(eta), slices.Clone(eta)))
	for i, k := range d.K {
		lk, _ := math.Lgamma(float64(k) + 1)
		fi := f.AtVec(i)
		lp += -0.5*eta[i]*eta[i] - 0.5*math.Log(2*math.Pi) + float64(k)*fi - math.Exp(fi) - lk
	}
	return lp
}

// gpRegrLogDensity is gp_regr.stan's log density at v = (rho, alpha, sigma).
func gpRegrLogDensity(d GPRegrData, v []float64) float64 {
	rho, alpha, sigma := v[0], v[1], v[2]
	lg25, _ := math.Lgamma(25)
	lp := 25*math.Log(4) - lg25 + 24*math.Log(rho) - 4*rho + halfNormalLPDF(alpha, 2) + halfNormalLPDF(sigma, 1)
	return lp + mvnLogDensity(d.Y, expQuadCov(d.X, alpha, rho, sigma*sigma))
}

// TestGPMatchesStanProgram: both Gaussian process models' log joints equal their
// Stan programs' log densities (gonum's Cholesky factor as the reference), and
// their scores' derivatives match finite differences.
func TestGPMatchesStanProgram(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(25, 26))
	t.Run("gp_pois_regr", func(t *testing.T) {
		// Points 4 apart and a length scale of 3 keep K + 1e−10·I well conditioned,
		// so that both computations are accurate to 1e-9 (at posteriordb's points and
		// rho = 6 its condition number is near 1e10).
		x := []float64{-14, -10, -6, -2, 2, 6, 10, 14}
		d, p, err := SimulateGPPois(rng, x, GPParams{Rho: 3, Alpha: 1.5})
		if err != nil {
			t.Fatal(err)
		}
		m, err := GPPois(d)
		if err != nil {
			t.Fatal(err)
		}
		names, truth := p.Named()
		pos := make([]bool, len(truth))
		pos[0], pos[1] = true, true
		points := [][]float64{truth}
		for range 6 {
			points = append(points, jitter(rng, truth, 0.1, pos))
		}
		checkLogDensity(t, m, points, names, func(v []float64) float64 { return gpPoisLogDensity(d, v) })
		for _, p := range points[:2] {
			checkDerivs(t, m, stateFrom(t, m, names, p))
		}
	})
	t.Run("gp_pois_regr_nc", func(t *testing.T) {
		x := []float64{-14, -10, -6, -2, 2, 6, 10, 14}
		d, _, err := SimulateGPPois(rng, x, GPParams{Rho: 3, Alpha: 1.5})
		if err != nil {
			t.Fatal(err)
		}
		m, err := GPPoisNC(d)
		if err != nil {
			t.Fatal(err)
		}
		names := append([]string{"rho", "alpha"}, indexed("eta", len(x))...)
		truth := []float64{3, 1.5}
		for range x {
			truth = append(truth, rng.NormFloat64())
		}
		pos := make([]bool, len(truth))
		pos[0], pos[1] = true, true
		points := [][]float64{truth}
		for range 6 {
			points = append(points, jitter(rng, truth, 0.1, pos))
		}
		checkLogDensity(t, m, points, names, func(v []float64) float64 { return gpPoisNCLogDensity(d, v) })
		for _, p := range points[:2] {
			checkDerivs(t, m, stateFrom(t, m, names, p))
		}
	})
	t.Run("gp_regr", func(t *testing.T) {
		d, err := SimulateGPRegr(rng, 15, GPRegrTruth)
		if err != nil {
			t.Fatal(err)
		}
		m, err := GPRegr(d)
		if err != nil {
			t.Fatal(err)
		}
		names, truth := GPRegrTruth.Named()
		points := [][]float64{truth}
		for range 6 {
			points = append(points, jitter(rng, truth, 0.3, []bool{true, true, true}))
		}
		checkLogDensity(t, m, points, names, func(v []float64) float64 { return gpRegrLogDensity(d, v) })
		for _, p := range points[:3] {
			checkDerivs(t, m, stateFrom(t, m, names, p))
		}
	})
}

// TestGPData: the data survive CmdStan JSON; the readers and builders name what is
// wrong; gp_pois_regr's default points are posteriordb's.
func TestGPData(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(27, 28))
	if x := GPPoisPoints(); len(x) != 11 || x[0] != -10 || x[10] != 10 || x[5] != 0 {
		t.Errorf("points %v", x)
	}
	d, _, err := SimulateGPPois(rng, GPPoisPoints(), GPPoisTruth)
	if err != nil {
		t.Fatal(err)
	}
	got, err := ReadGPPois(roundTrip(t, d.StanVars()))
	if err != nil || !slices.Equal(got.X, d.X) || !slices.Equal(got.K, d.K) {
		t.Fatalf("read back %v, %v", got, err)
	}
	r, err := SimulateGPRegr(rng, 12, GPRegrTruth)
	if err != nil || !slices.IsSorted(r.X) {
		t.Fatalf("gp_regr data %v, %v", r, err)
	}
	gotR, err := ReadGPRegr(roundTrip(t, r.StanVars()))
	if err != nil || !slices.Equal(gotR.X, r.X) || !slices.Equal(gotR.Y, r.Y) {
		t.Fatalf("read back %v, %v", gotR, err)
	}
	if _, err := ReadGPPois(readJSON(t, `{"N": 2, "x": [1, 2], "k": [1, -3]}`)); err == nil || !strings.Contains(err.Error(), `"k": element [1] is -3, want at least 0`) {
		t.Errorf("negative count: %v", err)
	}
	if _, err := GPPois(GPPoisData{X: []float64{1, 2}, K: []int{1}}); err == nil || !strings.Contains(err.Error(), "gp_pois_regr") {
		t.Errorf("ragged data: %v", err)
	}
	if _, err := GPRegr(GPRegrData{}); err == nil || !strings.Contains(err.Error(), "gp_regr") {
		t.Errorf("no data: %v", err)
	}
}
