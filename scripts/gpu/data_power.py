# ruff: noqa: E731  (lambdas name the timed variants)
"""What the power cap spends on, told apart by the operands' values alone: gemm's 8192^3 int8 call (A row-major, B
column-major, gpu.mm_int8 as gemm runs it) and torch._int_mm on the same operands, for operands that move the same
bytes through the same copies and MMAs but toggle the tensor cores' inputs differently:

- uniform: every int8 value equally likely (bench/gemm.py's data; the most toggling);
- periodic in K: uniform values, but every 128 columns of K the same (each K step's tiles equal the last one's,
  so the MMAs see the same operands step after step while every byte is still copied from L2);
- normal: round(N(0, 32)) clipped to int8, as symmetric per-channel quantisation of normally distributed weights
  and activations gives (3.97 sigma at 127);
- small: uniform in [-8, 7] (int4 values held in int8);
- zeros.

Each exact against torch first; then timed in windows of 2 s back to back (bench/timing.sustained), alternating,
and the clock and power sampled while each runs back to back (scripts/gpu/power.py).  Timed by do_bench instead,
each figure depends on what ran before it: right after torch on zeros (454 W), gemm on uniform data read 1,416 TOPS.

With --fp8, NVIDIA's fastest dense 8-bit GEMM also runs on each kind of operands: cuBLAS at FP8 e4m3
(torch._scaled_mm; on Hopper the same tensor-core peak as int8), on the operands' values rounded to e4m3.  Not
exact (e4m3 holds few integers past 16), so a ceiling on the same data, not a rival.

    python scripts/gpu/data_power.py [--fp8]    # on the H200
"""

import sys

import torch
from power import compare

from intdot.gemm import gpu

N = 8192


def operands(kind):
    shape = (N, N)
    if kind == "uniform":
        return [torch.randint(-128, 128, shape, dtype=torch.int8, device="cuda") for _ in "ab"]
    if kind == "periodic in K":
        return [torch.randint(-128, 128, (N, 128), dtype=torch.int8, device="cuda").repeat(1, N // 128) for _ in "ab"]
    if kind == "normal":
        return [(torch.randn(shape, device="cuda") * 32).round().clamp(-128, 127).to(torch.int8) for _ in "ab"]
    if kind == "small":
        return [torch.randint(-8, 8, shape, dtype=torch.int8, device="cuda") for _ in "ab"]
    return [torch.zeros(shape, dtype=torch.int8, device="cuda") for _ in "ab"]


def fp8(a, b):
    """cuBLAS's FP8 GEMM on a and b's values rounded to e4m3 (b stays column-major, as _scaled_mm wants)."""
    fa, fb, one = a.to(torch.float8_e4m3fn), b.to(torch.float8_e4m3fn), torch.ones((), device="cuda")
    return lambda: torch._scaled_mm(fa, fb, one, one, out_dtype=torch.bfloat16)


def main():
    runs = {}
    for kind in ("uniform", "periodic in K", "normal", "small", "zeros"):
        a, bt = operands(kind)
        b = bt.t()  # column-major B: torch's fast layout, and gemm's
        got = gpu.mm_int8(a, b)
        ref = torch._int_mm(a, b)
        print(f"{kind}: exact={torch.equal(got, ref)}", flush=True)
        runs[f"gemm {kind}"] = lambda a=a, b=b: gpu.mm_int8(a, b)
        runs[f"torch {kind}"] = lambda a=a, b=b: torch._int_mm(a, b)
        if "--fp8" in sys.argv:
            runs[f"cuBLAS fp8 {kind}"] = fp8(a, b)
    compare(runs, 2 * N**3, "", rounds=3, seconds=2.0)


if __name__ == "__main__":
    main()
