# Single-thread float32 GEMM through numpy (OpenBLAS), for side-by-side
# ratios against BenchmarkTune (README, Performance). Run as
#   OPENBLAS_NUM_THREADS=1 OPENBLAS_CORETYPE=SkylakeX python3 numpy_sgemm.py
# and alternate with the Go benchmark. GFLOP/s over the thread's CPU time,
# like the Go benchmark's cpuGFLOP/s.
import time

import numpy as np

for n in (512, 1024, 2048):
    a = np.random.rand(n, n).astype(np.float32)
    b = np.random.rand(n, n).astype(np.float32)
    a @ b
    reps = max(2, int(4e9 / (2 * n**3)))
    t = time.thread_time()
    for _ in range(reps):
        a @ b
    t = time.thread_time() - t
    print(f"numpy {n} {2 * n**3 * reps / t / 1e9:.1f}")
