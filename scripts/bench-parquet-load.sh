#!/bin/sh
# Loading a 1.0 GB Parquet data set (320,000 rows × 784 float32 features
# and an int64 label, uniform noise so that it does not compress): time,
# CPU and peak memory of
#   load     the datasets loader alone (test fraction 0.2, no digest),
#   validate `dpaudit validate` of a spec training on the file (SHA-256 of
#            the file, load, model check: what plan and run do first),
#   duckdb   DuckDB (npm @duckdb/node-api) reading the same file into an
#            in-memory table (CREATE TABLE … AS SELECT * FROM read_parquet),
# run in alternation (load, validate, duckdb) PAIRS times, so that a
# loaded machine disturbs all three alike. The file stays in the page
# cache after the first read: these are warm-cache numbers.
#
#   sh scripts/bench-parquet-load.sh            # PAIRS=5, in /tmp/dpaudit-bench-parquet
#
# Prints one line per process (wall s, user s, sys s, peak RSS KB) and the
# medians; `uptime` before and after.
set -eu
dir="${BENCH_DIR:-/tmp/dpaudit-bench-parquet}"
pairs="${PAIRS:-5}"
tools="${DPAUDIT_TOOLS:-$HOME/.cache/dpaudit/tools}"
module="$tools/node_modules/@duckdb/node-api"
mkdir -p "$dir"
if [ ! -f "$dir/big.parquet" ]; then
	DPAUDIT_BIG_PARQUET="$dir/big.parquet" go test ./datasets -run TestWriteBigParquet -count=1 -v | grep GB
fi
go test -c -o "$dir/datasets.test" ./datasets
go build -o "$dir/dpaudit" ./cmd/dpaudit
cat >"$dir/big.yaml" <<'EOF'
name: big
dataset: {source: file, path: big.parquet, label: label}
model: {arch: logreg}
dpsgd: {noise_multiplier: 1, sampling_rate: 0.001, steps: 10}
train: {}
EOF
cat >"$dir/duckdb.js" <<'EOF'
const { DuckDBInstance } = require(process.env.DUCKDB_MODULE);
(async () => {
  const db = await DuckDBInstance.create(':memory:');
  const con = await db.connect();
  await con.run("CREATE TABLE t AS SELECT * FROM read_parquet('" + process.env.FILE + "')");
  const n = (await con.runAndReadAll('SELECT count(*) AS n FROM t')).getRowObjectsJson();
  console.log('duckdb rows ' + n[0].n);
})().catch(e => { console.error(String(e)); process.exit(1); });
EOF
uptime
out="$dir/times.txt"
: >"$out"
fmt='%e %U %S %M'
i=0
while [ "$i" -lt "$pairs" ]; do
	/usr/bin/time -f "load $fmt" -a -o "$out" env DPAUDIT_BIG_PARQUET="$dir/big.parquet" "$dir/datasets.test" -test.run TestLoadBigParquet >/dev/null
	/usr/bin/time -f "validate $fmt" -a -o "$out" "$dir/dpaudit" validate "$dir/big.yaml" >/dev/null
	if [ -d "$module" ]; then
		/usr/bin/time -f "duckdb $fmt" -a -o "$out" env DUCKDB_MODULE="$module" FILE="$dir/big.parquet" node "$dir/duckdb.js" >/dev/null
	fi
	i=$((i + 1))
done
uptime
echo "what wall_s user_s sys_s peak_rss_kb"
cat "$out"
median() { sort -n | awk '{ v[NR] = $1 } END { if (NR) print v[int((NR + 1) / 2)] }'; }
for what in load validate duckdb; do
	n=$(grep -c "^$what " "$out" || true)
	[ "$n" -gt 0 ] || continue
	wall=$(grep "^$what " "$out" | awk '{ print $2 }' | median)
	cpu=$(grep "^$what " "$out" | awk '{ print $3 + $4 }' | median)
	rss=$(grep "^$what " "$out" | awk '{ print $5 * 1024 / 1e9 }' | median)
	echo "$what: median of $n: wall $wall s, cpu (user+sys) $cpu s, peak RSS $rss GB (10^9 bytes)"
done
