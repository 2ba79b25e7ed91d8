package ports

import (
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/nmc-go/nmc/frames"
	"github.com/nmc-go/nmc/models"
	"github.com/nmc-go/nmc/nmc/graph"
)

// GLMMPoissonData is the data of glmm_poisson and glmm_poisson_nc: N rows (group,
// x, y) in J groups, y a count; groups are 0-based here and 1-based in the Stan
// data.
type GLMMPoissonData struct {
	J     int
	Group []int
	X     []float64
	Y     []int
}

// StanVars returns the data as glmm_poisson.stan and glmm_poisson_nc.stan declare
// them: N, J, x, g (1-based) and y.
func (d GLMMPoissonData) StanVars() []frames.StanVar {
	g := make([]int, len(d.Group))
	for i, v := range d.Group {
		g[i] = v + 1
	}
	return []frames.StanVar{frames.StanInt("N", len(d.Y)), frames.StanInt("J", d.J), frames.StanReals("x", d.X),
		frames.StanInts("g", g), frames.StanInts("y", d.Y)}
}

// Size returns N.
func (d GLMMPoissonData) Size() int { return len(d.Y) }

// Describe describes the data: "600 rows in 30 groups".
func (d GLMMPoissonData) Describe() string {
	return fmt.Sprintf("%d rows in %d groups", len(d.Y), d.J)
}

// ReadGLMMPoisson takes glmm_poisson's (and glmm_poisson_nc's) data from CmdStan
// JSON data: N ≥ 1, J ≥ 1, N reals x, N groups g in 1…J and N counts y ≥ 0.
func ReadGLMMPoisson(sd *frames.StanData) (GLMMPoissonData, error) {
	var d GLMMPoissonData
	n, err := stanInt(sd, "N", 1)
	if err != nil {
		return d, err
	}
	if d.J, err = stanInt(sd, "J", 1); err != nil {
		return d, err
	}
	if d.X, err = stanFloats(sd, "x", n, "N"); err != nil {
		return d, err
	}
	if d.Group, err = stanInts(sd, "g", n, "N", 1, d.J); err != nil {
		return d, err
	}
	for i := range d.Group {
		d.Group[i]--
	}
	d.Y, err = stanInts(sd, "y", n, "N", 0, -1)
	return d, err
}

// GLMMPoissonParams are the parameters of the Poisson regression with varying
// intercepts: the mean intercept B0, the slope B1, the scale Sigma of the
// intercepts, and the intercepts A (glmm_poisson) or their standardised values Z,
// A[j] = B0 + Sigma·Z[j] (glmm_poisson_nc).
type GLMMPoissonParams struct {
	B0, B1, Sigma float64
	A, Z          []float64
}

// Named returns the parameters under their names in the draws: b0, b1, sigma, then
// a[j] if A is set and z[j] if Z is set.
func (p GLMMPoissonParams) Named() ([]string, []float64) {
	names := []string{"b0", "b1", "sigma"}
	vals := []float64{p.B0, p.B1, p.Sigma}
	if p.A != nil {
		names, vals = append(names, indexed("a", len(p.A))...), append(vals, p.A...)
	}
	if p.Z != nil {
		names, vals = append(names, indexed("z", len(p.Z))...), append(vals, p.Z...)
	}
	return names, vals
}

// The sizes of glmm_poisson's generated data: GLMMPoissonN rows in GLMMPoissonJ
// groups by default.
const (
	GLMMPoissonN = 600
	GLMMPoissonJ = 30
)

// GLMMPoissonTruth are the parameters the data are generated with (the intercepts
// are drawn from N(B0, Sigma²)).
var GLMMPoissonTruth = GLMMPoissonParams{B0: 0.5, B1: 0.3, Sigma: 0.8}

// SimulateGLMMPoisson draws n rows in j groups (n, j ≥ 1): z[g] ~ N(0, 1) and
// a[g] = b0 + sigma·z[g] for each group, then for row i the group i mod j, x[i] ~
// N(1, 1) and y[i] ~ Poisson(exp(a[group[i]] + b1·x[i])). p.A and p.Z are ignored;
// the parameters returned hold both, the intercepts and their standardised values
// drawn.
func SimulateGLMMPoisson(rng *rand.Rand, n, j int, p GLMMPoissonParams) (GLMMPoissonData, GLMMPoissonParams) {
	p.A, p.Z = make([]float64, j), make([]float64, j)
	for g := range p.Z {
		p.Z[g] = rng.NormFloat64()
		p.A[g] = p.B0 + p.Sigma*p.Z[g]
	}
	d := GLMMPoissonData{J: j, Group: make([]int, n), X: make([]float64, n), Y: make([]int, n)}
	for i := range d.Y {
		d.Group[i] = i % j
		d.X[i] = 1 + rng.NormFloat64()
		d.Y[i] = poisson(rng, math.Exp(p.A[d.Group[i]]+p.B1*d.X[i]))
	}
	return d, p
}

