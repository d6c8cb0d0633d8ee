#!/bin/sh
# Instruction counts (valgrind --tool=callgrind) of the preset models'
# training benchmarks, at REV (default main) and in this checkout: unlike
# wall-clock times they repeat exactly on a loaded machine. Each benchmark
# runs twice per side, with N1 and N2 iterations (-test.benchtime Nx); the
# difference of the totals divided by N2 − N1 is the cost of one
# iteration, free of the setup and of the test binary's start (which grows
# with what the package's tests import).
#
#   sh scripts/callgrind-presets.sh             # REV=main
#
# Prints per benchmark the instructions per iteration of both sides and
# their ratio, and the instructions spent in learn's own code (the trainer,
# without the Go runtime and the test's setup) in the longer run.
set -eu
rev="${REV:-main}"
dir="${BENCH_DIR:-/tmp/dpaudit-callgrind-presets}"
rm -rf "$dir/a" && mkdir -p "$dir/a"
git archive "$rev" | tar -x -C "$dir/a"
(cd "$dir/a" && go test -c -o "$dir/learn-a.test" ./learn)
go test -c -o "$dir/learn-b.test" ./learn
count() { # side bench iterations
	# Go's asynchronous preemption signals crash callgrind 3.19.
	(cd learn && GODEBUG=asyncpreemptoff=1 valgrind --tool=callgrind --callgrind-out-file="$dir/cg-$1-$3.out" \
		"$dir/learn-$1.test" -test.run '^$' -test.bench "$2" -test.benchtime "$3" -test.cpu 1 2>&1 >/dev/null) |
		awk '/Collected :/ { print $NF }'
}
echo "REV=$rev ($(git rev-parse --short "$rev")) vs this checkout ($(git rev-parse --short HEAD)$(git diff --quiet || echo ', modified'))"
per() { # side bench n1 n2: instructions per iteration
	c1=$(count "$1" "$2" "${3}x")
	c2=$(count "$1" "$2" "${4}x")
	echo "$c1 $c2 $3 $4" | awk '{ printf "%.0f", ($2 - $1) / ($4 - $3) }'
}
learn_only() { # side n2: instructions in learn's own (non-test) code in the n2 run
	callgrind_annotate --tree=none --auto=no --threshold=100 "$dir/cg-$1-${2}x.out" |
		grep -E '^ *[0-9,]+ ' | grep '/learn/' | grep -v '_test\.go' |
		awk '{ gsub(",", "", $1); n += $1 } END { printf "%.0f", n }'
}
for spec in \
	'BenchmarkDPSGD/mlp-784-128-10-relu-b64/threads=1$ 5 25' \
	'BenchmarkDPSGD/mlp-784-512-10-relu-b256/threads=1$ 1 4' \
	'BenchmarkDPSGD/cnn-tanh-26010-b128/threads=1$ 1 4' \
	'BenchmarkAuditTrial/hayes-mlp-784-10-10-elu-N1000-full-T100$ 1 3'; do
	set -- $spec
	a=$(per a "$1" "$2" "$3")
	b=$(per b "$1" "$2" "$3")
	echo "$1 (iterations $2 and $3): REV $a, this $b instructions per iteration, ratio $(echo "$b $a" | awk '{ printf "%.5f", $1 / $2 }')"
	# The rest is the runtime (GC scanning a test binary that links more
	# packages) and setup: learn's own code is the trainer.
	la=$(learn_only a "$3")
	lb=$(learn_only b "$3")
	echo "  in learn's code ($3 iterations): REV $la, this $lb, ratio $(echo "$lb $la" | awk '{ printf "%.6f", $1 / $2 }')"
done
