// A Poisson regression with varying intercepts, centred: the intercepts a[j] are
// drawn from N(b0, sigma^2). rstan 2.21 (old array syntax).
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
  vector[J] a;
}
model {
  b0 ~ normal(0, 5);
  b1 ~ normal(0, 5);
  sigma ~ normal(0, 1);
  a ~ normal(b0, sigma);
  y ~ poisson_log(a[g] + b1 * x);
}
