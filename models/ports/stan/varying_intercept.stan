// Varying-intercept regression (radon-like): J groups of very unequal sizes, one
// coefficient, the group intercepts centred on their mean.
data {
  int<lower=1> N;
  int<lower=1> J;
  int<lower=1, upper=J> group[N];
  vector[N] x;
  vector[N] y;
}
parameters {
  vector[J] a;
  real b;
  real mu_a;
  real<lower=0> sigma_a;
  real<lower=0> sigma_y;
}
model {
  mu_a ~ normal(0, 10);
  b ~ normal(0, 10);
  sigma_a ~ normal(0, 1);
  sigma_y ~ normal(0, 1);
  a ~ normal(mu_a, sigma_a);
  y ~ normal(a[group] + b * x, sigma_y);
}
