package nmc

import (
	"fmt"
	"math"
	"math/rand/v2"
)

// Hand-written test models with group moves (Grouper, OrbitScorer) and Marginalised
// sites. Derivatives along an orbit are computed from the exact full gradient and
// Hessian of the log density: with u = dx/dt and w = d²x/dt² at t = 0,
// d[0] = ∇f·u and d[1] = uᵀ∇²f u + ∇f·w.

// orbitTangent writes u = dx/dt and w = d²x/dt² at t = 0 of group g's orbit through x
// (zero outside the group).
func orbitTangent(g Group, x, u, w []float64) {
	clear(u)
	clear(w)
	for _, oc := range g.Coords {
		if oc.Kind == Shift {
			u[oc.Coord] = oc.Rate
			continue
		}
		if oc.Kind == ShiftOver {
			u[oc.Coord] = oc.Rate / x[oc.Anchor]
			continue
		}
		a := 0.0
		if oc.Anchor >= 0 {
			a = x[oc.Anchor]
		}
		u[oc.Coord] = oc.Rate * (x[oc.Coord] - a)
		w[oc.Coord] = oc.Rate * oc.Rate * (x[oc.Coord] - a)
	}
}

// gaussGroup: x ~ N(mean, prec⁻¹) over n Real sites "x0", "x1", … of size 1, with
// the declared groups. Every score is the full log density (it differs from a
// Markov-blanket score by a constant in the site).
type gaussGroup struct {
	mean     []float64
	prec     []float64 // n×n, row-major
	groups   []Group
	positive int // 1 + the index of a site declared Positive (the anchor of a ShiftOver, never moved); 0: none
}

func (m *gaussGroup) n() int { return len(m.mean) }
func (m *gaussGroup) Sites() []Site {
	s := make([]Site, m.n())
	for i := range s {
		s[i] = Site{Name: fmt.Sprintf("x%d", i), Size: 1, Support: Real}
	}
	if m.positive > 0 {
		s[m.positive-1].Support = Positive
	}
	return s
}
func (m *gaussGroup) Groups() []Group { return m.groups }
func (m *gaussGroup) NewScorer() Scorer {
	n := m.n()
	return &gaussGroupScorer{m: m, r: make([]float64, n), g: make([]float64, n), u: make([]float64, n), w: make([]float64, n)}
}
func (m *gaussGroup) Init(rng *rand.Rand, x []float64) error {
	for i := range x {
		x[i] = m.mean[i] + rng.NormFloat64()
	}
	return nil
}

// gaussGroupNb is gaussGroup as a Neighborer (every site reads every other).
type gaussGroupNb struct{ *gaussGroup }

func (m gaussGroupNb) Neighbors(i int) []int {
	var nb []int
	for j := 0; j < m.n(); j++ {
		if j != i {
			nb = append(nb, j)
		}
	}
	return nb
}

type gaussGroupScorer struct {
	m          *gaussGroup
	r, g, u, w []float64 // scratch
}

// full returns the log density and leaves its gradient in s.g.
func (s *gaussGroupScorer) full(x []float64) float64 {
	n, p := s.m.n(), s.m.prec
	for i := range s.r {
		s.r[i] = x[i] - s.m.mean[i]
	}
	f := 0.0
	for i := 0; i < n; i++ {
		t := 0.0
		for j := 0; j < n; j++ {
			t += p[i*n+j] * s.r[j]
		}
		s.g[i] = -t
		f -= 0.5 * s.r[i] * t
	}
	return f
}

