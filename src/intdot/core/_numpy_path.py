"""The portable array path: plain NumPy, in blocks so temporaries stay small.

Lanes are byte/halfword views of the words (8- and 16-bit lanes), the two
nibbles of each byte (equal 4-bit lanes in whole bytes), or unpacked with
shifts (any other mix).  Products are summed column by column in the
narrowest type that holds the sum: NumPy's reductions along a short last
axis are several times slower than a few strided adds (measured: 5x for
4-bit lanes).  :func:`byte_pair_table` serves the scalar path.
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


def _nibbles(words: np.ndarray, nbytes: int, signed: bool) -> tuple[np.ndarray, np.ndarray]:
    """The low and high nibble of each of the first ``nbytes`` bytes of each word, as int16 columns."""
    u = words.view(np.uint8).reshape(-1, words.dtype.itemsize)[:, :nbytes]
    lo, hi = (u & 0xF).view(np.int8), (u >> 4).view(np.int8)
    if signed:
        lo, hi = (lo ^ 8) - 8, (hi ^ 8) - 8
    return lo.astype(np.int16), hi.astype(np.int16)


def _dot(spec, wa: np.ndarray, wb: np.ndarray) -> np.ndarray:
    """The dot product of each pair of words, int64 (exact; pair sums saturated where the spec says)."""
    if spec.pair_sat is not None:
        products = _lanes(wa, spec.a_width, spec.lanes, spec.a_signed).astype(np.int64)
        products *= _lanes(wb, spec.b_width, spec.lanes, spec.b_signed)
        pairs = products[:, 0::2] + products[:, 1::2]
        half = 1 << (spec.pair_sat - 1)
        np.clip(pairs, -half, half - 1, out=pairs)
        return pairs.sum(axis=1)
    if spec.a_width == spec.b_width == 4 and spec.a_bits % 8 == 0:
        # Only the sum matters, so pairing low with low and high with high nibbles of each byte is enough.
        al, ah = _nibbles(wa, spec.a_bits // 8, spec.a_signed)
        bl, bh = _nibbles(wb, spec.b_bits // 8, spec.b_signed)
        al *= bl
        ah *= bh
        products = al + ah  # at most 16 lanes of 15 x 15: int16 holds every partial sum
    else:
        # Up to 24 bits of lanes (16 x 8 at most 4 lanes) products and sums fit int32; 16 x 16 needs int64.
        wide = np.int32 if spec.a_width + spec.b_width <= 24 else np.int64
        products = _lanes(wa, spec.a_width, spec.lanes, spec.a_signed).astype(wide)
        products *= _lanes(wb, spec.b_width, spec.lanes, spec.b_signed)
    d = products[:, 0].astype(np.int64)
    for k in range(1, products.shape[1]):
        d += products[:, k]
    return d


def dot_into(spec, a, b, acc, neg: bool, clamp: bool, out: np.ndarray) -> None:
    """out[i] = the spec's dot product of words a[i], b[i] accumulated into acc[i].

    ``a``, ``b``, ``acc`` are 1-D unsigned word arrays of out's size (stride-0
    views allowed); ``out`` is 1-D of the spec's result dtype.
    """
    lo, hi = spec.result_range
    da, db = np.dtype(spec.a_dtype).newbyteorder("<"), np.dtype(spec.b_dtype).newbyteorder("<")
    for s in range(0, out.size, BLOCK):
        e = min(s + BLOCK, out.size)
        d = _dot(spec, np.ascontiguousarray(a[s:e], dtype=da), np.ascontiguousarray(b[s:e], dtype=db))
        if spec.acc_bits <= 32:
            # A 16-bit accumulator is the low half of its uint32 word.
            word = np.uint16 if spec.acc_bits == 16 else np.uint32
            r = acc[s:e].astype(word, copy=False).view(spec.result_dtype).astype(np.int64)
            if neg:
                r -= d
            else:
                r += d
            if clamp:
                np.clip(r, lo, hi, out=r)
                out[s:e] = r
            else:
                out[s:e] = r.astype(word).view(out.dtype)
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
