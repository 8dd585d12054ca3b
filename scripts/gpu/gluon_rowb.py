# ruff: noqa: B023, E731  (closures run inside their loop iteration; lambdas name the timed variants)
"""Decode shapes with B row-major (17-64 rows, N = K = 4096 and 16384) through intdot.gemm.gpu_gluon_rowb, the
Hopper kernel that re-lays each B tile once for all rows: its configurations (stages, programs a multiprocessor),
each exact against torch, timed as kernels alone (torch.profiler, L2 flushed before each call, median of 10)
against torch._int_mm's kernel on its best layout (B column-major) and gpu_split's kernel, which gemm used there
before (issue 12); then the whole gemm call as bench/gemm.py times it.

    python scripts/gpu/gluon_rowb.py      # on the H200; ratios > 1 are faster than torch's best
"""

import itertools
import statistics

import torch
import triton
from torch.profiler import ProfilerActivity, profile

from intdot.gemm import gemm, gpu_split
from intdot.gemm import gpu_gluon_rowb as rb

# (NUM stages, PER_SM programs a multiprocessor) for every row count; the module's own choice (gpu_gluon_rowb.stages)
# is the whole call's.  Three programs a multiprocessor fit its registers up to 32 rows (MP) only: at 64 they run two
# a multiprocessor whatever PER_SM says, and the grid's K split leaves a third of them waiting.
CONFIGS = [(3, 2), (4, 2), (6, 2), (3, 3)]
MS = (17, 32, 64)


def kernel_us(fn, calls=10):
    """Median microseconds of the longest kernel of fn() (the GEMM's own), L2 flushed before each call."""
    flush = torch.empty(256 << 20, dtype=torch.int8, device="cuda")
    fn()
    torch.cuda.synchronize()
    with profile(activities=[ProfilerActivity.CUDA]) as prof:
        for _ in range(calls):
            flush.zero_()
            fn()
        torch.cuda.synchronize()
    times = [e.device_time for e in prof.events() if e.device_type.name == "CUDA" and "elementwise" not in e.name]
    times = [t for t in times if t > 0]
    return statistics.median(sorted(times)[-calls:])


def run():
    bench = lambda f: triton.testing.do_bench(f, warmup=10, rep=100, return_mode="median") * 1e-3
    sms = torch.cuda.get_device_properties("cuda").multi_processor_count
    module = rb.NUM, rb.NUM_LONG, rb.PER_SM
    for nk, m in itertools.product((4096, 16384), MS):
        w = torch.randint(-128, 128, (nk, nk), dtype=torch.int8, device="cuda")  # row-major
        wcol = w.t().contiguous().t()
        x = torch.randint(-128, 128, (m, nk), dtype=torch.int8, device="cuda")
        best = lambda: torch._int_mm(x, wcol)
        # The whole calls before any profiling of this shape (launches after torch's profiler cost the host more).
        t_torch, t_gemm = bench(best), bench(lambda: gemm(x, w, op="sdot4"))
        ref, k_torch = best(), kernel_us(best)
        k_split = kernel_us(lambda: gpu_split.mm_split(x, w, None, False))
        line = f"M={m} N=K={nk}: torch kernel {k_torch:.1f} us; split-K kernel {k_torch / k_split:.2f}x;"
        for num, per_sm in CONFIGS:
            rb.NUM = rb.NUM_LONG = num  # every row count and B length alike
            rb.PER_SM = per_sm
            go = lambda: rb.mm(x, w, None, False, sms)
            try:
                line += f" {num}x{per_sm} {k_torch / kernel_us(go):.2f}x exact={torch.equal(go(), ref)};"
            except Exception as exc:  # shared memory past a multiprocessor's: say so and go on
                line += f" {num}x{per_sm} {type(exc).__name__};"
        rb.NUM, rb.NUM_LONG, rb.PER_SM = module
        line += f" whole call: gemm {t_torch / t_gemm:.2f}x torch ({t_torch * 1e6:.1f} us)"
        print(line, flush=True)


if __name__ == "__main__":
    run()
