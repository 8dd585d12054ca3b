"""numba kernels for the array path: one compiled loop per DotSpec.

Written in int64 throughout: numba widens int32 shifts to int64, so sign
extension is done with xor/subtract rather than by shifting.  The output is a
uint32 view made by the caller (views made inside a parallel kernel lose
writes).
"""

from __future__ import annotations

from functools import lru_cache

import numba
import numpy as np


@lru_cache(maxsize=None)
def kernel(width: int, a_signed: bool, b_signed: bool, result_signed: bool):
    n_lanes = 32 // width
    mask = (1 << width) - 1
    half = 1 << (width - 1)
    lo, hi = (-(1 << 31), (1 << 31) - 1) if result_signed else (0, (1 << 32) - 1)
    sa = half if a_signed else 0  # xor-subtract with 0 is the identity: unsigned lanes
    sb = half if b_signed else 0
    sc = (1 << 31) if result_signed else 0

    @numba.njit(parallel=True, nogil=True, boundscheck=False)
    def run(a, a_step, b, b_step, acc, acc_step, neg, clamp, out):
        # *_step is 1, or 0 for an operand that is one value for every element.
        for i in numba.prange(out.size):
            x = np.int64(a[i * a_step])
            y = np.int64(b[i * b_step])
            d = np.int64(0)
            for lane in range(n_lanes):
                p = ((x >> (width * lane)) & mask ^ sa) - sa
                q = ((y >> (width * lane)) & mask ^ sb) - sb
                d += p * q
            c = (np.int64(acc[i * acc_step]) ^ sc) - sc
            r = c - d if neg else c + d
            if clamp:
                r = lo if r < lo else (hi if r > hi else r)
            out[i] = np.uint32(r & 0xFFFFFFFF)

    return run
