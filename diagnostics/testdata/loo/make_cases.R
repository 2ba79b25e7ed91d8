# Makes the extra PSIS-LOO test cases of package diagnostics with R's loo 2.5.1
# (Debian r-cran-loo). Run from this folder: Rscript make_cases.R
# Each case is a folder with one CmdStan-style CSV file per chain (columns
# lp__, log_lik.1 … log_lik.N, 17 significant digits), expected_estimates.csv
# (loo and waic estimates) and expected_pointwise.csv (loo pointwise values,
# r_eff and the PSIS effective sample size). compare/expected_compare.csv is
# loo_compare of the cases autocorr and autocorr_b (same 30 observations).
# expected_print_*.txt hold what R's print() shows for loo, waic and loo_compare.
suppressMessages(library(loo))
stopifnot(packageVersion("loo") == "2.5.1")
set.seed(20261125)

# ar1 returns n draws of an AR(1) chain with stationary law N(m, s^2).
ar1 <- function(n, phi, m, s) {
  z <- numeric(n)
  z[1] <- rnorm(1)
  for (t in 2:n) z[t] <- phi * z[t - 1] + sqrt(1 - phi^2) * rnorm(1)
  m + s * z
}

# normal_ll is the C-chain array of log N(y | mu, sigma) for chains of draws.
normal_ll <- function(y, mu, sigma) {
  n <- nrow(mu); C <- ncol(mu); N <- length(y)
  x <- array(NA_real_, c(n, C, N))
  for (c in 1:C) for (i in 1:N) x[, c, i] <- dnorm(y[i], mu[, c], sigma[, c], log = TRUE)
  x
}

# write_prints keeps what print() shows for the loo and waic objects.
write_prints <- function(name, l, w) {
  writeLines(capture.output(print(l)), file.path(name, "expected_print_loo.txt"))
  writeLines(capture.output(print(w)), file.path(name, "expected_print_waic.txt"))
}

write_case <- function(name, x) {
  dir.create(name, showWarnings = FALSE)
  C <- dim(x)[2]; N <- dim(x)[3]
  for (c in 1:C) {
    m <- matrix(x[, c, ], ncol = N)
    m <- cbind(rowSums(m), m) # lp__ (here the log-likelihood) marks CmdStan's format
    colnames(m) <- c("lp__", paste0("log_lik.", 1:N))
    f <- file.path(name, sprintf("output_%d.csv", c))
    writeLines(paste(colnames(m), collapse = ","), f)
    lines <- apply(m, 1, function(r) paste(sprintf("%.17g", r), collapse = ","))
    write(lines, f, append = TRUE)
  }
  r <- relative_eff(exp(x))
  l <- suppressWarnings(loo(x, r_eff = r))
  w <- suppressWarnings(waic(x))
  write_prints(name, l, w)
  est <- rbind(l$estimates, w$estimates)
  write.csv(data.frame(name = rownames(est), estimate = est[, 1], se = est[, 2]),
            file.path(name, "expected_estimates.csv"), row.names = FALSE)
  pw <- cbind(l$pointwise, r_eff = r, psis_n_eff = l$diagnostics$n_eff)
  write.csv(format(as.data.frame(pw), digits = 17), file.path(name, "expected_pointwise.csv"),
            row.names = FALSE, quote = FALSE)
  cat(name, ": S =", dim(x)[1] * C, " N =", N, " r_eff", range(r), " k", range(l$diagnostics$pareto_k), "\n")
  l
}

# one_chain: one chain of 1000 nearly independent draws, 20 observations.
y <- rnorm(20, 1, 2)
mu <- matrix(rnorm(1000, mean(y), 2 / sqrt(20)), ncol = 1)
sg <- matrix(exp(rnorm(1000, log(2), 0.15)), ncol = 1)
write_case("one_chain", normal_ll(y, mu, sg))

# autocorr: 4 strongly autocorrelated chains of 250 draws (r_eff well below 1).
y <- c(rnorm(29), 4.5)
mu <- sapply(1:4, function(c) ar1(250, 0.97, mean(y), 0.2))
sg <- sapply(1:4, function(c) exp(ar1(250, 0.97, log(sd(y)), 0.13)))
la <- write_case("autocorr", normal_ll(y, mu, sg))
# autocorr_b: the same data, sigma fixed at 1 (another model for loo_compare).
lb <- write_case("autocorr_b", normal_ll(y, mu, matrix(1, 250, 4)))
dir.create("compare", showWarnings = FALSE)
cmp <- loo_compare(list(autocorr = la, autocorr_b = lb))
writeLines(capture.output(print(cmp)), "compare/expected_print_compare.txt")
write.csv(data.frame(model = rownames(cmp), elpd_diff = cmp[, "elpd_diff"], se_diff = cmp[, "se_diff"]),
          "compare/expected_compare.csv", row.names = FALSE)

# small: 3 chains of 49 draws (147 draws; 49 is not a 2-3-5 FFT size), 10 observations.
y <- rnorm(10)
mu <- sapply(1:3, function(c) ar1(49, 0.5, mean(y), 0.3))
sg <- sapply(1:3, function(c) exp(ar1(49, 0.5, 0, 0.2)))
write_case("small", normal_ll(y, mu, sg))

# khigh: 2 chains of 400 draws; observation 8 is far out in the tail (k > 1).
y <- c(rnorm(7), 9)
mu <- sapply(1:2, function(c) ar1(400, 0.3, 0, 0.35))
sg <- sapply(1:2, function(c) exp(ar1(400, 0.3, -0.1, 0.1)))
write_case("khigh", normal_ll(y, mu, sg))

# tiny: 2 chains of 10 draws: the tail is shorter than 5 draws, k = Inf.
y <- rnorm(4)
mu <- sapply(1:2, function(c) rnorm(10, 0, 0.5))
write_case("tiny", normal_ll(y, mu, matrix(1, 10, 2)))

# The printed output of the worked case (its chains and expected values are given).
fs <- sprintf("output_%d.csv", 1:4)
L <- lapply(fs, function(f) as.matrix(read.csv(f, comment.char = "#")[, -1]))
x <- array(NA_real_, c(nrow(L[[1]]), 4, ncol(L[[1]])))
for (c in 1:4) x[, c, ] <- L[[c]]
write_prints(".", suppressWarnings(loo(x, r_eff = relative_eff(exp(x)))), suppressWarnings(waic(x)))
