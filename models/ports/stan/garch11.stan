// GARCH(1, 1): y[t] ~ normal(mu, sigma[t]),
// sigma[t]^2 = alpha0 + alpha1 * (y[t-1] - mu)^2 + beta1 * sigma[t-1]^2,
// sigma[1] given (posteriordb's garch11). The priors are flat on the constrained
// region: mu on the reals, alpha0 > 0, 0 < alpha1 < 1, 0 < beta1 < 1 - alpha1.
data {
  int<lower=2> T;
  real y[T];
  real<lower=0> sigma1;
}
parameters {
  real mu;
  real<lower=0> alpha0;
  real<lower=0, upper=1> alpha1;
  real<lower=0, upper=(1 - alpha1)> beta1;
}
model {
  real sigma[T];
  sigma[1] = sigma1;
  for (t in 2:T)
    sigma[t] = sqrt(alpha0 + alpha1 * square(y[t - 1] - mu) + beta1 * square(sigma[t - 1]));
  y ~ normal(mu, sigma);
}
