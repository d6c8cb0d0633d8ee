#!/usr/bin/env bash
# Alternating A/B timings for the mechanisms of privacy/ and learn/:
#   pld    replace-one against add/remove PLD ε on the MNIST schedule
#          (q = 256/60000, σ = 1.1, T = 14063, δ = 1e-5), Go;
#   dpacc  the same two with Google's dp_accounting (needs DP_ACCOUNTING,
#          see privacy/testdata/dp_accounting_mech.py);
#   bandmf the MLP 784-512-10 training step with b = 64 bands of
#          matrix-factorization noise against DP-SGD's independent noise.
# Each pair runs A then B, PAIRS times (default 5); every line prints wall
# and CPU (user+sys) seconds, and the load average is printed first, so
# ratios per pair can be formed from the output.
# Usage: scripts/bench-mechanisms.sh pld|dpacc|bandmf [PAIRS]
set -euo pipefail
mode=${1:?pld, dpacc or bandmf}
pairs=${2:-5}
root=$(cd "$(dirname "$0")/.." && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
uptime
TIMEFORMAT='wall %R s cpu %U+%S s'
case $mode in
pld)
	(cd "$root" && go test -c -o "$tmp/privacy.test" ./privacy)
	a=(-test.run XXX -test.bench 'MechanismPLD/add_remove$' -test.benchtime 5x)
	b=(-test.run XXX -test.bench 'MechanismPLD/replace_one$' -test.benchtime 5x)
	run() { "$tmp/privacy.test" "$@" | grep Benchmark; } ;;
dpacc)
	s="$root/privacy/testdata/dp_accounting_mech.py"
	a=(addremove-pld 0.004266666666666667 1.1 14063 1e-5 1e-4)
	b=(replace-pld 0.004266666666666667 1.1 14063 1e-5 1e-4)
	run() { /usr/bin/python3 "$s" "$@"; } ;;
bandmf)
	(cd "$root" && go test -c -o "$tmp/learn.test" ./learn)
	a=(-test.run XXX -test.bench 'BandMF/.*/bands=0/threads=1$' -test.benchtime 40x)
	b=(-test.run XXX -test.bench 'BandMF/.*/bands=64/threads=1$' -test.benchtime 40x)
	run() { "$tmp/learn.test" "$@" | grep Benchmark; } ;;
*)
	echo "unknown mode $mode" >&2
	exit 2 ;;
esac
for ((i = 1; i <= pairs; i++)); do
	echo "pair $i A"
	time run "${a[@]}"
	echo "pair $i B"
	time run "${b[@]}"
done
