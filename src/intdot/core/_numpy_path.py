"""The portable array path: plain NumPy, in blocks so temporaries stay small.

Equal 4-bit lanes in whole bytes go through a table of the dot product of
every pair of bytes (65536 entries): one table read per byte beats unpacking
and multiplying two nibbles.  8- and 16-bit lanes are byte/halfword views of
the words, multiplied; any other mix is unpacked with shifts.
"""

from __future__ import annotations

from functools import cache

import numpy as np

BLOCK = 1 << 16  # elements per block: temporaries stay in cache


@cache
def byte_pair_table(width: int, a_signed: bool, b_signed: bool) -> np.ndarray:
    """T[(x << 8) | y] = dot product of the lanes of byte x with those of byte y."""
    values = np.arange(256, dtype=np.int32)
    per_byte = 8 // width
    lanes = np.stack([(values >> (width * k)) & ((1 << width) - 1) for k in range(per_byte)], axis=1)
    half = 1 << (width - 1)
    la = (lanes ^ half) - half if a_signed else lanes
    lb = (lanes ^ half) - half if b_signed else lanes
    return (la[:, None, :] * lb[None, :, :]).sum(axis=2).astype(np.int32).reshape(-1)


def _lanes(words: np.ndarray, width: int, n: int, signed: bool) -> np.ndarray:
    """The n lanes of each (little-endian, contiguous) word: shape (len(words), n)."""
    per_word = 8 * words.dtype.itemsize // width
    if width in (8, 16):
        dtype = {(8, True): np.int8, (8, False): np.uint8, (16, True): np.int16, (16, False): np.uint16}
        return words.view(dtype[width, signed]).reshape(-1, per_word)[:, :n]
    shifts = np.arange(0, 4 * n, 4, dtype=words.dtype)
    nib = ((words[:, None] >> shifts) & words.dtype.type(0xF)).astype(np.int8)
    return (nib ^ 8) - 8 if signed else nib


def _dot(spec, wa: np.ndarray, wb: np.ndarray, table) -> np.ndarray:
    """The exact dot product of each pair of words, int64."""
    if table is not None:
        nbytes = spec.a_bits // 8
        ia = wa.view(np.uint8).reshape(-1, wa.dtype.itemsize)[:, :nbytes].astype(np.intp) << 8
        ia |= wb.view(np.uint8).reshape(-1, wb.dtype.itemsize)[:, :nbytes]
        return table[ia].sum(axis=1, dtype=np.int64)
    # Products of up to 24 bits of lanes, and their sums, fit int32, which einsum handles fastest.
    wide = np.int32 if spec.a_width + spec.b_width <= 24 else np.int64
    la = _lanes(wa, spec.a_width, spec.lanes, spec.a_signed).astype(wide)
    lb = _lanes(wb, spec.b_width, spec.lanes, spec.b_signed).astype(wide)
    return np.einsum("ij,ij->i", la, lb).astype(np.int64, copy=False)


def _table_for(spec):
    if spec.a_width == spec.b_width == 4 and spec.a_bits % 8 == 0:
        return byte_pair_table(4, spec.a_signed, spec.b_signed)
    return None


def dot_into(spec, a, b, acc, neg: bool, clamp: bool, out: np.ndarray) -> None:
    """out[i] = the spec's dot product of words a[i], b[i] accumulated into acc[i].

    ``a``, ``b``, ``acc`` are 1-D unsigned word arrays of out's size (stride-0
    views allowed); ``out`` is 1-D of the spec's result dtype.
    """
    table = _table_for(spec)
    lo, hi = spec.result_range
    da, db = np.dtype(spec.a_dtype).newbyteorder("<"), np.dtype(spec.b_dtype).newbyteorder("<")
    for s in range(0, out.size, BLOCK):
        e = min(s + BLOCK, out.size)
        d = _dot(spec, np.ascontiguousarray(a[s:e], dtype=da), np.ascontiguousarray(b[s:e], dtype=db), table)
        if spec.acc_bits == 32:
            r = acc[s:e].view(spec.result_dtype).astype(np.int64)
            if neg:
                r -= d
            else:
                r += d
            if clamp:
                np.clip(r, lo, hi, out=r)
                out[s:e] = r
            else:
                out[s:e] = r.astype(np.uint32).view(out.dtype)
        else:
            _accumulate64(spec, acc[s:e], -d if neg else d, clamp, out[s:e].view(np.uint64))


def _accumulate64(spec, acc: np.ndarray, e: np.ndarray, clamp: bool, out: np.ndarray) -> None:
    """out = acc + e in a 64-bit accumulator: wrapped, or saturated where the wrap shows an overflow."""
    c = np.ascontiguousarray(acc, dtype=np.uint64)
    r = c + e.astype(np.uint64)  # wraps modulo 2**64
    if clamp:
        if spec.acc_signed:
            rs, cs = r.view(np.int64), c.view(np.int64)
            up, down = (e > 0) & (rs < cs), (e < 0) & (rs > cs)
        else:
            up, down = (e > 0) & (r < c), (e < 0) & (r > c)
        lo, hi = spec.result_range
        r[up] = np.uint64(hi)
        r[down] = np.uint64(lo & 0xFFFFFFFFFFFFFFFF)
    out[...] = r
