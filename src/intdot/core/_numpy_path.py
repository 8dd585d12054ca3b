"""The portable array path: plain NumPy, in blocks so temporaries stay small.

4-bit lanes go through a table of the dot product of every pair of bytes
(65536 entries): four table reads per word beat unpacking and multiplying
eight lanes.  8- and 16-bit lanes are byte/halfword views, multiplied.
"""

from __future__ import annotations

from functools import lru_cache

import numpy as np

BLOCK = 1 << 16  # elements per block: temporaries stay in cache


@lru_cache(maxsize=None)
def byte_pair_table(width: int, a_signed: bool, b_signed: bool) -> np.ndarray:
    """T[(x << 8) | y] = dot product of the lanes of byte x with those of byte y."""
    values = np.arange(256, dtype=np.int32)
    per_byte = 8 // width
    lanes = np.stack([(values >> (width * k)) & ((1 << width) - 1) for k in range(per_byte)], axis=1)
    half = 1 << (width - 1)
    la = (lanes ^ half) - half if a_signed else lanes
    lb = (lanes ^ half) - half if b_signed else lanes
    return (la[:, None, :] * lb[None, :, :]).sum(axis=2).astype(np.int32).reshape(-1)


def _dot_views(a: np.ndarray, b: np.ndarray, width: int, a_signed: bool, b_signed: bool) -> np.ndarray:
    """8- or 16-bit lanes as views of the words; products in int32 (8-bit) or int64 (16-bit)."""
    signed, unsigned, wide = (np.int8, np.uint8, np.int32) if width == 8 else (np.int16, np.uint16, np.int64)
    la = a.view(signed if a_signed else unsigned).reshape(-1, 32 // width).astype(wide)
    lb = b.view(signed if b_signed else unsigned).reshape(-1, 32 // width).astype(wide)
    return np.einsum("ij,ij->i", la, lb)


def _dot_bytes(a: np.ndarray, b: np.ndarray, table: np.ndarray) -> np.ndarray:
    ia = a.view(np.uint8).reshape(-1, 4).astype(np.intp) << 8
    ia |= b.view(np.uint8).reshape(-1, 4)
    return table[ia].sum(axis=1, dtype=np.int64)


def dot_into(spec, a, b, acc, neg: bool, clamp: bool, out: np.ndarray) -> None:
    """out[i] = the spec's dot product of words a[i], b[i] accumulated into acc[i].

    ``a``, ``b``, ``acc`` are 1-D uint32 arrays of out's size (stride-0 views allowed).
    """
    lo, hi = spec.result_range
    acc_dtype = np.int32 if spec.result_signed else np.uint32
    table = byte_pair_table(4, spec.a_signed, spec.b_signed) if spec.width == 4 else None
    for s in range(0, out.size, BLOCK):
        e = min(s + BLOCK, out.size)
        wa = np.ascontiguousarray(a[s:e], dtype="<u4")
        wb = np.ascontiguousarray(b[s:e], dtype="<u4")
        if table is None:
            d = _dot_views(wa, wb, spec.width, spec.a_signed, spec.b_signed)
        else:
            d = _dot_bytes(wa, wb, table)
        r = acc[s:e].view(acc_dtype).astype(np.int64)
        if neg:
            r -= d
        else:
            r += d
        if clamp:
            np.clip(r, lo, hi, out=r)
            out[s:e] = r
        else:
            out[s:e] = r.astype(np.uint32).view(out.dtype)
