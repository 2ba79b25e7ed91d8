package ports

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"

	"github.com/nmc-go/nmc/frames"
	"github.com/nmc-go/nmc/models"
	"github.com/nmc-go/nmc/nmc/graph"
	"github.com/nmc-go/nmc/nmc/jet"
)

// PKData is the data of one_comp_mm_elim_abs: concentrations CHat measured at
// increasing times after an oral dose D into a volume V.
type PKData struct {
	Times, CHat []float64
	D, V        float64
}

// StanVars returns the data as one_comp_mm_elim_abs.stan declares them: N_t,
// times, C_hat, D and V.
func (d PKData) StanVars() []frames.StanVar {
	return []frames.StanVar{frames.StanInt("N_t", len(d.Times)), frames.StanReals("times", d.Times),
		frames.StanReals("C_hat", d.CHat), frames.StanReal("D", d.D), frames.StanReal("V", d.V)}
}

// Size returns the number of measurements.
func (d PKData) Size() int { return len(d.Times) }

// Describe describes the data: "12 measurements".
func (d PKData) Describe() string { return fmt.Sprintf("%d measurements", len(d.Times)) }

// ReadPK takes one_comp_mm_elim_abs's data from CmdStan JSON data: N_t ≥ 1,
// increasing positive times, positive concentrations, D > 0 and V > 0.
func ReadPK(sd *frames.StanData) (PKData, error) {
	var d PKData
	n, err := stanInt(sd, "N_t", 1)
	if err != nil {
		return d, err
	}
	if d.Times, err = stanFloats(sd, "times", n, "N_t"); err != nil {
		return d, err
	}
	if d.CHat, err = stanFloats(sd, "C_hat", n, "N_t"); err != nil {
		return d, err
	}
	for i, t := range d.Times {
		if !(t > 0) || i > 0 && !(t > d.Times[i-1]) {
			return d, stanErr(sd, "times", "element [%d] is %g, want positive times in increasing order", i, t)
		}
		if !(d.CHat[i] > 0) {
			return d, stanErr(sd, "C_hat", "element [%d] is %g, want > 0", i, d.CHat[i])
		}
	}
	for _, v := range []struct {
		name string
		dst  *float64
	}{{"D", &d.D}, {"V", &d.V}} {
		if *v.dst, err = sd.Float(v.name); err != nil {
			return d, err
		}
		if !(*v.dst > 0) {
			return d, stanErr(sd, v.name, "is %g, want > 0", *v.dst)
		}
	}
	return d, nil
}

// PKParams are the parameters of one_comp_mm_elim_abs: the absorption rate KA
// (1/h), the Michaelis-Menten constant KM (mg/L), the maximum elimination rate VM
// (mg/h) and the log-scale noise Sigma.
type PKParams struct {
	KA, KM, VM, Sigma float64
}

// Named returns the parameters under their names in the draws.
func (p PKParams) Named() ([]string, []float64) {
	return []string{"k_a", "K_m", "V_m", "sigma"}, []float64{p.KA, p.KM, p.VM, p.Sigma}
}

// The design and parameters of one_comp_mm_elim_abs's generated data: a dose of
// 100 mg into 10 L, measured at PKTimes (hours).
var (
	PKTruth = PKParams{KA: 1, KM: 4, VM: 8, Sigma: 0.1}
	PKTimes = []float64{0.5, 1, 2, 3, 4, 6, 8, 10, 12, 16, 20, 24}
)

// pkStep is the step of the builder's Runge-Kutta integration (hours).
const pkStep = 0.1

// pkSolve integrates dC/dt = e^{−k_a t}·D·k_a/V − (V_m/V)·C/(K_m + C), C(0) = 0,
// by the classical fourth-order Runge-Kutta method with steps of at most pkStep
// (the last step before each time shortened to land on it), in jet Numbers, and
// writes C at times into out; in = (k_a, K_m, V_m).
func pkSolve(times []float64, dose, vol float64, s *jet.Space, in, out []jet.Number) {
	ka, km, vm := in[0], in[1], in[2]
	input, elim := ka.MulConst(dose/vol), vm.MulConst(1/vol)
	rate := func(t float64, c jet.Number) jet.Number {
		return ka.MulConst(-t).Exp().Mul(input).Sub(elim.Mul(c).Div(km.Add(c)))
	}
	c, t := jet.Const(0), 0.0
	m := s.Mark()
	for j, end := range times {
		for t < end {
			h := math.Min(pkStep, end-t)
			if end-(t+h) < 1e-9 { // land on end exactly
				h = end - t
			}
			k1 := rate(t, c)
			k2 := rate(t+h/2, c.AddScaled(h/2, k1))
			k3 := rate(t+h/2, c.AddScaled(h/2, k2))
			k4 := rate(t+h, c.AddScaled(h, k3))
			c = c.AddScaled(h/6, k1.AddScaled(2, k2).AddScaled(2, k3).Add(k4))
			s.Release(m, &c)
			t += h
			if end-t < 1e-9 {
				t = end
			}
		}
		out[j] = c
		m = s.Mark() // keep out[j]: later steps release above it
	}
}

