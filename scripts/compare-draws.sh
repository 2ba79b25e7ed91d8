#!/usr/bin/env bash
# Compare the draws of two nmc binaries bit for bit: every built-in model under nmc sample with
# the sampler flags that change the moves, and nmc paper -quick (its tables without the timing
# columns, and its figures). Prints one line per case, "same" or "DIFFERENT", and exits 1 if any
# case differs (or fails in one binary only).
#
# Usage: bash scripts/compare-draws.sh OLD_NMC NEW_NMC [quick]
# e.g.   git stash; go build -o /tmp/nmc-old ./cmd/nmc; git stash pop
#        go build -o /tmp/nmc-new ./cmd/nmc && bash scripts/compare-draws.sh /tmp/nmc-old /tmp/nmc-new
# With "quick" only the default flags of each model and the paper are compared.
set -uo pipefail
old=$1 new=$2 quick=${3:-}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
differ=0 cases=0

# compare NAME ARGS...: run nmc sample ARGS with both binaries and compare the draws files.
compare() {
  local name=$1; shift
  local a="$work/old-$name.csv" b="$work/new-$name.csv" ea eb
  "$old" sample "$@" -out "$a" > "$work/old.txt" 2>&1; ea=$?
  "$new" sample "$@" -out "$b" > "$work/new.txt" 2>&1; eb=$?
  cases=$((cases + 1))
  if [[ $ea -ne 0 || $eb -ne 0 ]]; then
    if [[ $ea -ne $eb ]] || ! cmp -s <(grep -v 'wall time' "$work/old.txt") <(grep -v 'wall time' "$work/new.txt"); then
      echo "DIFFERENT  $name (exit status $ea / $eb)"; differ=1
      tail -3 "$work/old.txt" "$work/new.txt" | sed 's/^/    /'
    else
      echo "same       $name (both fail: exit status $ea)"
    fi
    return
  fi
  if cmp -s "$a" "$b"; then
    echo "same       $name ($(($(wc -l < "$a") - 1)) draws)"
  else
    echo "DIFFERENT  $name"; differ=1
  fi
  rm -f "$a" "$b"
}

small=(-draws 200 -chains 3 -seed 7)
models=(funnel eight_schools normal_known_sigma gamma_poisson beta_binomial dirichlet_categorical)
for m in "${models[@]}"; do
  compare "$m" -model "$m" "${small[@]}"
  [[ -n $quick ]] && continue
  compare "$m-warmup0" -model "$m" "${small[@]}" -warmup 0
  compare "$m-warmup60" -model "$m" "${small[@]}" -warmup 60
  compare "$m-nogroups" -model "$m" "${small[@]}" -no-group-moves
done
for m in blr robust; do
  compare "$m" -model "$m" -n 2000 -k 10 "${small[@]}"
  [[ -n $quick ]] && continue
  compare "$m-warmup0" -model "$m" -n 2000 -k 10 "${small[@]}" -warmup 0
  compare "$m-warmup60" -model "$m" -n 2000 -k 10 "${small[@]}" -warmup 60
  compare "$m-nogroups" -model "$m" -n 2000 -k 10 "${small[@]}" -no-group-moves
  compare "$m-nogroups-warmup0" -model "$m" -n 2000 -k 10 "${small[@]}" -no-group-moves -warmup 0
done
ann=(-model annotation -n 300 -k 20 "${small[@]}")
compare annotation "${ann[@]}"
if [[ -z $quick ]]; then
  compare annotation-warmup0 "${ann[@]}" -warmup 0
  compare annotation-warmup60 "${ann[@]}" -warmup 60
  compare annotation-nogroups "${ann[@]}" -no-group-moves
  compare annotation-nohmc "${ann[@]}" -no-hmc
  compare annotation-noaugment "${ann[@]}" -no-augment
  compare annotation-nohmc-noaugment "${ann[@]}" -no-hmc -no-augment
  compare annotation-nohmc-nojoint "${ann[@]}" -no-hmc -no-joint-moves
  compare annotation-nojoint "${ann[@]}" -no-joint-moves
  compare annotation-rounds3 "${ann[@]}" -augment-rounds 3
  compare annotation-nohmc-rounds1 "${ann[@]}" -no-hmc -augment-rounds 1
  compare annotation-leapfrogs8 "${ann[@]}" -leapfrogs 8
  compare annotation-leads "${ann[@]}" -leads pi
  compare annotation-leads-follow "${ann[@]}" -leads pi -follow -1
  compare annotation-nohmc-follow "${ann[@]}" -no-hmc -follow 0.2
  compare annotation-explicit "${ann[@]}" -explicit-classes
  compare annotation-explicit-follow "${ann[@]}" -explicit-classes -leads pi -follow -1
  compare annotation-explicit-nohmc "${ann[@]}" -explicit-classes -no-hmc
  compare annotation-explicit-warmup0 "${ann[@]}" -explicit-classes -warmup 0
  compare annotation-nohmc-warmup0 "${ann[@]}" -no-hmc -warmup 0
  compare annotation-nohmc-warmup60 "${ann[@]}" -no-hmc -warmup 60
fi

# nmc paper: the tables without the columns that time the run, and the figures.
paperRun() { # BINARY DIR ARGS...
  local bin=$1 dir=$2; shift 2
  "$bin" paper -quick -out "$dir" "$@" > /dev/null 2>&1
}
untimed() { # CSV: drop the columns whose header mentions time, speed or memory
  /usr/bin/python3 - "$1" <<'PY'
import csv, sys
rows = list(csv.reader(open(sys.argv[1])))
keep = [i for i, h in enumerate(rows[0]) if not any(w in h.lower() for w in ("time", "wall", "cpu", "per_s", "/s", "second", "heap"))]
for r in rows:
    print(",".join(r[i] for i in keep))
PY
}
paperCompare() { # NAME ARGS...
  local name=$1; shift
  local a="$work/paper-old-$name" b="$work/paper-new-$name" ea eb ok=1
  paperRun "$old" "$a" "$@"; ea=$?
  paperRun "$new" "$b" "$@"; eb=$?
  cases=$((cases + 1))
  if [[ $ea -ne 0 || $eb -ne 0 ]]; then
    echo "DIFFERENT  paper-$name (exit status $ea / $eb)"; differ=1; return
  fi
  for f in "$a"/*; do
    local g="$b/$(basename "$f")"
    case $f in
      *table.csv) cmp -s <(untimed "$f") <(untimed "$g") || { ok=0; echo "    $(basename "$f") differs"; } ;;
      *) cmp -s "$f" "$g" || { ok=0; echo "    $(basename "$f") differs"; } ;;
    esac
  done
  if [[ $ok -eq 1 ]]; then echo "same       paper-$name ($(ls "$a" | wc -l) files)"; else echo "DIFFERENT  paper-$name"; differ=1; fi
}
paperCompare quick
[[ -z $quick ]] && paperCompare quick-nogroups -no-group-moves

echo "$cases cases compared"
if [[ $differ -ne 0 ]]; then
  echo "some draws differ"
  exit 1
fi
echo "all draws identical"
