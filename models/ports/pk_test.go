package ports

import (
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
)

// pkRK4 integrates the PK ODE in float64 from 0 to each of times with steps of at
// most h (the last before each time shortened), written independently of pkSolve.
func pkRK4(times []float64, dose, vol, ka, km, vm, h float64) []float64 {
	f := func(t, c float64) float64 { return math.Exp(-ka*t)*dose*ka/vol - vm/vol*c/(km+c) }
	out := make([]float64, len(times))
	c, t := 0.0, 0.0
	for j, end := range times {
		n := int(math.Ceil((end-t)/h - 1e-9))
		for i := range n {
			step := math.Min(h, end-t)
			if i == n-1 {
				step = end - t
			}
			k1 := f(t, c)
			k2 := f(t+step/2, c+step/2*k1)
			k3 := f(t+step/2, c+step/2*k2)
			k4 := f(t+step, c+step*k3)
			c += step / 6 * (k1 + 2*k2 + 2*k3 + k4)
			t += step
		}
		t = end
		out[j] = c
	}
	return out
}

// pkLogDensity is one_comp_mm_elim_abs.stan's log density at v = (log k_a, log
// K_m, log V_m, sigma) (the parameters' lognormal priors written on their
// logarithms, as the Vector site holds them), with the ODE solved by pkRK4 at h.
func pkLogDensity(d PKData, v []float64, h float64) float64 {
	lp := normalLPDF(v[0], 0, 0.5) + normalLPDF(v[1], math.Log(4), 0.5) + normalLPDF(v[2], math.Log(8), 0.5) + halfNormalLPDF(v[3], 0.5)
	c := pkRK4(d.Times, d.D, d.V, math.Exp(v[0]), math.Exp(v[1]), math.Exp(v[2]), h)
	for i, y := range d.CHat {
		lp += normalLPDF(math.Log(y), math.Log(c[i]), v[3]) - math.Log(y)
	}
	return lp
}

// TestPKMatchesStanProgram: PK's log joint equals the Stan program's log density
// with the ODE solved by an independent float64 Runge-Kutta at the same steps (to
// 1e-9), and its derivatives match finite differences; the steps of 0.1 h agree
// with a solve at 0.001 h to 5e-6 relative (the order of integrate_ode_rk45's
// default relative tolerance, 1e-6, and far within the noise of 0.1 on the log
// scale: Stan's adaptive solver and these steps solve the same model).
func TestPKMatchesStanProgram(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(29, 30))
	d := SimulatePK(rng, PKTimes, 100, 10, PKTruth)
	m, err := PK(d)
	if err != nil {
		t.Fatal(err)
	}
	names := []string{"logtheta[0]", "logtheta[1]", "logtheta[2]", "sigma"}
	truth := []float64{math.Log(PKTruth.KA), math.Log(PKTruth.KM), math.Log(PKTruth.VM), PKTruth.Sigma}
	points := [][]float64{truth}
	for range 6 {
		points = append(points, jitter(rng, truth, 0.2, []bool{false, false, false, true}))
	}
	checkLogDensity(t, m, points, names, func(v []float64) float64 { return pkLogDensity(d, v, pkStep) })
	for _, p := range points[:3] {
		checkDerivs(t, m, stateFrom(t, m, names, p))
	}
	coarse := PKConcentrations(d.Times, d.D, d.V, PKTruth)
	fine := pkRK4(d.Times, d.D, d.V, PKTruth.KA, PKTruth.KM, PKTruth.VM, 0.001)
	for i := range fine {
		if math.Abs(coarse[i]-fine[i]) > 5e-6*fine[i] {
			t.Errorf("C(%g) = %.10g with steps of 0.1 h, %.10g with 0.001 h", d.Times[i], coarse[i], fine[i])
		}
	}
}

// TestPKData: the data survive CmdStan JSON; the reader names what is wrong.
func TestPKData(t *testing.T) {
	t.Parallel()
	d := SimulatePK(rand.New(rand.NewPCG(31, 32)), PKTimes, 100, 10, PKTruth)
	got, err := ReadPK(roundTrip(t, d.StanVars()))
	if err != nil || !slices.Equal(got.Times, d.Times) || !slices.Equal(got.CHat, d.CHat) || got.D != 100 || got.V != 10 {
		t.Fatalf("read back %v, %v", got, err)
	}
	for _, c := range []struct {
		json, want string
	}{
		{`{"N_t": 2, "times": [1, 0.5], "C_hat": [1, 1], "D": 1, "V": 1}`, `"times": element [1] is 0.5, want positive times in increasing order`},
		{`{"N_t": 2, "times": [0.5, 1], "C_hat": [1, 0], "D": 1, "V": 1}`, `"C_hat": element [1] is 0, want > 0`},
		{`{"N_t": 2, "times": [0.5, 1], "C_hat": [1, 1], "D": 1, "V": -1}`, `"V": is -1, want > 0`},
	} {
		if _, err := ReadPK(readJSON(t, c.json)); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want an error containing %q", c.json, err, c.want)
		}
	}
}
