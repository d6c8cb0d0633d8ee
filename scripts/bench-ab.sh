#!/bin/bash
# Alternating before/after runs of one package's Go benchmarks, for a change
# that must not slow a hot path down.
#
#   scripts/bench-ab.sh REV_BEFORE REV_AFTER PKG BENCH_REGEX [PAIRS] [BENCHTIME]
#
# e.g. scripts/bench-ab.sh main kit ./bounds/ '^BenchmarkReRoRobust$' 7 3x
#
# Builds the package's test binary at both revisions (git archive into a
# scratch folder: no worktree is created; a REV that is an executable file
# is taken as an already built test binary, e.g. from go test -c), then runs before, after, before,
# after, … PAIRS times (default 5; BENCHTIME default 1x), so that load on a
# shared machine falls on both alike. Prints every run's ns/op per
# benchmark with the CPU time (user+sys) and wall time of the process and
# the 1-minute load average, then per benchmark the median and [min, max]
# of the per-pair ratios after/before (ns/op and CPU): below 1 is faster.
set -euo pipefail
before=$1 after=$2 pkg=$3 bench=$4 pairs=${5:-5} benchtime=${6:-1x}
root=$(git rev-parse --show-toplevel)
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
for v in before after; do
  rev=$before; [ $v = after ] && rev=$after
  if [ -f "$rev" ] && [ -x "$rev" ]; then
    cp "$rev" "$dir/$v.test"
    continue
  fi
  mkdir -p "$dir/$v"
  git -C "$root" archive "$rev" | tar -x -C "$dir/$v"
  (cd "$dir/$v" && go test -c -o "$dir/$v.test" "$pkg")
done
: > "$dir/runs"
for p in $(seq "$pairs"); do
  for v in before after; do
    (cd "$root/$pkg" && /usr/bin/time -f "%U %S %e" -o "$dir/t" "$dir/$v.test" \
      -test.run '^$' -test.bench "$bench" -test.benchtime "$benchtime" -test.count 1 > "$dir/out")
    read -r u s e < "$dir/t"
    load=$(cut -d' ' -f1 /proc/loadavg)
    awk -v p="$p" -v v="$v" -v cpu="$(echo "$u + $s" | bc)" -v wall="$e" -v la="$load" \
      '/^Benchmark/ { for (i = 1; i <= NF; i++) if ($(i+1) == "ns/op") ns = $i;
        printf "%d %-6s %-40s %14.0f ns/op  cpu %7.2f s  wall %7.2f s  load %s\n", p, v, $1, ns, cpu, wall, la }' \
      "$dir/out" | tee -a "$dir/runs"
  done
done
echo "== after/before per pair: median [min, max]"
python3 - "$dir/runs" <<'PY'
import sys, statistics
runs = {}
for line in open(sys.argv[1]):
    f = line.split()
    runs.setdefault(f[2], {}).setdefault(f[1], []).append((float(f[3]), float(f[6])))
for name, r in runs.items():
    for k, label in ((0, "ns/op"), (1, "cpu  ")):
        q = [a[k] / b[k] for a, b in zip(r["after"], r["before"])]
        print(f"{name:40s} {label} {statistics.median(q):.3f} [{min(q):.3f}, {max(q):.3f}]  ({len(q)} pairs)")
PY
