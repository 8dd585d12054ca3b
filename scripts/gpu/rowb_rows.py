# ruff: noqa: B023, E731
"""Rows past 64 with B row-major: the row-major-B kernel (intdot.gemm.gpu_gluon_rowb) in blocks of 64 rows, in
three configurations (stages x programs a multiprocessor), against the TMA kernel after its transposing pass of B
(both as planned calls) and torch._int_mm on B column-major (its best), each exact first, then timed alternating
(do_bench medians of three rounds); 48 rows (one block) for reference.

    python scripts/gpu/rowb_rows.py      # on the H200; ratios > 1 are faster than torch's best

Its run of 2026-12-02 (scripts/gpu/h200-results.txt) set gpu_gluon_rowb.ROWS and NUM_BLOCKS."""

import itertools
import statistics

import torch
import triton

from intdot.gemm import gpu
from intdot.gemm import gpu_gluon_rowb as rb


def timed(fn):
    return triton.testing.do_bench(fn, warmup=10, rep=100, return_mode="median") * 1e-3


def run():
    sms = torch.cuda.get_device_properties("cuda").multi_processor_count
    for nk, m in itertools.product((4096, 16384), (48, 65, 96, 128, 192, 256)):
        w = torch.randint(-128, 128, (nk, nk), dtype=torch.int8, device="cuda")
        wcol = w.t().contiguous().t()
        x = torch.randint(-128, 128, (m, nk), dtype=torch.int8, device="cuda")
        ref = torch._int_mm(x, wcol)
        fns = {"torch": lambda: torch._int_mm(x, wcol)}
        tma = gpu._tma_plan(x, w, False)[0]
        if tma is not None:
            fns["tma+pass"] = lambda: tma(x, w)
        keep = rb.NUM, rb.NUM_BLOCKS, rb.PER_SM
        for num, per in ((3, 2), (4, 2), (3, 1)):
            # The stages of one block (48 rows: NUM) and of blocks past 64 rows (NUM_BLOCKS) alike.
            rb.NUM, rb.NUM_BLOCKS, rb.PER_SM = num, num, per
            call = rb.fast(x, w, False, sms)[0]
            fns[f"rowb {num}x{per}"] = (lambda c: lambda: c(x, w))(call)
        rb.NUM, rb.NUM_BLOCKS, rb.PER_SM = keep
        bad = [name for name, f in fns.items() if not torch.equal(f(), ref)]
        times = {name: [] for name in fns}
        for _ in range(3):
            for name, f in fns.items():
                times[name].append(timed(f))
        t = {name: statistics.median(ts) for name, ts in times.items()}
        line = f"M={m} N=K={nk}: torch {t['torch'] * 1e6:.1f} us;"
        line += "".join(f" {name} {t['torch'] / t[name]:.2f}x;" for name in fns if name != "torch")
        print(line + (f" NOT EXACT: {bad}" if bad else ""), flush=True)


if __name__ == "__main__":
    run()
