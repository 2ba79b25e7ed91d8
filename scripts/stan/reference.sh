#!/usr/bin/env bash
# Writes the Stan reference posteriors of the tests of package models/ports:
# for each model, the data (nmc gen with the size and seed given) into
# models/ports/testdata/PROGRAM.json
# and R posterior's summary of Stan's draws (4 chains x (1000 warm-up + 5000 draws),
# scripts/stan/run.R --iter=5000) into models/ports/testdata/PROGRAM_stan.csv. The
# tests compare nmc's posterior means with these within 4.5 combined MCSE.
#
# Usage: scripts/stan/reference.sh [MODEL:N:SEED[:DATA] ...]   (default: the models
# below; arma11 at seed 12, since at seed 11 Stan's chains, started uniform on
# (-2, 2), do not agree: some stay where |theta| > 1 makes the recursion explode)
# DATA runs MODEL's program on the data file of another program,
# models/ports/testdata/DATA.json, instead of writing PROGRAM.json: for two forms of
# one model that share their generator (glmm_poisson_nc on glmm_poisson.json). The
# data MODEL generates must be that file's, byte for byte; the script stops if not
# (write DATA.json first, by its own spec before this one).
# Environment: STAN_CACHE as for compare.sh. Needs Go and R with rstan and posterior.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
dest=$root/models/ports/testdata
cache=${STAN_CACHE:-$HOME/.cache/nmc-stan}
mkdir -p "$dest" "$cache"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
(cd "$root" && go build -o "$tmp/nmc" ./cmd/nmc)
specs=("$@")
if [[ ${#specs[@]} -eq 0 ]]; then
  specs=(arma11:200:12 garch11:200:11 linreg_vector:100:11 varying_intercept:919:11 roaches_negbin:262:11 ordinal_regr:500:11 multi_logit:500:11
    glmm_poisson:600:11 glmm_poisson_nc:600:11:glmm_poisson)
fi
for spec in "${specs[@]}"; do
  IFS=: read -r model n seed data <<<"$spec"
  gen=$("$tmp/nmc" gen -model "$model" -n "$n" -seed "$seed" -out "$tmp/$model")
  params=$(sed -n 's/^parameters: //p' <<<"$gen")
  prog=$(basename "$(ls "$tmp/$model"/*.stan)" .stan)
  cmp -s "$tmp/$model/$prog.stan" "$cache/$prog.stan" || cp "$tmp/$model/$prog.stan" "$cache/$prog.stan"
  if [[ -z $data ]]; then
    data=$prog
    cp "$tmp/$model/$model.json" "$dest/$data.json"
  elif ! cmp -s "$tmp/$model/$model.json" "$dest/$data.json"; then
    echo "reference.sh: $spec: the data of $model (N = $n, seed $seed) are not $dest/$data.json" >&2
    exit 1
  fi
  Rscript "$here/run.R" "$cache/$prog.stan" "$dest/$data.json" "$seed" "$params" --iter=5000 \
    --summary="$dest/${prog}_stan.csv" 2>"$tmp/$model.log" | tail -1
done
