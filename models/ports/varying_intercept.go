package ports

import (
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/nmc-go/nmc/frames"
	"github.com/nmc-go/nmc/models"
	"github.com/nmc-go/nmc/nmc/graph"
)

// VaryingInterceptData is the data of varying_intercept: N rows (group, x, y) in J
// groups; groups are 0-based here and 1-based in the Stan data.
type VaryingInterceptData struct {
	J     int
	Group []int
	X, Y  []float64
}

// StanVars returns the data as varying_intercept.stan declares them: N, J, group
// (1-based), x and y.
func (d VaryingInterceptData) StanVars() []frames.StanVar {
	g := make([]int, len(d.Group))
	for i, v := range d.Group {
		g[i] = v + 1
	}
	return []frames.StanVar{frames.StanInt("N", len(d.Y)), frames.StanInt("J", d.J), frames.StanInts("group", g),
		frames.StanReals("x", d.X), frames.StanReals("y", d.Y)}
}

// Size returns N.
func (d VaryingInterceptData) Size() int { return len(d.Y) }

// Describe describes the data: "919 rows in 85 groups".
func (d VaryingInterceptData) Describe() string {
	return fmt.Sprintf("%d rows in %d groups", len(d.Y), d.J)
}

// ReadVaryingIntercept takes varying_intercept's data from CmdStan JSON data:
// N ≥ 1, J ≥ 1, N groups in 1…J, N reals x and y.
func ReadVaryingIntercept(sd *frames.StanData) (VaryingInterceptData, error) {
	var d VaryingInterceptData
	n, err := stanInt(sd, "N", 1)
	if err != nil {
		return d, err
	}
	if d.J, err = stanInt(sd, "J", 1); err != nil {
		return d, err
	}
	if d.Group, err = stanInts(sd, "group", n, "N", 1, d.J); err != nil {
		return d, err
	}
	for i := range d.Group {
		d.Group[i]--
	}
	if d.X, err = stanFloats(sd, "x", n, "N"); err != nil {
		return d, err
	}
	d.Y, err = stanFloats(sd, "y", n, "N")
	return d, err
}

// VaryingInterceptParams are the parameters of varying_intercept.
type VaryingInterceptParams struct {
	A                      []float64
	B, MuA, SigmaA, SigmaY float64
}

// Named returns the parameters under their names in the draws.
func (p VaryingInterceptParams) Named() ([]string, []float64) {
	names := append(indexed("a", len(p.A)), "b", "mu_a", "sigma_a", "sigma_y")
	return names, append(append([]float64(nil), p.A...), p.B, p.MuA, p.SigmaA, p.SigmaY)
}

// The sizes and parameters of varying_intercept's generated data, those of the
// radon data of Minnesota (Gelman and Hill 2007): J groups of skewed sizes summing
// to VaryingInterceptN rows by default, a floor indicator x that is 1 in about 17%
// of the rows, intercepts a[j] ~ N(mu_a, sigma_a²).
const (
	VaryingInterceptJ      = 85
	VaryingInterceptN      = 919
	varyingInterceptFloor1 = 0.17
)

// VaryingInterceptTruth are the hyperparameters and coefficient the data are
// generated with (the intercepts are drawn from N(MuA, SigmaA²)).
var VaryingInterceptTruth = VaryingInterceptParams{B: -0.7, MuA: 1.5, SigmaA: 0.3, SigmaY: 0.75}

// SimulateVaryingIntercept draws n rows in j groups: group sizes 1 + a share of
// n − j proportional to exp(1.5·z_j), z_j standard normal (a few large groups, many
// of one to three rows, as the radon counties), x Bernoulli(0.17), intercepts
// a[j] ~ N(mu_a, sigma_a²) and y ~ N(a[group] + b·x, sigma_y²). p.A is ignored and
// the intercepts drawn are returned in the parameters.
func SimulateVaryingIntercept(rng *rand.Rand, n, j int, p VaryingInterceptParams) (VaryingInterceptData, VaryingInterceptParams) {
	w := make([]float64, j)
	total := 0.0
	for g := range w {
		w[g] = math.Exp(1.5 * rng.NormFloat64())
		total += w[g]
	}
	sizes := make([]int, j)
	left := n
	for g := range sizes {
		sizes[g] = 1 + int(float64(n-j)*w[g]/total)
		left -= sizes[g]
	}
	for left > 0 { // rounding: the rest to the groups in turn, largest weights first
		for g := range sizes {
			if left == 0 {
				break
			}
			if w[g]/total >= 1/float64(j) {
				sizes[g]++
				left--
			}
		}
	}
	p.A = make([]float64, j)
	for g := range p.A {
		p.A[g] = p.MuA + p.SigmaA*rng.NormFloat64()
	}
	d := VaryingInterceptData{J: j}
	for g, s := range sizes {
		for range s {
			x := 0.0
			if rng.Float64() < varyingInterceptFloor1 {
				x = 1
			}
			d.Group = append(d.Group, g)
			d.X = append(d.X, x)
			d.Y = append(d.Y, p.A[g]+p.B*x+p.SigmaY*rng.NormFloat64())
		}
	}
	return d, p
}

// VaryingIntercept builds varying_intercept (stan/varying_intercept.stan) as a user
// porting the Stan program writes it, the intercepts a plate:
//
//	mu_a ~ N(0, 10²); b ~ N(0, 10²); sigma_a, sigma_y ~ N(0, 1) on (0, ∞);
//	a[j] ~ N(mu_a, sigma_a²); y[i] ~ N(a[group[i]] + b·x[i], sigma_y²).
func VaryingIntercept(d VaryingInterceptData) (*graph.Model, error) {
	if len(d.Y) == 0 || len(d.X) != len(d.Y) || len(d.Group) != len(d.Y) {
		return nil, fmt.Errorf("ports: varying_intercept: %d groups, %d x and %d y, want the same number of each, at least 1", len(d.Group), len(d.X), len(d.Y))
	}
	if d.J < 1 {
		return nil, fmt.Errorf("ports: varying_intercept: J = %d, want at least 1", d.J)
	}
	b := graph.New()
	muA := b.Latent("mu_a", graph.Normal(graph.C(0), graph.C(10)))
	coef := b.Latent("b", graph.Normal(graph.C(0), graph.C(10)))
	sigmaA := b.Latent("sigma_a", graph.HalfNormal(graph.C(1)))
	sigmaY := b.Latent("sigma_y", graph.HalfNormal(graph.C(1)))
	a := b.Latent("a", graph.Normal(muA, sigmaA), d.J)
	b.Observe("y", graph.Normal(graph.Add(graph.Index(a, d.Group), graph.Mul(coef, graph.Data(d.X))), sigmaY), d.Y)
	return built("varying_intercept", b)
}

func varyingInterceptPort() *models.Port {
	return port(models.Spec{Name: "varying_intercept", DefaultN: VaryingInterceptN, DefaultK: VaryingInterceptJ,
		SummaryVariables: []string{"a", "b", "mu_a", "sigma_a", "sigma_y"}},
		"varying_intercept", "-n rows N [919]; -k groups J [85]",
		func(rng *rand.Rand, n, k int) (VaryingInterceptData, named, error) {
			if n < k {
				return VaryingInterceptData{}, nil, sizeErr("varying_intercept", "n", n, "want at least one row per group (-k %d)", k)
			}
			d, p := SimulateVaryingIntercept(rng, n, k, VaryingInterceptTruth)
			return d, p, nil
		},
		ReadVaryingIntercept, VaryingIntercept)
}
