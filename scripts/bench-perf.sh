#!/usr/bin/env bash
# Side-by-side measurements of docs/performance.md: dpaudit against the peer
# a user would pick instead, as alternating processes A B A B (never all of
# A first), with per-pair ratios (peer / dpaudit: above 1 means dpaudit is
# faster), their median and range, wall and CPU (user+sys) time, peak
# memory, and the load average before and after each comparison.
#
#   bash scripts/bench-perf.sh [WHAT ...]      WHAT: pld ideal bernau gemm dfil build (default: all)
#
# Environment: PAIRS (default 5); IDEAL_TRIALS (default 10⁶); DP_ACCOUNTING (a source checkout's
# python/dp_accounting, see privacy/testdata/dp_accounting_pld.py);
# MNIST_DIR (default ~/.cache/dpaudit/data/mnist); OUT (default
# /tmp/dpaudit-bench). Python peers run with Debian's /usr/bin/python3
# (python3-numpy, python3-scipy; dp_accounting also needs python3-absl,
# python3-attr, python3-mpmath; the GEMM pairs need libopenblas-dev).
set -euo pipefail
cd "$(dirname "$0")/.."
PAIRS=${PAIRS:-5}
OUT=${OUT:-/tmp/dpaudit-bench}
PEERS=${PEERS:-../shared/peers}
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

# pairs LABEL A-NAME "A CMD" B-NAME "B CMD": PAIRS alternating pairs (the
# order flips each pair), then the summary of B/A per pair.
pairs() {
	local label=$1 an=$2 acmd=$3 bn=$4 bcmd=$5
	rm -f "$OUT/$an.times" "$OUT/$bn.times" "$OUT/$an.log" "$OUT/$bn.log"
	echo "== $label"
	load
	for ((p = 0; p < PAIRS; p++)); do
		if ((p % 2 == 0)); then
			run "$an" bash -c "$acmd"
			run "$bn" bash -c "$bcmd"
		else
			run "$bn" bash -c "$bcmd"
			run "$an" bash -c "$acmd"
		fi
	done
	load
	paste "$OUT/$an.times" "$OUT/$bn.times" | awk -v a="$an" -v b="$bn" '
		function med(x, n,   i, j, t) { for (i = 1; i <= n; i++) for (j = i + 1; j <= n; j++) if (x[j] < x[i]) { t = x[i]; x[i] = x[j]; x[j] = t }
			return n % 2 ? x[(n + 1) / 2] : (x[n / 2] + x[n / 2 + 1]) / 2 }
		{ n++; aw[n] = $1; ac[n] = $2; am[n] = $3; bw[n] = $4; bc[n] = $5; bm[n] = $6
		  rw[n] = $4 / $1; rc[n] = $5 / $2
		  printf "  pair %d: %s %.2fs wall %.2fs cpu %.0f MiB | %s %.2fs wall %.2fs cpu %.0f MiB | ratio wall %.2f cpu %.2f\n", n, a, $1, $2, $3/1024, b, $4, $5, $6/1024, rw[n], rc[n] }
		END { for (i = 1; i <= n; i++) { sw[i] = rw[i]; sc[i] = rc[i] }
		  minw = maxw = rw[1]; minc = maxc = rc[1]
		  for (i = 1; i <= n; i++) { if (rw[i] < minw) minw = rw[i]; if (rw[i] > maxw) maxw = rw[i]; if (rc[i] < minc) minc = rc[i]; if (rc[i] > maxc) maxc = rc[i] }
		  printf "  %s / %s: wall %.2fx [%.2f, %.2f], cpu %.2fx [%.2f, %.2f]; median wall %s %.2fs, %s %.2fs; peak memory median %s %.0f MiB, %s %.0f MiB\n",
			b, a, med(sw, n), minw, maxw, med(sc, n), minc, maxc, a, med(aw, n), b, med(bw, n), a, med(am, n) / 1024, b, med(bm, n) / 1024 }'
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
		# The ideal-mechanism audit: 10⁶ trials x T = 1000, simulate and
		# estimate (split thresholds), two threads against numpy's one; then
		# one thread against two (the second core's gain).
		go test -c -o "$OUT/attack.test" ./attack
		n=${IDEAL_TRIALS:-1000000}
		ideal="DPAUDIT_IDEAL_TRIALS=$n $OUT/attack.test -test.run '^\$' -test.bench 'IdealAudit\$' -test.benchtime 1x"
		pairs "ideal audit, $n trials x T = 1000 (dpaudit 2 threads, numpy 1)" \
			dpaudit "$ideal" numpy "/usr/bin/python3 $PEERS/ideal_np.py $n 1000"
		pairs "ideal audit, one thread against two" \
			dpaudit-2threads "$ideal" dpaudit-1thread "GOMAXPROCS=1 $ideal"
		;;
	bernau)
		# Bernau et al. Table 2(e) repetitions per second on both cores
		# (dpaudit: one game per core; torch: vmap, 2 threads), as rates
		# (both sides run for a while), ratio dpaudit / torch per pair.
		go test -c -o "$OUT/identify.test" ./attack/identify
		echo "== Bernau repetition (Table 2(e), LS-bounded), repetitions/s"
		load
		rm -f "$OUT/bernau.rates"
		for ((p = 0; p < PAIRS; p++)); do
			ours=$("$OUT/identify.test" -test.run '^$' -test.bench Table2eRepetition -test.benchtime 20x | awk '/reps\/s/ {for (i = 1; i < NF; i++) if ($(i+1) == "reps/s") print $i}')
			theirs=$(cd "$PEERS" && /usr/bin/python3 bernau_torch.py vmap 2 20 2>/dev/null | awk '{for (i = 1; i < NF; i++) if ($(i+1) ~ /^trials\/s$|^reps\/s$|^repetitions\/s$/) print $i}' | tail -1)
			echo "$ours $theirs" | tee -a "$OUT/bernau.rates" | awk '{printf "  pair: dpaudit %s/s, torch %s/s, ratio %.2f\n", $1, $2, $1/$2}'
		done
		awk '{print $1/$2}' "$OUT/bernau.rates" | sort -g | awk '{r[NR] = $1} END {printf "  dpaudit / torch: median %.2f [%.2f, %.2f]\n", NR % 2 ? r[(NR+1)/2] : (r[NR/2]+r[NR/2+1])/2, r[1], r[NR]}'
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
			dpaudit "GOMAXPROCS=1 $OUT/glm.test -test.run '^\$' -test.bench 'MNISTDFIL\$' -test.benchtime 3x" \
			numpy "OPENBLAS_NUM_THREADS=1 /usr/bin/python3 $PEERS/dfil_np.py $MNIST_DIR 3"
		echo "  (whole processes include each side's fit; the in-process figures are in $OUT/dpaudit.log and $OUT/numpy.log)"
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
