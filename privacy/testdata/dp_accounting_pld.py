#!/usr/bin/python3
"""Google's dp_accounting on a Poisson-subsampled Gaussian, for the
side-by-side rows of the README's performance table and of
TestPLDFineMatchesDPAccounting ("PLD at fine intervals"). dp_accounting is
not on this machine's package index, so run it from a source checkout of github.com/google/differential-privacy:

    git -C <checkout> archive HEAD python/dp_accounting | tar -x -C /tmp/dpacc
    apt-get install python3-numpy python3-scipy python3-absl python3-attr python3-mpmath
    export DP_ACCOUNTING=/tmp/dpacc/python/dp_accounting
    /usr/bin/python3 privacy/testdata/dp_accounting_pld.py pld 0.01 1 200000 1e-5 1e-5
    /usr/bin/python3 privacy/testdata/dp_accounting_pld.py pld 0.004266666666666667 1.1 14063 1e-5 1e-4
    /usr/bin/python3 privacy/testdata/dp_accounting_pld.py rdp 0.004266666666666667 1.1 14063 1e-5
    /usr/bin/python3 privacy/testdata/dp_accounting_pld.py calibrate-pld 0.04 8 2250 1e-5 1e-4

Arguments: mode, sampling rate q, noise multiplier σ (calibrate-pld: the
target ε), steps T, δ, and for PLD the interval. Prints the result and the
wall time of the computation (imports excluded); REPEAT=n repeats it and
prints the median.
"""
import os
import statistics
import sys
import time
import types

# dm-tree (a dependency of other parts of the package) is not packaged for
# Debian here; these paths never call it.
sys.modules.setdefault("tree", types.ModuleType("tree"))
sys.path.insert(0, os.environ.get("DP_ACCOUNTING", "/tmp/dpacc/python/dp_accounting"))

from dp_accounting import dp_event  # noqa: E402
from dp_accounting import mechanism_calibration  # noqa: E402
from dp_accounting.pld import pld_privacy_accountant  # noqa: E402
from dp_accounting.rdp import rdp_privacy_accountant  # noqa: E402

mode, q, x, steps, delta = sys.argv[1], float(sys.argv[2]), float(sys.argv[3]), int(sys.argv[4]), float(sys.argv[5])
interval = float(sys.argv[6]) if len(sys.argv) > 6 else 1e-4


def event(sigma):
    return dp_event.SelfComposedDpEvent(dp_event.PoissonSampledDpEvent(q, dp_event.GaussianDpEvent(sigma)), steps)


def run():
    if mode == "pld":
        acc = pld_privacy_accountant.PLDAccountant(value_discretization_interval=interval)
        acc.compose(event(x))
        return "eps", acc.get_epsilon(delta)
    if mode == "rdp":
        acc = rdp_privacy_accountant.RdpAccountant()
        acc.compose(event(x))
        return "eps", acc.get_epsilon(delta)
    if mode == "calibrate-pld":
        return "sigma", mechanism_calibration.calibrate_dp_mechanism(
            lambda: pld_privacy_accountant.PLDAccountant(value_discretization_interval=interval),
            event, x, delta)
    raise SystemExit(f"unknown mode {mode}")


times = []
for _ in range(int(os.environ.get("REPEAT", "1"))):
    t0 = time.time()
    name, value = run()
    times.append(time.time() - t0)
print(f"{mode} q={q} x={x} T={steps} delta={delta} interval={interval} {name}={value:.9f} seconds={statistics.median(times):.4f}")
