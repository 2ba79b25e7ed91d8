// Latent Gaussian process with Poisson observations (posteriordb's gp_pois_regr),
// non-centred: f = cholesky_decompose(K) * eta, eta ~ normal(0, 1).
data {
  int<lower=1> N;
  real x[N];
  int<lower=0> k[N];
}
parameters {
  real<lower=0> rho;
  real<lower=0> alpha;
  vector[N] eta;
}
transformed parameters {
  vector[N] f;
  {
    matrix[N, N] cov = cov_exp_quad(x, alpha, rho) + diag_matrix(rep_vector(1e-10, N));
    f = cholesky_decompose(cov) * eta;
  }
}
model {
  rho ~ gamma(25, 4);
  alpha ~ normal(0, 2);
  eta ~ normal(0, 1);
  k ~ poisson_log(f);
}
