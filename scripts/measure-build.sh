#!/usr/bin/env bash
# Measures what a new user meets first: the cold build of dpaudit (empty
# build cache, modules already downloaded), the binary's size, and the
# start-up time of `dpaudit version`. Builds from a fresh clone of HEAD so
# that the binary carries its commit (go install does the same).
#
#   bash scripts/measure-build.sh            # from the repository root
#
# Prints wall and CPU (user+sys) seconds and the load average: on a shared
# machine the wall time depends on the load, the CPU time much less.
set -euo pipefail
repo=$(git rev-parse --show-toplevel)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
git clone -q "$repo" "$work/src"
export GOCACHE="$work/gocache" GOFLAGS=-buildvcs=true
echo "load average before: $(cut -d' ' -f1-3 /proc/loadavg)"
cd "$work/src"
/usr/bin/time -f "cold build: %e s wall, %U s user + %S s sys, max RSS %M KiB" \
  go build -o "$work/dpaudit" ./cmd/dpaudit
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
echo "binary: $(stat -c %s "$work/dpaudit") bytes ($(du -m "$work/dpaudit" | cut -f1) MiB)"
"$work/dpaudit" version
# Start-up: 20 runs of dpaudit version; the median of each.
for i in $(seq 20); do
  /usr/bin/time -f "%e %U %S" "$work/dpaudit" version 2>&1 >/dev/null | tail -1
done | sort -n | awk '{w[NR]=$1; c[NR]=$2+$3} END {m=int((NR+1)/2); printf "dpaudit version start-up: median %.3f s wall, %.3f s CPU over %d runs (min %.3f, max %.3f wall)\n", w[m], c[m], NR, w[1], w[NR]}'
