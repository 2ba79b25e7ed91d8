// One-compartment pharmacokinetics with first-order absorption and
// Michaelis-Menten elimination (after posteriordb's one_comp_mm_elim_abs): an oral
// dose D at t = 0 into a volume V; the concentration C solves
//   dC/dt = exp(-k_a t) D k_a / V - (V_m / V) C / (K_m + C),  C(0) = 0,
// observed with lognormal noise.
functions {
  real[] one_comp(real t, real[] C, real[] theta, real[] x_r, int[] x_i) {
    real dCdt[1];
    dCdt[1] = exp(-theta[1] * t) * x_r[1] * theta[1] / x_r[2]
              - (theta[3] / x_r[2]) * C[1] / (theta[2] + C[1]);
    return dCdt;
  }
}
data {
  int<lower=1> N_t;
  real<lower=0> times[N_t];
  real<lower=0> C_hat[N_t];
  real<lower=0> D;
  real<lower=0> V;
}
transformed data {
  real x_r[2] = {D, V};
  int x_i[0];
}
parameters {
  real<lower=0> k_a;
  real<lower=0> K_m;
  real<lower=0> V_m;
  real<lower=0> sigma;
}
model {
  real C[N_t, 1] = integrate_ode_rk45(one_comp, {0.0}, 0.0, times, {k_a, K_m, V_m}, x_r, x_i);
  k_a ~ lognormal(0, 0.5);
  K_m ~ lognormal(log(4), 0.5);
  V_m ~ lognormal(log(8), 0.5);
  sigma ~ normal(0, 0.5);
  C_hat ~ lognormal(log(to_vector(C[, 1])), sigma);
}
