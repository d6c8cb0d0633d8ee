#!/usr/bin/env bash
# Side-by-side measurements of docs/performance.md: dpaudit against the peer
# a user would pick instead, as alternating processes A B A B (never all of
# A first), with per-pair ratios (peer / dpaudit: above 1 means dpaudit is
# faster), their median and range, wall and CPU (user+sys) time, peak
# memory, and the load average before and after each comparison.
#
#   bash scripts/bench-perf.sh [WHAT ...]      WHAT: pld ideal bernau gemm dfil build (default: all)
#
# Environment: PAIRS (default 5); IDEAL_TRIALS (default 10⁶); BERNAU_REPS
# (dpaudit's repetitions per process, default 20) and BERNAU_SECONDS
# (torch's timed seconds, default 20); DFIL_REPS (dFIL computations per
# process, default 3); PEERS (/work/shared/peers); DP_ACCOUNTING (a source checkout's
# python/dp_accounting, see privacy/testdata/dp_accounting_pld.py);
# MNIST_DIR (default ~/.cache/dpaudit/data/mnist); OUT (default
# /tmp/dpaudit-bench). Python peers run with Debian's /usr/bin/python3
# (python3-numpy, python3-scipy; dp_accounting also needs python3-absl,
# python3-attr, python3-mpmath; the GEMM pairs need libopenblas-dev);
# REPO (the checkout to measure, default this script's: set it to run a
# copy of the script while editing this one).
set -euo pipefail
cd "${REPO:-$(dirname "$0")/..}"
PAIRS=${PAIRS:-5}
OUT=${OUT:-/tmp/dpaudit-bench}
PEERS=${PEERS:-/work/shared/peers}
MNIST_DIR=${MNIST_DIR:-$HOME/.cache/dpaudit/data/mnist}
export DP_ACCOUNTING=${DP_ACCOUNTING:-/tmp/dpacc/python/dp_accounting}
mkdir -p "$OUT"
WHAT=${*:-pld ideal bernau gemm dfil build}

load() { echo "load average: $(cut -d' ' -f1-3 /proc/loadavg)"; }

# run NAME CMD...: one timed process; appends "wall cpu maxrss_kib" to $OUT/NAME.times.
run() {
	local name=$1
	shift
	/usr/bin/time -f "%e %U %S %M" -o "$OUT/$name.time1" "$@" >"$OUT/$name.out1" 2>&1
	awk '{printf "%s %.3f %s\n", $1, $2+$3, $4}' "$OUT/$name.time1" >>"$OUT/$name.times"
	cat "$OUT/$name.out1" >>"$OUT/$name.log"
}

