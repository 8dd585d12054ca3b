"""BatchNormalization and InstanceNormalization in float32 as ONNX Runtime's CPU kernels compute them, bit for bit:
both are Eigen array code, so their bits follow Eigen's packets (4 floats: SSE in ONNX Runtime's x86 build, NEON in
its AArch64 one) and, on Arm, the fused multiply-adds its compiler makes of ``a * b + c``.  Checked against ONNX
Runtime on x86, on QEMU's Haswell CPU and for AArch64 in ``tests/quant/test_normalization.py``.

BatchNormalization (inference)
    Per channel ``s = (1 / sqrt(var + eps)) * scale`` and ``b' = bias - mean * s``, then ``x * s + b'``: each
    operation rounded on x86; on Arm ``b' = fma(-mean, s, bias)``, ``fma(x, s, b')``, and the reciprocal of the
    channels in Eigen's packets of 4 by FRECPE's 8-bit estimate and two Newton steps (an ulp or two from
    ``1 / x``; the channels past the last whole packet by a division).  Where it follows a Conv, ONNX Runtime folds
    it into the Conv's weights instead (that fold is not modelled: docs/differences.md, row 28).
InstanceNormalization
    For each (n, c) of W = prod(spatial) elements: ``mean = sum(x) / W`` and ``q = sum((x - mean)**2)``, both by
    Eigen's vectorized sum (:func:`eigen_sum`), ``k = (1 / sqrt(q / W + eps)) * scale`` and ``b' = bias - mean *
    k``, then ``x * k + b'``; on Arm the squares accumulate by fused multiply-adds, and ``b'`` and the output are
    fused too.
"""

from __future__ import annotations

import numpy as np

from .float_kernels import reduce4
from .fma import fma32

F32 = np.float32


