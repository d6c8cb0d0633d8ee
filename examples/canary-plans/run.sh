#!/usr/bin/env bash
# The worked example of docs/canary-plans.md, end to end: make a plan,
# train elsewhere (examples/canary-plans/trainer, a DP-SGD that is not
# dpaudit's) once honestly and once with a bug that skips clipping and
# noise, each with three trainer seeds, and audit every run with
# dpaudit estimate --plan against the claim σ = 6, q = 0.05, T = 2000.
#
#   examples/canary-plans/run.sh [WORKDIR]
#
# Needs MNIST in the data directory (dpaudit data fetch mnist).
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
work=${1:-$(mktemp -d)}
mkdir -p "$work"
cd "$work"
(cd "$root" && go build -o "$work/dpaudit" ./cmd/dpaudit && go build -o "$work/trainer" ./examples/canary-plans/trainer)
rm -f plan.parquet plan.json
./dpaudit canaries make --crafter mislabeled_record --dataset mnist --count 1000 --seed 7 --out plan.parquet
claim=(--noise-multiplier 6 --sampling-rate 0.05 --steps 2000)
for run in honest buggy; do
	for seed in 1 2 3; do
		flags=(-sigma 6)
		[[ $run == buggy ]] && flags=(-non-private)
		./trainer -plan plan.parquet -out "scores-$run-$seed.csv" -train 1000 -q 0.05 -steps 2000 -lr 1 -seed "$seed" "${flags[@]}"
		echo "== $run training, trainer seed $seed"
		code=0
		./dpaudit estimate --plan plan.parquet "scores-$run-$seed.csv" --lower-is-member "${claim[@]}" --fail-on-violation || code=$?
		echo "exit code $code"
	done
done
