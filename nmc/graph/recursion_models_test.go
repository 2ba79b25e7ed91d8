package graph

import (
	"fmt"
	"math"
	"math/rand/v2"
)

// Time-series models declared as a user would, one scalar node per time step built
// in a Go loop (issue 27), and hand-written scorers of the same log densities
// (value, gradient and Hessian of each site in closed form) to check and time
// them against.

// armaSeries simulates T observations of an ARMA(1,1) process
// y_t = mu + phi·y_{t−1} + theta·eps_{t−1} + eps_t, eps_t ~ N(0, sigma²), y_0 from
// mu + eps_0.
func armaSeries(rng *rand.Rand, T int, mu, phi, theta, sigma float64) []float64 {
	y := make([]float64, T)
	prevY, prevE := mu, 0.0
	for t := range y {
		e := sigma * rng.NormFloat64()
		y[t] = mu + phi*prevY + theta*prevE + e
		if t == 0 {
			y[t] = mu + e
		}
		prevY, prevE = y[t], e
	}
	return y
}

// armaModel is posteriordb's arma11: mu ~ N(0, 10), phi, theta ~ N(0, 2),
// sigma ~ half-Cauchy(0, 2.5), nu_1 = mu + phi·mu, err_t = y_t − nu_t,
// nu_t = mu + phi·y_{t−1} + theta·err_{t−1}, y_t ~ N(nu_t, sigma) (Stan's
// err ~ normal(0, sigma)). With concat the predictions are joined by Concat into
// one observation, else each y_t is an observation of its own.
func armaModel(y []float64, concat bool) (*Model, error) { return armaModelWith(y, concat, false) }

// armaModelWith is armaModel, with ham its four parameters declared the Hamiltonian
// block (moved together by Hamiltonian Monte Carlo once per sweep besides their
// single-site steps).
func armaModelWith(y []float64, concat, ham bool) (*Model, error) {
	b := New()
	par, nu := armaPredictions(b, y)
	sigma := par[3]
	if concat {
		b.Observe("y", Normal(Concat(nu...), sigma), y)
	} else {
		for t := range nu {
			b.Observe(fmt.Sprintf("y%d", t), Normal(nu[t], sigma), y[t:t+1])
		}
	}
	if ham {
		b.Hamiltonian(par[:]...)
	}
	return b.Build()
}

// armaPredictions declares armaModel's parameters (mu, phi, theta, sigma) in b
// and returns them and its predictions nu_1 … nu_T of y.
func armaPredictions(b *Builder, y []float64) (par [4]*Node, nu []*Node) {
	mu := b.Latent("mu", Normal(C(0), C(10)))
	phi := b.Latent("phi", Normal(C(0), C(2)))
	theta := b.Latent("theta", Normal(C(0), C(2)))
	sigma := b.Latent("sigma", HalfCauchy(C(2.5)))
	nu = make([]*Node, len(y))
	nu[0] = Add(mu, Mul(phi, mu))
	err := Sub(C(y[0]), nu[0])
	for t := 1; t < len(y); t++ {
		nu[t] = Add(Add(mu, Mul(phi, C(y[t-1]))), Mul(theta, err))
		err = Sub(C(y[t]), nu[t])
	}
	return [4]*Node{mu, phi, theta, sigma}, nu
}

// armaScorer is armaModel's log density written by hand: per site the prior and
// the T observations, with the first and second derivatives of the predictions
// carried along the recursion.
type armaScorer struct{ y []float64 }

const logSqrt2PiTest = 0.9189385332046727417803297 // log √(2π)

