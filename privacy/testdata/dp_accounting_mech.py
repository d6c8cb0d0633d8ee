#!/usr/bin/python3
"""Google's dp_accounting on the mechanisms beyond Poisson add/remove, for
the reference numbers pinned in privacy/mechanism_test.go (replace-one
adjacency, fixed-size batches, balls-in-bins). Run it from a source checkout
of github.com/google/differential-privacy, as dp_accounting_pld.py; the
random-allocation accountant was not merged into the main branch when these
numbers were taken, so use the commit of its pull request:

    git -C <checkout> archive 125d46c8cb4253115c545dd4d574a2d5e52ef4bd python/dp_accounting | tar -x -C /tmp/dpacc
    apt-get install python3-numpy python3-scipy python3-absl python3-attr python3-mpmath
    export DP_ACCOUNTING=/tmp/dpacc/python/dp_accounting
    /usr/bin/python3 privacy/testdata/dp_accounting_mech.py replace-pld 0.01 1.1 3000 1e-5 1e-4
    /usr/bin/python3 privacy/testdata/dp_accounting_mech.py wor-rdp 0.01 0.55 3000 1e-5
    /usr/bin/python3 privacy/testdata/dp_accounting_mech.py bib-pld 100 1.0 1 1e-5 1e-3 upper

Arguments: mode; the sampling rate q (bib-pld: the batches per epoch t);
the noise multiplier (wor-rdp: relative to the replace-one sensitivity of
the batch sum, i.e. σ/2 for DP-SGD's σ); steps (bib-pld: epochs); δ; the
PLD interval; for bib-pld "upper" (DOMINATES) or "lower" (IS_DOMINATED).
Prints the ε and the wall time of the computation (imports excluded);
REPEAT=n repeats it and prints the median.
"""
import os
import statistics
import sys
import time
import types

sys.modules.setdefault("tree", types.ModuleType("tree"))
sys.path.insert(0, os.environ.get("DP_ACCOUNTING", "/tmp/dpacc/python/dp_accounting"))

from dp_accounting import dp_event  # noqa: E402
from dp_accounting import privacy_accountant  # noqa: E402
from dp_accounting.pld import pld_privacy_accountant  # noqa: E402
from dp_accounting.rdp import rdp_privacy_accountant  # noqa: E402

NR = privacy_accountant.NeighboringRelation
mode, x, sigma, steps, delta = sys.argv[1], float(sys.argv[2]), float(sys.argv[3]), int(sys.argv[4]), float(sys.argv[5])
interval = float(sys.argv[6]) if len(sys.argv) > 6 else 1e-4
bound = sys.argv[7] if len(sys.argv) > 7 else "upper"


def run():
    if mode == "replace-pld":
        acc = pld_privacy_accountant.PLDAccountant(NR.REPLACE_ONE, value_discretization_interval=interval)
        acc.compose(dp_event.SelfComposedDpEvent(dp_event.PoissonSampledDpEvent(x, dp_event.GaussianDpEvent(sigma)), steps))
        return acc.get_epsilon(delta)
    if mode == "addremove-pld":
        acc = pld_privacy_accountant.PLDAccountant(value_discretization_interval=interval)
        acc.compose(dp_event.SelfComposedDpEvent(dp_event.PoissonSampledDpEvent(x, dp_event.GaussianDpEvent(sigma)), steps))
        return acc.get_epsilon(delta)
    if mode == "wor-rdp":
        n = 1_000_000
        acc = rdp_privacy_accountant.RdpAccountant(neighboring_relation=NR.REPLACE_ONE)
        acc.compose(dp_event.SelfComposedDpEvent(
            dp_event.SampledWithoutReplacementDpEvent(n, round(x * n), dp_event.GaussianDpEvent(sigma)), steps))
        return acc.get_epsilon(delta)
    if mode == "bib-pld":
        from dp_accounting.pld import random_allocation
        from dp_accounting.pld.random_allocation import definitions
        params = random_allocation.PrivacyParams(sigma=sigma, num_steps=int(x), num_selected=1)
        config = random_allocation.AllocationSchemeConfig(value_discretization_interval=interval)
        bt = definitions.BoundType.DOMINATES if bound == "upper" else definitions.BoundType.IS_DOMINATED
        pld = random_allocation.gaussian_allocation_pld(params, config, bt)
        return pld.self_compose(steps).get_epsilon_for_delta(delta)
    raise SystemExit(f"unknown mode {mode}")


times = []
for _ in range(int(os.environ.get("REPEAT", "1"))):
    t0 = time.time()
    value = run()
    times.append(time.time() - t0)
print(f"{mode} x={x} sigma={sigma} steps={steps} delta={delta} interval={interval} {bound} eps={value:.9f} seconds={statistics.median(times):.4f}")
