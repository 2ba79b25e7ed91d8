package graph

import (
	"fmt"

	"gonum.org/v1/gonum/mat"

	"github.com/nmc-go/nmc/nmc/dist"
)

// Normal is N(mu, sigma²), sigma the standard deviation.
func Normal(mu, sigma *Node) *Dist { return NewDist(dist.Normal{}, 1, mu, sigma) }

// HalfNormal is the normal N(0, sigma²) folded onto (0, ∞).
func HalfNormal(sigma *Node) *Dist { return NewDist(dist.HalfNormal{}, 1, sigma) }

// LogNormal is the distribution of exp(N(mu, sigma²)).
func LogNormal(mu, sigma *Node) *Dist { return NewDist(dist.LogNormal{}, 1, mu, sigma) }

// StudentT is Student's t with nu degrees of freedom, location mu and scale sigma.
func StudentT(nu, mu, sigma *Node) *Dist { return NewDist(dist.StudentT{}, 1, nu, mu, sigma) }

// HalfStudentT is the half-Student-t with nu > 0 degrees of freedom and scale sigma
// > 0 on [0, ∞), the law of |X| for X ~ StudentT(ν, 0, σ) (Stan's student_t on a
// parameter declared <lower=0>): a scale prior with heavier tails than HalfNormal.
func HalfStudentT(nu, sigma *Node) *Dist { return NewDist(dist.HalfStudentT{}, 1, nu, sigma) }

// Flat is the improper flat prior on the reals, log p(x) = 0 (Stan's default for a
// parameter without a prior statement). The posterior is proper only if the
// likelihood makes it so. A Flat latent has no prior to draw a start from: Init starts
// it uniform on (−2, 2) (Stan's rule), and the sampler's start refinement then moves
// it towards the posterior. It is for latents: Observe refuses it (the data would add
// nothing to the density).
func Flat() *Dist { return NewDist(dist.Flat{}, 1) }

// HalfFlat is the improper flat prior on (0, ∞), log p(x) = 0 (Stan's default for a
// parameter declared <lower=0> without a prior statement). Init starts a HalfFlat
// latent at exp(U), U uniform on (−2, 2) (Stan's rule on the log scale), then start
// refinement moves it towards the posterior. It is for latents: Observe refuses it.
func HalfFlat() *Dist { return NewDist(dist.HalfFlat{}, 1) }

// Cauchy has location mu and scale.
func Cauchy(mu, scale *Node) *Dist { return NewDist(dist.Cauchy{}, 1, mu, scale) }

// HalfCauchy is the Cauchy(0, scale) folded onto (0, ∞).
func HalfCauchy(scale *Node) *Dist { return NewDist(dist.HalfCauchy{}, 1, scale) }

// Gamma has shape alpha and rate beta.
func Gamma(alpha, beta *Node) *Dist { return NewDist(dist.Gamma{}, 1, alpha, beta) }

// InverseGamma has shape alpha and scale beta.
func InverseGamma(alpha, beta *Node) *Dist { return NewDist(dist.InverseGamma{}, 1, alpha, beta) }

// Exponential has the given rate.
func Exponential(rate *Node) *Dist { return NewDist(dist.Exponential{}, 1, rate) }

// Beta has shapes alpha and beta; its support is (0, 1).
func Beta(alpha, beta *Node) *Dist { return NewDist(dist.Beta{}, 1, alpha, beta) }

// Uniform is uniform on (a, b); a and b must be constant for a Latent. For bounds
// given by nodes (other latents), declare the latent with Bounded, whose prior may
// be a Uniform with node parameters.
func Uniform(a, b *Node) *Dist { return NewDist(dist.Uniform{}, 1, a, b) }

// Dirichlet has concentration alpha, a node of width k (the simplex dimension).
func Dirichlet(alpha *Node) *Dist {
	if alpha == nil {
		return NewDist(dist.Dirichlet{}, 0, alpha)
	}
	return NewDist(dist.Dirichlet{}, alpha.width, alpha)
}

