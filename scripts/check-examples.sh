#!/usr/bin/env bash
# Runs examples and checks the numbers their expect blocks state (and their
# comments quote): each example runs with a fresh store, and a number that
# drifted beyond its tolerance fails, naming the example, the column, the
# point, the expected and the measured value.
#
#   scripts/check-examples.sh           the quick examples (what go test runs)
#   scripts/check-examples.sh --long    the long ones (listed in
#                                       examples_expect_test.go), minutes to hours
#   scripts/check-examples.sh --all     every example
#   scripts/check-examples.sh --long -run 'hayes2023:fig15|table2e'
#                                       a subset: go test -run over subtests
#                                       named folder:file
#
# The quick examples are checked by `go test .` (TestExampleNumbers; not
# with -short). Environment: DPAUDIT_DATA (data dir), TIMEOUT (go test
# -timeout, default 6h), DPAUDIT_EXAMPLES_KEEP (a folder that keeps each
# example's fresh store and results, one subfolder per example, instead of
# deleting them).
set -euo pipefail
cd "$(dirname "$0")/.."

mode=""
filter=""
while [ $# -gt 0 ]; do
  case "$1" in
    --long) mode=long ;;
    --all) mode=all ;;
    -run) filter="/($2)"; shift ;;  # parenthesised: go test splits a top-level | into separate patterns
    -h|--help) sed -n '2,19p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "check-examples: unknown argument $1 (see --help)" >&2; exit 2 ;;
  esac
  shift
done

log="$(mktemp)"
trap 'rm -f "$log"' EXIT
rc=0
DPAUDIT_EXAMPLES="$mode" go test -count=1 -timeout "${TIMEOUT:-6h}" \
  -run "TestExampleNumbers${filter}" -v . >"$log" 2>&1 || rc=$?
grep -E '^(=== RUN|\s*--- |\s+examples_expect_test|ok|FAIL|PASS|panic)' "$log" || true
if ! grep -q '^=== RUN   TestExampleNumbers/' "$log"; then
  echo "check-examples: no example was run (check -run)" >&2
  [ $rc -ne 0 ] && tail -20 "$log" >&2
  exit 1
fi
exit $rc
