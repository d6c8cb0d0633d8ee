#!/bin/bash
# PyTorch against dpaudit's Go trainer on the same audit: runs
# examples/external/crosscheck-go.yaml and crosscheck-torch.yaml (400
# trials of logistic regression each) from an empty store, alternating Go,
# PyTorch, Go, PyTorch, … PAIRS times (default 3), so that load on a shared
# machine falls on both alike.
#
#   scripts/bench-external.sh [PAIRS] [JOBS]
#
# Prints every run's CPU time (user + sys, the trainer's processes
# included) and wall time with the 1-minute load average, then the median
# and [min, max] of the per-pair ratios PyTorch/Go of CPU and of wall time,
# and trials per CPU second. JOBS is dpaudit's -j (default 2). Needs a
# python3 that imports numpy, torch and functorch (Debian: python3-torch);
# the first such python3 on PATH or /usr/bin/python3 is used.
set -euo pipefail
pairs=${1:-3} jobs=${2:-2}
root=$(git rev-parse --show-toplevel)
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
(cd "$root" && go build -o "$dir/dpaudit" ./cmd/dpaudit)
for py in python3 /usr/bin/python3; do
  p=$(command -v "$py" || true)
  if [ -n "$p" ] && "$p" -c 'import numpy, torch, functorch' 2>/dev/null; then
    PATH=$(dirname "$p"):$PATH
    break
  fi
  p=""
done
if [ -z "$p" ]; then
  echo "bench-external: no python3 with numpy, torch and functorch" >&2
  exit 1
fi
trials=400

# run NAME SPEC: one whole run from an empty store; prints "cpu wall load".
run() {
  local store="$dir/store-$1" res="$dir/res-$1"
  rm -rf "$store" "$res"
  local load
  load=$(cut -d' ' -f1 /proc/loadavg)
  /usr/bin/time -f '%U %S %e' -o "$dir/time" \
    "$dir/dpaudit" run -j "$jobs" --store "$store" --results "$res" "$root/examples/external/$2" >"$dir/log" 2>&1 ||
    { cat "$dir/log" >&2; exit 1; }
  read -r u s e <"$dir/time"
  echo "$(echo "$u + $s" | bc -l) $e $load"
}

printf '%-5s %-8s %9s %9s %6s\n' pair trainer cpu_s wall_s load
ratios_cpu=() ratios_wall=() go_cpu=() torch_cpu=()
for i in $(seq 1 "$pairs"); do
  read -r gc gw gl <<<"$(run go crosscheck-go.yaml)"
  printf '%-5s %-8s %9.2f %9.2f %6s\n' "$i" go "$gc" "$gw" "$gl"
  read -r tc tw tl <<<"$(run torch crosscheck-torch.yaml)"
  printf '%-5s %-8s %9.2f %9.2f %6s\n' "$i" pytorch "$tc" "$tw" "$tl"
  ratios_cpu+=("$(echo "$tc / $gc" | bc -l)")
  ratios_wall+=("$(echo "$tw / $gw" | bc -l)")
  go_cpu+=("$gc") torch_cpu+=("$tc")
done

# summary LABEL VALUES…: median [min, max].
summary() {
  local label=$1
  shift
  printf '%s\n' "$@" | sort -g | awk -v l="$label" '{v[NR]=$1} END {
    m = (NR % 2) ? v[(NR+1)/2] : (v[NR/2] + v[NR/2+1]) / 2
    printf "%s: median %.3g [%.3g, %.3g] over %d pairs\n", l, m, v[1], v[NR], NR }'
}
summary "PyTorch/Go CPU time" "${ratios_cpu[@]}"
summary "PyTorch/Go wall time" "${ratios_wall[@]}"
summary "Go trials per CPU second" $(for c in "${go_cpu[@]}"; do echo "$trials / $c" | bc -l; done)
summary "PyTorch trials per CPU second" $(for c in "${torch_cpu[@]}"; do echo "$trials / $c" | bc -l; done)
echo "load average now: $(cut -d' ' -f1-3 /proc/loadavg)"
