#!/bin/sh
# Installs the independent readers the figures/report tests use, so that CI
# checks our tables with something other than our own code:
#   - DuckDB through its npm package (@duckdb/node-api, prebuilt binaries
#     from the npm registry; no network at test time),
#   - headless Chromium (Debian's chromium package) for report.html.
# The tests find DuckDB under $DPAUDIT_TOOLS (default ~/.cache/dpaudit/tools)
# and skip with a message when a tool is absent; DPAUDIT_REQUIRE_TOOLS=1
# makes them fail instead (CI sets it).
set -eu
tools="${DPAUDIT_TOOLS:-$HOME/.cache/dpaudit/tools}"
mkdir -p "$tools"
if [ ! -d "$tools/node_modules/@duckdb/node-api" ]; then
	npm install --silent --no-audit --no-fund --prefix "$tools" @duckdb/node-api@1.5.6-r.1
fi
if ! command -v chromium >/dev/null 2>&1 && [ "${DPAUDIT_INSTALL_CHROMIUM:-0}" = 1 ]; then
	apt-get install -y --no-install-recommends chromium
fi
echo "duckdb: $tools/node_modules/@duckdb/node-api"
command -v chromium || echo "chromium: not installed (set DPAUDIT_INSTALL_CHROMIUM=1 as root to install it)"
