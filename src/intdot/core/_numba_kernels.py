"""numba kernels for the array path: one compiled loop per DotSpec, cached on disk.

Lanes are taken apart in int64: numba widens int32 shifts to int64, so sign
extension is done with xor/subtract rather than by shifting.  A 64-bit
accumulator is added in uint64 (wrapping), and overflow for ``clamp`` is read
from the direction of the wrap; numba turns a mix of uint64 and int64 into
float64, so every value there is cast explicitly.  The output is an unsigned
view made by the caller (views made inside a numba kernel have lost writes).

Compiling one kernel takes 0.35-0.7 s, so compiled kernels are cached on disk
(see :func:`cache_dir`): a new process loads one in a few milliseconds.
"""

from __future__ import annotations

import os
from functools import cache

import numba
import numpy as np

CACHE_ENV = "INTDOT_CACHE_DIR"


def cache_dir() -> str | None:
    """Where compiled kernels are kept: ``$INTDOT_CACHE_DIR``, else ``$XDG_CACHE_HOME/intdot`` or
    ``~/.cache/intdot``.  ``INTDOT_CACHE_DIR=off`` (or an empty value) turns the disk cache off."""
    env = os.environ.get(CACHE_ENV)
    if env is not None:
        return None if env.strip().lower() in ("", "off", "0", "none") else env
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return os.path.join(base, "intdot")


def _disk_cache(py_func):
    """A numba function cache that writes under :func:`cache_dir`, or None where that is off or unusable.

    numba's own locations are the package's ``__pycache__`` (often read-only
    in an installed package) or a directory set process-wide by
    ``NUMBA_CACHE_DIR``, which would move every other library's cache too.
    Each kernel is a closure over its spec's constants; numba keys the cache
    on the closure's values, so one index serves every spec.
    """
    where = cache_dir()
    if where is None:
        return None
    try:
        from numba.core.caching import CompileResultCacheImpl, FunctionCache, UserProvidedCacheLocator
    except ImportError:  # a numba whose internals moved: no disk cache, still correct
        return None

    class Locator(UserProvidedCacheLocator):
        def __init__(self, func, py_file):
            super().__init__(func, py_file)
            self._cache_path = os.path.join(where, "numba", self.get_suitable_cache_subpath(py_file))

        @classmethod
        def from_function(cls, func, py_file):
            # Skip UserProvidedCacheLocator's test of NUMBA_CACHE_DIR; its parent checks the directory is writable.
            return super(UserProvidedCacheLocator, cls).from_function(func, py_file)

    class Impl(CompileResultCacheImpl):
        _locator_classes = [Locator]

    class Cache(FunctionCache):
        _impl_class = Impl

    try:
        return Cache(py_func)
    except (RuntimeError, OSError):  # no writable cache directory
        return None


def _jit(py_func):
    # Serial: the contiguous loops below vectorise and run at memory speed on one core (bench/builtins.py),
    # and parallel=True costs seconds more to compile and a thread pool to start.
    dispatcher = numba.njit(nogil=True, boundscheck=False)(py_func)
    cache = _disk_cache(py_func)
    if cache is not None:
        dispatcher._cache = cache
    return dispatcher


# The element-wise steps are module-level functions of their constants, not closures: the kernels below close
# over plain ints only, which numba's disk cache can key on (a closure over another compiled function is not).
# Inlined into a kernel, the constants fold and the lane loop unrolls.


@numba.njit(inline="always")
def _lanes_dot(x, y, n_lanes, a_width, a_mask, sa, b_width, b_mask, sb):
    """The exact dot product of the lanes of two words; sa/sb are the sign bits of signed lanes, else 0."""
    x = np.int64(x)
    y = np.int64(y)
    d = np.int64(0)
    for lane in range(n_lanes):
        p = ((x >> (a_width * lane)) & a_mask ^ sa) - sa
        q = ((y >> (b_width * lane)) & b_mask ^ sb) - sb
        d += p * q
    return d


