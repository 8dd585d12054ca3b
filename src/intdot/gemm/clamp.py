"""Saturating accumulation along K: ``acc = clamp(acc + dot(step))`` once per instruction step.

Order matters here, so no GEMM reassociation is allowed once a partial sum can
reach the accumulator's limits.  :func:`safe_rows` proves cheaply, per output,
that it cannot (then the exact unclamped sum is the answer); the remaining rows
run :func:`chain`, a sequential kernel over the K steps vectorised over N
(numba when the ``fast`` extra is installed, NumPy otherwise).
"""

from __future__ import annotations

import numpy as np

_KERNEL = None


def bound(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Per output (m, n), a bound on |any partial sum of a[m] . b[:, n]| (O(MK + KN) work, 2-byte temporaries)."""
    wide = np.int32 if a.dtype.itemsize > 1 or b.dtype.itemsize > 1 else np.int16
    aa = np.abs(a.astype(wide))
    bb = np.abs(b.astype(wide))
    a_max = int(aa.max()) if aa.size else 0
    b_max = int(bb.max()) if bb.size else 0
    by_row = aa.sum(axis=1, dtype=np.int64) * b_max
    by_col = bb.sum(axis=0, dtype=np.int64) * a_max
    return np.minimum(by_row[:, None], by_col[None, :])


def safe_rows(acc: np.ndarray, a: np.ndarray, b: np.ndarray, lo: int, hi: int) -> np.ndarray:
    """Rows in which no output's partial sums can leave [lo, hi], starting from ``acc`` (int64)."""
    bd = bound(a, b)
    ok = (acc >= lo + bd) & (acc <= hi - bd)
    return ok.all(axis=1)


def _numba_kernel():
    global _KERNEL
    if _KERNEL is None:
        import numba

        @numba.njit(parallel=True, cache=True, fastmath=False)
        def kernel(a, b, acc, step, lo, hi):
            m_rows, k = a.shape
            n = b.shape[1]
            # Each row's outputs are written through acc[m, j] directly: views made inside a parallel
            # numba function can lose their writes (measured on this project's machines).
            for m in numba.prange(m_rows):
                d = np.zeros(n, np.int64)
                r = np.empty(n, np.int64)
                for j in range(n):
                    r[j] = acc[m, j]
                for t in range(0, k, step):
                    for j in range(n):
                        d[j] = 0
                    for i in range(t, min(t + step, k)):
                        x = np.int64(a[m, i])
                        if x != 0:
                            for j in range(n):
                                d[j] += x * b[i, j]
                    for j in range(n):
                        v = r[j] + d[j]
                        r[j] = lo if v < lo else (hi if v > hi else v)
                for j in range(n):
                    acc[m, j] = r[j]

        _KERNEL = kernel
    return _KERNEL


def have_numba() -> bool:
    try:
        import numba  # noqa: F401
    except ImportError:
        return False
    return True


def chain(
    a: np.ndarray,
    b: np.ndarray,
    acc: np.ndarray,
    step: int,
    lo: int,
    hi: int,
    *,
    neg: bool = False,
    compiled: bool | None = None,
) -> np.ndarray:
    """Saturating chain over K steps of ``step`` lanes from ``acc`` (int64, updated and returned).

    ``neg`` subtracts each step's dot product instead (the reference's ``neg``), done by negating ``a``.
    """
    av = a.astype(np.int64) if a.dtype.itemsize > 1 else a.astype(np.int16)
    if neg:
        av = -av
    bv = np.ascontiguousarray(b.astype(np.int32))
    if compiled is None:
        compiled = have_numba()
    if compiled:
        out = np.ascontiguousarray(acc, dtype=np.int64)
        _numba_kernel()(np.ascontiguousarray(av), bv, out, step, lo, hi)
        return out
    out = acc.astype(np.int64)
    for t in range(0, a.shape[1], step):
        d = av[:, t : t + step].astype(np.int64) @ bv[t : t + step].astype(np.int64)
        np.clip(out + d, lo, hi, out=out)
    return out
