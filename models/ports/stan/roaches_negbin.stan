// Negative binomial regression of roach counts (posteriordb's roaches_negbinomial,
// Gelman and Hill's pest-management study): the counts after treatment, offset by
// the log exposure, regressed on the pre-treatment count (in hundreds), treatment
// and a senior-building indicator, overdispersed by phi.
data {
  int<lower=0> N;
  vector[N] exposure2;
  vector[N] roach1;
  vector[N] senior;
  vector[N] treatment;
  int<lower=0> y[N];
}
transformed data {
  vector[N] log_expo = log(exposure2);
}
parameters {
  vector[4] beta;
  real<lower=0> phi;
}
model {
  beta ~ normal(0, 2.5);
  phi ~ exponential(1);
  y ~ neg_binomial_2_log(log_expo + beta[1] + beta[2] * roach1 + beta[3] * treatment
                         + beta[4] * senior, phi);
}
