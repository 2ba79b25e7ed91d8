#!/usr/bin/env bash
# Compares nmc with Stan (rstan) on the models ported from Stan programs: for each
# model and seed it writes the data with `nmc gen`, runs Stan on them
# (scripts/stan/run.R: 4 chains x (1000 warm-up + 1000 draws), NUTS defaults) and
# `nmc sample` on the same JSON file (4 chains x 1000 draws after the adaptive
# warm-up, the defaults), and prints one row per run:
#
#   model,n,seed,nmc_min_bulk_ess,nmc_max_rhat,nmc_cpu_s,nmc_ess_per_cpu_s,
#   stan_min_bulk_ess,stan_max_rhat,stan_cpu_s,stan_ess_per_cpu_s,stan_divergent,ratio
#
# ESS per CPU second is the minimum bulk ESS over the model's parameters (the Stan
# program's, the families `nmc gen` prints; R posterior's definitions, which nmc's
# diagnostics match) divided by the CPU seconds of the whole run, warm-up included:
# for Stan the sum over chains of get_elapsed_time (compilation and R excluded), for
# nmc the user + system CPU time of the `nmc sample` process (its start, reading
# the data and building the model included). ratio = nmc's / Stan's.
#
# Usage: scripts/stan/compare.sh [-o DIR] [-r] [-s "SEED ..."] [MODEL[:N] ...]
#   -o DIR    keep the data, the Stan and nmc outputs in DIR (default: a temporary
#             directory, removed at the end)
#   -r        reuse the Stan results a previous run with the same -o DIR kept
#             (stan.csv and stan_summary.csv of the same data, which `nmc gen`
#             writes again bit for bit): only nmc runs again
#   -s SEEDS  the seeds, one run of each model per seed (default "1 2 3")
#   MODEL:N   a model of `nmc gen -help` with its data size -n (default: the
#             model's default size); default: every model ported from Stan, the
#             hidden Markov models at N = 100 and 2000
# The outputs of each run are kept in DIR/MODEL[-nN]-sSEED: the data and program,
# stan.csv (run.R's row), stan_summary.csv, nmc.txt (nmc sample's report),
# nmc_summary.csv and nmc.time (user and system CPU seconds).
# Environment: NMC, the nmc binary (default: built from this checkout into the
# output directory); STAN_CACHE, where compiled Stan programs are kept between runs
# (default ~/.cache/nmc-stan; compiling one takes about a minute of CPU).
# Needs Go, and R with Debian's r-cran-rstan, r-cran-posterior, r-cran-jsonlite and
# libboost-dev.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
out="" seeds="1 2 3" reuse=""
while getopts "o:rs:" opt; do
  case $opt in
    o) out=$OPTARG ;;
    r) reuse=1 ;;
    s) seeds=$OPTARG ;;
    *) sed -n '2,34p' "$0" >&2; exit 2 ;;
  esac
done
shift $((OPTIND - 1))
if [[ -z $out ]]; then
  out=$(mktemp -d)
  trap 'rm -rf "$out"' EXIT
fi
mkdir -p "$out"
cache=${STAN_CACHE:-$HOME/.cache/nmc-stan}
mkdir -p "$cache"
nmc=${NMC:-}
if [[ -z $nmc ]]; then
  nmc=$out/nmc
  (cd "$root" && go build -o "$nmc" ./cmd/nmc)
