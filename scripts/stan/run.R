# Runs one Stan program on one CmdStan-format JSON data file with rstan's defaults
# (4 chains x (1000 warm-up + 1000 draws), NUTS, adapt_delta 0.8) and prints one CSV row:
# model,seed,min_bulk_ess,min_tail_ess,max_rhat,cpu_s,bulk_ess_per_cpu_s,divergent
# ESS and R-hat are R posterior's (the same definitions as nmc's diagnostics) over the
# parameters the caller names (default: every parameter but lp__); cpu_s is the sum over
# chains of get_elapsed_time (warm-up + sampling; compilation and R's start excluded).
#
# Usage: Rscript scripts/stan/run.R MODEL.stan DATA.json SEED [PARAM,PARAM,...]
#            [--iter=N] [--summary=FILE]
# --iter sets the draws per chain after the 1000 warm-up iterations (default 1000);
# --summary writes R posterior's summary of the named parameters (variable, mean, sd,
# mcse_mean, rhat, ess_bulk, ess_tail; Stan's 1-based names) to FILE as CSV.
# The compiled model is cached beside MODEL.stan (rstan's auto_write: MODEL.rds).
# Needs Debian's r-cran-rstan, r-cran-posterior, r-cran-jsonlite and libboost-dev.
suppressPackageStartupMessages({
  library(rstan)
  library(posterior)
  library(jsonlite)
})
all_args <- commandArgs(trailingOnly = TRUE)
opts <- all_args[startsWith(all_args, "--")]
args <- all_args[!startsWith(all_args, "--")]
stopifnot(length(args) >= 3)
opt <- function(name, default) {
  hit <- opts[startsWith(opts, paste0("--", name, "="))]
  if (length(hit) == 0) default else sub("^--[^=]*=", "", hit[length(hit)])
}
iter <- as.integer(opt("iter", "1000"))
summary_file <- opt("summary", "")
stan_file <- args[1]; data_file <- args[2]; seed <- as.integer(args[3])
rstan_options(auto_write = TRUE, boost_lib = "/usr/include")
model <- stan_model(stan_file)
data <- fromJSON(data_file, simplifyVector = TRUE)
fit <- sampling(model, data = data, chains = 4, iter = 1000 + iter, warmup = 1000, seed = seed,
                cores = 1, refresh = 0)
draws <- as_draws_array(fit)
pars <- setdiff(variables(draws), "lp__")
if (length(args) >= 4 && nchar(args[4]) > 0) {
  wanted <- strsplit(args[4], ",")[[1]]
  pars <- pars[sub("\\[.*", "", pars) %in% wanted]
}
draws <- subset_draws(draws, variable = pars)
s <- summarise_draws(draws, "mean", "sd", "mcse_mean", "rhat", "ess_bulk", "ess_tail")
if (nchar(summary_file) > 0) {
  # posterior's summary columns are formatted numbers (pillar_num): plain ones for CSV.
  out <- data.frame(variable = s$variable)
  for (col in setdiff(names(s), "variable")) out[[col]] <- as.numeric(unclass(s[[col]]))
  write.csv(out, summary_file, row.names = FALSE)
}
cpu <- sum(get_elapsed_time(fit))
div <- sum(get_divergent_iterations(fit))
cat(sprintf("%s,%d,%.1f,%.1f,%.4f,%.3f,%.1f,%d\n", sub("\\.stan$", "", basename(stan_file)), seed,
            min(s$ess_bulk), min(s$ess_tail), max(s$rhat), cpu, min(s$ess_bulk) / cpu, div))
