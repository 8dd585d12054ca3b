"""MLAS's NCHWc Conv kernels' chains (:mod:`.nchwc`) compiled by numba: each output's fused multiply-adds in the
kernels' order, one output at a time, the output channels spread over the cores.  Importing this module raises
ImportError without numba (the ``fast`` extra); :mod:`.nchwc` then runs its NumPy form, which gives the same bits
(``tests/quant/test_nchwc.py`` checks both).  Compiled once, kept in the core's disk cache
(:func:`intdot.core._numba_kernels.cache_dir`)."""

from __future__ import annotations

import numba
import numpy as np

from ..core._numba_kernels import _disk_cache

F32, F64 = np.float32, np.float64


@numba.njit(inline="always")
def fma32(a, b, c):
    """``a * b + c`` rounded once to float32.  The float64 product is exact and float32 of the float64 sum is the
    answer unless that sum lies exactly halfway between two float32 values (``r + 2 (s - r)``, the neighbour, is
    then a float32 value itself), where the sum's own rounding error, TwoSum's, decides."""
    p = F64(a) * F64(b)
    cc = F64(c)
    s = p + cc
    r = F32(s)
    t = F64(r)
    d = s - t
    if d == 0.0:
        return r
    u = t + 2.0 * d
    if F64(F32(u)) != u:
        return r
    v = s - p
    err = (p - (s - v)) + (cc - v)
    if err == 0.0:
        return r
    return F32(u) if (err > 0.0) == (u > t) else r


def _kernel(x, w, z, has_z, out, width, padded, top, left, sh, sw, dh, dw):
    """``x`` (N, H, W, C) and ``w`` (M, KH, KW, C, or 1 for a depthwise Conv), channels last so that the innermost
    loop reads in order; ``out`` (N, M, OH, OW): each output from ``z`` (or the first slice), each slice of
    ``width`` input channels (0: the output's own channel, depthwise) a chain from 0 over the taps inside the
    input, rows outer, then columns, then channels, added to it; a slice past ``x``'s channels (``padded``) adds
    its zeros' +0."""
    n_img, h, wd, c = x.shape
    kh, kw = w.shape[1], w.shape[2]
    for mm in numba.prange(out.shape[1]):
        m = np.int64(mm)
        for n in range(n_img):
            for oh in range(out.shape[2]):
                for ow in range(out.shape[3]):
                    acc = z[n, m, oh, ow] if has_z else F32(0)
                    first = not has_z
                    start = np.int64(0)
                    while start < max(padded, 1):
                        s = F32(0)
                        for i in range(kh):
                            ih = oh * sh - top + i * dh
                            if ih < 0 or ih >= h:
                                continue
                            for j in range(kw):
                                iw = ow * sw - left + j * dw
                                if iw < 0 or iw >= wd:
                                    continue
                                if width == 0:
                                    s = fma32(x[n, ih, iw, m], w[m, i, j, 0], s)
                                else:
                                    for ch in range(start, min(start + width, c)):
                                        s = fma32(x[n, ih, iw, ch], w[m, i, j, ch], s)
                        if width > 0 and start + width > c and padded > c:
                            s = F32(s + F32(0))
                        acc = s if first else F32(acc + s)
                        first = False
                        start += width if width > 0 else padded
                    out[n, m, oh, ow] = acc


kernel = numba.njit(parallel=True, fastmath=False)(_kernel)
_cache = _disk_cache(_kernel)
if _cache is not None:
    kernel._cache = _cache
