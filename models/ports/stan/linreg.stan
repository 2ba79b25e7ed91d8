// Linear regression on one uncentred predictor: the intercept and the slope are
// strongly correlated a posteriori (about -0.9995 with x near 30 +- 1).
data {
  int<lower=1> N;
  vector[N] x;
  vector[N] y;
}
parameters {
  real alpha;
  real beta;
  real<lower=0> sigma;
}
model {
  alpha ~ normal(0, 100);
  beta ~ normal(0, 10);
  sigma ~ normal(0, 10);
  y ~ normal(alpha + beta * x, sigma);
}
