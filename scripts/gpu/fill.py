"""Where split-K chunks meet without c, at decode shapes: in an output zero-filled by gpu_kernels.zeros, a kernel
that the GEMM overlaps (programmatic dependent launch), against the other way of each kernel: gpu_split's
per-stream workspace (B column-major; FILL_ROWS past every M) and a zero fill by torch first (gpu_gluon_rowb,
B row-major; OVERLAP off).
Whole calls as bench/gemm.py times them (do_bench medians, L2 flushed), three rounds interleaved, no profiler in
the process (launches after it cost the host more), beside torch._int_mm on its best layout (B column-major).

    python scripts/gpu/fill.py      # on the H200
"""

from functools import partial

import torch
import triton

from intdot.gemm import gemm, gpu_split, gpu_tensors
from intdot.gemm import gpu_gluon_rowb as rb


def timed(fn):
    return triton.testing.do_bench(fn, warmup=25, rep=200, return_mode="median") * 1e3


def main():
    fill_rows = gpu_split.FILL_ROWS
    for nk in (4096, 16384):
        w = torch.randint(-128, 128, (nk, nk), dtype=torch.int8, device="cuda")  # row-major
        wcol = w.t().contiguous().t()
        for m in (17, 32, 64):
            x = torch.randint(-128, 128, (m, nk), dtype=torch.int8, device="cuda")
            want = torch._int_mm(x, wcol)
            calls = {
                "torch": (None, partial(torch._int_mm, x, wcol)),
                "col fill": (True, partial(gemm, x, wcol, op="sdot4")),
                "col workspace": (False, partial(gemm, x, wcol, op="sdot4")),
                "row fill": (True, partial(gemm, x, w, op="sdot4")),
                "row torch.zeros": (False, partial(gemm, x, w, op="sdot4")),
            }
            times = {name: [] for name in calls}
            for _ in range(3):
                for name, (overlap, fn) in calls.items():
                    if overlap is not None:
                        gpu_split.FILL_ROWS, rb.OVERLAP = (0 if overlap else 1 << 62), overlap
                        gpu_tensors._PLANS.clear()  # each plan keeps the choice it was made under
                        assert torch.equal(fn(), want), name
                    times[name].append(timed(fn))
            gpu_split.FILL_ROWS, rb.OVERLAP = fill_rows, True
            gpu_tensors._PLANS.clear()
            best = min(times["torch"])
            line = "; ".join(f"{name} {' '.join(f'{t:.1f}' for t in ts)}" for name, ts in times.items())
            print(
                f"M={m} N=K={nk} (us): {line}; best of each against torch's best: "
                + ", ".join(f"{name} {best / min(ts):.2f}x" for name, ts in times.items() if name != "torch"),
                flush=True,
            )


if __name__ == "__main__":
    main()