func (s *gaussGroupScorer) Score(x []float64, i int, grad, hess []float64) float64 {
	f := s.full(x)
	if grad != nil {
		grad[0], hess[0] = s.g[i], -s.m.prec[i*s.m.n()+i]
	}
	return f
}
func (s *gaussGroupScorer) LogJoint(x []float64) float64 { return s.full(x) }
func (s *gaussGroupScorer) ScoreOrbit(x []float64, gi int, d *[2]float64) float64 {
	f := s.full(x)
	if d != nil {
		n := s.m.n()
		orbitTangent(s.m.groups[gi], x, s.u, s.w)
		d[0], d[1] = 0, 0
		for i := 0; i < n; i++ {
			d[0] += s.g[i] * s.u[i]
			d[1] += s.g[i] * s.w[i]
			for j := 0; j < n; j++ {
				d[1] -= s.u[i] * s.m.prec[i*n+j] * s.u[j]
			}
		}
	}
	return f
}

// groupedScalar is a scalarModel (independent copies of one scalar density) with
// groups; its sites' coordinates are dilated about 0 or shifted.
type groupedScalar struct {
	*scalarModel
	groups []Group
}

func (m *groupedScalar) NewScorer() Scorer { return m }
func (m *groupedScalar) Groups() []Group   { return m.groups }
func (m *groupedScalar) ScoreOrbit(x []float64, gi int, d *[2]float64) float64 {
	f := 0.0
	var d0, d1 float64
	for _, oc := range m.groups[gi].Coords {
		v := x[oc.Coord]
		fv, g, h := m.fn(v)
		f += fv
		u, w := oc.Rate, 0.0
		if oc.Kind == Dilate {
			u, w = oc.Rate*v, oc.Rate*oc.Rate*v
		}
		d0 += g * u
		d1 += h*u*u + g*w
	}
	if math.IsNaN(f) {
		return math.Inf(-1)
	}
	if d != nil {
		d[0], d[1] = d0, d1
	}
	return f
}

// funnelGroup is Neal's funnel in k + 1 dimensions, z ~ N(0, 3²),
// x_j ~ N(0, (e^{z/2})²), j < k, with sites "z" (size 1) and "x" (size k), and the
// group that shifts z by 2t and dilates every x_j by e^t, which keeps x_j/e^{z/2}
// fixed. It is a Neighborer.
type funnelGroup struct{ k int }

func (m funnelGroup) Sites() []Site {
	return []Site{{Name: "z", Size: 1, Support: Real}, {Name: "x", Size: m.k, Support: Real}}
}
func (m funnelGroup) NewScorer() Scorer     { return m }
func (m funnelGroup) Neighbors(i int) []int { return []int{1 - i} }
func (m funnelGroup) Groups() []Group {
	g := Group{Name: "funnel", Coords: []OrbitCoord{{Coord: 0, Kind: Shift, Rate: 2, Anchor: -1}}}
	for j := 0; j < m.k; j++ {
		g.Coords = append(g.Coords, OrbitCoord{Coord: 1 + j, Kind: Dilate, Rate: 1, Anchor: -1})
	}
	return []Group{g}
}
func (m funnelGroup) Init(rng *rand.Rand, x []float64) error {
	x[0] = 3 * rng.NormFloat64()
	for j := 1; j <= m.k; j++ {
		x[j] = math.Exp(x[0]/2) * rng.NormFloat64()
	}
	return nil
}
func (m funnelGroup) LogJoint(x []float64) float64 { return m.Score(x, 0, nil, nil) }

// parts returns the log density, e = e^{−z} and q = Σ x_j² e^{−z}.
func (m funnelGroup) parts(x []float64) (f, e, q float64) {
	z := x[0]
	e = math.Exp(-z)
	for _, v := range x[1 : 1+m.k] {
		q += v * v * e
	}
	return -z*z/18 - float64(m.k)*z/2 - q/2, e, q
}
func (m funnelGroup) Score(x []float64, i int, grad, hess []float64) float64 {
	f, e, q := m.parts(x)
	if grad == nil {
		return f
	}
	if i == 0 {
		grad[0], hess[0] = -x[0]/9-float64(m.k)/2+q/2, -1.0/9-q/2
		return f
	}
	clear(hess)
	for j := 0; j < m.k; j++ {
		grad[j], hess[j*m.k+j] = -x[1+j]*e, -e
	}
	return f
}

