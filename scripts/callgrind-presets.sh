#!/bin/sh
# Instruction counts (valgrind --tool=callgrind) of the preset models'
# training benchmarks, at REV (default main) and in this checkout: unlike
# wall-clock times they repeat exactly on a loaded machine. Each benchmark
# runs a fixed number of iterations (-test.benchtime Nx); the counts
# include the benchmark's setup, which both sides share.
#
#   sh scripts/callgrind-presets.sh             # REV=main
#
# Prints per benchmark the instructions of both sides and their ratio.
set -eu
rev="${REV:-main}"
dir="${BENCH_DIR:-/tmp/dpaudit-callgrind-presets}"
rm -rf "$dir/a" && mkdir -p "$dir/a"
git archive "$rev" | tar -x -C "$dir/a"
(cd "$dir/a" && go test -c -o "$dir/learn-a.test" ./learn)
go test -c -o "$dir/learn-b.test" ./learn
count() { # side bench iterations
	# Go's asynchronous preemption signals crash callgrind 3.19.
	(cd learn && GODEBUG=asyncpreemptoff=1 valgrind --tool=callgrind --callgrind-out-file="$dir/cg.out" \
		"$dir/learn-$1.test" -test.run '^$' -test.bench "$2" -test.benchtime "$3" -test.cpu 1 2>&1 >/dev/null) |
		awk '/Collected :/ { print $NF }'
}
echo "REV=$rev ($(git rev-parse --short "$rev")) vs this checkout ($(git rev-parse --short HEAD)$(git diff --quiet || echo ', modified'))"
for spec in \
	'BenchmarkDPSGD/mlp-784-128-10-relu-b64/threads=1$ 20x' \
	'BenchmarkDPSGD/mlp-784-512-10-relu-b256/threads=1$ 3x' \
	'BenchmarkDPSGD/cnn-tanh-26010-b128/threads=1$ 3x' \
	'BenchmarkAuditTrial/hayes-mlp-784-10-10-elu-N1000-full-T100$ 1x'; do
	set -- $spec
	a=$(count a "$1" "$2")
	b=$(count b "$1" "$2")
	echo "$1 ($2): REV $a, this $b instructions, ratio $(echo "$b $a" | awk '{ printf "%.5f", $1 / $2 }')"
done
