#!/usr/bin/env bash
# Mixing of the paper's models under `nmc sample`: wall time, the smallest bulk ESS and the
# largest R-hat over the continuous parameters (the classes z of annotation excluded), 4 × 1000
# draws, seed 1, the sampler's defaults plus any flags given.
#
# Usage: bash scripts/measure-mixing.sh NMC_BINARY [extra nmc sample flags...]
# e.g.   go build -o /tmp/nmc ./cmd/nmc && bash scripts/measure-mixing.sh /tmp/nmc -no-group-moves
set -euo pipefail
bin=$1; shift
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
run() {
  local name=$1; shift
  local start end
  start=$(date +%s.%N)
  "$bin" sample "$@" -summary "$out/$name.csv" "${extra[@]}" > "$out/$name.txt" 2>&1
  end=$(date +%s.%N)
  /usr/bin/python3 - "$out/$name.csv" "$name" "$start" "$end" <<'PY'
import csv, sys
path, name, s, e = sys.argv[1], sys.argv[2], float(sys.argv[3]), float(sys.argv[4])
rows = [r for r in csv.DictReader(open(path)) if not r['variable'].startswith('z[')]
lo = min(rows, key=lambda r: float(r['ess_bulk']))
hi = max(rows, key=lambda r: float(r['rhat']))
print(f"{name:14s} wall {e - s:6.1f} s  min bulk ESS {float(lo['ess_bulk']):7.0f} ({lo['variable']})"
      f"  max R-hat {float(hi['rhat']):.4f} ({hi['variable']})")
PY
}
extra=("$@")
run blr -model blr -n 20000 -k 40 -draws 1000 -chains 4
run robust -model robust -n 20000 -k 40 -draws 1000 -chains 4
run annotation -model annotation -n 10000 -k 100 -draws 1000 -chains 4
run funnel -model funnel -draws 1000 -chains 4
run eight_schools -model eight_schools -draws 1000 -chains 4
