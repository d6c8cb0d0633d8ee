#!/bin/sh
# Instruction counts (valgrind --tool=callgrind) of the ideal-mechanism
# simulator on one worker (BenchmarkIdealSimulate/workers=1 at
# DPAUDIT_IDEAL_TRIALS trials, default 400 × T = 1000), at REV (default
# main) and in this checkout: unlike wall-clock times they repeat exactly
# on a loaded machine. Each side runs with 2 and 6 iterations; the
# difference of the totals over the 4 × trials × 1000 trial-steps between
# them is the instructions per trial-step, free of the start-up; the
# count outside the Go runtime (scheduler, collector, timers: they vary
# from run to run with the wall time valgrind takes) is the repeatable
# one.
#
#   sh scripts/callgrind-ideal.sh             # REV=main
set -eu
rev="${REV:-main}"
trials="${DPAUDIT_IDEAL_TRIALS:-400}"
dir="${BENCH_DIR:-/tmp/dpaudit-callgrind-ideal}"
rm -rf "$dir/a" && mkdir -p "$dir/a"
git archive "$rev" | tar -x -C "$dir/a"
(cd "$dir/a" && go test -c -o "$dir/attack-a.test" ./attack)
go test -c -o "$dir/attack-b.test" ./attack
count() { # side iterations
	# Go's asynchronous preemption signals crash callgrind 3.19.
	(cd attack && GODEBUG=asyncpreemptoff=1 DPAUDIT_IDEAL_TRIALS=$trials valgrind --tool=callgrind \
		--callgrind-out-file="$dir/cg-$1-$2.out" "$dir/attack-$1.test" -test.run '^$' \
		-test.bench 'IdealSimulate/workers=1$' -test.benchtime "$2" 2>&1 >/dev/null) |
		awk '/Collected :/ { print $NF }'
}
outside() { # side iterations: instructions outside the Go runtime
	callgrind_annotate --inclusive=no --auto=no --threshold=100 "$dir/cg-$1-$2.out" |
		grep -E '^ *[0-9,]+ ' | grep -v 'PROGRAM TOTALS' |
		grep -vE '/src/(runtime|internal/runtime|sync|time|testing)/' |
		awk '{ gsub(",", "", $1); n += $1 } END { printf "%.0f", n }'
}
per() { # side: instructions per trial-step, all and outside the runtime
	c1=$(count "$1" 2x)
	c2=$(count "$1" 6x)
	o1=$(outside "$1" 2x)
	o2=$(outside "$1" 6x)
	echo "$c1 $c2 $o1 $o2 $trials" | awk '{ printf "%.2f %.2f", ($2 - $1) / (4 * $5 * 1000), ($4 - $3) / (4 * $5 * 1000) }'
}
set -- $(per a) $(per b)
echo "REV=$rev ($(git rev-parse --short "$rev")): $1 instructions per trial-step, $2 outside the runtime"
echo "this checkout ($(git rev-parse --short HEAD)$(git diff --quiet || echo ', modified')): $3 instructions per trial-step, $4 outside the runtime"
echo "$1 $2 $3 $4" | awk '{ printf "ratio this/REV: %.4f, outside the runtime %.4f\n", $3 / $1, $4 / $2 }'
