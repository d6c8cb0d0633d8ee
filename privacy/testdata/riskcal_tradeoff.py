#!/usr/bin/python3
"""riskcal and Google's dp_accounting on the trade-off curve of the
quickstart's MNIST DP-SGD schedule (q = 256/60000, σ = 1.1, T = 14063),
for the reference digits of privacy/tradeoff_test.go and
privacy/calibrate_risk_test.go and the side-by-side timings of
docs/what-epsilon-means.md. Neither is on this machine's package index;
run them from source checkouts (riskcal's pure-Python RDP fallback is
used, its Cython module is not built):

    git -C <dp checkout> archive HEAD python/dp_accounting | tar -x -C /tmp/risk-py
    git -C <riskcal checkout> archive HEAD src | tar -x -C /tmp/risk-py
    apt-get install python3-numpy python3-scipy python3-absl python3-attr python3-mpmath
    /usr/bin/python3 privacy/testdata/riskcal_tradeoff.py curve     # β at 1000 FPRs, timed
    /usr/bin/python3 privacy/testdata/riskcal_tradeoff.py points    # β at the tests' FPRs
    /usr/bin/python3 privacy/testdata/riskcal_tradeoff.py advantage # σ for advantage 0.1, q = 0.04, T = 2250

RISK_PY (default /tmp/risk-py) is where the two are unpacked.
"""
import os
import sys
import time
import types

# dm-tree (needed by other parts of dp_accounting) is not packaged here.
sys.modules.setdefault("tree", types.ModuleType("tree"))
root = os.environ.get("RISK_PY", "/tmp/risk-py")
sys.path.insert(0, os.path.join(root, "python/dp_accounting"))
sys.path.insert(0, os.path.join(root, "src"))

import numpy as np  # noqa: E402
from dp_accounting.pld import privacy_loss_distribution as pldm  # noqa: E402
from riskcal import analysis  # noqa: E402

Q, SIGMA, T, H = 256 / 60000, 1.1, 14063, 1e-4


def mnist_pld():
    return pldm.from_gaussian_mechanism(standard_deviation=SIGMA, sampling_prob=Q, use_connect_dots=True,
                                        value_discretization_interval=H).self_compose(T)


def timed(label, f):
    t0, c0 = time.perf_counter(), time.process_time()
    v = f()
    print(f"{label}: wall {time.perf_counter() - t0:.3f} s, cpu {time.process_time() - c0:.3f} s")
    return v


mode = sys.argv[1] if len(sys.argv) > 1 else "points"
if mode == "curve":
    pld = timed("PLD (compose)", mnist_pld)
    alphas = np.logspace(-6, 0, 1000)
    timed("riskcal get_beta_from_pld, 1000 FPRs", lambda: analysis.get_beta_from_pld(pld, alpha=alphas))
    timed("dp_accounting get_true_positive_rates, 1000 FPRs", lambda: pld.get_true_positive_rates(alphas))
elif mode == "points":
    pld = mnist_pld()
    a = np.array([1e-3, 0.01, 0.1, 0.5])
    print("FPR", a)
    print("riskcal beta", analysis.get_beta_from_pld(pld, alpha=a))
    print("dp_accounting 1 - TPR", 1 - pld.get_true_positive_rates(a))
    print("advantage (delta at eps 0)", analysis.get_advantage_from_pld(pld))
    print("epsilon at 1e-5", pld.get_epsilon_for_delta(1e-5))
elif mode == "advantage":
    from riskcal.calibration.dpsgd import find_noise_multiplier_for_advantage
    timed("riskcal σ for advantage 0.1 (q = 0.04, T = 2250)",
          lambda: print(find_noise_multiplier_for_advantage(advantage=0.1, sample_rate=0.04, num_steps=2250)))
else:
    sys.exit(f"unknown mode {mode!r} (curve, points, advantage)")
