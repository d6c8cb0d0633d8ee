#!/bin/sh
# Regenerates the figures shown in docs/figures-and-reports.md (docs/figures/*.png) from the
# example specs. Results come from the store (.dpaudit/store, or
# $DPAUDIT_STORE), so a second run only redraws; cold, Nasr Fig. 8 (4 × 10⁶
# ideal-mechanism trials) takes about 13 s on two cores.
#
#   ./scripts/regen-docs-figures.sh
set -eu
cd "$(dirname "$0")/.."
results="${RESULTS:-results}"
mkdir -p docs/figures
fig() { # spec results-name figure-name
	go run ./cmd/dpaudit run "$1" --results "$results" >/dev/null
	cp "$results/$2/figures/$3.png" "docs/figures/$2--$3.png"
	echo "docs/figures/$2--$3.png"
}
fig examples/quickstart.yaml quickstart epsilon-vs-epochs
fig examples/hayes2023/fig15-q-sweep.yaml hayes2023-fig15-q-sweep rero-vs-q
fig examples/hayes2023/fig15-q-sigma-grid.yaml hayes2023-fig15-q-sigma-grid rero-q-sigma
fig examples/nasr2021/fig8-malicious-dataset.yaml nasr2021-fig8-malicious-dataset epsilon-lb-vs-theory
fig examples/audit/find-a-bug.yaml find-a-bug audit-on-the-curve
