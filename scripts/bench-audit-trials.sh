#!/bin/bash
# Alternating before/after CPU time per trial of the two audit workloads
# the per-step kernels are tuned for, through the CLI (audit-sized training; docs/performance.md).
#
#   scripts/bench-audit-trials.sh OLD_DPAUDIT NEW_DPAUDIT [PAIRS]
#
# e.g. OLD built from main (git worktree add /tmp/old main && (cd /tmp/old
# && go build -o /tmp/dpaudit_old ./cmd/dpaudit)), NEW from this tree.
# Each run uses a fresh store and -j 1, so CPU seconds per trial are the
# work of one core; wall times on a shared machine say little. MNIST must
# be in the data dir. Prints one line per run and the per-pair ratios.
set -euo pipefail
old=$1 new=$2 pairs=${3:-5}
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
cat > "$dir/hayes.yaml" <<'YAML'
# examples/hayes2023/fig3-prior-size.yaml at ε = 10 (σ = 4.999), |π| = 10:
# MLP 784-10-10 eLU, |D| = 1000, full batch, T = 100; 128 trials.
name: bench-hayes
seed: 1
dataset: {source: mnist, train_size: 1000}
model: {arch: mlp, hidden: [10], activation: elu}
dpsgd: {noise_multiplier: 4.999, sampling_rate: 1, steps: 100, clip_norm: 0.1, learning_rate: 1, delta: 1.0e-5}
reconstruction: {attack: prior_aware, prior_size: 10, trials: 128}
YAML
cat > "$dir/logreg.yaml" <<'YAML'
# examples/nasr2021/fig1-adversaries.yaml's API-access adversary at
# T = 1000: logistic regression, MNIST 0-vs-1 (12,665 records), q = 0.01,
# σ = 0.8519; 64 trials.
name: bench-logreg
seed: 2021
dataset: {source: mnist, classes: [0, 1]}
model: {arch: logreg}
dpsgd: {noise_multiplier: 0.8519, sampling_rate: 0.01, steps: 1000, delta: 1.0e-5, clip_norm: 1.0, learning_rate: 0.5}
crafter: {kind: random_record}
distinguisher: {kind: loss_threshold}
audit: {threat_model: api_access, trials: 64}
YAML
declare -A trials=([hayes]=128 [logreg]=64)
for p in $(seq "$pairs"); do
  for w in hayes logreg; do
    for v in old new; do
      bin=$old; [ $v = new ] && bin=$new
      rm -rf "$dir/store" "$dir/results"
      /usr/bin/time -f "%U %S %e" -o "$dir/t" "$bin" run "$dir/$w.yaml" -j 1 -store "$dir/store" -results "$dir/results" > /dev/null 2>&1
      read -r u s e < "$dir/t"
      cpu=$(echo "$u + $s" | bc)
      printf '%d %-6s %s cpu %6.2f s  %6.1f cpu-ms/trial  wall %6.2f s  load %s\n' \
        "$p" "$w" $v "$cpu" "$(echo "1000 * $cpu / ${trials[$w]}" | bc -l)" "$e" "$(cut -d' ' -f1 /proc/loadavg)"
    done
  done
done