# rounds LABEL NAME1 "CMD1" NAME2 "CMD2" [NAME3 "CMD3" ...]: PAIRS rounds,
# each running every command once (the order rotates from round to
# round), then the per-round ratios of every later command to every
# earlier one (wall and CPU) with their median and range, and each command's median wall, CPU and peak memory.
rounds() {
	local label=$1
	shift
	local names=() cmds=()
	while (($#)); do
		names+=("$1")
		cmds+=("$2")
		shift 2
	done
	local k=${#names[@]} n p i j
	for n in "${names[@]}"; do rm -f "$OUT/$n.times" "$OUT/$n.log"; done
	echo "== $label"
	load
	for ((p = 0; p < PAIRS; p++)); do
		for ((i = 0; i < k; i++)); do
			local j=$(((i + p) % k))
			run "${names[j]}" bash -c "${cmds[j]}"
		done
	done
	load
	local files=()
	for n in "${names[@]}"; do files+=("$OUT/$n.times"); done
	paste "${files[@]}" | awk -v names="${names[*]}" '
		function med(x, n,   i, j, t) { for (i = 1; i <= n; i++) for (j = i + 1; j <= n; j++) if (x[j] < x[i]) { t = x[i]; x[i] = x[j]; x[j] = t }
			return n % 2 ? x[(n + 1) / 2] : (x[n / 2] + x[n / 2 + 1]) / 2 }
		function rng(x, n,   i, lo, hi) { lo = hi = x[1]; for (i = 2; i <= n; i++) { if (x[i] < lo) lo = x[i]; if (x[i] > hi) hi = x[i] }
			return sprintf("[%.2f, %.2f]", lo, hi) }
		BEGIN { k = split(names, nm, " ") }
		{ r++; line = sprintf("  round %d:", r)
		  for (c = 1; c <= k; c++) { w[c, r] = $(3 * c - 2); u[c, r] = $(3 * c - 1); m[c, r] = $(3 * c)
		    line = line sprintf(" %s %.2fs wall %.2fs cpu %.0f MiB;", nm[c], w[c, r], u[c, r], m[c, r] / 1024) }
		  print line }
		END { for (c = 1; c <= k; c++) { for (i = 1; i <= r; i++) { a[i] = w[c, i]; b[i] = u[c, i]; d[i] = m[c, i] }
		    printf "  %s: median %.2fs wall, %.2fs cpu, %.0f MiB peak\n", nm[c], med(a, r), med(b, r), med(d, r) / 1024 }
		  for (e = 1; e < k; e++) for (c = e + 1; c <= k; c++) { for (i = 1; i <= r; i++) { a[i] = w[c, i] / w[e, i]; b[i] = u[c, i] / u[e, i] }
		    printf "  %s / %s: wall %.2fx %s, cpu %.2fx %s\n", nm[c], nm[e], med(a, r), rng(a, r), med(b, r), rng(b, r) } }'
}

# pairs LABEL A-NAME "A CMD" B-NAME "B CMD": PAIRS alternating pairs (the
# order flips each pair), then the summary of B/A per pair.
pairs() { rounds "$@"; }

# perstep NAME TRIALS STEPS: NAME's median CPU seconds per trial-step, in ns.
perstep() {
	awk -v n="$1" -v s="$(($2 * $3))" '{c[NR] = $2} END { for (i = 1; i <= NR; i++) for (j = i + 1; j <= NR; j++) if (c[j] < c[i]) { t = c[i]; c[i] = c[j]; c[j] = t }
		m = NR % 2 ? c[(NR + 1) / 2] : (c[NR / 2] + c[NR / 2 + 1]) / 2; printf "  %s: %.1f ns CPU per trial-step (median)\n", n, m / s * 1e9 }' "$OUT/$1.times"
}

bin=$OUT/dpaudit
go build -o "$bin" ./cmd/dpaudit

for w in $WHAT; do
	case $w in
	pld)
		# PLD ε at T = 10⁶ (ε 139.031), whole processes.
		pairs "PLD eps, q = 0.01, sigma = 1, T = 1e6, delta = 1e-5, interval 1e-4" \
			dpaudit "$bin account --noise-multiplier 1 --sampling-rate 0.01 --steps 1000000 --delta 1e-5 --accountant pld" \
			dp_accounting "/usr/bin/python3 privacy/testdata/dp_accounting_pld.py pld 0.01 1 1000000 1e-5 1e-4"
		;;
	ideal)
		# The ideal-mechanism audit: IDEAL_TRIALS trials x T = 1000, simulate
		# and estimate (split thresholds); dpaudit on two threads and on one
		# against numpy's one, in rounds of three; CPU ns per trial-step of
		# each (whole process: simulation, estimate, start-up).
		go test -c -o "$OUT/attack.test" ./attack
		n=${IDEAL_TRIALS:-1000000}
		ideal="DPAUDIT_IDEAL_TRIALS=$n $OUT/attack.test -test.run '^\$' -test.bench 'IdealAudit\$' -test.benchtime 1x"
		rounds "ideal audit, $n trials x T = 1000 (dpaudit 2 threads and 1, numpy 1)" \
			dpaudit-2threads "$ideal" dpaudit-1thread "GOMAXPROCS=1 $ideal" numpy "/usr/bin/python3 $PEERS/ideal_np.py $n 1000"
		for w in dpaudit-2threads dpaudit-1thread numpy; do perstep "$w" "$n" 1000; done
		;;
	bernau)
		# Bernau et al. Table 2(e) repetitions per second on both cores
		# (dpaudit: one game per core, BERNAU_REPS repetitions per process;
		# torch: vmap, 2 threads, for BERNAU_SECONDS), alternating, as rates
		# per wall second and per CPU second (dpaudit's CPU: the whole
		# process, start-up included; torch's: its timed loop), ratio
		# dpaudit / torch per pair.
		go test -c -o "$OUT/identify.test" ./attack/identify
		reps=${BERNAU_REPS:-20}
		echo "== Bernau repetition (Table 2(e), LS-bounded): repetitions per wall second and per CPU second"
		load
		rm -f "$OUT/bernau.rates"
		for ((p = 0; p < PAIRS; p++)); do
			ours=$(/usr/bin/time -f "cpu %U %S" "$OUT/identify.test" -test.run '^$' -test.bench Table2eRepetition -test.benchtime "${reps}x" 2>&1 |
				awk -v n="$reps" '/reps\/s/ {for (i = 1; i < NF; i++) if ($(i+1) == "reps/s") w = $i} /^cpu / {c = n / ($2 + $3)} END {print w, c}')
			theirs=$(cd "$PEERS" && /usr/bin/python3 bernau_torch.py vmap 2 "${BERNAU_SECONDS:-20}" 2>/dev/null |
				awk '{for (i = 1; i < NF; i++) { if ($(i+1) == "reps/s") w = $i; if ($(i+1) == "reps/cpu-s") c = $i }} END {print w, c}')
			echo "$ours $theirs" | tee -a "$OUT/bernau.rates" | awk '{printf "  pair: dpaudit %s/s wall, %.3f/CPU-s | torch %s/s wall, %s/CPU-s | ratio wall %.2f, CPU %.2f\n", $1, $2, $3, $4, $1/$3, $2/$4}'
		done
		for k in 1 2; do
			awk -v k="$k" '{print k == 1 ? $1/$3 : $2/$4}' "$OUT/bernau.rates" | sort -g | awk -v what="$([ "$k" = 1 ] && echo wall || echo CPU)" '{r[NR] = $1} END {printf "  dpaudit / torch by %s: median %.2f [%.2f, %.2f]\n", what, NR % 2 ? r[(NR+1)/2] : (r[NR/2]+r[NR/2+1])/2, r[1], r[NR]}'
		done
		load
		;;
	gemm)
		# Ours against OpenBLAS, one thread, pairs inside one process.
		echo "== GEMM against OpenBLAS (pairs in one process)"
		load
		GEMM_PAIRS=$PAIRS go test -tags openblas -run '^$' -bench OpenBLASPairs -benchtime 1x ./learn/gemm | tee "$OUT/gemm.log"
		load
		;;
	dfil)
		# dFIL of the 12,665 MNIST 0-vs-1 samples (fit untimed on both sides).
		go test -c -o "$OUT/glm.test" ./learn/glm
		pairs "dFIL, MNIST 0-vs-1 (one thread each)" \
			dpaudit "GOMAXPROCS=1 $OUT/glm.test -test.run '^\$' -test.bench 'MNISTDFIL\$' -test.benchtime ${DFIL_REPS:-3}x" \
			numpy "OPENBLAS_NUM_THREADS=1 /usr/bin/python3 $PEERS/dfil_np.py $MNIST_DIR ${DFIL_REPS:-3}"
		echo "  (whole processes include each side's MNIST loading and fit)"
		# The dFIL computation alone, round by round: dpaudit's ns/op
		# (the mean of DFIL_REPS calls) against numpy's better variant
		# (the median of its DFIL_REPS calls after a warm-up).
		paste <(awk '/^BenchmarkMNISTDFIL/ {print $3 / 1e9}' "$OUT/dpaudit.log") \
			<(sed -n 's/.*dense_med_s=\([0-9.a-z]*\) sparse_med_s=\([0-9.a-z]*\).*/\1 \2/p' "$OUT/numpy.log") |
			awk '{ np = $2; if ($3 != "nan" && ($2 == "nan" || $3 + 0 < $2 + 0)) np = $3
				r[NR] = np / $1; printf "  round %d, the computation alone: dpaudit %.3fs, numpy %.3fs\n", NR, $1, np }
				END { for (i = 1; i <= NR; i++) for (j = i + 1; j <= NR; j++) if (r[j] < r[i]) { t = r[i]; r[i] = r[j]; r[j] = t }
					printf "  numpy / dpaudit, the dFIL computation alone: %.2fx [%.2f, %.2f]\n", NR % 2 ? r[(NR + 1) / 2] : (r[NR / 2] + r[NR / 2 + 1]) / 2, r[1], r[NR] }'
		;;
	build)
		# Cold build, binary size, start-up (package initialisation).
		echo "== build"
		load
		cache=$(mktemp -d)
		/usr/bin/time -f "cold build: %e s wall, %U s user, %S s sys, %M KiB peak" env GOCACHE="$cache" go build -o "$OUT/dpaudit-cold" ./cmd/dpaudit
		rm -rf "$cache"
		ls -l "$OUT/dpaudit-cold" | awk '{printf "binary: %.1f MiB\n", $5/1048576}'
		strip -o "$OUT/dpaudit-stripped" "$OUT/dpaudit-cold" && ls -l "$OUT/dpaudit-stripped" | awk '{printf "stripped: %.1f MiB\n", $5/1048576}'
		for i in 1 2 3 4 5; do
			GODEBUG=inittrace=1 "$OUT/dpaudit-cold" version 2>&1 >/dev/null | awk '{ms += $5} END {printf "init: %.1f ms clock over %d packages\n", ms, NR}'
		done
		go version -m "$OUT/dpaudit-cold" | grep -c 'dep' | awk '{print "modules linked: " $1}'
		load
		;;
	*)
		echo "unknown: $w" >&2
		exit 2
		;;
	esac
done
