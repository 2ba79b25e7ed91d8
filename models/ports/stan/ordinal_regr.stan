// Ordinal logistic regression: K ordered categories of a latent x * beta plus
// logistic noise among K - 1 increasing cutpoints c (Stan's ordered type).
data {
  int<lower=2> K;
  int<lower=0> N;
  int<lower=1> P;
  int<lower=1, upper=K> y[N];
  matrix[N, P] x;
}
parameters {
  vector[P] beta;
  ordered[K - 1] c;
}
model {
  beta ~ normal(0, 2.5);
  c ~ normal(0, 5);
  y ~ ordered_logistic(x * beta, c);
}