// score returns site i's Markov-blanket score at x = (mu, phi, theta, sigma) and
// its first and second derivatives in the site.
func (a armaScorer) score(x []float64, i int) (f, g, h float64) {
	mu, phi, theta, sigma := x[0], x[1], x[2], x[3]
	switch i {
	case 0:
		f, g, h = -0.5*mu*mu/100-math.Log(10)-logSqrt2PiTest, -mu/100, -1.0/100
	case 1:
		f, g, h = -0.5*phi*phi/4-math.Log(2)-logSqrt2PiTest, -phi/4, -1.0/4
	case 2:
		f, g, h = -0.5*theta*theta/4-math.Log(2)-logSqrt2PiTest, -theta/4, -1.0/4
	case 3:
		if !(sigma > 0) {
			return math.Inf(-1), 0, 0
		}
		z := sigma / 2.5
		f = math.Ln2 - math.Log(math.Pi*2.5) - math.Log1p(z*z)
		g = -2 * sigma / (2.5*2.5 + sigma*sigma)
		h = -2 * (2.5*2.5 - sigma*sigma) / ((2.5*2.5 + sigma*sigma) * (2.5*2.5 + sigma*sigma))
		ss := 0.0
		err := 0.0
		for t, yt := range a.y {
			nu := mu + phi*mu
			if t > 0 {
				nu = mu + phi*a.y[t-1] + theta*err
			}
			err = yt - nu
			ss += err * err
		}
		n := float64(len(a.y))
		f += -0.5*ss/(sigma*sigma) - n*math.Log(sigma) - n*logSqrt2PiTest
		g += ss/(sigma*sigma*sigma) - n/sigma
		h += -3*ss/(sigma*sigma*sigma*sigma) + n/(sigma*sigma)
		return f, g, h
	}
	if !(sigma > 0) {
		return math.Inf(-1), 0, 0
	}
	is2 := 1 / (sigma * sigma)
	// err_t and its derivatives e1 = ∂err_t/∂x_i, e2 = ∂²err_t/∂x_i².
	// theta's blanket leaves out y_1, whose prediction nu_1 = mu + phi·mu does
	// not read it.
	var err, e1, e2 float64
	ll, l1, l2, n := 0.0, 0.0, 0.0, 0.0
	for t, yt := range a.y {
		var nu, n1, n2 float64
		if t == 0 {
			nu = mu + phi*mu
			switch i {
			case 0:
				n1 = 1 + phi
			case 1:
				n1 = mu
			}
		} else {
			nu = mu + phi*a.y[t-1] + theta*err
			n1, n2 = theta*e1, theta*e2
			switch i {
			case 0:
				n1++
			case 1:
				n1 += a.y[t-1]
			case 2:
				n1 += err
				n2 += 2 * e1
			}
		}
		err, e1, e2 = yt-nu, -n1, -n2
		if t == 0 && i == 2 {
			continue
		}
		ll += err * err
		l1 += err * e1
		l2 += e1*e1 + err*e2
		n++
	}
	f += -0.5*ll*is2 - n*math.Log(sigma) - n*logSqrt2PiTest
	g += -l1 * is2
	h += -l2 * is2
	return f, g, h
}

// garchSeries simulates T observations of a GARCH(1,1) process y_t = mu + sigma_t·eps_t,
// sigma_1 = sigma1, sigma_t² = alpha0 + alpha1·(y_{t−1} − mu)² + beta1·sigma_{t−1}².
func garchSeries(rng *rand.Rand, T int, mu, alpha0, alpha1, beta1, sigma1 float64) []float64 {
	y := make([]float64, T)
	v := sigma1 * sigma1
	for t := range y {
		if t > 0 {
			r := y[t-1] - mu
			v = alpha0 + alpha1*r*r + beta1*v
		}
		y[t] = mu + math.Sqrt(v)*rng.NormFloat64()
	}
	return y
}

