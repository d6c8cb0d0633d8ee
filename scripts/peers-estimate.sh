#!/usr/bin/env bash
# dpaudit estimate side by side with jax_privacy's auditing module and TF
# Privacy's privacy_tests epsilon lower bounds, on the same two tables:
# 10⁶ classic rows (member scores N(1, 1), others N(0, 1)) and a one-run
# table of 10⁵ canaries (N(2, 1) against N(0, 1), each in with
# probability ½). Prints every number and its CPU and wall seconds.
#
#   JAX_PRIVACY=/path/to/jax_privacy TF_PRIVACY=/path/to/privacy scripts/peers-estimate.sh
#
# The two peers are read from git checkouts of google-deepmind/jax_privacy
# and tensorflow/privacy (their modules are copied to a temporary folder,
# never into this repository). Both are numpy/scipy code, run with
# Debian's python3-numpy, python3-scipy, python3-sklearn,
# python3-statsmodels and python3-immutabledict; no TensorFlow or JAX is
# needed. jax_privacy's auditing imports dp_accounting for one function
# (get_sigma_gaussian, the f-DP audit's σ of the Gaussian mechanism at
# (ε, δ)); a stand-in written here solves the analytic Gaussian mechanism
# (Balle & Wang 2018, Theorem 8) for it with scipy.
set -euo pipefail
cd "$(dirname "$0")/.."
: "${JAX_PRIVACY:?set JAX_PRIVACY to a checkout of google-deepmind/jax_privacy}"
: "${TF_PRIVACY:?set TF_PRIVACY to a checkout of tensorflow/privacy}"
py=${PYTHON:-/usr/bin/python3}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$tmp/peers"
git -C "$JAX_PRIVACY" show HEAD:jax_privacy/auditing.py >"$tmp/peers/jax_auditing.py"
git -C "$TF_PRIVACY" show HEAD:tensorflow_privacy/privacy/privacy_tests/epsilon_lower_bound.py >"$tmp/peers/tf_elb.py"
echo "jax_privacy $(git -C "$JAX_PRIVACY" rev-parse --short HEAD), tensorflow/privacy $(git -C "$TF_PRIVACY" rev-parse --short HEAD)"
cat >"$tmp/peers/dp_accounting.py" <<'EOF'
"""Stand-in for dp_accounting.get_sigma_gaussian: the smallest σ for which
the Gaussian mechanism of sensitivity 1 is (ε, δ)-DP, from the exact
δ(ε) of Balle & Wang (2018, Theorem 8)."""
import numpy as np
import scipy.optimize
import scipy.stats

def get_sigma_gaussian(eps, delta, tol=1e-12):
    if eps == np.inf or delta >= 1:
        return 0.0
    def gap(sigma):
        a, b = 1 / (2 * sigma), eps * sigma
        return scipy.stats.norm.cdf(a - b) - np.exp(eps) * scipy.stats.norm.cdf(-a - b) - delta
    hi = 1.0
    while gap(hi) > 0:
        hi *= 2
    return scipy.optimize.brentq(gap, 1e-12, hi, xtol=tol)
EOF

"$py" - "$tmp" <<'EOF'
import random, sys
d = sys.argv[1]
random.seed(2)
with open(d + '/classic.csv', 'w') as f:
    f.write('member,score\n')
    for i in range(1000000):
        m = i % 2
        f.write('%d,%.6f\n' % (m, random.gauss(1.0 * m, 1)))
with open(d + '/onerun.csv', 'w') as f:
    f.write('canary,member,score\n')
    for i in range(100000):
        m = random.randint(0, 1)
        f.write('%d,%d,%.6f\n' % (i, m, random.gauss(2.0 * m, 1)))
EOF
go build -o "$tmp/dpaudit" ./cmd/dpaudit
echo "load: $(uptime)"
echo "== dpaudit estimate (confidence 0.95, delta 1e-5)"
for args in "classic.csv" "classic.csv --threshold bonferroni" "onerun.csv"; do
	set -- $args
	/usr/bin/time -o "$tmp/time" -f "cpu %U+%S s, wall %e s (reading the CSV included)" \
		"$tmp/dpaudit" estimate "$tmp/$1" "${@:2}" --format csv >"$tmp/out.csv"
	echo "  $args: $(cat "$tmp/time")"
	"$py" -c 'import csv, sys
for r in csv.DictReader(open(sys.argv[1])):
    print("    %-20s valid=%-5s epsilon_lb=%s" % (r["estimate"], r["valid"], r["epsilon_lb"]))' "$tmp/out.csv"
done

"$py" - "$tmp" <<'EOF'
import sys, time
import numpy as np
d = sys.argv[1]
sys.path.insert(0, d + '/peers')
import jax_auditing as jax
import tf_elb as tf

def load(name):
    a = np.loadtxt(d + '/' + name, delimiter=',', skiprows=1)
    member, score = a[:, -2].astype(bool), a[:, -1]
    return score[member], score[~member]

def timed(label, fn):
    c, w = time.process_time(), time.perf_counter()
    v = fn()
    print('  %-58s %-10.6g cpu %.2f s, wall %.2f s' % (label, float(v), time.process_time() - c, time.perf_counter() - w))

alpha, delta = 0.05, 1e-5
pos, neg = load('classic.csv')
print('== jax_privacy auditing.CanaryScoreAuditor, 10^6 classic rows')
box = {}
timed('CanaryScoreAuditor(in, out): sorts, counts per threshold', lambda: box.setdefault('a', jax.CanaryScoreAuditor(pos, neg)) and 0)
a = box['a']
timed('epsilon_clopper_pearson, two-sided, Split(0.2, seed 0)', lambda: a.epsilon_clopper_pearson(alpha, delta, one_sided=False, threshold_strategy=jax.Split(0.2, 0)))
timed('epsilon_clopper_pearson, two-sided, Bonferroni (all thresholds)', lambda: a.epsilon_clopper_pearson(alpha, delta, one_sided=False))
timed('epsilon_from_gdp (Bonferroni over 2n thresholds)', lambda: a.epsilon_from_gdp(alpha, delta))
timed('attack_auroc', lambda: a.attack_auroc())
print('== TF Privacy privacy_tests EpsilonLowerBound, 10^6 classic rows (delta = 0, no correction over thresholds)')
timed('clopper-pearson, two-sided thresholds, top-1', lambda: tf.EpsilonLowerBound(pos, neg, alpha, two_sided_threshold=True).compute_epsilon_lower_bound(tf.BoundMethod.CLOPPER_PEARSON, k=1)[0])
timed('katz-log, two-sided thresholds, top-1', lambda: tf.EpsilonLowerBound(pos, neg, alpha, two_sided_threshold=True).compute_epsilon_lower_bound(tf.BoundMethod.KATZ_LOG, k=1)[0])

pos, neg = load('onerun.csv')
print('== jax_privacy auditing, one-run table of 10^5 canaries (one-sided guesses, Bonferroni over thresholds)')
a = jax.CanaryScoreAuditor(pos, neg)
timed('epsilon_one_run (Steinke et al.)', lambda: a.epsilon_one_run(alpha, delta))
timed('epsilon_one_run_fdp (Mahloujifar et al.)', lambda: a.epsilon_one_run_fdp(alpha, delta))
EOF
echo "load: $(uptime)"
