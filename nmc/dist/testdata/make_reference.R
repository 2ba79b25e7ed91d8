# Writes reference.csv: log densities of the families NegBinomial2, NegBinomial2Log,
# Weibull, Logistic and OrderedLogistic at test points, computed by R's own
# functions (dnbinom, dweibull, dlogis, plogis), independently of package dist.
# Run from this folder: Rscript make_reference.R   (R 4.2, Debian r-base-core)
# Columns: family, y, p1, p2, c0, c1, c2 (cutpoints, NA where unused), logp (%.17g).
rows <- list()
add <- function(family, y, p1, p2, cuts, logp) {
  cuts <- c(cuts, rep(NA, 3 - length(cuts)))
  f <- function(v) ifelse(is.na(v), "", sprintf("%.17g", v))
  rows[[length(rows) + 1]] <<- data.frame(family = family, y = f(y), p1 = f(p1), p2 = f(p2),
    c0 = f(cuts[1]), c1 = f(cuts[2]), c2 = f(cuts[3]), logp = f(logp))
}
nb <- rbind(c(3, 2.5, 1.5), c(0, 1e-3, 2), c(70, 50, 3), c(5, 4, 1e4), c(1000, 900, 0.5),
            c(12, 3, 0.2), c(200, 210, 40))
for (i in seq_len(nrow(nb))) {
  r <- nb[i, ]
  add("NegBinomial2", r[1], r[2], r[3], c(), dnbinom(r[1], size = r[3], mu = r[2], log = TRUE))
  add("NegBinomial2Log", r[1], log(r[2]), r[3], c(), dnbinom(r[1], size = r[3], mu = r[2], log = TRUE))
}
wb <- rbind(c(1.3, 2.5, 0.7), c(0.01, 0.5, 1), c(50, 3, 40), c(2, 1, 1), c(1e-4, 4, 2e-4))
for (i in seq_len(nrow(wb))) {
  r <- wb[i, ]
  add("Weibull", r[1], r[2], r[3], c(), dweibull(r[1], shape = r[2], scale = r[3], log = TRUE))
}
lg <- rbind(c(0.3, -0.2, 1.5), c(30, 0, 1), c(-40, 0, 1), c(1e-3, 0, 1e-3), c(-1e3, 1e3, 50))
for (i in seq_len(nrow(lg))) {
  r <- lg[i, ]
  add("Logistic", r[1], r[2], r[3], c(), dlogis(r[1], location = r[2], scale = r[3], log = TRUE))
}
# Ordered logistic, 0-based categories: P(y = j) = P(η + ε ∈ (c_{j−1}, c_j]), ε logistic.
ordp <- function(y, eta, cuts) {
  lo <- if (y == 0) -Inf else cuts[y]
  hi <- if (y == length(cuts)) Inf else cuts[y + 1]
  # P(lo < η + ε ≤ hi) = F(hi − η) − F(lo − η), each tail taken where it is accurate
  if (lo - eta > 0) {
    log(plogis(lo - eta, lower.tail = FALSE) - plogis(hi - eta, lower.tail = FALSE))
  } else {
    log(plogis(hi - eta) - plogis(lo - eta))
  }
}
ol <- list(list(0, 0.5, c(-1, 0.3, 2)), list(1, 0.5, c(-1, 0.3, 2)), list(2, -3, c(-1, 0.3, 2)),
           list(3, 10, c(-1, 0.3, 2)), list(1, 0, c(-0.01, 0.01, 5)), list(2, 30, c(-1, 25, 29)),
           list(1, 0.3, c(0.7)), list(0, 0.3, c(0.7)), list(0, -40, c(-1, 0.3, 2)))
for (o in ol) add("OrderedLogistic", o[[1]], o[[2]], NA, o[[3]], ordp(o[[1]], o[[2]], o[[3]]))
out <- do.call(rbind, rows)
write.csv(out, "reference.csv", row.names = FALSE, quote = FALSE, na = "")