// PKConcentrations returns the concentrations at times for parameters p, dose and
// volume, by the builder's integration in float64.
func PKConcentrations(times []float64, dose, vol float64, p PKParams) []float64 {
	out := make([]jet.Number, len(times))
	pkSolve(times, dose, vol, jet.NewSpace(0), []jet.Number{jet.Const(p.KA), jet.Const(p.KM), jet.Const(p.VM)}, out)
	c := make([]float64, len(out))
	for i, v := range out {
		c[i] = v.Value()
	}
	return c
}

// SimulatePK draws measurements at times: C_hat[i] = C(t_i)·exp(sigma·z_i).
func SimulatePK(rng *rand.Rand, times []float64, dose, vol float64, p PKParams) PKData {
	c := PKConcentrations(times, dose, vol, p)
	d := PKData{Times: slices.Clone(times), CHat: make([]float64, len(c)), D: dose, V: vol}
	for i, v := range c {
		d.CHat[i] = v * math.Exp(p.Sigma*rng.NormFloat64())
	}
	return d
}

// PK builds one_comp_mm_elim_abs (stan/one_comp_mm_elim_abs.stan) with the ODE
// solved in plain Go inside graph.Func (a Runge-Kutta integration in jet Numbers,
// so that the concentrations carry exact derivatives in the parameters):
//
//	log k_a ~ N(0, 0.5²), log K_m ~ N(log 4, 0.5²), log V_m ~ N(log 8, 0.5²);
//	sigma ~ N(0, 0.5²) on (0, ∞); C_hat[i] ~ LogNormal(log C(t_i), sigma).
//
// The three positive parameters are declared by their logarithms, one Vector site
// logtheta (lognormal priors on the parameters, as in the Stan program), so that
// one Newton step of its exact 3×3 Hessian follows the strong correlation of K_m
// and V_m; k_a, K_m and V_m are recorded under the Stan program's names. Stan's
// integrate_ode_rk45 is adaptive; the fixed steps of 0.1 h here agree with it far
// within the noise.
func PK(d PKData) (*graph.Model, error) {
	if len(d.Times) == 0 || len(d.CHat) != len(d.Times) || !(d.D > 0) || !(d.V > 0) {
		return nil, fmt.Errorf("ports: one_comp_mm_elim_abs: %d times, %d concentrations, D = %g, V = %g: want as many of each (at least 1) and D, V > 0", len(d.Times), len(d.CHat), d.D, d.V)
	}
	times := slices.Clone(d.Times)
	dose, vol := d.D, d.V
	b := graph.New()
	logtheta := b.Vector("logtheta", 3, graph.Normal(graph.Data([]float64{0, math.Log(4), math.Log(8)}), graph.C(0.5)))
	sigma := b.Latent("sigma", graph.HalfNormal(graph.C(0.5)))
	theta := graph.Exp(logtheta)
	conc := graph.Func(func(s *jet.Space, in, out []jet.Number) { pkSolve(times, dose, vol, s, in, out) }, len(times), theta)
	b.Observe("C_hat", graph.LogNormal(graph.Log(graph.Components(conc)), sigma), d.CHat)
	for i, name := range []string{"k_a", "K_m", "V_m"} {
		b.Deterministic(name, graph.Index(theta, []int{i}))
	}
	return built("one_comp_mm_elim_abs", b)
}

func pkPort() *models.Port {
	return port(models.Spec{Name: "one_comp_mm_elim_abs", DefaultN: len(PKTimes), SummaryVariables: []string{"k_a", "K_m", "V_m", "sigma"}},
		"one_comp_mm_elim_abs", "-n measurements [12]: at 0.5, 1, 2, 3, 4, 6, 8, 10, 12, 16, 20, 24 h for 12, else every 2 h",
		func(rng *rand.Rand, n, _ int) (PKData, named, error) {
			times := PKTimes
			if n != len(times) {
				times = make([]float64, n)
				for i := range times {
					times[i] = 2 * float64(i+1)
				}
			}
			return SimulatePK(rng, times, 100, 10, PKTruth), PKTruth, nil
		},
		ReadPK, PK)
}
