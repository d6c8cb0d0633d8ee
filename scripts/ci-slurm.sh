#!/usr/bin/env bash
# ci-slurm.sh: make a one-machine Slurm cluster, then run the Slurm executor
# tests against it. DPAUDIT_REQUIRE_SLURM=1 turns the tests' "Slurm is not
# available" skip into a failure, so CI cannot pass them silently.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/slurm-single-node.sh
export DPAUDIT_REQUIRE_SLURM=1
go test -count=1 -run 'TestSlurm' ./cmd/dpaudit