// ScoreOrbit: along the orbit u_z = 2, u_x = x, w_x = x; with ∂f/∂z = −z/9 − k/2 +
// q/2, ∂f/∂x_j = −x_j e, ∂²f/∂z² = −1/9 − q/2, ∂²f/∂z∂x_j = x_j e, ∂²f/∂x_j² = −e:
// d[0] = 2(−z/9 − k/2 + q/2) − q and d[1] = 4(−1/9 − q/2) + 4q − q − q = −4/9.
func (m funnelGroup) ScoreOrbit(x []float64, _ int, d *[2]float64) float64 {
	f, _, q := m.parts(x)
	if d != nil {
		z := x[0]
		gz := -z/9 - float64(m.k)/2 + q/2
		d[0] = 2*gz - q
		d[1] = 4*(-1.0/9-q/2) + 4*q - q - q
	}
	return f
}

// mixture2 is a two-component Gaussian mixture with known weights and unit variances:
// mu = (μ₀, μ₁) with μ_c ~ N(mixPriorMean[c], 1.5²), z_i ~ Categorical(mixWeights),
// y_i ~ N(μ_{z_i}, 1). Sites: "mu" (Real, size 2) and z[0], …, z[n−1] (Discrete, 2
// values). With marginal set, z is summed out of mu's score and LogJoint and the z
// sites are Marginalised; with shift set, the model declares the group that shifts
// μ₀ and μ₁ together (and implements OrbitScorer).
type mixture2 struct {
	ys       []float64
	marginal bool
}

type mixture2Shift struct{ *mixture2 }

func (m mixture2Shift) Groups() []Group {
	return []Group{{Name: "shift(mu)", Coords: []OrbitCoord{{Coord: 0, Kind: Shift, Rate: 1, Anchor: -1}, {Coord: 1, Kind: Shift, Rate: 1, Anchor: -1}}}}
}

var (
	mixWeights   = [2]float64{0.4, 0.6}
	mixPriorMean = [2]float64{-1, 1.5}
)

const mixPriorSD = 1.5

func mixtureData() []float64 { return []float64{-1.8, -0.6, 0.2, 0.9, 1.7, 2.6} }

func (m *mixture2) Sites() []Site {
	s := []Site{{Name: "mu", Size: 2, Support: Real}}
	for i := range m.ys {
		s = append(s, Site{Name: fmt.Sprintf("z[%d]", i), Size: 1, Support: Discrete, NumValues: 2, Marginalised: m.marginal})
	}
	return s
}
func (m *mixture2) NewScorer() Scorer { return m }
func (m *mixture2) Init(rng *rand.Rand, x []float64) error {
	for c := range 2 {
		x[c] = mixPriorMean[c] + mixPriorSD*rng.NormFloat64()
	}
	for i := range m.ys {
		x[2+i] = float64(rng.IntN(2))
	}
	return nil
}

