"""Timing shared by the bench scripts (run as ``python bench/NAME.py``, so this folder is on ``sys.path``)."""

from __future__ import annotations

import statistics
import time


def interleaved(*fns, repeat=5):
    """The best time of each function, their runs alternating, so that load from other processes on a shared
    machine falls on all of them alike instead of on whichever ran during it."""
    for fn in fns:
        fn()
    times = [[] for _ in fns]
    for _ in range(repeat):
        for fn, ts in zip(fns, times):
            t = time.perf_counter()
            fn()
            ts.append(time.perf_counter() - t)
    return [min(ts) for ts in times]


def alternated(timed, *fns, rounds=3):
    """The median of ``timed(fn)`` for each fn over ``rounds`` rounds, the functions alternating within each, so
    that the GPU's heat falls on all of them alike: at its power cap (the H200 on 8192^3 int8) a board that has
    worked longer clocks lower, and of two identical timings the later came out up to 20% slower
    (scripts/gpu/layouts.py), so a baseline timed first alone would look faster than it is."""
    times = [[] for _ in fns]
    for _ in range(rounds):
        for fn, ts in zip(fns, times):
            ts.append(timed(fn))
    return [statistics.median(ts) for ts in times]


def sustained(fn, seconds=2.0):
    """Seconds a call of fn takes on the GPU when it runs back to back for ``seconds``: what a long job gets from a
    board held at its power cap.  do_bench's figures come out faster (2% for torch._int_mm, 4% for gemm at 8192^3
    on the H200): it writes a 256 MB buffer between calls to flush L2, at low power, so the board is never held
    at its cap for long; and each 100-200 ms window is up to 5% faster after one that drew less power
    (scripts/gpu/h200-results.txt, ninth session)."""
    import torch

    fn()
    torch.cuda.synchronize()
    calls, start = 0, time.perf_counter()
    while time.perf_counter() - start < seconds:
        for _ in range(10):
            fn()
        calls += 10
        torch.cuda.synchronize()
    return (time.perf_counter() - start) / calls


def host_and_wall_us(fn, calls=300, warmup=10):
    """(host, wall) microseconds per call of fn over back-to-back calls on the GPU, after ``warmup`` calls: the
    host's time to issue them, then the time until the device has caught up too."""
    import torch

    for _ in range(warmup):
        fn()
    torch.cuda.synchronize()
    t = time.perf_counter()
    for _ in range(calls):
        fn()
    host = time.perf_counter() - t
    torch.cuda.synchronize()
    wall = time.perf_counter() - t
    return host / calls * 1e6, wall / calls * 1e6


def host_us(fn, calls=300):
    """Microseconds of host time per call of fn over back-to-back calls on the GPU (the device is left to catch up
    afterwards, outside the timing)."""
    return host_and_wall_us(fn, calls)[0]


def kernels_us(fn):
    """[(kernel name, microseconds)] of one call of fn on the GPU, after a warm-up call (torch.profiler)."""
    import torch
    from torch.profiler import ProfilerActivity, profile

    fn()
    torch.cuda.synchronize()
    with profile(activities=[ProfilerActivity.CUDA]) as prof:
        fn()
        torch.cuda.synchronize()
    return [(e.name, e.device_time) for e in prof.events() if e.device_type.name == "CUDA" and e.device_time > 0]