def _frecpe(a) -> np.ndarray:
    """AArch64's FRECPE of positive float32 values below 2**125: 1 / a to 8 bits, from the top 8 bits of a's
    fraction (the Arm ARM's RecipEstimate); 0 gives inf and inf 0."""
    bits = a.view(np.uint32)
    exponent, scaled = (bits >> 23).astype(np.int64), 256 + ((bits >> 15) & 0xFF).astype(np.int64)
    estimate = ((1 << 19) // (2 * scaled + 1) + 1) // 2
    out = (((253 - exponent) << 23) | ((estimate & 0xFF) << 15)).astype(np.uint32).view(F32)
    return np.where(a == 0, F32(np.inf), np.where(np.isinf(a), F32(0), out)).astype(F32)


def _reciprocal_neon(a) -> np.ndarray:
    """Eigen's NEON reciprocal of a packet: FRECPE, then two Newton steps ``r * (2 - a * r)`` (FRECPS, fused; its
    0 * inf is 2)."""
    r = _frecpe(a)
    for _ in range(2):
        step = np.where(np.isinf(r) & (a == 0), F32(2), fma32(-a, r, F32(2)))
        r = (r * step).astype(F32)
    return r


def batch_norm(x, scale, bias, mean, var, epsilon: float, platform: str = "x86") -> np.ndarray:
    """ONNX Runtime's float32 BatchNormalization in inference, channels on axis 1 (module docstring)."""
    x = np.asarray(x, F32)
    scale, bias, mean, var = (np.asarray(a, F32) for a in (scale, bias, mean, var))
    shape = (1, -1) + (1,) * (x.ndim - 2)
    arm = platform.startswith("arm")
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        root = np.sqrt((var + F32(epsilon)).astype(F32))
        inverse = (F32(1) / root).astype(F32)
        if arm:  # Eigen's packets of 4 channels; the channels past them one by one
            packed = 4 * (var.size // 4)
            inverse[:packed] = _reciprocal_neon(root[:packed])
        s = (inverse * scale).astype(F32)
        if arm:
            return fma32(x, s.reshape(shape), fma32(-mean, s, bias).reshape(shape))
        b = (bias - (mean * s).astype(F32)).astype(F32)
        return ((x * s.reshape(shape)).astype(F32) + b.reshape(shape)).astype(F32)


def eigen_prod(v, offsets, pairs: str) -> np.ndarray:
    """Each row of the 2-D float32 ``v`` multiplied out as Eigen's vectorized product does it: :func:`eigen_sum`'s
    packets and order, products in place of sums, its four lanes reduced as ``(l0 * l2) * (l1 * l3)`` on both SSE
    and NEON (its predux_mul)."""
    return _rows(v, offsets, lambda rows, start: _redux(rows, start, pairs, False, product=True))


def eigen_sum(v, offsets, pairs: str, squares: bool = False) -> np.ndarray:
    """Each row of the 2-D float32 ``v`` summed as Eigen's vectorized sum adds it (its redux over packets of 4).

    The packets start at the first element that is 16-byte aligned: ``offsets`` gives each row's index in its
    buffer (ONNX Runtime's buffers, and NumPy's, are aligned), or None for an expression, which Eigen reads from
    its first element.  From there two packet accumulators take every other packet, are added, take one last
    packet if one is left, and are reduced by :func:`.float_kernels.reduce4` (``pairs``); then the elements before
    the aligned start, then those after the last packet, one by one.  A row with no whole packet is summed in
    order.  ``squares``: sum ``v * v`` instead (on Arm, ``pairs="neon"``, each square after the first of an
    accumulator is fused into its addition)."""
    return _rows(v, offsets, lambda rows, start: _redux(rows, start, pairs, squares))


def _rows(v, offsets, redux) -> np.ndarray:
    """``redux`` of each row of ``v`` from its first 16-byte aligned element (:func:`eigen_sum`)."""
    rows, n = v.shape
    starts = np.zeros(rows, np.int64) if offsets is None else np.minimum(-np.asarray(offsets, np.int64) % 4, n)
    out = np.empty(rows, F32)
    for start in np.unique(starts):
        at = starts == start
        out[at] = redux(v[at], int(start))
    return out


def _redux(v, start: int, pairs: str, squares: bool, product: bool = False) -> np.ndarray:
    n = v.shape[1]
    fused = squares and pairs == "neon"

    def term(a):
        return (a * a).astype(F32) if squares else a

    def add(acc, a):
        if product:
            return (acc * a).astype(F32)
        return fma32(a, a, acc) if fused else (acc + term(a)).astype(F32)

    packed, pairs_end = (n - start) // 4 * 4, start + (n - start) // 8 * 8
    if packed == 0:
        s = term(v[:, 0])
        for j in range(1, n):
            s = add(s, v[:, j])
        return s
    acc = term(v[:, start : start + 4])
    if packed > 4:
        other = term(v[:, start + 4 : start + 8])
        for i in range(start + 8, pairs_end, 8):
            acc, other = add(acc, v[:, i : i + 4]), add(other, v[:, i + 4 : i + 8])
        acc = (acc * other if product else acc + other).astype(F32)
        if start + packed > pairs_end:
            acc = add(acc, v[:, pairs_end : pairs_end + 4])
    if product:
        s = ((acc[:, 0] * acc[:, 2]).astype(F32) * (acc[:, 1] * acc[:, 3]).astype(F32)).astype(F32)
    else:
        s = reduce4(acc, pairs)
    for j in [*range(start), *range(start + packed, n)]:
        s = add(s, v[:, j])
    return s


def instance_norm(x, scale, bias, epsilon: float, platform: str = "x86") -> np.ndarray:
    """ONNX Runtime's float32 InstanceNormalization of ``x`` (N, C, spatial...) (module docstring)."""
    x = np.asarray(x, F32)
    n, c = x.shape[:2]
    w = int(np.prod(x.shape[2:], dtype=np.int64))
    rows = x.reshape(n * c, w)
    arm = platform.startswith("arm")
    pairs = "neon" if arm else "sse"
    scale, bias = (np.tile(np.asarray(a, F32), n) for a in (scale, bias))
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        mean = (eigen_sum(rows, np.arange(n * c) * w, pairs) / F32(w)).astype(F32)
        q = eigen_sum((rows - mean[:, None]).astype(F32), None, pairs, squares=True)
        k = ((F32(1) / np.sqrt(((q / F32(w)).astype(F32) + F32(epsilon)).astype(F32))).astype(F32) * scale).astype(F32)
        if arm:
            y = fma32(rows, k[:, None], fma32(-mean, k, bias)[:, None])
        else:
            b = (bias - (mean * k).astype(F32)).astype(F32)
            y = ((rows * k[:, None]).astype(F32) + b[:, None]).astype(F32)
    return y.reshape(x.shape)
