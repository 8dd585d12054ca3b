"""``(A - za) @ (B - zb)`` modulo 2**32 through one instruction, by :func:`intdot.gemm.gemm`.

The zero points never reach the instruction: kernels multiply the raw 8-bit values and correct afterwards,

    sum_k (a - za)(b - zb) = sum_k a*b - zb * (rowsum(a) - K*za) - za * colsum(b)

and so does this.  Each correction is one value per row or per column (per tensor zero points), added to the
int32 result by broadcasting; the per-column one goes in as gemm's ``c``, where it is folded into gemm's own
correction and costs no pass.  Only a per-row ``za`` together with per-column ``zb`` (which ONNX Runtime
refuses) needs an outer product, made a block of rows at a time.
"""

from __future__ import annotations

import numpy as np

from ._args import wrap32
from .plan import Plan


def _shifted(x: np.ndarray, s: int) -> np.ndarray:
    """``x - s`` in the lanes' type: flipping the top bit of a byte moves it by 128 either way."""
    if not s:
        return x
    return (x.view(np.uint8) ^ np.uint8(0x80)).view(np.int8 if s > 0 else np.uint8)


def _t(x: np.ndarray) -> np.ndarray:
    return np.swapaxes(x, -1, -2) if x.ndim >= 2 else x


def product(a: np.ndarray, b: np.ndarray, za: np.ndarray, zb: np.ndarray, p: Plan, target=None) -> np.ndarray:
    """int32 ``(a - za) @ (b - zb)`` modulo 2**32; a (..., M, K), b (..., K, N) int8/uint8, za broadcasting to
    (..., M, 1), zb to (..., 1, N) (int64)."""
    from ..gemm import gemm

    za, zb = np.asarray(za), np.asarray(zb)
    za = za[:, None] if za.ndim == 1 else za  # M values: one per row
    zb = zb[None, :] if zb.ndim == 1 else zb  # N values: one per column
    x, y = (_t(b), _t(a)) if p.swap else (a, b)
    zx, zy = (_t(zb), _t(za)) if p.swap else (za, zb)
    x, zx = _shifted(x, p.shift_first), zx - p.shift_first
    y, zy = _shifted(y, p.shift_second), zy - p.shift_second
    k = x.shape[-1]
    colsum = y.sum(axis=-2, dtype=np.int64)[..., None, :]  # (..., 1, N)
    rowterm = x.sum(axis=-1, dtype=np.int64)[..., :, None] - k * zx  # rowsum(a) - K za: (..., M, 1)
    # A wrapping instruction gives the same bits wherever the correction goes; one that saturates must see the
    # raw product alone, as its kernel would.
    as_c = p.record.clamp is not True and (np.ndim(zx) < 2 or zx.shape[-2] == 1)
    c = wrap32(-(zx * colsum)) if as_c else None
    r = gemm(x, y, c, op=p.record, target=target, **p.flags)
    r = r.view(np.uint32) if r.dtype.itemsize == 4 else r.astype(np.uint32)  # the low 32 bits
    if not r.flags.writeable:
        r = r.copy()
    _subtract_product(r, rowterm, zy)
    if not as_c:
        _subtract_product(r, zx, colsum)
    if p.swap:
        r = np.ascontiguousarray(_t(r))
    return r.view(np.int32)


def _subtract_product(r: np.ndarray, u: np.ndarray, v: np.ndarray) -> None:
    """``r -= u * v`` modulo 2**32, in place; an outer product (u per row, v per column) is made a block of
    rows at a time, so that no (M, N) int64 temporary exists."""
    u, v = np.asarray(u), np.asarray(v)
    outer = np.ndim(u) >= 2 and u.shape[-2] > 1 and np.ndim(v) >= 1 and v.shape[-1] > 1
    if not outer:
        np.subtract(r, wrap32(u * v), out=r)
        return
    rows = max(1, (1 << 20) // max(1, r.shape[-1]))
    for r0 in range(0, r.shape[-2], rows):
        part = r[..., r0 : r0 + rows, :]
        np.subtract(part, wrap32(u[..., r0 : r0 + rows, :] * v), out=part)
