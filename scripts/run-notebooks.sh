#!/usr/bin/env bash
# Execute notebooks headless in the GoNB kernel and check every cell.
#
# Usage: bash scripts/run-notebooks.sh [NOTEBOOK.ipynb ...]   (default: notebooks/*.ipynb)
#
# Needs what .ci/run installs: Debian's /usr/bin/jupyter-nbconvert, the gonb kernel, and go and
# goimports on PATH. Each notebook runs in its own kernel with --allow-errors; the executed copy is
# then checked by scripts/check-notebook.py, so compile errors, panics and failed `!` shell lines
# all count as failures. The kernel's own log is shown only for a notebook that failed.
# Last line: "notebooks: N passed, M failed". Exit status 0 only if none failed.
set -euo pipefail
cd "$(dirname "$0")/.."
if [ -x /usr/local/go/bin/go ]; then
  export PATH="/usr/local/go/bin:$PATH"
fi
export PATH="$(go env GOPATH)/bin:$PATH"

if [ "$#" -gt 0 ]; then
  nbs=("$@")
else
  shopt -s nullglob
  nbs=(notebooks/*.ipynb)
  shopt -u nullglob
fi

out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
pass=0 fail=0
for nb in "${nbs[@]}"; do
  name=$(basename "$nb" .ipynb)
  start=$SECONDS
  if [ ! -f "$nb" ]; then
    echo "notebook $name: FAILED (no such file: $nb)"; fail=$((fail+1)); continue
  fi
  if ! /usr/bin/jupyter-nbconvert --to notebook --execute --allow-errors \
       --ExecutePreprocessor.timeout=600 --ExecutePreprocessor.kernel_name=gonb \
       --output-dir "$out" "$nb" > "$out/$name.log" 2>&1; then
    echo "notebook $name: FAILED (nbconvert, $((SECONDS-start)) s)"
    # Drop the kernel's klog lines (I1122 …, W…, E…); they are noise.
    grep -v -E '^[IWE][0-9]{4} ' "$out/$name.log" | tail -n 30 | sed 's/^/  /' || true
    fail=$((fail+1)); continue
  fi
  if /usr/bin/python3 scripts/check-notebook.py "$out/$name.ipynb"; then
    echo "notebook $name: ok ($((SECONDS-start)) s)"; pass=$((pass+1))
  else
    echo "notebook $name: FAILED ($((SECONDS-start)) s)"; fail=$((fail+1))
  fi
done
echo "notebooks: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
