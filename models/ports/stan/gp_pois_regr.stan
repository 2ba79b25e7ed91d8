// Latent Gaussian process with Poisson observations (posteriordb's gp_pois_regr,
// centred): f ~ GP(0, exponentiated quadratic kernel), k ~ poisson_log(f).
data {
  int<lower=1> N;
  real x[N];
  int<lower=0> k[N];
}
parameters {
  real<lower=0> rho;
  real<lower=0> alpha;
  vector[N] f;
}
model {
  matrix[N, N] cov = cov_exp_quad(x, alpha, rho) + diag_matrix(rep_vector(1e-10, N));
  rho ~ gamma(25, 4);
  alpha ~ normal(0, 2);
  f ~ multi_normal(rep_vector(0, N), cov);
  k ~ poisson_log(f);
}
