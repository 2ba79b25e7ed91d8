// Package frames converts MCMC draws (draws.Draws) to and from gota data frames,
// CSV files and CmdStan output files, and summary rows to data frames.
//
// # Overview
//
// draws.Draws is the exchange type between the sampler, the diagnostics, the plots
// and files. DataFrame and LongDataFrame give gota views of draws for exploration;
// FromDataFrame goes back. WriteCSV, WriteCSVFile and ReadCSV store draws in a
// full-precision CSV file that round-trips bit for bit (gota's own CSV writer keeps
// only six decimals, so it is not used). ReadCmdStanCSV and ReadCmdStanFiles load
// the output of CmdStan's sampler for comparison with other implementations.
// ReadTable and ReadTableFile load numeric data tables (model inputs) from CSV.
//
// # Conventions
//
// Chains and draws are numbered from 0. Draw frames and draw CSV files have the
// columns "chain" and "draw" (integers) followed by one float column per scalar
// quantity, named as in Draws.Names: "alpha", "beta[0]", "theta[2,1]" (0-based
// indices, several indices separated by commas). Floats are written with
// strconv's shortest exact representation ('g', -1), NaN as "NaN" and infinities as
// "+Inf" and "-Inf".
//
// Only this package imports gota; numeric packages use draws.Draws or
// [][]float64. Frame names gota's DataFrame for packages that hand frames out.
// Every error is returned, never panicked, and names the source, line, column or
// variable at fault.
package frames
