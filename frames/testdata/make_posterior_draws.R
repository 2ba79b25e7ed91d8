# Writes the R posterior fixtures of package frames (run from frames/testdata):
#
#   Rscript make_posterior_draws.R
#
# with R 4.2 and posterior 1.4.0 (Debian bookworm: apt-get install r-cran-posterior).
#
# posterior_draws_df.csv           write.csv(as_draws_df(x)): row names, .chain, .iteration, .draw
# posterior_draws_df_norownames.csv  the same with row.names = FALSE
# posterior_summary.csv            summarize_draws of those draws as written, to check nmc's summary against
# posterior_matrix_na.csv          a matrix quantity (Sigma[i,j]) and one NA, as R writes it
# pandas_draws.csv                 the same draws in the layout of pandas's DataFrame.to_csv of
#                                  ArviZ's InferenceData.to_dataframe(): a leading unnamed index
#                                  column, 0-based chain and draw, 0-based names (pandas itself is
#                                  not used; R writes the numbers with 15 significant digits, as in
#                                  the draws_df file, so both files hold the same doubles)
# arviz_draws_1based.csv           the same without the index column, chains and draws numbered
#                                  from 1, rows ordered by draw and then chain
suppressPackageStartupMessages(library(posterior))

x <- subset_draws(example_draws("eight_schools"),
                  variable = c("mu", "tau", "theta[1]", "theta[2]"), iteration = 1:25)
d <- as_draws_df(x)
write.csv(d, "posterior_draws_df.csv")
write.csv(d, "posterior_draws_df_norownames.csv", row.names = FALSE)

# The summary is of the draws as written (15 significant digits), read back by R:
# rank-based diagnostics can change in the last digits of the rounding (rhat of
# theta[2] is 1.13065 for the full-precision draws, 1.13008 for the written ones).
back <- as_draws_df(read.csv("posterior_draws_df.csv", row.names = 1, check.names = FALSE))
s <- summarize_draws(back, "mean", "median", "sd", "mad", ~quantile2(.x, probs = c(0.05, 0.95)),
                     "rhat", "ess_bulk", "ess_tail", "mcse_mean", "mcse_sd")
s[] <- lapply(s, function(col) if (is.numeric(col)) as.numeric(col) else col)
write.csv(as.data.frame(s), "posterior_summary.csv", row.names = FALSE)

set.seed(13)
m <- matrix(round(rnorm(2 * 3 * 4), 6), nrow = 6,
            dimnames = list(NULL, c("Sigma[1,1]", "Sigma[2,1]", "Sigma[1,2]", "Sigma[2,2]")))
m[5, 3] <- NA
dm <- as_draws_df(as_draws_matrix(m))
dm$.chain <- rep(1:2, each = 3)
dm$.iteration <- rep(1:3, times = 2)
write.csv(dm, "posterior_matrix_na.csv")

plain <- as.data.frame(d)
names(plain)[names(plain) == "theta[1]"] <- "theta[0]"
names(plain)[names(plain) == "theta[2]"] <- "theta[1]"
vars <- c("mu", "tau", "theta[0]", "theta[1]")
pd <- data.frame(chain = plain$.chain - 1, draw = plain$.iteration - 1, plain[vars], check.names = FALSE)
write.table(cbind(idx = seq_len(nrow(pd)) - 1, pd), "pandas_draws.csv", sep = ",", quote = FALSE,
            row.names = FALSE, col.names = c("", names(pd)))
az <- data.frame(chain = plain$.chain, draw = plain$.iteration, plain[vars], check.names = FALSE)
az <- az[order(az$draw, az$chain), ]
write.table(az, "arviz_draws_1based.csv", sep = ",", quote = FALSE, row.names = FALSE)
