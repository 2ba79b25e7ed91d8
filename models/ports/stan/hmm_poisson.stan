// Hidden Markov model of counts: K states (2 here), Poisson emissions with ordered
// rates, Dirichlet(1, ..., 1) transition rows and initial distribution; the states
// summed out by the forward algorithm (Stan 2.21 has no hmm_marginal).
data {
  int<lower=1> N;
  int<lower=1> K;
  int<lower=0> y[N];
}
parameters {
  simplex[K] Gamma[K];
  simplex[K] rho;
  positive_ordered[K] lambda;
}
model {
  vector[K] la;
  lambda ~ gamma(2, 0.2);
  for (k in 1:K)
    la[k] = log(rho[k]) + poisson_lpmf(y[1] | lambda[k]);
  for (t in 2:N) {
    vector[K] next;
    for (k in 1:K) {
      vector[K] acc;
      for (j in 1:K)
        acc[j] = la[j] + log(Gamma[j, k]);
      next[k] = log_sum_exp(acc) + poisson_lpmf(y[t] | lambda[k]);
    }
    la = next;
  }
  target += log_sum_exp(la);
}
