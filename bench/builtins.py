"""Speed of the AMD dot builtins: the array path against a plain copy of the same
bytes, measured in the same run, and scalar calls per second.

For each builtin, the array path computes N packed words (src0, src1, src2 all
arrays of N uint32, the result an int32/uint32 array of N).  The baseline is
``np.copyto`` of those same four arrays (each input and the output copied to a
preallocated buffer of its size): the memory traffic of touching every byte
once.  ``ratio = copy_time / op_time`` is the fraction of that bandwidth the
builtin reaches.  Two op times are shown: the public function (which allocates
its result, as a user's call does) and the core's ``dot_arrays`` into a
preallocated ``out``; and both for the default backend and for the NumPy-only
path (``INTDOT_BACKEND=numpy``), for information.

The scalar rows compare ``intdot.amd.sdot4`` with a plain-Python lane loop
(shifts, masks, sign fix-ups, one multiply per lane) timed in the same run.
``--startup`` measures, in fresh processes, the first array call of each
builtin (the compile) with an empty disk cache, with the cache filled by the
previous process, and with the cache off.  ``--first-call`` (also part of
the default run) measures what a user's first calls cost in a fresh process:
``sdot4`` over 2**20 words, once and in loops of up to 300 calls, with the
default backend, the NumPy path and the kernel forced (numba's disk cache
warm), and the ratio of the default to the better of the two (target: at
most 2, whatever the number of calls).

    python bench/builtins.py              # N = 2**24
    python bench/builtins.py --quick      # N = 2**22
    python bench/builtins.py --startup    # first-call compile: cold cache, warm cache, no cache
    python bench/builtins.py --first-call # a new process's first calls: default vs NumPy vs kernel
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
import timeit

import numpy as np

from intdot import amd
from intdot.core import DotSpec, dot_arrays
from intdot.core.accel import numba_available

TARGET = {
    "sdot4": 0.5,
    "udot4": 0.5,
    "sdot2": 0.5,
    "udot2": 0.5,
    "sudot4": 0.5,
    "sdot8": 0.4,
    "udot8": 0.4,
    "sudot8": 0.4,
}
SCALAR_TARGET = {"sdot4": 1_000_000}


def best(fn, repeats: int) -> float:
    times = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return min(times)


def lane_loop_sdot4(a, b, c, neg):
    """sdot4 as a user would write it in plain Python: the baseline the scalar builtin must not lose to."""
    a &= 0xFFFFFFFF
    b &= 0xFFFFFFFF
    d = 0
    for k in range(4):
        x = (a >> (8 * k)) & 0xFF
        y = (b >> (8 * k)) & 0xFF
        if x >= 128:
            x -= 256
        if y >= 128:
            y -= 256
        d += x * y
    c &= 0xFFFFFFFF
    if c >= 2**31:
        c -= 2**32
    r = (c - d if neg else c + d) & 0xFFFFFFFF
    return r - 2**32 if r >= 2**31 else r


# Run in a fresh process: the time of the first array call of each builtin (its compile, or its load from the
# disk cache), after numpy and intdot are imported.
_STARTUP_CHILD = """
import sys, time
import numpy as np
from intdot import amd
a = np.arange(1 << 13, dtype=np.uint32)
times = []
for name in sys.argv[1:]:
    fn = getattr(amd, name)
    t = time.perf_counter()
    fn(True, a, False, a, a, False) if name.startswith("sudot") else fn(a, a, a, False)
    times.append(time.perf_counter() - t)