// MultivariateNormal has mean mu (a node of width k) and a constant covariance
// matrix (k×k, symmetric positive definite). A mean of another width is an error
// returned by Build. For a covariance that depends on latents, see
// MultivariateNormalCov.
func MultivariateNormal(mu *Node, cov *mat.SymDense) *Dist {
	fam, err := dist.NewMultivariateNormal(cov)
	if err != nil {
		return &Dist{err: err}
	}
	if mu == nil {
		return NewDist(fam, 0, mu)
	}
	if mu.err == nil && mu.width != fam.Dim() {
		return &Dist{fam: fam, err: fmt.Errorf("graph: MultivariateNormal parameter mean has width %d, want %d", mu.width, fam.Dim())}
	}
	return NewDist(fam, mu.width, mu)
}

// Bernoulli has success probability p; values 0 and 1.
func Bernoulli(p *Node) *Dist { return NewDist(dist.Bernoulli{}, 1, p) }

// BernoulliLogit has success probability logistic(logit).
func BernoulliLogit(logit *Node) *Dist { return NewDist(dist.BernoulliLogit{}, 1, logit) }

// Binomial counts successes in n trials of probability p.
func Binomial(n, p *Node) *Dist { return NewDist(dist.Binomial{}, 1, n, p) }

// BinomialLogit is Binomial with probability logistic(logit).
func BinomialLogit(n, logit *Node) *Dist { return NewDist(dist.BinomialLogit{}, 1, n, logit) }

// Categorical takes values 0 … k−1 with probabilities p (a node of width k).
func Categorical(p *Node) *Dist {
	if p == nil {
		return NewDist(dist.Categorical{}, 0, p)
	}
	return NewDist(dist.Categorical{}, p.width, p)
}

// CategoricalLogits takes values 0 … k−1 with probabilities softmax(logits).
func CategoricalLogits(logits *Node) *Dist {
	if logits == nil {
		return NewDist(dist.CategoricalLogits{}, 0, logits)
	}
	return NewDist(dist.CategoricalLogits{}, logits.width, logits)
}

// Poisson has the given rate.
func Poisson(rate *Node) *Dist { return NewDist(dist.Poisson{}, 1, rate) }

// PoissonLog is Poisson with rate exp(logRate).
func PoissonLog(logRate *Node) *Dist { return NewDist(dist.PoissonLog{}, 1, logRate) }

// NegBinomial2 is the negative binomial of mean mu and dispersion phi (variance
// mu + mu²/phi; Stan's neg_binomial_2).
func NegBinomial2(mu, phi *Node) *Dist { return NewDist(dist.NegBinomial2{}, 1, mu, phi) }

// NegBinomial2Log is NegBinomial2 with mean exp(eta) (Stan's neg_binomial_2_log).
func NegBinomial2Log(eta, phi *Node) *Dist { return NewDist(dist.NegBinomial2Log{}, 1, eta, phi) }

// Weibull has shape alpha and scale sigma (Stan's weibull).
func Weibull(alpha, sigma *Node) *Dist { return NewDist(dist.Weibull{}, 1, alpha, sigma) }

// LogisticDist is the logistic distribution of location mu and scale s (Stan's
// logistic; Logistic is the logistic function).
func LogisticDist(mu, s *Node) *Dist { return NewDist(dist.Logistic{}, 1, mu, s) }

// OrderedLogistic takes values 0 … k−1, the category of eta + logistic noise
// among the k − 1 increasing cutpoints: Stan's ordered_logistic, 0-based. The
// cutpoints are one vector: a node of scalar elements (an Ordered latent, a Vector
// site), whose elements are its components, or a node of width k − 1 (of one
// element, or one per observation).
func OrderedLogistic(eta, cutpoints *Node) *Dist {
	if cutpoints == nil {
		return NewDist(dist.OrderedLogistic{}, 0, eta, cutpoints)
	}
	if cutpoints.width == 1 && cutpoints.err == nil {
		cutpoints = Reshape(cutpoints, 1, cutpoints.length)
	}
	return NewDist(dist.OrderedLogistic{}, cutpoints.width+1, eta, cutpoints)
}
