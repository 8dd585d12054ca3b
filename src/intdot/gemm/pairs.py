"""Steps whose pair sums saturate first (x86's ``vpmaddubsw`` + ``vpmaddwd`` idiom), exactly.

Each step adds ``sat16(a0*b0 + a1*b1) + sat16(a2*b2 + a3*b3)``: the exact product of the whole
K is right except where a pair sum leaves int16, so the answer is the exact GEMM (any backend)
plus a correction ``sum_p (sat(P) - P)`` over the pairs that can leave it.  A pair can only do so
where both its ``a`` lanes and both its ``b`` lanes are large, which is checked per row and
column before any product is formed.
"""

from __future__ import annotations

import numpy as np


def _pad_even(a: np.ndarray, b: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    if a.shape[1] % 2 == 0:
        return a, b
    return np.pad(a, ((0, 0), (0, 1))), np.pad(b, ((0, 1), (0, 0)))


def correction(a: np.ndarray, b: np.ndarray, bits: int) -> np.ndarray:
    """int64 (M, N): what saturating each pair sum to ``bits`` signed bits adds to the exact ``a @ b``."""
    a, b = _pad_even(a, b)
    m, n = a.shape[0], b.shape[1]
    out = np.zeros((m, n), np.int64)
    lo, hi = -(1 << (bits - 1)), (1 << (bits - 1)) - 1
    aa, bb = np.abs(a.astype(np.int64)), np.abs(b.astype(np.int64))
    for p in range(0, a.shape[1], 2):
        # |P| <= max(|a0|, |a1|) * (|b0| + |b1|): rows and columns that cannot pass the limit are skipped.
        row_max = np.maximum(aa[:, p], aa[:, p + 1])
        col_sum = bb[p] + bb[p + 1]
        if not row_max.size or not col_sum.size or int(row_max.max()) * int(col_sum.max()) <= hi:
            continue
        rows = np.flatnonzero(row_max * int(col_sum.max()) > hi)
        cols = np.flatnonzero(col_sum * int(row_max.max()) > hi)
        a0, a1 = a[rows, p].astype(np.int64)[:, None], a[rows, p + 1].astype(np.int64)[:, None]
        pair = a0 * b[p, cols].astype(np.int64) + a1 * b[p + 1, cols].astype(np.int64)
        fix = np.clip(pair, lo, hi) - pair
        if fix.any():
            out[np.ix_(rows, cols)] += fix
    return out


def chain(a: np.ndarray, b: np.ndarray, acc: np.ndarray, step: int, bits: int, lo: int, hi: int, neg: bool):
    """The saturating chain (clamp at every step) with saturated pair sums; int64 ``acc`` in and out."""
    a, b = _pad_even(a, b)
    out = acc.astype(np.int64)
    sat_lo, sat_hi = -(1 << (bits - 1)), (1 << (bits - 1)) - 1
    a64, b64 = a.astype(np.int64), b.astype(np.int64)
    for t in range(0, a.shape[1], step):
        d = np.zeros(out.shape, np.int64)
        for p in range(t, min(t + step, a.shape[1]), 2):
            pair = a64[:, p, None] * b64[p] + a64[:, p + 1, None] * b64[p + 1]
            d += np.clip(pair, sat_lo, sat_hi)
        np.clip(out - d if neg else out + d, lo, hi, out=out)
    return out


def gemm(a: np.ndarray, b: np.ndarray, start: np.ndarray, o, clamp: bool, neg: bool, product) -> np.ndarray:
    """The whole result in the instruction's dtype: ``product(a, b)`` (an exact int64 ``a @ b``) plus the
    saturation's correction, from the int64 accumulators ``start``; or the per-step chain where the accumulator
    saturates too (``clamp``)."""
    if clamp:
        lo, hi = o.acc_range
        return chain(a, b, start, o.k_step, o.pair_sat, lo, hi, neg).astype(o.result_dtype)
    s = product(a, b) + correction(a, b, o.pair_sat)
    s = (start - s if neg else start + s).view(np.uint64)
    return s.astype(np.uint32 if o.acc_bits == 32 else np.uint64).view(o.result_dtype)