// garchModel is posteriordb's garch11: mu flat, alpha0 > 0 flat, alpha1 uniform on
// (0, 1), beta1 flat on (0, 1 − alpha1) (Bounded, a bound given by a node: its site
// is the fraction u = beta1/(1 − alpha1) on (0, 1), with the log Jacobian
// log(1 − alpha1)), sigma_t = √(alpha0 + alpha1·(y_{t−1} − mu)² + beta1·sigma_{t−1}²),
// sigma_1 = sigma1 (data), y_t ~ N(mu, sigma_t). With concat the scales are joined by
// Concat into one observation.
func garchModel(y []float64, sigma1 float64, concat bool) (*Model, error) {
	T := len(y)
	b := New()
	mu := b.Latent("mu", Flat())
	alpha0 := b.Latent("alpha0", HalfFlat())
	alpha1 := b.Latent("alpha1", Uniform(C(0), C(1)))
	beta1 := b.Bounded("beta1", C(0), Sub(C(1), alpha1), Flat())
	sigma := make([]*Node, T)
	sigma[0] = C(sigma1)
	for t := 1; t < T; t++ {
		r := Sub(C(y[t-1]), mu)
		sigma[t] = Sqrt(Add(Add(alpha0, Mul(alpha1, Pow(r, 2))), Mul(beta1, Pow(sigma[t-1], 2))))
	}
	if concat {
		b.Observe("y", Normal(mu, Concat(sigma...)), y)
	} else {
		for t := range sigma {
			b.Observe(fmt.Sprintf("y%d", t), Normal(mu, sigma[t]), y[t:t+1])
		}
	}
	return b.Build()
}

// garchScorer is garchModel's log density written by hand, in its sites (mu,
// alpha0, alpha1, u = beta1/(1 − alpha1)), with the variance v_t = sigma_t² and its
// first and second derivatives carried along the recursion.
type garchScorer struct {
	y      []float64
	sigma1 float64
}

// score returns site i's Markov-blanket score at x = (mu, alpha0, alpha1, u) and its
// first and second derivatives in the site.
func (gs garchScorer) score(x []float64, i int) (f, g, h float64) {
	mu, a0, a1, u := x[0], x[1], x[2], x[3]
	if !(a0 > 0) || !(a1 > 0 && a1 < 1) || !(u > 0 && u < 1) {
		return math.Inf(-1), 0, 0
	}
	switch i {
	case 2:
		// The Jacobian log(1 − alpha1).
		r := 1 - a1
		f, g, h = math.Log(r), -1/r, -1/(r*r)
	case 3:
		// The same term is in u's blanket (Bounded's element reads both), a
		// constant in u.
		f = math.Log(1 - a1)
	}
	b := (1 - a1) * u
	var v, v1, v2 float64
	for t, yt := range gs.y {
		if t == 0 {
			v = gs.sigma1 * gs.sigma1
		} else {
			r := gs.y[t-1] - mu
			n1, n2 := b*v1, b*v2
			switch i {
			case 0:
				n1 += -2 * a1 * r
				n2 += 2 * a1
			case 1:
				n1++
			case 2:
				n1 += r*r - u*v
				n2 += -2 * u * v1
			case 3:
				n1 += (1 - a1) * v
				n2 += 2 * (1 - a1) * v1
			}
			v, v1, v2 = a0+a1*r*r+b*v, n1, n2
		}
		if t == 0 && i != 0 {
			continue // y_1's scale is data: only mu's blanket holds it
		}
		// ℓ = −½ log v − r²/(2v) − log √(2π), r = y_t − mu.
		r := yt - mu
		iv := 1 / v
		f += -0.5*math.Log(v) - 0.5*r*r*iv - logSqrt2PiTest
		lv := -0.5*iv + 0.5*r*r*iv*iv
		lvv := 0.5*iv*iv - r*r*iv*iv*iv
		g += lv * v1
		h += lvv*v1*v1 + lv*v2
		if i == 0 {
			// ℓ's own dependence on mu: ∂ℓ/∂mu = r/v, ∂²ℓ/∂mu² = −1/v,
			// ∂²ℓ/∂v∂mu = −r/v².
			g += r * iv
			h += -iv + 2*(-r*iv*iv)*v1
		}
	}
	return f, g, h
}
