# ruff: noqa: B023, E731  (closures run inside their loop iteration; lambdas name the timed variants)
"""Decode shapes with B row-major (17-64 rows, N = K = 4096 and 16384) through intdot.gemm.gpu_gluon_rowb, the
Hopper kernel that re-lays each B tile once for all rows: its configurations (stages, programs a multiprocessor),
each exact against torch, timed against torch._int_mm on its best layout (B column-major) and against gpu_split's
kernel, which gemm used there before (issue 12).

    python scripts/gpu/gluon_rowb.py      # on the H200; ratios > 1 are faster than torch's best
"""

import itertools

import torch
import triton

from intdot.gemm import gemm, gpu_split
from intdot.gemm import gpu_gluon_rowb as rb

CONFIGS = [(3, 2), (4, 1), (4, 2), (2, 3)]  # (NUM stages, PER_SM programs a multiprocessor); the module's first
MS = (17, 32, 48, 64)


def run():
    bench = lambda f: triton.testing.do_bench(f, warmup=10, rep=100, return_mode="median") * 1e-3
    sms = torch.cuda.get_device_properties("cuda").multi_processor_count
    assert (rb.NUM, rb.PER_SM) == CONFIGS[0]
    for nk, m in itertools.product((4096, 16384), MS):
        w = torch.randint(-128, 128, (nk, nk), dtype=torch.int8, device="cuda")  # row-major
        wcol = w.t().contiguous().t()
        x = torch.randint(-128, 128, (m, nk), dtype=torch.int8, device="cuda")
        best = lambda: torch._int_mm(x, wcol)
        ref, t_torch = best(), bench(best)
        t_split = bench(lambda: gpu_split.mm_split(x, w, None, False))
        t_gemm = bench(lambda: gemm(x, w, op="sdot4"))  # the module's configuration, through gemm's plan
        line = f"M={m} N=K={nk}: torch best {t_torch * 1e6:.1f} us; gemm {t_torch / t_gemm:.2f}x, "
        line += f"split-K kernel {t_torch / t_split:.2f}x;"
        for num, per_sm in CONFIGS:
            rb.NUM, rb.PER_SM = num, per_sm
            go = lambda: rb.mm(x, w, None, False, sms)
            line += f" NUM {num} x{per_sm} {t_torch / bench(go):.2f}x exact={torch.equal(go(), ref)};"
        rb.NUM, rb.PER_SM = CONFIGS[0]
        print(line, flush=True)


if __name__ == "__main__":
    run()
