// Package viz builds diagnostic plots of MCMC draws with gonum/plot: traces, rank
// plots, densities (with a KDE and an exact density for conjugate checks), pair
// scatter plots, autocorrelation, forest plots, predictive log-likelihood curves,
// per-site acceptance bars, confusion-matrix heat maps, the rank histogram and
// ECDF-difference plot of simulation-based calibration, and predictive checks: the
// predictive density overlay (PPCDensity), test statistics (PPCStat), the Pareto k̂
// of PSIS-LOO by observation (ParetoK) and the LOO-PIT calibration plot (LOOPIT).
// The predictive checks take plain slices, observed[i] and replicates[s][i], so
// they work with any model.
//
// # Overview
//
// Every plot function builds and returns a *plot.Plot and never writes anything;
// the caller may still change titles, labels or axes before rendering. PNG, SVG,
// SavePNG and SaveSVG render a plot; Grid renders several plots as one PNG.
// Display and DisplaySVG show a plot in a GoNB notebook and do nothing elsewhere.
//
// # Conventions
//
// Chains and draws are numbered from 0, as in package frames; chain c is drawn in
// the colour plotutil.Color(c) in every plot and labelled "chain c". Non-finite
// draws (NaN, ±Inf) cannot be placed on an axis: plots that show individual
// values (Trace, Pair, Density, Forest) leave them out, and plots whose statistic
// needs every draw (Rank for NaN, Autocorr for any non-finite value) return an
// error naming the chain and draw. Invalid input — nil or empty draws, an unknown
// name, a column with no finite value, empty series — is reported as an error,
// never a panic. Sizes are vg.Length; PNG output uses 96 dots per inch, so a
// 6-inch-wide plot is 576 pixels wide.
package viz
