#!/usr/bin/env bash
# Calibration to a risk target against calibration to ε, alternated A B A B
# (the machine is shared: never -count N, which runs all of A first).
#   A: BenchmarkCalibratePLD      σ for ε = 8, δ = 1e-5, q = 0.04, T = 2250
#   B: BenchmarkCalibrateRiskPLD  σ for TPR ≤ 0.237759 at FPR 0.01, same q, T
#      (the risk the ε calibration lands on)
# and the trade-off curve at the MNIST schedule beyond its PLD.
# Prints wall and CPU time per pair, the median and [min, max] of the
# per-pair ratios B/A, and the load average. Usage: scripts/bench-risk-calibration.sh [pairs]
set -euo pipefail
pairs=${1:-5}
cd "$(dirname "$0")/.."
bin=$(mktemp -d)/privacy.test
trap 'rm -rf "$(dirname "$bin")"' EXIT
go test -c -o "$bin" ./privacy
uptime
run() { # name → "wall_ns cpu_ns"
	"$bin" -test.run '^$' -test.bench "^$1\$" -test.benchtime 3x |
		awk -v b="$1" '$1 ~ b {for (i = 1; i <= NF; i++) {if ($i == "ns/op") w = $(i-1); if ($i == "cpu-ns/op") c = $(i-1)}} END {print w, c}'
}
wr=(); cr=()
for i in $(seq "$pairs"); do
	read -r wa ca < <(run BenchmarkCalibratePLD)
	read -r wb cb < <(run BenchmarkCalibrateRiskPLD)
	w=$(awk -v a="$wa" -v b="$wb" 'BEGIN {printf "%.3f", b / a}')
	c=$(awk -v a="$ca" -v b="$cb" 'BEGIN {printf "%.3f", b / a}')
	printf 'pair %d: ε %.0f ms (cpu %.0f ms), risk %.0f ms (cpu %.0f ms): ratio wall %s, cpu %s\n' \
		"$i" "$(awk -v x="$wa" 'BEGIN{print x/1e6}')" "$(awk -v x="$ca" 'BEGIN{print x/1e6}')" \
		"$(awk -v x="$wb" 'BEGIN{print x/1e6}')" "$(awk -v x="$cb" 'BEGIN{print x/1e6}')" "$w" "$c"
	wr+=("$w"); cr+=("$c")
done
summary() { printf '%s\n' "$@" | sort -g | awk '{a[NR] = $1} END {m = (NR % 2) ? a[(NR + 1) / 2] : (a[NR / 2] + a[NR / 2 + 1]) / 2; printf "median %.3f [%.3f, %.3f]\n", m, a[1], a[NR]}'; }
echo "risk/ε wall: $(summary "${wr[@]}")"
echo "risk/ε cpu:  $(summary "${cr[@]}")"
"$bin" -test.run '^$' -test.bench 'TradeOff' -test.benchtime 10x | grep Benchmark
uptime
