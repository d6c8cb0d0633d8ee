#!/bin/bash
# The side-by-side round of DP-SGD, audit training and GEMM against older
# trees, PyTorch, Opacus and OpenBLAS (its figures: docs/performance.md,
# "Earlier figures"), meant for a quiet machine. Needs:
#   OLD_LEARN  a learn test binary of an older tree with learn/audit_bench_test.go
#              copied in (e.g. 2740c3f, before the per-step audit kernels)
#   PREV_LEARN a learn test binary to compare DP-SGD against (e.g. the previous main)
#   /usr/bin/python3 with Debian's python3-torch; Opacus 1.4.0 and opt_einsum
#   source trees in $OPACUS (learn/testdata/opacus_dpsgd.py says how);
#   libopenblas-dev for the GEMM comparison.
#   scripts/bench-side-by-side.sh OUTDIR
set -euo pipefail
out=$(realpath -m "${1:-/tmp/side-by-side}"); mkdir -p "$out"
root=$(cd "$(dirname "$0")/.." && pwd)
: "${OLD_LEARN:?set OLD_LEARN}" "${PREV_LEARN:?set PREV_LEARN}" "${OPACUS:=/tmp/opacus}"
cd "$root" && go test -c -o "$out/new.test" ./learn && go test -tags openblas -c -o "$out/gemm_ob.test" ./learn/gemm && go test -c -o "$out/gemm.test" ./learn/gemm
cd "$root/learn"
log() { echo "$1 $(date +%T) load $(cut -d' ' -f1 /proc/loadavg)"; }
log start
# Audit-sized training: the older tree against this one, 7 alternating pairs.
for i in $(seq 7); do for v in old new; do
  bin=$OLD_LEARN; [ $v = new ] && bin=$out/new.test
  $bin -test.run X -test.bench 'AuditTrial/(hayes-mlp-784-10-10-elu-N1000-full-T100|logreg-01-N12665-q0.01-T1000)$' -test.benchtime 30x 2>&1 | grep "^Benchmark" | sed "s/^/$i $v /"
done; done > "$out/audit.txt"
log audit
# DP-SGD against non-private PyTorch (1 and 2 torch threads, and on one real
# thread) and Opacus: 6 rounds (Opacus in the first 3).
for i in $(seq 6); do
  for v in prev new; do
    bin=$PREV_LEARN; [ $v = new ] && bin=$out/new.test
    $bin -test.run X -test.bench 'DPSGD/(logreg-784|mlp-784-512|mlp-784-128|cnn)' -test.benchtime 1s 2>&1 | grep "^Benchmark" | sed "s/^/$i $v /"
  done
  for t in 1 2; do OMP_WAIT_POLICY=PASSIVE OPENBLAS_CORETYPE=SkylakeX /usr/bin/python3 testdata/torch_nonprivate.py $t 1.5 | sed "s/^/$i /"; done
  OMP_WAIT_POLICY=PASSIVE OPENBLAS_CORETYPE=SkylakeX OPENBLAS_NUM_THREADS=1 /usr/bin/python3 testdata/torch_nonprivate.py 1 1.5 | sed "s/^/$i real1 /"
  if [ "$i" -le 3 ]; then for t in 1 2; do
    OMP_WAIT_POLICY=PASSIVE OPENBLAS_CORETYPE=SkylakeX PYTHONPATH=$OPACUS /usr/bin/python3 testdata/opacus_dpsgd.py $t 1.5 2>/dev/null | sed "s/^/$i /"
  done; fi
done > "$out/dpsgd.txt"
log dpsgd
cd gemm
sh="0,0,512,512,512;0,0,1024,1024,1024;0,0,2048,2048,2048;0,0,256,512,784;0,1,256,512,784;1,0,512,784,256;0,0,64,128,784;0,1,64,128,784;1,0,128,784,64"
OPENBLAS_CORETYPE=SkylakeX GEMM_SHAPES="$sh" "$out/gemm_ob.test" -test.run X -test.bench VsOpenBLAS -test.count 5 -test.benchtime 400ms > "$out/gemm512.txt" 2>&1
OPENBLAS_CORETYPE=Haswell GEMM_PATH=avx2 GEMM_SHAPES="$sh" "$out/gemm_ob.test" -test.run X -test.bench VsOpenBLAS -test.count 5 -test.benchtime 400ms > "$out/gemm2.txt" 2>&1
log gemm
"$out/gemm.test" -test.run X -test.bench 'SgemmParallel/square' -test.count 6 -test.benchtime 1s > "$out/par.txt" 2>&1
log parallel
