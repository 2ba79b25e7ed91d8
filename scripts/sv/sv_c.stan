data { int<lower=1> T; vector[T] y; }
parameters {
  real mu;
  real<lower=-1, upper=1> phi;
  real<lower=0> sigma;
  vector[T] h;
}
model {
  phi ~ uniform(-1, 1);
  sigma ~ cauchy(0, 5);
  mu ~ cauchy(0, 10);
  h[1] ~ normal(mu, sigma / sqrt(1 - phi * phi));
  for (t in 2:T) h[t] ~ normal(mu + phi * (h[t - 1] - mu), sigma);
  y ~ normal(0, exp(h / 2));
}
