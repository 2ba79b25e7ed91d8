// Package sbc checks a sampler's calibration on a model by simulation-based
// calibration (SBC; Talts et al. 2018): the same implementation serves as a test of
// the NMC sampler (package nmc) and as the user's tool behind "nmc sbc".
//
// # Overview
//
// If θ̃ is drawn from the prior, ỹ from the likelihood given θ̃, and θ₁ … θ_L from
// the exact posterior given ỹ, then θ̃ is one more draw of that posterior, so the rank
// of θ̃ among θ₁ … θ_L — the number of θ_l below θ̃ — is uniform on 0 … L, for every
// scalar parameter. A sampler that gets the posterior wrong (a missing Jacobian, a
// wrong reverse proposal, draws too narrow or biased) makes the ranks pile up at the
// ends, in the middle or on one side.
//
// [Run] repeats, for each of Config.Sims simulations: draw θ̃ and ỹ and build the
// posterior model given ỹ (the Config.Simulator, which knows the model's prior and
// likelihood); sample it with nmc.Sample, keeping L = Config.MaxRank draws after
// Config.Warmup warm-up sweeps, thinned by Config.Thin (every Thin-th sweep) so that
// they are roughly independent, as the paper asks (autocorrelated draws make the
// ranks over-dispersed even for a correct sampler); and record the rank of each
// parameter's simulated value among its L draws, ties (discrete parameters) broken
// uniformly at random as the SBC R package does. Simulations run in parallel over
// Config.Workers goroutines (default GOMAXPROCS), each sampling with Config.Chains
// chains (default 1).
//
// The [Result] holds every rank and simulated value; [Result.Uniformity] tests each
// parameter's ranks with Pearson's χ² on equal-width bins
// (diagnostics.RankChiSquare), [Result.ECDF] gives the ECDF of the ranks with the
// simultaneous band of Säilynoja et al. (2022) (diagnostics.RankECDFBand), and
// [Result.WriteCSV] writes the ranks with the SBC R package's columns. viz.RankHistogram
// and viz.ECDFDiff draw the two plots.
//
// # Reproducibility
//
// Simulation i (0-based) draws all its random numbers — the simulator's θ̃ and ỹ,
// the sampler's seed, the tie breaks — from rand.NewPCG(Config.Seed, i): the sampler
// seed is the stream's first Uint64, then the simulator runs, then the ties are
// broken. A simulation's ranks therefore depend on the seed and its index only, and
// a Result is bit for bit the same whatever GOMAXPROCS, Config.Workers or the
// scheduling.
//
// # References
//
//   - Talts, S., Betancourt, M., Simpson, D., Vehtari, A. and Gelman, A. (2018).
//     Validating Bayesian inference algorithms with simulation-based calibration.
//     arXiv:1804.06788.
//   - Säilynoja, T., Bürkner, P.-C. and Vehtari, A. (2022). Graphical test for
//     discrete uniformity and its applications in goodness-of-fit evaluation and
//     multiple sample comparison. Statistics and Computing 32, 32.
//   - Modrák, M., Moon, A. H., Kim, S., Bürkner, P., Huurre, N., Faltejsková, K.,
//     Gelman, A. and Vehtari, A. (2023). Simulation-based calibration checking for
//     Bayesian computation: the choice of test quantities shapes sensitivity.
//     Bayesian Analysis (the SBC R package).
package sbc
