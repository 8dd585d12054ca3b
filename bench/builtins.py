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

    python bench/builtins.py            # N = 2**24
    python bench/builtins.py --quick    # N = 2**22
    python bench/builtins.py --threads 1   # the compiled kernel on one core, like np.copyto
"""

from __future__ import annotations

import argparse
import os
import sys
import time
import timeit

import numpy as np

from intdot import amd
from intdot.core import dot_arrays
from intdot.core.accel import numba_available

TARGET = {"sdot4": 0.5, "udot4": 0.5, "sdot2": 0.5, "udot2": 0.5, "sudot4": 0.5,
          "sdot8": 0.4, "udot8": 0.4, "sudot8": 0.4}
SCALAR_TARGET = {"sdot4": 1_000_000}


def best(fn, repeats: int) -> float:
    times = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return min(times)


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
    p.add_argument("--quick", action="store_true",
                   help="N = 2**22 instead of 2**24 (the arrays together still exceed the caches), fewer repeats")
    p.add_argument("--repeats", type=int, default=None)
    p.add_argument("--threads", type=int, default=None,
                   help="numba threads for the compiled kernel (default: numba's, i.e. all cores); "
                        "np.copyto always runs on one")
    args = p.parse_args(argv)
    if args.threads is not None:
        import numba

        numba.set_num_threads(args.threads)
    n = 1 << (22 if args.quick else 24)
    repeats = args.repeats or (3 if args.quick else 5)
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

        accel = f"numba, {numba.get_num_threads()} thread(s)"
    else:
        accel = "numpy (numba not installed)"
    print(f"intdot AMD builtins, N = 2**{n.bit_length() - 1} words ({4 * n / 2**20:.0f} MiB per array), "
          f"best of {repeats}; default backend: {accel}; python {sys.version.split()[0]}, numpy {np.__version__}")
    print("ratio = copy time / op time (fraction of the copy's bandwidth); copy = np.copyto of src0, src1, src2 "
          "and the result")
    print("the copy moves 32 bytes per word (4 loads + 4 stores), the op 16 (3 loads + 1 store): "
          "'per byte' = ratio / 2 compares bytes per second")
    print()
    head = (f"{'builtin':8} {'copy ms':>8} {'op ms':>8} {'ratio':>6} {'target':>6} {'met':>4}  "
            f"{'per byte':>8}  {'out= ms':>8} {'ratio':>6}  {'numpy ms':>8} {'ratio':>6}")
    print(head)
    print("-" * len(head))
    all_met = True
    for row in amd.BUILTINS:
        name = row.name
        public = call_public(name, a, b, c)
        spec = spec_of(name)
        o = out.view(spec.result_dtype)
        prealloc = lambda: dot_arrays(spec, a, b, c, neg=False, clamp=False, out=o)  # noqa: E731
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
        print(f"{name:8} {1e3 * t_copy:8.1f} {1e3 * t_op:8.1f} {ratio:6.2f} {TARGET[name]:6.1f} "
              f"{'yes' if met else 'NO':>4} {ratio / 2:8.2f}  {1e3 * t_pre:8.1f} {t_copy / t_pre:6.2f}  "
              f"{1e3 * t_np:8.1f} {t_copy / t_np:6.2f}")
    print()
    print(f"{'builtin':8} {'scalar calls/s':>15} {'target':>10} {'met':>4}")
    scalar_args = {"plain": (0x01020304, 0x05060708, 10, False), "short2": (0x0007FFFD, 0x00050002, 10, False),
                   "sudot": (True, 0x80FF7F01, False, 0x01020304, 100, False)}
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
    fn = amd.sdot4
    t = min(timeit.repeat("fn(0x01020304, 0x05060708, 10, False)", globals={"fn": fn}, number=200_000,
                          repeat=repeats))
    print(f"(sdot4 in a plain loop without the lambda: {200_000 / t:,.0f} calls/s)")
    print()
    print("all targets met" if all_met else "some targets NOT met")
    return 0


if __name__ == "__main__":
    sys.exit(main())
