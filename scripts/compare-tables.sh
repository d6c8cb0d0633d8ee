#!/usr/bin/env bash
# Runs example specs with two dpaudit builds, each into its own store and
# results root, and compares every published table byte for byte (cmp):
# summary.parquet, every trials part, and the figures drawn from them. A restructuring that keeps node
# kinds, parameters and columns must leave every table identical.
#
#   scripts/compare-tables.sh OLD NEW [SPEC ...]
#
# OLD and NEW are git revisions (built from `git archive`, the work tree is
# not touched) or paths to dpaudit binaries. Without SPECs it runs the
# examples below, which finish in minutes on two cores.
#
# Timing columns (train_seconds, glm_*_seconds, audit_cpu_seconds, …) are
# measurements and differ between any two runs, even of one binary. When a
# summary differs, the script shows `dpaudit diff` with those columns
# ignored: "equal except timing columns" is then the verdict. A table
# whose bytes differ but whose cells are all equal (scripts/tablecmp:
# arrow-go writes page-encoding statistics in map order) is counted as
# such; any other difference fails. Exit code 0 when every table agrees.
#
# Environment: TIMEOUT (seconds per run, default 900), JOBS (-j, default 2),
# WORK (work folder, default a temporary one, removed unless KEEP=1),
# DPAUDIT_DATA (data dir, as for dpaudit).
set -euo pipefail
cd "$(dirname "$0")/.."

if [ $# -lt 2 ]; then
  sed -n '2,22p' "$0" | sed 's/^# \{0,1\}//'
  exit 2
fi
old=$1 new=$2
shift 2
specs=("$@")
if [ ${#specs[@]} -eq 0 ]; then
  specs=(
    examples/quickstart.yaml
    examples/accounting/rdp-vs-pld-vs-gdp.yaml
    examples/audit/find-a-bug.yaml
    examples/audit/find-a-bug-sequential.yaml
    examples/audit/one-run-ideal.yaml
    examples/audit/shuffle-vs-poisson.yaml
    examples/audit/per-step.yaml
    examples/bernau2021/fig3.yaml
    examples/bernau2021/table2f.yaml
    examples/bernau2021/table2e-purchase.yaml
    examples/guo2022/dpsgd-mnist-rdp.yaml
    examples/guo2022/rdp-bound-vs-eps.yaml
    examples/guo2022/fig3-glm-attack.yaml
    examples/hayes2023/table2.yaml
    examples/hayes2023/fig15-q-sigma-grid.yaml
    examples/hayes2023/ideal.yaml
    examples/hayes2023/fig4-minibatch.yaml
    examples/mukherjee2023/bounds-vs-eps.yaml
    examples/mukherjee2023/fig2-pnsgd.yaml
    examples/utility/digits-mlp.yaml
  )
fi
timeout_s=${TIMEOUT:-900}
jobs=${JOBS:-2}
timing_cols=train_seconds,fil_seconds,fil_overhead,glm_fit_seconds,glm_dfil_seconds,glm_attack_seconds,glm_reconstructions_per_second,audit_cpu_seconds

work=${WORK:-$(mktemp -d "${TMPDIR:-/tmp}/compare-tables.XXXXXX")}
mkdir -p "$work"
if [ -z "${WORK:-}" ] && [ "${KEEP:-}" != 1 ]; then
  trap 'rm -rf "$work"' EXIT
fi

# binary SIDE REV_OR_PATH: prints the path of a dpaudit binary.
binary() {
  if [ -x "$2" ] && [ ! -d "$2" ]; then
    echo "$2"
    return
  fi
  local src="$work/src-$1"
  rm -rf "$src" && mkdir -p "$src"
  git archive "$2" | tar -x -C "$src"
  (cd "$src" && go build -o "$work/dpaudit-$1" ./cmd/dpaudit)
  echo "$work/dpaudit-$1"
}
tablecmp="$work/tablecmp"
go build -o "$tablecmp" ./scripts/tablecmp
old_bin=$(binary old "$old")
new_bin=$(binary new "$new")
echo "old: $old ($old_bin)"
echo "new: $new ($new_bin)"
echo "work: $work, -j $jobs, timeout ${timeout_s}s per run, load: $(cut -d' ' -f1-3 /proc/loadavg)"

failed=0
ran=()
for spec in "${specs[@]}"; do
  name=$(awk '/^name:/ {print $2; exit}' "$spec")
  ok=1
  for side in old new; do
    bin=${side}_bin
    start=$(date +%s)
    if ! timeout "$timeout_s" "${!bin}" run -j "$jobs" --store "$work/store-$side" --results "$work/results-$side" "$spec" \
      >"$work/$name.$side.log" 2>&1; then
      echo "SKIP  $spec: the $side run did not finish (see $work/$name.$side.log)"
      ok=0
      break
    fi
    echo "      $spec: $side run took $(($(date +%s) - start)) s"
  done
  [ $ok = 1 ] || { failed=1; continue; }
  a="$work/results-old/$name" b="$work/results-new/$name"
  tables=$(cd "$a" && find . -name '*.parquet' | sort)
  if [ "$tables" != "$(cd "$b" && find . -name '*.parquet' | sort)" ]; then
    echo "FAIL  $spec: the two runs published different sets of tables"
    diff <(echo "$tables") <(cd "$b" && find . -name '*.parquet' | sort) || true
    failed=1
    continue
  fi
  n=0 reordered=0 differ=()
  for t in $tables; do
    n=$((n + 1))
    cmp -s "$a/$t" "$b/$t" && continue
    # arrow-go writes a column chunk's page-encoding statistics from a
    # map, so a column whose dictionary fell back to plain pages lists
    # them in either order: equal contents, two footer bytes apart.
    if "$tablecmp" "$a/$t" "$b/$t" >/dev/null; then
      reordered=$((reordered + 1))
    else
      differ+=("$t")
    fi
  done
  # Figures are drawn from the tables by the figure nodes: the same bytes.
  figs=$(cd "$a" && find . -path './figures/*' -type f | sort)
  for f in $figs; do
    n=$((n + 1))
    cmp -s "$a/$f" "$b/$f" || differ+=("$f")
  done
  same="$((n - reordered - ${#differ[@]})) byte-identical"
  [ $reordered = 0 ] || same="$same, $reordered equal cell for cell (footer encoding-statistics order)"
  if [ ${#differ[@]} -eq 0 ]; then
    echo "SAME  $spec: $n file(s): $same"
    ran+=("$spec")
    continue
  fi
  if [ "${differ[*]}" = "./summary.parquet" ] && "$new_bin" diff --ignore "$timing_cols" "$a" "$b" >"$work/$name.diff" 2>&1; then
    echo "SAME  $spec: $n file(s): $same, summary.parquet equal except timing columns ($timing_cols)"
    ran+=("$spec")
    continue
  fi
  echo "FAIL  $spec: ${#differ[@]} of $n file(s) differ: ${differ[*]}"
  for t in "${differ[@]}"; do "$tablecmp" "$a/$t" "$b/$t" | sed "s|^|      $t: |" || true; done
  failed=1
done
echo "compared ${#ran[@]} of ${#specs[@]} spec(s): ${ran[*]}"
exit $failed