fi
models=("$@")
if [[ ${#models[@]} -eq 0 ]]; then
  models=(arma11 garch11 linreg_2scalar linreg_vector varying_intercept normal_mixture
    normal_mixture_overlap hmm_poisson hmm_poisson_overlap hmm_poisson:2000
    hmm_poisson_overlap:2000 gp_pois_regr gp_regr one_comp_mm_elim_abs glmm_poisson glmm_poisson_nc)
fi

# summary_stats FILE PARAMS: the min ess_bulk and max rhat over the rows of a
# summary CSV (nmc's or R posterior's) whose variable's family is in PARAMS. The
# commas inside a name's brackets ("Gamma[0,1]", quoted) become semicolons first.
summary_stats() {
  sed -E ':a; s/(\[[^],]*),([^]]*\])/\1;\2/; ta' "$1" | awk -F, -v params="$2" '
    BEGIN { n = split(params, p, ","); for (i = 1; i <= n; i++) want[p[i]] = 1 }
    NR == 1 { for (i = 1; i <= NF; i++) { gsub(/"/, "", $i); col[$i] = i }; next }
    {
      v = $col["variable"]; gsub(/"/, "", v); fam = v; sub(/\[.*/, "", fam)
      if (!(fam in want)) next
      e = $col["ess_bulk"] + 0; r = $col["rhat"] + 0
      if (!seen || e < ess) ess = e
      if (!seen || r > rhat) rhat = r
      seen = 1
    }
    END { if (!seen) { print "NA NA"; exit 1 }; printf "%.1f %.4f\n", ess, rhat }'
}

echo "model,n,seed,nmc_min_bulk_ess,nmc_max_rhat,nmc_cpu_s,nmc_ess_per_cpu_s,stan_min_bulk_ess,stan_max_rhat,stan_cpu_s,stan_ess_per_cpu_s,stan_divergent,ratio"
for spec in "${models[@]}"; do
  model=${spec%%:*}
  size=""
  [[ $spec == *:* ]] && size=${spec#*:}
  for seed in $seeds; do
    dir=$out/$model${size:+-n$size}-s$seed
    gen=$("$nmc" gen -model "$model" ${size:+-n "$size"} -seed "$seed" -out "$dir")
    params=$(sed -n 's/^parameters: //p' <<<"$gen")
    n=$(sed -n "1s/^$model: \([0-9]*\).*/\1/p" <<<"$gen")
    prog=$(cd "$dir" && ls ./*.stan)
    prog=$(basename "$prog")
    # The compiled program is cached (rstan's auto_write keeps NAME.rds beside it).
    if ! cmp -s "$dir/$prog" "$cache/$prog"; then
      cp "$dir/$prog" "$cache/$prog"
    fi
    if [[ -n $reuse && -s $dir/stan.csv && -s $dir/stan_summary.csv ]]; then
      stan=$(cat "$dir/stan.csv")
    else
      stan=$(Rscript "$here/run.R" "$cache/$prog" "$dir/$model.json" "$seed" "$params" \
        --summary="$dir/stan_summary.csv" 2>"$dir/stan.log" | tail -1)
      echo "$stan" >"$dir/stan.csv"
    fi
    IFS=, read -r _ _ _ _ stan_rhat stan_cpu _ stan_div <<<"$stan"
    read -r stan_ess stan_rhat < <(summary_stats "$dir/stan_summary.csv" "$params")
    TIMEFORMAT="%U %S"
    { time "$nmc" sample -model "$model" -data "$dir/$model.json" -seed "$seed" \
        -summary "$dir/nmc_summary.csv" >"$dir/nmc.txt" 2>"$dir/nmc.log"; } 2>"$dir/nmc.time"
    read -r user sys <"$dir/nmc.time"
    nmc_cpu=$(awk -v u="$user" -v s="$sys" 'BEGIN { printf "%.3f", u + s }')
    read -r nmc_ess nmc_rhat < <(summary_stats "$dir/nmc_summary.csv" "$params")
    awk -v m="$model" -v n="$n" -v seed="$seed" -v ne="$nmc_ess" -v nr="$nmc_rhat" -v nc="$nmc_cpu" \
        -v se="$stan_ess" -v sr="$stan_rhat" -v sc="$stan_cpu" -v sd="$stan_div" 'BEGIN {
      a = ne / nc; b = se / sc
      printf "%s,%s,%s,%.0f,%.4f,%.2f,%.1f,%.0f,%.4f,%.2f,%.1f,%s,%.2f\n", m, n, seed, ne, nr, nc, a, se, sr, sc, b, sd, a / b
    }'
  done
done