@numba.njit(inline="always")
def _pairs_dot(x, y, n_lanes, a_width, a_mask, sa, b_width, b_mask, sb, half):
    """The dot product with each pair of lane products summed and saturated to [-half, half) first (x86's
    pmaddubsw), then the pairs added exactly."""
    x = np.int64(x)
    y = np.int64(y)
    d = np.int64(0)
    for pair in range(n_lanes // 2):
        s = np.int64(0)
        for lane in range(2 * pair, 2 * pair + 2):
            p = ((x >> (a_width * lane)) & a_mask ^ sa) - sa
            q = ((y >> (b_width * lane)) & b_mask ^ sb) - sb
            s += p * q
        d += -half if s < -half else (half - 1 if s > half - 1 else s)
    return d


@numba.njit(inline="always")
def _dot2(x, y, n_lanes, a_width, a_mask, sa, b_width, b_mask, sb, half):
    if half:
        return _pairs_dot(x, y, n_lanes, a_width, a_mask, sa, b_width, b_mask, sb, half)
    return _lanes_dot(x, y, n_lanes, a_width, a_mask, sa, b_width, b_mask, sb)


@numba.njit(inline="always")
def _acc_word(d, acc, sc, lo, hi, neg, clamp, mask):
    """A 16- or 32-bit accumulator (the low bits of its word, ``mask``; sc: its sign bit if signed, else 0)
    plus or minus d, wrapped or clamped, as the accumulator's bits."""
    c = (np.int64(acc) & mask ^ sc) - sc
    r = c - d if neg else c + d
    if clamp:
        r = lo if r < lo else (hi if r > hi else r)
    return r & mask


@numba.njit(inline="always")
def _acc32(d, acc, sc, lo, hi, neg, clamp):
    """A 32-bit accumulator (sc: its sign bit if signed, else 0) plus or minus d, wrapped or clamped."""
    c = (np.int64(acc) ^ sc) - sc
    r = c - d if neg else c + d
    if clamp:
        r = lo if r < lo else (hi if r > hi else r)
    return np.uint32(r & 0xFFFFFFFF)


@numba.njit(inline="always")
def _acc64(d, acc, signed, top, bottom, neg, clamp):
    """A 64-bit accumulator plus or minus d, in wrapping uint64; clamp reads overflow from the wrap's direction."""
    e = -d if neg else d  # |d| < 2**35: no overflow
    c = np.uint64(acc)
    r = c + np.uint64(e)
    if clamp:
        if signed:
            up = e > 0 and np.int64(r) < np.int64(c)
            down = e < 0 and np.int64(r) > np.int64(c)
        else:
            up = e > 0 and r < c
            down = e < 0 and r > c
        if up:
            r = top
        elif down:
            r = bottom
    return r


@cache
def kernel(
    a_width: int,
    b_width: int,
    n_lanes: int,
    a_signed: bool,
    b_signed: bool,
    acc_bits: int,
    acc_signed: bool,
    pair_sat: int = 0,
):
    """``run(a, a_step, b, b_step, acc, acc_step, neg, clamp, out)`` for one spec.

    ``*_step`` is 1, or 0 for an operand that is one value for every element;
    ``out`` is uint16, uint32 or uint64 for a 16-, 32- or 64-bit accumulator (a 16-bit one is read from the
    low half of uint32 words); ``pair_sat`` (0: none) saturates each pair of lane products first.  The
    common layouts have loops of their own: indexing by ``i * a_step`` keeps
    LLVM from vectorising (measured 4 to 8 times slower), so an operand that
    is one value for every element is read once, before its loop.
    """
    aw, am, sa = a_width, (1 << a_width) - 1, (1 << (a_width - 1)) if a_signed else 0
    bw, bm, sb = b_width, (1 << b_width) - 1, (1 << (b_width - 1)) if b_signed else 0
    nl = n_lanes
    if pair_sat or acc_bits == 16:
        return _word_kernel(aw, am, sa, bw, bm, sb, nl, 1 << (pair_sat - 1) if pair_sat else 0, acc_bits, acc_signed)

    if acc_bits == 32:
        lo, hi = (-(1 << 31), (1 << 31) - 1) if acc_signed else (0, (1 << 32) - 1)
        sc = (1 << 31) if acc_signed else 0

        def run32(a, a_step, b, b_step, acc, acc_step, neg, clamp, out):
            n = out.size
            if a_step == 1 and b_step == 1 and acc_step == 1:
                for i in range(n):
                    out[i] = _acc32(_lanes_dot(a[i], b[i], nl, aw, am, sa, bw, bm, sb), acc[i], sc, lo, hi, neg, clamp)
            elif a_step == 1 and b_step == 1:
                c0 = acc[0]
                for i in range(n):
                    out[i] = _acc32(_lanes_dot(a[i], b[i], nl, aw, am, sa, bw, bm, sb), c0, sc, lo, hi, neg, clamp)
            elif a_step == 1:
                y0 = b[0]
                for i in range(n):
                    out[i] = _acc32(
                        _lanes_dot(a[i], y0, nl, aw, am, sa, bw, bm, sb), acc[i * acc_step], sc, lo, hi, neg, clamp
                    )
            else:
                for i in range(n):
                    out[i] = _acc32(
                        _lanes_dot(a[i * a_step], b[i * b_step], nl, aw, am, sa, bw, bm, sb),
                        acc[i * acc_step],
                        sc,
                        lo,
                        hi,
                        neg,
                        clamp,
                    )

        return _jit(run32)

    # Saturation bounds as bit patterns.
    top = np.uint64((1 << 63) - 1) if acc_signed else np.uint64((1 << 64) - 1)
    bottom = np.uint64(1 << 63) if acc_signed else np.uint64(0)
    signed = acc_signed

    def run64(a, a_step, b, b_step, acc, acc_step, neg, clamp, out):
        n = out.size
        if a_step == 1 and b_step == 1 and acc_step == 1:
            for i in range(n):
                out[i] = _acc64(
                    _lanes_dot(a[i], b[i], nl, aw, am, sa, bw, bm, sb), acc[i], signed, top, bottom, neg, clamp
                )
        elif a_step == 1 and b_step == 1:
            c0 = acc[0]
            for i in range(n):
                out[i] = _acc64(_lanes_dot(a[i], b[i], nl, aw, am, sa, bw, bm, sb), c0, signed, top, bottom, neg, clamp)
        else:
            for i in range(n):
                out[i] = _acc64(
                    _lanes_dot(a[i * a_step], b[i * b_step], nl, aw, am, sa, bw, bm, sb),
                    acc[i * acc_step],
                    signed,
                    top,
                    bottom,
                    neg,
                    clamp,
                )

    return _jit(run64)


def _word_kernel(aw, am, sa, bw, bm, sb, nl, half, acc_bits, acc_signed):
    """The kernel of a pair-saturating step (x86's pmaddubsw idiom; ``half`` 0: none) or a 16-bit accumulator;
    ``out`` is uint16 or uint32."""
    lo, hi = (-(1 << (acc_bits - 1)), (1 << (acc_bits - 1)) - 1) if acc_signed else (0, (1 << acc_bits) - 1)
    sc = (1 << (acc_bits - 1)) if acc_signed else 0
    mask = (1 << acc_bits) - 1

    def run_pairs(a, a_step, b, b_step, acc, acc_step, neg, clamp, out):
        n = out.size
        if a_step == 1 and b_step == 1 and acc_step == 1:
            for i in range(n):
                d = _dot2(a[i], b[i], nl, aw, am, sa, bw, bm, sb, half)
                out[i] = _acc_word(d, acc[i], sc, lo, hi, neg, clamp, mask)
        elif a_step == 1 and b_step == 1:
            c0 = acc[0]
            for i in range(n):
                d = _dot2(a[i], b[i], nl, aw, am, sa, bw, bm, sb, half)
                out[i] = _acc_word(d, c0, sc, lo, hi, neg, clamp, mask)
        else:
            for i in range(n):
                d = _dot2(a[i * a_step], b[i * b_step], nl, aw, am, sa, bw, bm, sb, half)
                out[i] = _acc_word(d, acc[i * acc_step], sc, lo, hi, neg, clamp, mask)

    return _jit(run_pairs)