// muScore returns the score of mu (prior plus likelihood; with z summed out when
// marginal) with its gradient g and diagonal-or-full Hessian h (2×2).
func (m *mixture2) muScore(x []float64, g, h *[4]float64) float64 {
	f := 0.0
	*g, *h = [4]float64{}, [4]float64{}
	for c := range 2 {
		r := x[c] - mixPriorMean[c]
		f -= 0.5 * r * r / (mixPriorSD * mixPriorSD)
		g[c] -= r / (mixPriorSD * mixPriorSD)
		h[3*c] -= 1 / (mixPriorSD * mixPriorSD)
	}
	for i, y := range m.ys {
		if !m.marginal {
			c := int(x[2+i])
			r := y - x[c]
			f += -0.5 * r * r
			g[c] += r
			h[3*c] -= 1
			continue
		}
		// a_c = log w_c − (y − μ_c)²/2; ∇a_c = (y − μ_c)e_c, ∇²a_c = −e_c e_cᵀ.
		var a, da [2]float64
		for c := range 2 {
			da[c] = y - x[c]
			a[c] = math.Log(mixWeights[c]) - 0.5*da[c]*da[c]
		}
		top := max(a[0], a[1])
		lse := top + math.Log(math.Exp(a[0]-top)+math.Exp(a[1]-top))
		f += lse
		r := [2]float64{math.Exp(a[0] - lse), math.Exp(a[1] - lse)}
		for c := range 2 {
			g[c] += r[c] * da[c]
			h[3*c] += -r[c] + r[c]*da[c]*da[c] - r[c]*da[c]*r[c]*da[c]
		}
		h[1] -= r[0] * da[0] * r[1] * da[1]
		h[2] -= r[0] * da[0] * r[1] * da[1]
	}
	return f
}

func (m *mixture2) Score(x []float64, i int, grad, hess []float64) float64 {
	if i > 0 {
		z := x[1+i]
		if z != 0 && z != 1 {
			return math.Inf(-1)
		}
		r := m.ys[i-1] - x[int(z)]
		return math.Log(mixWeights[int(z)]) - 0.5*r*r
	}
	var g, h [4]float64
	f := m.muScore(x, &g, &h)
	if grad != nil {
		copy(grad, g[:2])
		copy(hess, h[:])
	}
	return f
}

func (m *mixture2) LogJoint(x []float64) float64 {
	var g, h [4]float64
	f := m.muScore(x, &g, &h)
	if !m.marginal {
		for i := range m.ys {
			f += math.Log(mixWeights[int(x[2+i])])
		}
	}
	return f
}

func (m mixture2Shift) NewScorer() Scorer { return m }

// ScoreOrbit of the shift of both μ: u = (1, 1), w = 0.
func (m mixture2Shift) ScoreOrbit(x []float64, _ int, d *[2]float64) float64 {
	var g, h [4]float64
	f := m.muScore(x, &g, &h)
	if d != nil {
		d[0] = g[0] + g[1]
		d[1] = h[0] + h[1] + h[2] + h[3]
	}
	return f
}

// mixtureTruth returns, by quadrature over a grid of μ, the posterior means and sds
// of μ₀, μ₁ and P(z_i = 1 | y) for every observation.
func mixtureTruth(ys []float64) (mean, sd [2]float64, pz []float64) {
	const lo, hi, step = -9.0, 9.0, 0.02
	m := &mixture2{ys: ys, marginal: true}
	pz = make([]float64, len(ys))
	x := make([]float64, 2+len(ys))
	var g, h [4]float64
	var s1, s2 [2]float64
	var total float64
	top := math.Inf(-1)
	n := int((hi-lo)/step) + 1
	// Two passes: the first finds the largest log density, for stable weights.
	for pass := range 2 {
		for a := 0; a < n; a++ {
			for b := 0; b < n; b++ {
				x[0], x[1] = lo+float64(a)*step, lo+float64(b)*step
				f := m.muScore(x, &g, &h)
				if pass == 0 {
					top = max(top, f)
					continue
				}
				p := math.Exp(f - top)
				total += p
				for c := range 2 {
					s1[c] += p * x[c]
					s2[c] += p * x[c] * x[c]
				}
				for i, y := range ys {
					a0 := math.Log(mixWeights[0]) - 0.5*(y-x[0])*(y-x[0])
					a1 := math.Log(mixWeights[1]) - 0.5*(y-x[1])*(y-x[1])
					pz[i] += p / (1 + math.Exp(a0-a1))
				}
			}
		}
	}
	for c := range 2 {
		mean[c] = s1[c] / total
		sd[c] = math.Sqrt(s2[c]/total - mean[c]*mean[c])
	}
	for i := range pz {
		pz[i] /= total
	}
	return mean, sd, pz
}
