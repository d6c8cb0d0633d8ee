#!/usr/bin/env bash
# Alternating before/after timings of loading and planning specs (spec
# parsing, expansion, stages.Compile, the code fingerprints of every node,
# planning against a store): what the per-package code fingerprints and the
# games' restructuring could slow down.
#
#   scripts/bench-plan.sh OLD_DPAUDIT NEW_DPAUDIT [PAIRS] [SPEC ...]
#
# Each pair runs `dpaudit plan` with OLD then NEW on an empty store (A B A B,
# never all of A first). Prints every run's wall and CPU (user + sys)
# seconds, then per spec the median and [min, max] of the per-pair ratios
# NEW/OLD of CPU and wall time, and the load average. Default specs: a
# one-node spec, examples/nasr2021/fig1-adversaries.yaml (288 trial shards
# over MNIST) and examples/audit/tightness.yaml (1,712 nodes).
set -euo pipefail
cd "$(dirname "$0")/.."
old=$1 new=$2 pairs=${3:-7}
shift $(($# < 3 ? $# : 3))
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
cat > "$dir/tiny.yaml" <<'YAML'
name: tiny
dpsgd: {noise_multiplier: 1, sampling_rate: 0.01, steps: 100}
bound: [{kind: accountant, accountants: [rdp]}]
YAML
specs=("$@")
[ ${#specs[@]} -gt 0 ] || specs=("$dir/tiny.yaml" examples/nasr2021/fig1-adversaries.yaml examples/audit/tightness.yaml)

# run BIN SPEC: prints "wall cpu" in seconds.
run() {
  rm -rf "$dir/store"
  /usr/bin/time -f "%e %U %S" -o "$dir/t" "$1" plan --store "$dir/store" "$2" >/dev/null 2>"$dir/err" || { cat "$dir/err" >&2; exit 1; }
  awk '{printf "%.3f %.3f\n", $1, $2 + $3}' "$dir/t"
}

echo "load before: $(cut -d' ' -f1-3 /proc/loadavg)"
for spec in "${specs[@]}"; do
  : > "$dir/ratios"
  for p in $(seq "$pairs"); do
    read -r ow oc < <(run "$old" "$spec")
    read -r nw nc < <(run "$new" "$spec")
    echo "$(basename "$spec") pair $p: old wall $ow cpu $oc, new wall $nw cpu $nc"
    awk -v ow="$ow" -v oc="$oc" -v nw="$nw" -v nc="$nc" 'BEGIN { printf "%.4f %.4f\n", nc / oc, nw / ow }' >> "$dir/ratios"
  done
  for col in 1 2; do
    what=$([ $col = 1 ] && echo "CPU " || echo "wall")
    sort -g -k$col "$dir/ratios" | awk -v c=$col -v w="$what" -v s="$(basename "$spec")" '
      { v[NR] = $c } END { m = (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2
        printf "%s %s new/old: median %.3f [%.3f, %.3f] over %d pairs\n", s, w, m, v[1], v[NR], NR }'
  done
done
echo "load after: $(cut -d' ' -f1-3 /proc/loadavg)"
