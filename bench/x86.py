"""x86 bench: intdot's intrinsics and tiles on many registers, against a plain copy of the same bytes and, where
the CPU has the instruction, against the CPU itself (scripts/x86/x86_oracle.c through ctypes), interleaved.

For each case the best of ``--repeat`` runs is printed as registers per second, with the ratio to copying the
inputs' bytes once (``np.copyto`` of src, a and b: the memory traffic floor of any implementation) and, where the
CPU runs it, to the CPU's own loop (the oracle library: loads, the instruction, a store per register).

Run: ``.venv/bin/python bench/x86.py [--n 1000000] [--repeat 3]``.  One call of a million registers is less
work than the core's rent-or-buy point (see ``intdot.core.accel``), so it is timed on the NumPy path;
``INTDOT_BACKEND=numba`` times the compiled kernels instead (every instruction has one, the pmaddubsw idiom's
pair saturation and 16-bit accumulator included).
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

CASES = ("_mm512_dpbusd_epi32", "_mm256_dpbusds_epi32", "_mm256_maddubs_epi16", "_mm256_madd_epi16", "_mm_dpwssd_epi32")


def _case(name: str, n: int, repeat: int, lib) -> str:
    from tests.oracles import x86 as oracle
    from tests.x86.calls import intrinsic

    from intdot.x86 import intrinsics as X

    row = X.INTRINSICS[name]
    src, a, b, _ = oracle.registers(1, n, row.bits // 8, oracle.lane_bytes(name))
    dst = [np.empty_like(x) for x in (src, a, b)]

    def copy():
        for d, x in zip(dst, (src, a, b)):
            np.copyto(d, x)

    runs = {"intdot": lambda: intrinsic(name, src, a, b), "copy": copy}
    lacks = oracle.cpu_lacks(oracle.feature_of(name))
    if lib is not None and not lacks:
        runs["cpu"] = lambda: oracle.run(lib, name, src, a, b)
    best = {k: float("inf") for k in runs}
    for _ in range(repeat):  # interleaved, so that each sees the same machine state
        for k, fn in runs.items():
            t0 = time.perf_counter()
            fn()
            best[k] = min(best[k], time.perf_counter() - t0)
    line = (
        f"{name:24s} intdot {n / best['intdot'] / 1e6:8.2f} M registers/s; {best['intdot'] / best['copy']:6.1f}x a copy"
    )
    if "cpu" in best:
        return line + f"; {best['intdot'] / best['cpu']:6.1f}x the CPU's loop"
    return line + f"; the CPU lacks {', '.join(lacks)}"


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--n", type=int, default=1_000_000, help="registers per case")
    p.add_argument("--repeat", type=int, default=3)
    args = p.parse_args(argv)
    from tests.oracles import x86 as oracle

    from intdot import x86

    cc = oracle.compiler()
    lib = oracle.library(cc) if cc else None
    print(f"{args.n} registers per case, best of {args.repeat}")
    for name in CASES:
        print(_case(name, args.n, args.repeat, lib), flush=True)
    c, ta, tb = oracle.tiles(2, max(1, args.n // 256), 16, 16, 64)
    x86.tdpbusd(c[:1], ta[:1], tb[:1])  # first use: compiles the kernel where numba is installed
    t0 = time.perf_counter()
    x86.tdpbusd(c, ta, tb)
    dt = time.perf_counter() - t0
    macs = len(c) * 16 * 16 * 64 / dt / 1e9
    print(f"{'tdpbusd 16x16x64':24s} intdot {len(c) / dt / 1e3:8.2f} k tiles/s ({macs:.2f} G multiply-adds/s)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
