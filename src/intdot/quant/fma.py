"""A float32 fused multiply-add, ``a * b + c`` rounded once, as the FMA instructions compute it: ONNX Runtime's
AVX2 kernels use them, and NumPy has no such operation."""

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
