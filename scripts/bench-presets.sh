#!/bin/sh
# Training speed of the preset models before and after a change to learn/:
# builds learn's test binary at REV (default main) and in this checkout,
# runs the same benchmarks alternately (A B, B A, …) PAIRS times, and prints
# per benchmark the median and [min, max] of the per-pair ratios of ns/op
# (this checkout / REV; < 1 is faster), with each side's median ns/op.
#
#   sh scripts/bench-presets.sh                 # REV=main PAIRS=5
#   REV=fac05fa PAIRS=7 BENCH='BenchmarkDPSGD/mlp' sh scripts/bench-presets.sh
#
# BenchmarkAuditTrial needs MNIST in the data dir (it is skipped
# otherwise). Wall-clock numbers on a loaded machine are noisy; the
# alternation makes both sides see the same load; `uptime` is printed.
set -eu
rev="${REV:-main}"
pairs="${PAIRS:-5}"
bench="${BENCH:-BenchmarkAuditTrial/hayes-mlp-784-10-10-elu-N1000-full-T100\$|BenchmarkDPSGD/(mlp-784-128-10-relu-b64|mlp-784-512-10-relu-b256|cnn-tanh-26010-b128)/threads=1\$}"
benchtime="${BENCHTIME:-1s}"
dir="${BENCH_DIR:-/tmp/dpaudit-bench-presets}"
rm -rf "$dir/a" && mkdir -p "$dir/a"
git archive "$rev" | tar -x -C "$dir/a"
(cd "$dir/a" && go test -c -o "$dir/learn-a.test" ./learn)
go test -c -o "$dir/learn-b.test" ./learn
uptime
: >"$dir/out.txt"
i=0
while [ "$i" -lt "$pairs" ]; do
	# A B, then B A: neither side always runs second.
	order="a b"
	[ $((i % 2)) -eq 1 ] && order="b a"
	for side in $order; do
		# Run from the package folder: tests read learn/testdata.
		(cd learn && /usr/bin/time -f "cpu $side $i %U %S" -a -o "$dir/out.txt" \
			"$dir/learn-$side.test" -test.run '^$' -test.bench "$bench" -test.benchtime "$benchtime") |
			awk -v s="$side" -v i="$i" '/^Benchmark/ { for (k = 1; k <= NF; k++) if ($k == "ns/op") print "bench", s, i, $1, $(k-1) }' >>"$dir/out.txt"
	done
	i=$((i + 1))
done
uptime
echo "REV=$rev ($(git rev-parse --short "$rev")) vs this checkout ($(git rev-parse --short HEAD)$(git diff --quiet || echo ', modified')), $pairs pairs"
awk '
	$1 == "bench" { ns[$4, $2, $3] = $5; names[$4] = 1 }
	$1 == "cpu" { cpu[$2] += $4 + $5 }
	END {
		for (n in names) {
			k = 0
			for (p = 0; (n, "a", p) in ns; p++) {
				if (!((n, "b", p) in ns)) continue
				r[++k] = ns[n, "b", p] / ns[n, "a", p]
				a[k] = ns[n, "a", p]; b[k] = ns[n, "b", p]
			}
			sort(r, k); sort(a, k); sort(b, k)
			m = int((k + 1) / 2)
			printf "%s\n  ratio median %.3f [%.3f, %.3f]; ns/op median %.0f (REV) %.0f (this)\n", n, r[m], r[1], r[k], a[m], b[m]
		}
		printf "cpu (user+sys) of all runs: REV %.1f s, this %.1f s\n", cpu["a"], cpu["b"]
	}
	function sort(v, n,   i, j, t) { for (i = 2; i <= n; i++) { t = v[i]; for (j = i - 1; j >= 1 && v[j] > t; j--) v[j + 1] = v[j]; v[j + 1] = t } }
' "$dir/out.txt"