// checkGLMMPoisson returns the builder's error for data the model cannot take.
func checkGLMMPoisson(model string, d GLMMPoissonData) error {
	if len(d.Y) == 0 || len(d.X) != len(d.Y) || len(d.Group) != len(d.Y) {
		return fmt.Errorf("ports: %s: %d groups g, %d x and %d counts y, want the same number of each, at least 1", model, len(d.Group), len(d.X), len(d.Y))
	}
	if d.J < 1 {
		return fmt.Errorf("ports: %s: J = %d, want at least 1", model, d.J)
	}
	for i, g := range d.Group {
		if g < 0 || g >= d.J {
			return fmt.Errorf("ports: %s: g[%d] = %d, want a group in 0…%d (0-based)", model, i, g, d.J-1)
		}
	}
	for i, y := range d.Y {
		if y < 0 {
			return fmt.Errorf("ports: %s: y[%d] = %d, want a count ≥ 0", model, i, y)
		}
	}
	return nil
}

// GLMMPoisson builds glmm_poisson (stan/glmm_poisson.stan), a Poisson regression
// with varying intercepts in the centred form, as a user porting the Stan program
// writes it, the intercepts a plate:
//
//	b0, b1 ~ N(0, 5²); sigma ~ N(0, 1) on (0, ∞);
//	a[j] ~ N(b0, sigma²); y[i] ~ Poisson(exp(a[g[i]] + b1·x[i])).
func GLMMPoisson(d GLMMPoissonData) (*graph.Model, error) {
	if err := checkGLMMPoisson("glmm_poisson", d); err != nil {
		return nil, err
	}
	b := graph.New()
	b0 := b.Latent("b0", graph.Normal(graph.C(0), graph.C(5)))
	b1 := b.Latent("b1", graph.Normal(graph.C(0), graph.C(5)))
	sigma := b.Latent("sigma", graph.HalfNormal(graph.C(1)))
	a := b.Latent("a", graph.Normal(b0, sigma), d.J)
	b.ObserveInts("y", graph.PoissonLog(graph.Add(graph.Index(a, d.Group), graph.Mul(b1, graph.Data(d.X)))), d.Y)
	return built("glmm_poisson", b)
}

// GLMMPoissonNC builds glmm_poisson_nc (stan/glmm_poisson_nc.stan), the same
// regression in the non-centred form, as a user porting the Stan program writes
// it, the standardised intercepts a plate:
//
//	b0, b1 ~ N(0, 5²); sigma ~ N(0, 1) on (0, ∞);
//	z[j] ~ N(0, 1); y[i] ~ Poisson(exp(b0 + b1·x[i] + sigma·z[g[i]])).
func GLMMPoissonNC(d GLMMPoissonData) (*graph.Model, error) {
	if err := checkGLMMPoisson("glmm_poisson_nc", d); err != nil {
		return nil, err
	}
	b := graph.New()
	b0 := b.Latent("b0", graph.Normal(graph.C(0), graph.C(5)))
	b1 := b.Latent("b1", graph.Normal(graph.C(0), graph.C(5)))
	sigma := b.Latent("sigma", graph.HalfNormal(graph.C(1)))
	z := b.Latent("z", graph.Normal(graph.C(0), graph.C(1)), d.J)
	eta := graph.Add(graph.Add(b0, graph.Mul(b1, graph.Data(d.X))), graph.Mul(sigma, graph.Index(z, d.Group)))
	b.ObserveInts("y", graph.PoissonLog(eta), d.Y)
	return built("glmm_poisson_nc", b)
}

func glmmPoissonPort() *models.Port { return glmmPoissonPortOf("glmm_poisson", "a", GLMMPoisson) }

// glmmPoissonPortOf is glmm_poisson's port under the name of a form of it, built by
// build, whose group effects are called effects: a (the intercepts) or z (their
// standardised values). The data and their generator are the same; the truth holds
// the form's parameters.
func glmmPoissonPortOf(name, effects string, build func(GLMMPoissonData) (*graph.Model, error)) *models.Port {
	return port(models.Spec{Name: name, DefaultN: GLMMPoissonN, DefaultK: GLMMPoissonJ,
		SummaryVariables: []string{"b0", "b1", "sigma", effects}},
		name, "-n rows N [600]; -k groups J [30]; row i in group i mod J",
		func(rng *rand.Rand, n, k int) (GLMMPoissonData, named, error) {
			if n < k {
				return GLMMPoissonData{}, nil, sizeErr(name, "n", n, "want at least one row per group (-k %d)", k)
			}
			d, p := SimulateGLMMPoisson(rng, n, k, GLMMPoissonTruth)
			if effects == "a" {
				p.Z = nil
			} else {
				p.A = nil
			}
			return d, p, nil
		},
		ReadGLMMPoisson, build)
}
