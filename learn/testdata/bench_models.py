# The four BenchmarkDPSGD models and the timing loop shared by
# torch_nonprivate.py and opacus_dpsgd.py (README, Performance): fixed
# batches from 4096 random MNIST-shaped records, one optimizer step per
# batch, 5 warm-up steps, then steps for SECONDS of wall time.
import sys
import time

import torch
import torch.nn as nn

N = 4096


def cnn():
    # TanhCNN (learn.TanhCNN, 26,010 parameters).
    return nn.Sequential(
        nn.Unflatten(1, (1, 28, 28)),
        nn.Conv2d(1, 16, 8, 2, padding=3), nn.Tanh(), nn.MaxPool2d(2, 1),
        nn.Conv2d(16, 32, 4, 2), nn.Tanh(), nn.MaxPool2d(2, 1),
        nn.Flatten(), nn.Linear(32 * 4 * 4, 32), nn.Tanh(), nn.Linear(32, 10))


MODELS = [
    ("logreg-784-10-b256", lambda: nn.Linear(784, 10), 256),
    ("mlp-784-512-10-relu-b256", lambda: nn.Sequential(nn.Linear(784, 512), nn.ReLU(), nn.Linear(512, 10)), 256),
    ("mlp-784-128-10-relu-b64", lambda: nn.Sequential(nn.Linear(784, 128), nn.ReLU(), nn.Linear(128, 10)), 64),
    ("cnn-tanh-26010-b128", cnn, 128),
]


def run(label, prepare):
    """Times every model selected by argv (THREADS [SECONDS [MODEL]]);
    prepare(model, batch) returns the (model, optimizer) to train."""
    threads = int(sys.argv[1]) if len(sys.argv) > 1 else 1
    seconds = float(sys.argv[2]) if len(sys.argv) > 2 else 2.0
    only = sys.argv[3] if len(sys.argv) > 3 else ""
    torch.set_num_threads(threads)
    torch.manual_seed(1)
    X = torch.rand(N, 784)
    Y = torch.randint(0, 10, (N,))
    for name, make, B in MODELS:
        if only and only not in name:
            continue
        m, opt = prepare(make(), B)
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
        print(f"{label} {name} threads={threads} {steps * B / el:.0f} examples/s {steps * B / cpu:.0f} examples/cpu-s")
