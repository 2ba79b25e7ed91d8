// A Poisson regression with varying intercepts, non-centred: the intercepts are
// b0 + sigma * z[j], z[j] ~ N(0, 1). rstan 2.21 (old array syntax).
data {
  int<lower=1> N;
  int<lower=1> J;
  vector[N] x;
  int<lower=1, upper=J> g[N];
  int<lower=0> y[N];
}
parameters {
  real b0;
  real b1;
  real<lower=0> sigma;
  vector[J] z;
}
model {
  b0 ~ normal(0, 5);
  b1 ~ normal(0, 5);
  sigma ~ normal(0, 1);
  z ~ normal(0, 1);
  y ~ poisson_log(b0 + b1 * x + sigma * z[g]);
}
