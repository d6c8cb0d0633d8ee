# DP-SGD with Opacus for the four BenchmarkDPSGD models (README,
# Performance): the same models, data and fixed batches as
# torch_nonprivate.py (bench_models.py), trained by Opacus's GradSampleModule and DPOptimizer
# (per-example gradients by hooks, clip norm C = 1, noise multiplier σ = 1,
# plain SGD), i.e. what BenchmarkDPSGD runs (C = 1, σ = 1). Prints
# examples/s over wall time and over the process's CPU time. Opacus is not
# on this machine's package index; run it from source checkouts
# (github.com/pytorch/opacus at tag v1.4.0, the last release that accepts
# Debian's torch 1.13, and github.com/dgasmith/opt_einsum):
#   git -C <opacus> archive v1.4.0 | tar -x -C /tmp/opacus
#   git -C <opt_einsum> archive HEAD opt_einsum | tar -x -C /tmp/opacus
#   OMP_WAIT_POLICY=PASSIVE OPENBLAS_CORETYPE=SkylakeX PYTHONPATH=/tmp/opacus \
#       /usr/bin/python3 learn/testdata/opacus_dpsgd.py THREADS [SECONDS [MODEL]]
import warnings

import torch
from opacus import GradSampleModule
from opacus.optimizers import DPOptimizer

from bench_models import run

warnings.filterwarnings("ignore")


def private(m, B):
    m = GradSampleModule(m)
    opt = DPOptimizer(torch.optim.SGD(m.parameters(), lr=0.01), noise_multiplier=1.0,
                      max_grad_norm=1.0, expected_batch_size=B)
    return m, opt


run("opacus", private)
