// Package frames converts MCMC draws (draws.Draws) to and from gota data frames
// and CSV files — nmc's own, R posterior's, pandas/ArviZ's and CmdStan's — and
// summary rows to data frames, and reads model data from CSV tables and from the
// JSON data files of Stan programs.
//
// # Overview
//
// draws.Draws is the exchange type between the sampler, the diagnostics, the plots
// and files. DataFrame and LongDataFrame give gota views of draws for exploration;
// FromDataFrame goes back. WriteCSV, WriteCSVFile and ReadCSV store draws in a
// full-precision CSV file that round-trips bit for bit (gota's own CSV writer keeps
// only six decimals, so it is not used). ReadCmdStanCSV and ReadCmdStanFiles load
// the output of CmdStan's sampler for comparison with other implementations.
//
// # Model data
//
// ReadTable and ReadTableFile load numeric data tables (model inputs) from CSV.
// ReadStanJSON and ReadStanJSONFile read the data a Stan user already has: a file
// in CmdStan's JSON data format (posteriordb's data files, cmdstanr's and
// cmdstanpy's write_stan_json), {"N": 3, "y": [1.5, 2, 0.3], "X": [[1, 2], [3, 4],
// [5, 6]]}. StanData's accessors return each variable in the form a model builder
// takes — Int, Float, Ints, Floats, Matrix (a gonum *mat.Dense) and, for arrays of
// any shape, Array and IntArray (dims and row-major values) — and refuse what does
// not fit with an error naming the variable and the element: a real where an
// integer is wanted, NaN or an infinity where finite data are (unless
// AllowNonFinite), a ragged or malformed array when the file is read.
// WriteStanJSON and WriteStanJSONFile write such a file (StanInt, StanReals,
// StanMatrix, StanArray … make its variables; StanData.Vars gives those of a file
// read), integers as integers and reals so that they read back as reals, bit for
// bit: the data of a simulated model handed to Stan.
//
// # Draws files of other tools
//
// ReadDrawsFile and ReadDrawsFiles read draws in any of these formats, told
// apart by the header (DetectFormat), and ReadDrawsFiles merges the files of one
// run split over machines as its chains, in the order given:
//
//   - nmc's draws CSV (FormatNMC; WriteCSV): chain,draw,mu,"theta[0,1]"
//   - pandas/ArviZ CSV (FormatDataFrame; DataFrame.to_csv, possibly of
//     InferenceData.to_dataframe()): ,chain,draw,mu,theta[0] with a leading
//     index column, or chain,draw,variable,value (long)
//   - R posterior's draws_df (FormatPosterior; write.csv(as_draws_df(x))):
//     "","mu","theta[1]",".chain",".iteration",".draw"
//   - CmdStan's output CSV (FormatCmdStan): # comments, then lp__,accept_stat__,…,theta.1
//
// The first three are read by ReadDataFrameCSV (ReadPosteriorCSV for draws_df
// alone) with FromDataFrame's rules: chains identified by their numbers, 0- or
// 1-based, and renumbered from 0; draws ordered by their numbers; R's and Stan's
// 1-based names converted to 0-based ones (PosteriorToName, StanToName); missing
// values (R's NA, pandas's empty cell) refused with the line and column.
// ReadCSV stays the exact inverse of WriteCSV.
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
