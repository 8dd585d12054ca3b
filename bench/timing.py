"""Timing shared by the bench scripts (run as ``python bench/NAME.py``, so this folder is on ``sys.path``)."""

from __future__ import annotations

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
