// Multi-logit (softmax) regression, as the Stan user's guide writes it: K
// categories, the first the reference (logit 0), the others' logits x * beta.
data {
  int<lower=2> K;
  int<lower=0> N;
  int<lower=1> D;
  int<lower=1, upper=K> y[N];
  matrix[N, D] x;
}
parameters {
  matrix[D, K - 1] beta;
}
model {
  matrix[N, K] x_beta = append_col(rep_vector(0, N), x * beta);
  to_vector(beta) ~ normal(0, 5);
  for (n in 1:N)
    y[n] ~ categorical_logit(x_beta[n]');
}