print(" ".join(f"{x:.4f}" for x in times))
"""


def startup(repeats: int) -> None:
    names = [row.name for row in amd.BUILTINS]
    print(
        "first array call of each builtin in a new process (8192 words: the compiled path), seconds; best of "
        f"{repeats} processes; 'cold' starts from an empty cache directory, 'warm' from the one 'cold' filled"
    )
    rows = {}
    for mode in ("off", "cold", "warm"):
        best_times = None
        for _ in range(repeats):
            with tempfile.TemporaryDirectory() as tmp:
                cache = os.path.join(tmp, "c")
                env = {**os.environ, "INTDOT_BACKEND": "numba", "INTDOT_CACHE_DIR": "off" if mode == "off" else cache}
                if mode == "warm":
                    subprocess.run(
                        [sys.executable, "-c", _STARTUP_CHILD, *names], env=env, check=True, capture_output=True
                    )
                out = subprocess.run(
                    [sys.executable, "-c", _STARTUP_CHILD, *names], env=env, check=True, capture_output=True, text=True
                ).stdout
            times = [float(x) for x in out.split()]
            best_times = times if best_times is None else [min(x, y) for x, y in zip(best_times, times)]
        rows[mode] = best_times
    print(f"{'builtin':8} {'no cache':>9} {'cold':>9} {'warm':>9}")
    for i, name in enumerate(names):
        print(f"{name:8} {rows['off'][i]:9.3f} {rows['cold'][i]:9.3f} {rows['warm'][i]:9.3f}")
    print(f"{'all 8':8} {sum(rows['off']):9.3f} {sum(rows['cold']):9.3f} {sum(rows['warm']):9.3f}")


# Run in a fresh process: the total time of the first 1, 3, 10, ... calls of sdot4 on 2**20 words.
_FIRST_CALLS_CHILD = """
import sys, time
import numpy as np
from intdot import amd
a = np.random.default_rng(0).integers(0, 2**32, 1 << 20, dtype=np.uint64).astype(np.uint32)
marks, total, done = [int(x) for x in sys.argv[1:]], 0.0, []
for k in range(1, marks[-1] + 1):
    t = time.perf_counter()
    amd.sdot4(a, a, a, False)
    total += time.perf_counter() - t
    if k in marks:
        done.append(total)
print(" ".join(f"{x:.4f}" for x in done), "numba" in sys.modules)
"""
FIRST_CALL_MARKS = (1, 3, 10, 30, 100, 300)


def first_calls(repeats: int) -> bool:
    """The default backend's first calls in a new process against the NumPy path and the forced kernel."""
    print(
        "sdot4 on 2**20 words in a new process: total seconds of its first k calls, best of "
        f"{repeats} processes (numba's disk cache warm); ratio = default / the better of numpy and numba"
    )
    best_of = {}
    with tempfile.TemporaryDirectory() as tmp:
        base = {k: v for k, v in os.environ.items() if k != "INTDOT_BACKEND"}
        base["INTDOT_CACHE_DIR"] = tmp
        marks = [str(m) for m in FIRST_CALL_MARKS]
        modes = {"default": {}, "numpy": {"INTDOT_BACKEND": "numpy"}}
        if numba_available():
            modes["numba"] = {"INTDOT_BACKEND": "numba"}
            subprocess.run(
                [sys.executable, "-c", _FIRST_CALLS_CHILD, "1"],
                env={**base, **modes["numba"]},
                check=True,
                capture_output=True,
            )
        for _ in range(repeats):  # interleaved: each repeat runs every mode once
            for mode, extra in modes.items():
                out = subprocess.run(
                    [sys.executable, "-c", _FIRST_CALLS_CHILD, *marks],
                    env={**base, **extra},
                    check=True,
                    capture_output=True,
                    text=True,
                ).stdout.split()
                times = [float(x) for x in out[:-1]]
                old = best_of.get(mode)
                best_of[mode] = times if old is None else [min(x, y) for x, y in zip(old, times)]
    print(f"{'calls':>6} " + " ".join(f"{m:>9}" for m in modes) + f" {'ratio':>6} {'target':>6} {'met':>4}")
    all_met = True
    for i, k in enumerate(FIRST_CALL_MARKS):
        ratio = best_of["default"][i] / min(best_of[m][i] for m in modes if m != "default")
        met = ratio <= 2.0
        all_met &= met
        cells = " ".join(f"{best_of[m][i]:9.3f}" for m in modes)
        print(f"{k:6d} {cells} {ratio:6.2f} {2.0:6.1f} {'yes' if met else 'NO':>4}")
    return all_met


# Core specs beyond the AMD rows, for information (no targets): 64-bit accumulators, 16 x 8 lanes.
OTHER_SPECS = {
    "16x16x4 -> s64 (SVE sdot .d)": DotSpec(16, 16, 4, True, True, 64, True),
    "8x8x8 -> u64": DotSpec(8, 8, 8, False, False, 64, False),
    "16x8x2 -> s32 (dp2a-like)": DotSpec(16, 8, 2, True, False, 32, True),
    "8x8x4 -> s64": DotSpec(8, 8, 4, True, True, 64, True),
}


