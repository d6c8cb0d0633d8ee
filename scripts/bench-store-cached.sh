#!/bin/bash
# Before/after cost of the store's checks on a cached re-run (docs/store.md,
# "What the checks cost"): the quickstart and Nasr fig1, each already in
# its binary's store, run again by two dpaudit builds alternately.
#
#   scripts/bench-store-cached.sh OLD_DPAUDIT NEW_DPAUDIT [PAIRS] [WORKDIR]
#
# e.g. OLD built from main (git archive main | tar -x -C /tmp/old && (cd
# /tmp/old && go build -o /tmp/dpaudit_old ./cmd/dpaudit)), NEW from this
# tree. The two builds have different code fingerprints, hence different
# keys: each gets its own store, filled by one cold run first (fig1 takes
# minutes; WORKDIR keeps the stores between invocations). Then PAIRS
# rounds of old, new, alternating (never all of one first), each a cached
# run: wall and CPU (user + system) seconds per run, and per spec the
# median [min, max] of the per-pair new/old ratios. MNIST must be in the
# data dir. Prints the load average: on a shared machine wall times are
# noisy, CPU times less so.
set -euo pipefail
old=$1 new=$2 pairs=${3:-7}
work=${4:-$(mktemp -d)}
mkdir -p "$work"
here=$(cd "$(dirname "$0")/.." && pwd)
specs=("$here/examples/quickstart.yaml" "$here/examples/nasr2021/fig1-adversaries.yaml")

run() { # run BIN TAG SPEC: one run; prints "wall cpu"
	local name
	name=$(basename "$3" .yaml)
	/usr/bin/time -f "%e %U %S" -o "$work/time" "$1" run "$3" --store "$work/store-$2-$name" \
		--results "$work/results-$2" -j 2 >"$work/out" 2>"$work/err" || {
		cat "$work/err" >&2
		exit 1
	}
	awk '{printf "%.3f %.3f\n", $1, $2 + $3}' "$work/time"
}

echo "load average: $(cut -d' ' -f1-3 /proc/loadavg)"
for spec in "${specs[@]}"; do
	for tag in old new; do
		bin=$old
		[ "$tag" = new ] && bin=$new
		echo "warming $(basename "$spec") ($tag): $(run "$bin" "$tag" "$spec")"
	done
done
for spec in "${specs[@]}"; do
	name=$(basename "$spec" .yaml)
	: >"$work/ratios-$name"
	for p in $(seq "$pairs"); do
		o=$(run "$old" old "$spec")
		n=$(run "$new" new "$spec")
		grep -q ": 0 node(s) computed here, 0 computed by another process" "$work/out" || {
			echo "the new build's run of $name was not cached:" >&2
			cat "$work/out" >&2
			exit 1
		}
		echo "$name pair $p: old wall/cpu $o, new wall/cpu $n"
		echo "$o $n" | awk '{print $3 / $1, $4 / $2}' >>"$work/ratios-$name"
	done
	for col in 1 2; do
		what=wall
		[ $col = 2 ] && what=cpu
		sort -n -k$col "$work/ratios-$name" | awk -v c=$col -v w=$what -v n="$name" '{v[NR] = $c}
			END {m = (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2
				printf "%s: new/old %s time, median %.2f [%.2f, %.2f] over %d pairs\n", n, w, m, v[1], v[NR], NR}'
	done
done
echo "load average: $(cut -d' ' -f1-3 /proc/loadavg)"
