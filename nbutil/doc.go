// Package nbutil holds small helpers for the GoNB notebooks in notebooks/: a live
// progress line for the sampler, HTML tables of a posterior summary and of the
// per-site proposal statistics, a convergence verdict, an HTML table of posterior
// means against exact values (the comparisons of diagnostics.CompareExact), and
// posterior-mean confusion matrices of the Dawid-Skene model. The running
// predictive log-likelihood curves of held-out data are diagnostics.PLLPerChain
// and diagnostics.PLLInterleaved.
//
// # Overview
//
// The functions that build HTML (ProgressHTML, SummaryHTML, SiteStatsHTML,
// ExactHTML) are pure and return a string; Show displays such a string in a GoNB
// notebook and does nothing elsewhere, so the helpers can be used from ordinary
// programs and tests. Progress is an nmc.Options.Progress callback that keeps one
// HTML block up to date with gonbui.UpdateHTML.
//
// # Conventions
//
// Chains, draws and indices are 0-based, as in packages nmc and frames. Numbers
// are shown with 3 significant digits (whole numbers from 1000 up) and NaN as
// "NA", as diagnostics.FormatSummary shows them. Every string taken from the
// caller (variable names, titles) is HTML-escaped.
package nbutil
