"""The portable array path: plain NumPy, in blocks so temporaries stay small."""

from __future__ import annotations

import numpy as np

BLOCK = 1 << 16  # elements per block: temporaries stay in cache


def _lanes(w: np.ndarray, width: int, signed: bool) -> np.ndarray:
    """Lanes of little-endian uint32 words as an int16 (n, lanes) array, lane 0 first."""
    n = 32 // width
    if width == 8:
        v = w.view(np.uint8).reshape(-1, n)
        return (v.view(np.int8) if signed else v).astype(np.int16)
    if width == 16:
        v = w.view(np.uint16).reshape(-1, n)
        return (v.view(np.int16) if signed else v).astype(np.int32)
    nib = ((w[:, None] >> np.arange(0, 32, 4, dtype=np.uint32)) & 0xF).astype(np.int16)
    return (nib ^ 8) - 8 if signed else nib


def dot_into(spec, a, b, acc, neg: bool, clamp: bool, out: np.ndarray) -> None:
    """out[i] = the spec's dot product of words a[i], b[i] accumulated into acc[i]."""
    a = a.astype("<u4", copy=False)
    b = b.astype("<u4", copy=False)
    lo, hi = spec.result_range
    acc_dtype = np.int32 if spec.result_signed else np.uint32
    for s in range(0, out.size, BLOCK):
        e = min(s + BLOCK, out.size)
        la = _lanes(a[s:e], spec.width, spec.a_signed)
        lb = _lanes(b[s:e], spec.width, spec.b_signed)
        # Products fit int32 (|16-bit x 16-bit| <= 2**30); their sum needs int64.
        d = np.einsum("ij,ij->i", la.astype(np.int64), lb.astype(np.int64)) if spec.width == 16 else \
            np.einsum("ij,ij->i", la.astype(np.int32), lb.astype(np.int32))
        r = acc[s:e].view(acc_dtype).astype(np.int64)
        if neg:
            r -= d
        else:
            r += d
        if clamp:
            np.clip(r, lo, hi, out=r)
        out[s:e] = r.astype(np.uint32).view(out.dtype) if not clamp else r.astype(out.dtype)