def other_specs(n: int, repeats: int) -> None:
    """dot_arrays into a preallocated out for OTHER_SPECS, against a copy of the same bytes."""
    rng = np.random.default_rng(1)
    print(
        f"{'core spec (out=, information)':30} {'copy ms':>8} {'op ms':>8} {'ratio':>6}  {'numpy ms':>8} {'ratio':>6}"
    )
    for label, spec in OTHER_SPECS.items():
        a = rng.integers(0, 2**spec.a_bits, n, dtype=np.uint64).astype(spec.a_dtype)
        b = rng.integers(0, 2**spec.b_bits, n, dtype=np.uint64).astype(spec.b_dtype)
        c = rng.integers(0, 2**spec.acc_bits, n, dtype=np.uint64, endpoint=False).astype(spec.acc_dtype)
        out = np.empty(n, dtype=spec.result_dtype)
        bufs = [np.empty_like(x) for x in (a, b, c, out)]

        def copy(bufs=bufs, arrays=(a, b, c, out)):
            for dst, src in zip(bufs, arrays):
                np.copyto(dst, src)

        def op(spec=spec, a=a, b=b, c=c, out=out, backend="auto"):
            dot_arrays(spec, a, b, c, neg=False, clamp=True, out=out, backend=backend)

        copy()
        op()
        op(backend="numpy")
        t_copy, t_op = best(copy, repeats), best(op, repeats)
        t_np = best(lambda op=op: op(backend="numpy"), max(1, repeats // 2))
        print(
            f"{label:30} {1e3 * t_copy:8.1f} {1e3 * t_op:8.1f} {t_copy / t_op:6.2f}  {1e3 * t_np:8.1f} "
            f"{t_copy / t_np:6.2f}"
        )


def call_public(name, a, b, c):
    fn = getattr(amd, name)
    if name.startswith("sudot"):
        return lambda: fn(True, a, False, b, c, False)
    return lambda: fn(a, b, c, False)


def spec_of(name):
    row = amd.lookup(name)
    return row.spec(True, False) if row.layout == "sudot" else row.spec()


def with_backend(backend, fn):
    def run():
        old = os.environ.get("INTDOT_BACKEND")
        os.environ["INTDOT_BACKEND"] = backend
        try:
            return fn()
        finally:
            if old is None:
                del os.environ["INTDOT_BACKEND"]
            else:
                os.environ["INTDOT_BACKEND"] = old

    return run


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument(
        "--quick",
        action="store_true",
        help="N = 2**22 instead of 2**24 (the arrays together still exceed the caches), fewer repeats",
    )
    p.add_argument("--repeats", type=int, default=None)
    p.add_argument(
        "--first-call",
        action="store_true",
        help="only measure a new process's first calls: the default backend against numpy and the forced kernel",
    )
    p.add_argument(
        "--startup",
        action="store_true",
        help="only measure the first-call compile in new processes (cold, warm and no disk cache)",
    )
    args = p.parse_args(argv)
    n = 1 << (22 if args.quick else 24)
    repeats = args.repeats or (3 if args.quick else 5)
    if args.startup:
        startup(args.repeats or 3)
        return 0
    if args.first_call:
        return 0 if first_calls(args.repeats or 3) else 1
    rng = np.random.default_rng(0)
    a = rng.integers(0, 2**32, n, dtype=np.uint64).astype(np.uint32)
    b = rng.integers(0, 2**32, n, dtype=np.uint64).astype(np.uint32)
    c = rng.integers(0, 2**32, n, dtype=np.uint64).astype(np.uint32)
    bufs = [np.empty_like(x) for x in (a, b, c, c)]
    out = np.empty(n, dtype=np.uint32)

    def copy():
        for dst, src in zip(bufs, (a, b, c, out)):
            np.copyto(dst, src)

    copy()  # page faults of the buffers
    if numba_available():
        import numba

        accel = f"numba {numba.__version__}, one thread (like np.copyto)"
    else:
        accel = "numpy (numba not installed)"
    print(
        f"intdot AMD builtins, N = 2**{n.bit_length() - 1} words ({4 * n / 2**20:.0f} MiB per array), "
        f"best of {repeats}; default backend: {accel}; python {sys.version.split()[0]}, numpy {np.__version__}"
    )
    print(
        "ratio = copy time / op time (fraction of the copy's bandwidth); copy = np.copyto of src0, src1, src2 "
        "and the result"
    )
    print(
        "the copy moves 32 bytes per word (4 loads + 4 stores), the op 16 (3 loads + 1 store): "
        "'per byte' = ratio / 2 compares bytes per second"
    )
    print()
    head = (
        f"{'builtin':8} {'copy ms':>8} {'op ms':>8} {'ratio':>6} {'target':>6} {'met':>4}  "
        f"{'per byte':>8}  {'out= ms':>8} {'ratio':>6}  {'numpy ms':>8} {'ratio':>6}"
    )
    print(head)
    print("-" * len(head))
    all_met = True
    for row in amd.BUILTINS:
        name = row.name
        public = call_public(name, a, b, c)
        spec = spec_of(name)
        o = out.view(spec.result_dtype)
        prealloc = lambda spec=spec, o=o: dot_arrays(spec, a, b, c, neg=False, clamp=False, out=o)  # noqa: E731
        numpy_path = with_backend("numpy", public)
        for fn in (public, prealloc, numpy_path):
            fn()  # warm up: compile, page faults, caches
        t_copy = best(copy, repeats)
        t_op = best(public, repeats)
        t_pre = best(prealloc, repeats)
        t_np = best(numpy_path, max(1, repeats // 2))
        ratio = t_copy / t_op
        met = ratio >= TARGET[name]
        all_met &= met
        print(
            f"{name:8} {1e3 * t_copy:8.1f} {1e3 * t_op:8.1f} {ratio:6.2f} {TARGET[name]:6.1f} "
            f"{'yes' if met else 'NO':>4} {ratio / 2:8.2f}  {1e3 * t_pre:8.1f} {t_copy / t_pre:6.2f}  "
            f"{1e3 * t_np:8.1f} {t_copy / t_np:6.2f}"
        )
    print()
    other_specs(n, repeats)
    print()
    print(f"{'builtin':8} {'scalar calls/s':>15} {'target':>10} {'met':>4}")
    scalar_args = {
        "plain": (0x01020304, 0x05060708, 10, False),
        "short2": (0x0007FFFD, 0x00050002, 10, False),
        "sudot": (True, 0x80FF7F01, False, 0x01020304, 100, False),
    }
    for row in amd.BUILTINS:
        fn, args_ = getattr(amd, row.name), scalar_args[row.layout]
        fn(*args_)
        number = 200_000 if not args.quick else 50_000
        t = min(timeit.repeat(lambda: fn(*args_), number=number, repeat=repeats))  # noqa: B023
        rate = number / t
        goal = SCALAR_TARGET.get(row.name)
        met = "" if goal is None else ("yes" if rate >= goal else "NO")
        all_met &= goal is None or rate >= goal
        print(f"{row.name:8} {rate:15,.0f} {'' if goal is None else f'{goal:,}':>10} {met:>4}")
    print()
    all_met &= first_calls(3 if args.quick else 5)
    fn = amd.sdot4
    number = 200_000
    scalar_args = (0x80FF7F01, 0x01020304, 100, False)
    assert fn(*scalar_args) == lane_loop_sdot4(*scalar_args)
    t = min(timeit.repeat("fn(0x80FF7F01, 0x01020304, 100, False)", globals={"fn": fn}, number=number, repeat=repeats))
    t_loop = min(
        timeit.repeat(
            "fn(0x80FF7F01, 0x01020304, 100, False)", globals={"fn": lane_loop_sdot4}, number=number, repeat=repeats
        )
    )
    met = t <= t_loop
    all_met &= met
    print(
        f"sdot4 called directly: {number / t:,.0f} calls/s; a plain-Python lane loop: {number / t_loop:,.0f} "
        f"calls/s; ratio {t_loop / t:.2f} (target >= 1.0) {'yes' if met else 'NO'}"
    )
    print()
    print("all targets met" if all_met else "some targets NOT met")
    return 0


if __name__ == "__main__":
    sys.exit(main())
