# Non-private PyTorch training loop for the four BenchmarkDPSGD models
# (README, Performance): plain SGD, cross-entropy, fixed batches from 4096
# random MNIST-shaped records, one optimizer step per batch (the models and
# the loop are in bench_models.py). Prints examples/s over wall time and
# over the process's CPU time. Run as
#   OMP_WAIT_POLICY=PASSIVE OPENBLAS_CORETYPE=SkylakeX /usr/bin/python3 torch_nonprivate.py THREADS [SECONDS [MODEL]]
# and alternate with `go test ./learn -run X -bench DPSGD`.
import torch

from bench_models import run

run("torch", lambda m, B: (m, torch.optim.SGD(m.parameters(), lr=0.01)))
