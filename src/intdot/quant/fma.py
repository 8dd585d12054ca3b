"""Fused multiply-adds, ``a * b + c`` rounded once, as the FMA instructions compute them: ONNX Runtime's AVX2
kernels and its Arm build use them, and NumPy has no such operation.  :func:`fma32` in float32, :func:`fma64` in
float64."""

from __future__ import annotations

import numpy as np

F32, F64 = np.float32, np.float64


def fma32(a, b, c) -> np.ndarray:
    """``round_to_float32(a * b + c)`` with a single rounding (half to even), elementwise, broadcasting.

    The product of two float32 values is exact in float64 (24 + 24 significant bits), so the only rounding before
    the last is the float64 sum, and float32 of that sum is the correctly rounded result except where the sum lies
    exactly halfway between two float32 values (its 29 bits below float32's last one ``1000...0``) or below
    float32's normal range (where float32's last bit sits higher).  Those rare elements are taken again by
    :func:`_fma32_exact`; the rest costs three float64 operations and a conversion."""
    a, b, c = np.asarray(a, F32), np.asarray(b, F32), np.asarray(c, F32)
    if max(a.ndim, b.ndim, c.ndim) == 0:
        return _fma32_exact(a, b, c)
    with np.errstate(over="ignore", invalid="ignore"):
        s = a.astype(F64) * b.astype(F64) + c.astype(F64)
        r = s.astype(F32)
        bits = s.view(np.int64) & _BELOW_FLOAT32
        again = (bits == _HALFWAY) | ((np.abs(s) < _MIN_NORMAL32) & (s != 0))
    if again.any():
        at = np.nonzero(again)
        a, b, c = (np.broadcast_to(x, s.shape)[at] for x in (a, b, c))
        r = np.array(r, copy=True)
        r[at] = _fma32_exact(a, b, c)
    return r


# float64 bits below float32's last significand bit (29 of them), their halfway pattern, float32's least normal.
_BELOW_FLOAT32, _HALFWAY, _MIN_NORMAL32 = (1 << 29) - 1, 1 << 28, F64(2.0**-126)


def _fma32_exact(a, b, c) -> np.ndarray:
    """:func:`fma32` for every element: Knuth's TwoSum gives the float64 sum's exact error; float32 of the float64
    sum is the correctly rounded result except where the sum lies exactly halfway between two float32 values and
    the error is not zero, where the exact value is on the error's side of the halfway point."""
    with np.errstate(over="ignore", invalid="ignore"):  # IEEE: inf * 0 is NaN, as the instruction gives
        p = np.asarray(a, F32).astype(F64) * np.asarray(b, F32).astype(F64)
        cc = np.asarray(c, F32).astype(F64)
        s = p + cc
        v = s - p
        err = (p - (s - v)) + (cc - v)
        r = s.astype(F32)
        wide = r.astype(F64)
        lo = np.where(wide > s, np.nextafter(r, F32(-np.inf)), r)
        hi = np.nextafter(lo, F32(np.inf))
        halfway = (wide != s) & (s == (lo.astype(F64) + hi.astype(F64)) / 2) & (err != 0)
        return np.where(halfway, np.where(err > 0, hi, lo), r).astype(F32)


_SPLIT = F64(2.0**27 + 1)


def _two_product(a, b):
    """``a * b`` as the float64 product and its exact error (Dekker's product, Veltkamp's split)."""
    p = a * b
    ca, cb = _SPLIT * a, _SPLIT * b
    ah, bh = ca - (ca - a), cb - (cb - b)
    al, bl = a - ah, b - bh
    return p, ((ah * bh - p) + ah * bl + al * bh) + al * bl


def fma64(a, b, c) -> np.ndarray:
    """float64 ``a * b + c`` rounded once (AArch64's ``fmadd``): the product's exact error and Knuth's TwoSum keep
    every bit until the last addition (it can differ from one rounding only where the last two terms meet at a
    halfway point of float64, far below what the float32 result keeps).  Non-finite values as the plain
    formula gives them."""
    a, b, c = np.broadcast_arrays(np.asarray(a, F64), np.asarray(b, F64), np.asarray(c, F64))
    p, e = _two_product(a, b)
    s = p + c
    z = s - p
    t = (p - (s - z)) + (c - z)
    r = s + (t + e)
    return np.where(np.isfinite(r) & np.isfinite(p) & np.isfinite(e), r, a * b + c)
