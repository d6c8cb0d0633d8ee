#!/bin/bash
# Alternating before/after runs of a whole `dpaudit` process, for a change
# whose cost includes start-up, page faults and peak memory (which a Go
# benchmark inside one test process does not see).
#
#   scripts/bench-ab-process.sh REV_BEFORE REV_AFTER PAIRS DPAUDIT_ARGS...
#
# e.g. scripts/bench-ab-process.sh main pld5 6 account --noise-multiplier 1 \
#        --sampling-rate 0.01 --steps 1000000 --delta 1e-5 --accountant pld
#
# Builds cmd/dpaudit at both revisions (git archive into a scratch folder;
# a REV that is an executable file is taken as an already built binary),
# then runs before, after, before, after, … PAIRS times, so that load on a
# shared machine falls on both alike. Prints every run's CPU time
# (user + sys), wall time, peak RSS and the 1-minute load average, then the
# median and [min, max] of the per-pair ratios after/before (below 1 is
# faster or smaller).
set -euo pipefail
before=$1 after=$2 pairs=$3
shift 3
root=$(git rev-parse --show-toplevel)
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
for v in before after; do
  rev=$before; [ $v = after ] && rev=$after
  if [ -f "$rev" ] && [ -x "$rev" ]; then
    cp "$rev" "$dir/$v"
    continue
  fi
  mkdir -p "$dir/src-$v"
  git -C "$root" archive "$rev" | tar -x -C "$dir/src-$v"
  (cd "$dir/src-$v" && go build -o "$dir/$v" ./cmd/dpaudit)
done
: > "$dir/runs"
for p in $(seq "$pairs"); do
  for v in before after; do
    /usr/bin/time -f "%U %S %e %M" -o "$dir/t" "$dir/$v" "$@" > "$dir/out"
    read -r u s e rss < "$dir/t"
    load=$(cut -d' ' -f1 /proc/loadavg)
    printf "%d %-6s cpu %6.2f s (user %s, sys %s)  wall %6.2f s  peak %6.1f MiB  load %s  | %s\n" \
      "$p" "$v" "$(echo "$u + $s" | bc)" "$u" "$s" "$e" "$(echo "$rss / 1024" | bc -l)" "$load" "$(tail -1 "$dir/out")" | tee -a "$dir/runs"
  done
done
echo "== after/before per pair: median [min, max]"
python3 - "$dir/runs" <<'PY'
import sys, statistics
runs = {"before": [], "after": []}
for line in open(sys.argv[1]):
    f = line.split()
    runs[f[1]].append((float(f[3]), float(f[10]), float(f[13])))
for k, label in ((0, "cpu"), (1, "wall"), (2, "peak RSS")):
    q = [a[k] / b[k] for a, b in zip(runs["after"], runs["before"])]
    vb = sorted(b[k] for b in runs["before"]); va = sorted(a[k] for a in runs["after"])
    print(f"{label:8s} {statistics.median(q):.3f} [{min(q):.3f}, {max(q):.3f}]  ({len(q)} pairs; before {vb[0]:g}–{vb[-1]:g}, after {va[0]:g}–{va[-1]:g})")
PY
