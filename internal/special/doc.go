// Package special provides the special functions that the distributions of nmc need
// beyond package math: the digamma function ψ, the trigamma function ψ₁, the softplus
// log(1 + eˣ) and its inverse-free companions, and a stable log-sum-exp.
//
// # Accuracy
//
// Digamma and Trigamma are accurate to about 1e-13 relative for arguments away from
// the zeros of ψ (where only an absolute error of a few ulps of the summed terms can be
// promised); Log1pExp, Logistic and LogSumExp are accurate to a few ulps.
//
// # References
//
// [1] NIST Digital Library of Mathematical Functions, §5.11 (asymptotic expansions of
// ψ and ψ₁), §5.5 (recurrence and reflection), https://dlmf.nist.gov/5.
//
// [2] M. Mächler (2012), "Accurately computing log(1 − exp(−|a|))", the R package
// Rmpfr vignette, for the thresholds of log1pexp.
package special
