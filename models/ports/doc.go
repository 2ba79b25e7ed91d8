// Package ports holds the reference models users port from Stan, each written with
// the public nmc/graph API the way a user porting the Stan program would write it,
// beside its Stan program (old array syntax, for rstan 2.21) so that the two can be
// run on the same data and compared:
//
//   - arma11: ARMA(1, 1), posteriordb's arma11 (ARMA11);
//   - garch11: GARCH(1, 1), posteriordb's garch11 (GARCH11);
//   - linreg_2scalar and linreg_vector: a linear regression on an uncentred predictor,
//     intercept and slope as two scalar latents (LinReg2Scalar) and as one 2-d
//     Vector site (LinRegVector);
//   - varying_intercept: a radon-like varying-intercept regression, 85 groups of
//     skewed sizes, 919 rows, the intercepts a plate (VaryingIntercept);
//   - normal_mixture and normal_mixture_overlap: two normal components with ordered
//     means and Stan's log_mix, 20 and 2 standard deviations apart (NormalMixture);
//   - hmm_poisson and hmm_poisson_overlap: a two-state hidden Markov model of counts
//     with ordered Poisson rates far apart and close, the states summed out by the
//     forward algorithm (HMMPoisson);
//   - gp_pois_regr: a latent Gaussian process with Poisson counts at 11 points,
//     posteriordb's, and gp_regr: a Gaussian process regression by its marginal
//     likelihood (GPPois, GPRegr);
//   - gp_pois_regr_nc: gp_pois_regr in the non-centred form, f = L(α, ρ)·η (GPPoisNC);
//   - one_comp_mm_elim_abs: a one-compartment pharmacokinetic ODE with
//     Michaelis-Menten elimination, solved by Runge-Kutta in plain Go inside
//     graph.Func (Stan: integrate_ode_rk45) (PK);
//   - roaches_negbin: a negative binomial regression of roach counts with a log
//     exposure offset, posteriordb's roaches_negbinomial (Roaches);
//   - ordinal_regr: an ordinal logistic regression, four categories, ordered
//     cutpoints (Ordinal);
//   - multi_logit: a multinomial logistic (softmax) regression, four categories,
//     the Stan user's guide's categorical_logit program (MultiLogit);
//   - glmm_poisson and glmm_poisson_nc: a Poisson regression with varying
//     intercepts, 600 rows in 30 groups, the intercepts a plate, in the centred
//     form, a[j] ~ N(b0, sigma²), and the non-centred one, b0 + sigma·z[j] with
//     z[j] ~ N(0, 1) (GLMMPoisson, GLMMPoissonNC).
//
// Each model has a data type with the Stan program's data block (StanVars, for
// frames.WriteStanJSON), a reader of CmdStan JSON data (ReadARMA11, …, over
// frames.ReadStanJSON), a seeded simulator (SimulateARMA11, …) with the parameters
// the command line's data are generated with (ARMA11Truth, …), and a builder.
// StanProgram returns the Stan programs, which are embedded. Where the Stan program
// declares a constrained vector (ordered, positive_ordered) or a bound that depends
// on another parameter, the builder declares the same (Ordered, PositiveOrdered,
// Bounded) and the draws record the value under the Stan program's name beside the
// raw sites the sampler moves (mu__raw[0], …).
//
// Importing the package registers the models with package models (models.Register),
// so that the command line samples them on generated data or on a CmdStan JSON file
// and writes their data with the Stan program:
//
//	nmc sample -model arma11 -n 200 -seed 3
//	nmc gen -model arma11 -seed 3 -out dir/     # dir/arma11.json, dir/arma11.stan
//	nmc sample -model arma11 -data dir/arma11.json
//
// scripts/stan/compare.sh runs each model on the same data with nmc and with rstan
// and prints the minimum bulk ESS per CPU second of both (BENCHMARKS.md).
//
// Names follow the Stan programs: a parameter y[1] of Stan is y[0] in the draws
// (0-based), and integer indices in the data (group) are 1-based in the JSON file
// and 0-based in Go.
package ports
