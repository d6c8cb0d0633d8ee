# DP-SGD with Opacus for the four BenchmarkDPSGD models (README,
# Performance): the same models, data and fixed batches as
# torch_nonprivate.py, trained by Opacus's GradSampleModule and DPOptimizer
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
import sys
import time
import warnings

import torch
import torch.nn as nn
from opacus import GradSampleModule
from opacus.optimizers import DPOptimizer

warnings.filterwarnings("ignore")
threads = int(sys.argv[1]) if len(sys.argv) > 1 else 1
seconds = float(sys.argv[2]) if len(sys.argv) > 2 else 2.0
only = sys.argv[3] if len(sys.argv) > 3 else ""
torch.set_num_threads(threads)
torch.manual_seed(1)
N = 4096
X = torch.rand(N, 784)
Y = torch.randint(0, 10, (N,))


def cnn():
    # TanhCNN (learn.TanhCNN, 26,010 parameters).
    return nn.Sequential(
        nn.Unflatten(1, (1, 28, 28)),
        nn.Conv2d(1, 16, 8, 2, padding=3), nn.Tanh(), nn.MaxPool2d(2, 1),
        nn.Conv2d(16, 32, 4, 2), nn.Tanh(), nn.MaxPool2d(2, 1),
        nn.Flatten(), nn.Linear(32 * 4 * 4, 32), nn.Tanh(), nn.Linear(32, 10))


models = [
    ("logreg-784-10-b256", lambda: nn.Linear(784, 10), 256),
    ("mlp-784-512-10-relu-b256", lambda: nn.Sequential(nn.Linear(784, 512), nn.ReLU(), nn.Linear(512, 10)), 256),
    ("mlp-784-128-10-relu-b64", lambda: nn.Sequential(nn.Linear(784, 128), nn.ReLU(), nn.Linear(128, 10)), 64),
    ("cnn-tanh-26010-b128", cnn, 128),
]
for name, make, B in models:
    if only and only not in name:
        continue
    m = GradSampleModule(make())
    opt = DPOptimizer(torch.optim.SGD(m.parameters(), lr=0.01), noise_multiplier=1.0,
                      max_grad_norm=1.0, expected_batch_size=B)
    loss = nn.CrossEntropyLoss()
    perm = torch.randperm(N)
    steps, i = 0, 0
    for _ in range(5):  # warm-up
        opt.zero_grad()
        loss(m(X[:B]), Y[:B]).backward()
        opt.step()
    start, cpu = time.perf_counter(), time.process_time()
    while time.perf_counter() - start < seconds:
        idx = perm[i:i + B]
        i = (i + B) % (N - B)
        opt.zero_grad()
        loss(m(X[idx]), Y[idx]).backward()
        opt.step()
        steps += 1
    el, cpu = time.perf_counter() - start, time.process_time() - cpu
    print(f"opacus {name} threads={threads} {steps * B / el:.0f} examples/s {steps * B / cpu:.0f} examples/cpu-s")
