"""Why one 8192^3 layout's whole call takes longer than its kernels: for each layout of A and B, the do_bench
median (L2 flushed, as bench/gemm.py times it) in two orders, the host's and the device's time per call back to
back, and the kernels of eight flushed calls in a row (torch.profiler, after three untraced ones) with the device's
idle time before each kernel; then where the host's time goes in the slowest layout's call (cProfile).

    python scripts/gpu/layouts.py     # on the H200

Idle before a call's second or third kernel means the host issued it late: the device had finished the one before.
"""

import cProfile
import pstats
import statistics
import sys
from functools import partial
from pathlib import Path

import torch
import triton
from torch.profiler import ProfilerActivity, profile

from intdot.gemm import gemm

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "bench"))
from timing import host_and_wall_us  # noqa: E402  (bench/timing.py, shared with the bench)

N = 8192


def timed(fn):
    return triton.testing.do_bench(fn, warmup=25, rep=200, return_mode="median") * 1e3


def traced(fn, calls=8, before=3):
    """[(kernel name, median us, median idle us before it)] over ``calls`` flushed calls after ``before`` more."""
    flush = torch.empty(256 << 20, dtype=torch.int8, device="cuda")
    for _ in range(2):
        flush.zero_()
        fn()
    torch.cuda.synchronize()
    with profile(activities=[ProfilerActivity.CUDA]) as prof:
        for _ in range(before + calls):
            flush.zero_()
            fn()
        torch.cuda.synchronize()
    ks = sorted(
        (e for e in prof.events() if e.device_type.name == "CUDA" and e.device_time > 0),
        key=lambda e: e.time_range.start,
    )
    rounds, cur = [], None
    for prev, e in zip([None, *ks], ks):
        idle = 0.0 if prev is None else e.time_range.start - prev.time_range.end
        if "fill" in e.name or "elementwise" in e.name:  # the flush starts a round
            cur = []
            rounds.append(cur)
        elif cur is not None:
            cur.append((e.name, e.device_time, idle))
    rounds = [r for r in rounds if r][before:]
    width = min(len(r) for r in rounds)
    return [
        (
            rounds[0][i][0],
            statistics.median(r[i][1] for r in rounds),
            statistics.median(r[i][2] for r in rounds),
        )
        for i in range(width)
    ]


def main():
    a = torch.randint(-128, 128, (N, N), dtype=torch.int8, device="cuda")
    b = torch.randint(-128, 128, (N, N), dtype=torch.int8, device="cuda")
    lay = {"row": (a, b), "col": (a.t().contiguous().t(), b.t().contiguous().t())}
    want = torch._int_mm(a, lay["col"][1])
    calls = {}
    for al in ("row", "col"):
        for bl in ("row", "col"):
            fn = partial(gemm, lay[al][0], lay[bl][1], op="sdot4")
            assert torch.equal(fn(), want), (al, bl)
            calls[f"A {al}, B {bl}"] = fn
    calls["torch B col"] = partial(torch._int_mm, a, lay["col"][1])
    times = {name: [] for name in calls}
    for order in (list(calls), list(reversed(calls))):
        for name in order:
            times[name].append(timed(calls[name]))
    for name, fn in calls.items():
        host, wall = host_and_wall_us(fn, calls=30, warmup=3)
        print(
            f"{name}: do_bench {' / '.join(f'{t:.0f}' for t in times[name])} us (forward / reversed order); "
            f"back to back: host {host:.0f} us, device {wall:.0f} us a call",
            flush=True,
        )
    slowest = max((n for n in calls if n.startswith("A ")), key=lambda n: min(times[n]))
    for name, fn in calls.items():
        parts = ", ".join(f"{k[:20]} {us:.0f} us after {idle:.0f} idle" for k, us, idle in traced(fn))
        print(f"  {name}, eight flushed calls' kernels (medians): {parts}", flush=True)
    fn = calls[slowest]
    prof = cProfile.Profile()
    prof.enable()
    for _ in range(20):
        fn()
    prof.disable()
    torch.cuda.synchronize()
    print(f"-- host time of 20 calls of {slowest} (cProfile, cumulative):", flush=True)
    pstats.Stats(prof, stream=sys.stdout).sort_stats("cumulative").print_stats(14)


if __name__ == "__main__":
    main()
