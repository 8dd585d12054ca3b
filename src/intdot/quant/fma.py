"""Fused multiply-adds, ``a * b + c`` rounded once, as the FMA instructions compute them: ONNX Runtime's AVX2
kernels and its Arm build use them, and NumPy has no such operation.  :func:`fma32` in float32, :func:`fma64` in
float64."""

from __future__ import annotations

import numpy as np

F32, F64 = np.float32, np.float64


def fma32(a, b, c) -> np.ndarray:
    """``round_to_float32(a * b + c)`` with a single rounding (half to even), elementwise, broadcasting.

    The product of two float32 values is exact in float64 (24 + 24 significant bits), so the only rounding before
    the last is the float64 sum.  Knuth's TwoSum gives that sum's exact error; float32 of the float64 sum is the
    correctly rounded result except where the sum lies exactly halfway between two float32 values and the error
    is not zero, where the exact value is on the error's side of the halfway point."""
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
