"""Where one gemm call's time goes on the GPU: its kernels and their durations (torch.profiler), beside the whole
call as bench/gemm.py times it (do_bench, L2 flushed) and its host time per call (back to back).

    python scripts/gpu/profile_calls.py     # on the H200; the shapes the bench leaves short of the issue's goals

A call whose do_bench time exceeds the sum of its kernels by more than the launch gaps is waiting for its host.
"""

import sys
from functools import partial
from pathlib import Path

import torch
import triton

from intdot.gemm import gemm, gpu_tensors

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "bench"))
from timing import host_us, kernels_us  # noqa: E402  (bench/timing.py, shared with the bench)

dev = "cuda"


def show(what, fn):
    whole = triton.testing.do_bench(fn, warmup=25, rep=200, return_mode="median") * 1e3
    ks = kernels_us(fn)
    parts = ", ".join(f"{name[:40]} {t:.1f}" for name, t in ks)
    total = sum(t for _, t in ks)
    print(f"{what}: whole {whole:.1f} us, kernels {total:.1f} us, host {host_us(fn):.1f} us", flush=True)
    print(f"    {parts}", flush=True)


def main():
    for nk in (4096, 16384):
        w = torch.randint(-128, 128, (nk, nk), dtype=torch.int8, device=dev)
        wcol = w.t().contiguous().t()
        for m in (32, 64):
            x = torch.randint(-128, 128, (m, nk), dtype=torch.int8, device=dev)
            show(f"M={m} N=K={nk} torch._int_mm B col", partial(torch._int_mm, x, wcol))
            show(f"M={m} N=K={nk} gemm B row", partial(gemm, x, w, op="sdot4"))
            show(f"M={m} N=K={nk} gemm B col", partial(gemm, x, wcol, op="sdot4"))
    n = 8192
    a = torch.randint(-128, 128, (n, n), dtype=torch.int8, device=dev)
    b = torch.randint(-128, 128, (n, n), dtype=torch.int8, device=dev)
    acol, bcol = a.t().contiguous().t(), b.t().contiguous().t()
    show("8192^3 torch._int_mm B col", partial(torch._int_mm, a, bcol))
    for what, x, y in (("A row B col", a, bcol), ("A col B row", acol, b), ("A col B col", acol, bcol)):
        show(f"8192^3 gemm {what}", partial(gemm, x, y, op="sdot4"))
    plans = [getattr(p, "__qualname__", type(p).__name__) for p in gpu_tensors._PLANS.values()]
    print(f"  the remembered plans: {plans}", flush=True)
    m = 4096
    sa, sb = a[:m, :m].contiguous(), b[:m, :m].contiguous()
    mid = torch.randint(-(2**30), 2**30, (m, m), dtype=torch.int32, device=dev)
    show("4096^3 gemm", partial(gemm, sa, sb, op="sdot4"))
    show("4096^3 gemm clamp", partial(gemm, sa, sb, op="sdot4", clamp=True))
    show("4096^3 gemm c", partial(gemm, sa, sb, mid, op="sdot4"))
    show("4096^3 gemm c clamp", partial(gemm, sa, sb, mid, op="sdot4", clamp=True))


if __name__ == "__main__":
    main()
