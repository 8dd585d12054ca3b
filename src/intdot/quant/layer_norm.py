"""ONNX Runtime's float32 ``LayerNormalization`` (ONNX, opset 17), ``SimplifiedLayerNormalization`` (ONNX
Runtime's RMSNorm, which it registers in ONNX's domain, version 1; not in ``com.microsoft``) and
``RMSNormalization`` (ONNX, opset 23) on the CPU, bit for bit.

All of them run one C++ kernel (``LayerNormImpl``), row by row: a row is ``x``'s elements from ``axis`` on (``n`` of
them).  Read from the ONNX Runtime 1.32 libraries themselves (the x86-64 and the AArch64 wheels, disassembled: the
MLAS kernel 1.32 ships takes two passes and a float64 mean, where the published one-pass
``layernorm_kernel_avx2.cpp`` sums in float32) and checked against both in ``tests/quant/test_layer_norm.py``.
``denom`` below is ``sqrt(var + epsilon)``, ``inv`` is ``1 / denom``; the Mean output is ``mean`` and InvStdDev is
``inv``, both float32.  The simplified kernels have no mean (it is 0) and no bias, and take the mean of the squares
as the variance.

Which path
    When scale and bias are the same for every row (their dimensions before ``axis`` are all 1, right-aligned as
    NumPy aligns them) and each has ``n`` elements, ``ComputeJob`` (float32); otherwise (they broadcast over the
    row, or differ from row to row) ``ComputeJobGeneric`` (float64).  ``ComputeJob`` hands the row to MLAS's
    LayerNorm kernel where the build has one: the x86 build does (an AVX2 + FMA3 kernel, used on every CPU with
    AVX2, with AVX-512F or without it, so ``"x86"`` and ``"x86-avx2"`` compute the same), from ``n >= 8``
    (LayerNorm) or ``n >= 16`` (simplified); the AArch64 build has none (NEON, SVE or SME: every ``"arm*"``
    platform is the same), and compiles the C++ with fused multiply-adds.

x86, MLAS's kernel (``n >= 8``; simplified ``n >= 16``)
    ``mean``: the row summed in float64, four lanes each taking every fourth element of the first ``4 * (n // 4)``,
    ``(l0 + l2) + (l1 + l3)``, then the rest one by one; divided by ``n`` in float64, rounded to float32.
    ``var``: with ``d = x - mean`` (float32; ``d = x`` when simplified), eight float32 lanes each ``fma(d, d,
    lane)`` over the first ``8 * (n // 8)`` elements, reduced as ``((l0 + l4) + (l2 + l6)) + ((l1 + l5) + (l3 +
    l7))``; of the rest, if there are 4 or more, the first four squared and rounded then added one by one, and the
    remaining ones ``fma(d, d, sum)``; the sum divided by ``float32(n)``.  ``y = fma((x - mean) * inv, scale,
    bias)``, without bias ``((x - mean) * inv) * scale``; simplified ``(x * inv) * scale``.
x86, below those sizes (C++, no FMA)
    ``mean`` and ``var`` by Welford's method in float32: for k = 1..n, ``delta = x - mean``, ``mean += delta /
    k``, ``m2 += (x - mean) * delta``; ``var = m2 / n``.  ``y = ((x - mean) / denom) * scale + bias`` (each step
    rounded).  Simplified: ``var`` = the squares (each rounded) summed one by one, over ``n``; ``y = (x / denom) *
    scale``.
Arm (C++ compiled with fused multiply-adds, every ``n``)
    As x86's C++, with ``m2 = fma(delta, x - mean, m2)`` and ``y = fma((x - mean) / denom, scale, bias)``.
    Simplified: ``var`` from ``sum = fma(x, x, sum)`` one by one, except that a row of more than 26 takes its
    first ``4 * (n // 4)`` squares rounded (a NEON multiply) and added one by one, the rest fused.
Broadcast scale or bias, every platform (``ComputeJobGeneric``, float64)
    ``mean`` = the row summed in float64 one by one, over ``n``; ``ms`` = the squares (exact in float64) summed one
    by one, over ``n``; ``denom = sqrt(ms - mean * mean + epsilon)`` (epsilon widened from float32); ``y = ((x -
    mean) / denom) * scale + bias`` (``+ 0.0`` without bias), simplified ``(x / denom) * scale``, rounded to float32
    at the end; Mean and InvStdDev (``1.0 / denom``) rounded from float64.  Arm fuses ``ms - mean * mean`` and ``q *
    scale + bias`` (float64 fused multiply-adds).
"""

from __future__ import annotations

import math

import numpy as np

from ..core.errors import OperandError, OperandTypeError
from ..core.values import describe
from ._args import float32_operand, float_platform
from .float_kernels import reduce4
from .fma import fma32, fma64

F32, F64 = np.float32, np.float64

# The row lengths from which x86's ComputeJob hands a row to MLAS's AVX2 kernel.
_KERNEL_FROM = {False: 8, True: 16}
# Arm's simplified C++ loop: rows longer than this take a NEON multiply for their first 4 * (n // 4) squares.
_ARM_VECTOR_SQUARES_ABOVE = 26


def layer_norm(x, scale, bias=None, axis: int = -1, epsilon: float = 1e-5, platform: str = "x86", *,
               simplified: bool = False, outputs: int = 1) -> tuple:  # fmt: skip
    """ONNX Runtime's float32 ``LayerNormalization`` (``simplified``: ``SimplifiedLayerNormalization`` or
    ``RMSNormalization``) of ``x`` over its axes from ``axis`` on, as its CPU kernel computes it on ``platform``
    (module docstring).

    ``scale`` and ``bias`` (None: no bias; ignored when ``simplified``) broadcast to ``x`` as NumPy broadcasts
    them.  Returns the first ``outputs`` of ONNX Runtime's outputs: ``(Y, Mean, InvStdDev)``, simplified ``(Y,
    InvStdDev)``; the statistics have ``x``'s dimensions before ``axis`` and 1 after them, float32.

    >>> x = np.array([[1.0, 2.0, 4.0]], np.float32)
    >>> y, mean, inv = layer_norm(x, np.ones(3, np.float32), None, outputs=3)
    >>> [round(float(v), 4) for v in y[0]], float(mean[0, 0])
    ([-1.069, -0.2673, 1.3363], 2.3333332538604736)
    """
    family = float_platform(platform)
    x = float32_operand(x, "x")
    if x.ndim == 0:
        raise OperandError("x is a scalar; LayerNormalization needs at least one axis")
    if not isinstance(axis, (int, np.integer)) or not -x.ndim <= axis < x.ndim:
        raise OperandError(f"axis={describe(axis)} for x of rank {x.ndim}; expected {-x.ndim} to {x.ndim - 1}")
    most = 2 if simplified else 3
    if not isinstance(outputs, (int, np.integer)) or not 1 <= outputs <= most:
        raise OperandError(f"outputs={describe(outputs)}; expected 1 to {most}")
    a = int(axis) % x.ndim
    rows, n = math.prod(x.shape[:a]), math.prod(x.shape[a:])
    if n < 1:
        raise OperandError(f"x.shape[axis:] = {x.shape[a:]} has no element; ONNX Runtime refuses it")
    scale = _parameter(scale, "scale", x)
    bias = None if simplified or bias is None else _parameter(bias, "bias", x)
    stats = x.shape[:a] + (1,) * (x.ndim - a)
    with np.errstate(all="ignore"):  # infinities and NaNs go through as the kernels take them
        y, mean, inv = _rows(x, a, rows, n, scale, bias, F32(epsilon), simplified, family)
    out = (y.reshape(x.shape), mean.reshape(stats), inv.reshape(stats))
    return (out[0], out[2])[:outputs] if simplified else out[:outputs]


def _rows(x, a, rows, n, scale, bias, eps, simplified, family):
    """Y, Mean and InvStdDev, row by row, by the path ONNX Runtime takes (module docstring)."""
    if rows == 0:
        return x.copy(), np.zeros(0, F32), np.zeros(0, F32)
    rows2d = x.reshape(rows, n)
    arm = family.startswith("arm")
    if _generic(x.shape, a, n, scale, bias):
        s = np.broadcast_to(scale, x.shape).reshape(rows, n)
        b = None if bias is None else np.broadcast_to(bias, x.shape).reshape(rows, n)
        return _generic_rows(rows2d, s, b, eps, simplified, arm)
    s = scale.reshape(n)
    b = None if bias is None else bias.reshape(n)
    if arm:
        return _arm_rows(rows2d, s, b, eps, simplified)
    if n >= _KERNEL_FROM[simplified]:
        return _mlas_rows(rows2d, s, b, eps, simplified)
    return _x86_rows(rows2d, s, b, eps, simplified)


def cpp_rows(x, scale, bias, eps, simplified, family, arm_vector_squares_above):
    """Y, Mean and InvStdDev of the rows of the 2-D ``x`` by ONNX Runtime's C++ loops at every row length (no MLAS
    kernel; ``scale`` and ``bias`` one value an element of a row, ``bias`` None for none): the x86 C++ path of the
    module docstring, or Arm's with its first ``4 * (n // 4)`` simplified squares rounded where ``n`` is above
    ``arm_vector_squares_above`` (where the compiler vectorized that multiply differs from kernel to kernel)."""
    if family.startswith("arm"):
        return _arm_rows(x, scale, bias, eps, simplified, arm_vector_squares_above)
    return _x86_rows(x, scale, bias, eps, simplified)


def _parameter(v, name, x) -> np.ndarray:
    v = np.asarray(v)
    if v.dtype != F32:
        raise OperandTypeError(f"{name} has dtype {v.dtype}; ONNX Runtime's kernel takes float32, as x")
    if v.ndim > x.ndim or any(d not in (1, xd) for d, xd in zip(v.shape[::-1], x.shape[::-1])):
        raise OperandError(f"{name}.shape={v.shape} does not broadcast to x.shape={x.shape}")
    return v


def _generic(shape, a, n, scale, bias) -> bool:
    """Whether ONNX Runtime takes its NumPy-broadcasting path: scale or bias varies over the dimensions before the
    axis, or either has other than ``n`` elements (its (B, S, ...) layouts at axis 2 all vary over them)."""
    for v in (scale, bias):
        if v is None:
            continue
        dims = (1,) * (len(shape) - v.ndim) + v.shape
        if any(d != 1 for d in dims[:a]) or v.size != n:
            return True
    return False


def _mlas_rows(x, s, b, eps, simplified):
    """MLAS's AVX2 kernel (x86, module docstring)."""
    rows, n = x.shape
    if simplified:
        mean, d = np.zeros(rows, F32), x
    else:
        mean = (_lane_sum64(x.astype(F64), 4) / F64(n)).astype(F32)
        d = (x - mean[:, None]).astype(F32)
    full = 8 * (n // 8)
    acc = np.zeros((rows, 8), F32)
    for c in range(0, full, 8):
        acc = fma32(d[:, c : c + 8], d[:, c : c + 8], acc)
    total = reduce4((acc[:, :4] + acc[:, 4:]).astype(F32), "sse")
    rounded = full + 4 if n - full >= 4 else full  # a 4-wide tail: its squares rounded, then added in turn
    for j in range(full, rounded):
        total = (total + (d[:, j] * d[:, j]).astype(F32)).astype(F32)
    for j in range(rounded, n):
        total = fma32(d[:, j], d[:, j], total)
    inv = _inverse(total, n, eps)
    if simplified:
        return ((x * inv[:, None]).astype(F32) * s).astype(F32), mean, inv
    q = (d * inv[:, None]).astype(F32)
    return ((q * s).astype(F32) if b is None else fma32(q, s, b)), mean, inv


def _denominator(total, n, eps) -> np.ndarray:
    """``sqrt(total / n + eps)``, each step in float32."""
    return np.sqrt(((total / F32(n)).astype(F32) + eps).astype(F32)).astype(F32)


def _inverse(total, n, eps) -> np.ndarray:
    return (F32(1) / _denominator(total, n, eps)).astype(F32)


def _lane_sum64(v, lanes) -> np.ndarray:
    """float64 row sums in ``lanes`` lanes over the first ``lanes * (n // lanes)`` elements, reduced as ``(l0 + l2) +
    (l1 + l3)``, then the rest one by one."""
    rows, n = v.shape
    full = lanes * (n // lanes)
    if full:
        # in order, lane by lane, each from +0.0 (a row of -0.0 sums to +0.0)
        acc = np.add.accumulate(v[:, :full].reshape(rows, -1, lanes), axis=1)[:, -1] + 0.0
        total = (acc[:, 0] + acc[:, 2]) + (acc[:, 1] + acc[:, 3])
    else:
        total = np.zeros(rows, F64)
    for j in range(full, n):
        total = total + v[:, j]
    return total


def _welford(x, fused):
    rows, n = x.shape
    mean, m2 = np.zeros(rows, F32), np.zeros(rows, F32)
    for k in range(n):
        v = x[:, k]
        delta = (v - mean).astype(F32)
        mean = (mean + (delta / F32(k + 1)).astype(F32)).astype(F32)
        r = (v - mean).astype(F32)
        m2 = fma32(delta, r, m2) if fused else (m2 + (r * delta).astype(F32)).astype(F32)
    return mean, m2


def _cpp_rows(x, s, b, eps, simplified, fused, squares):
    """ONNX Runtime's C++ ``ComputeJob``: Welford's statistics (x86 below the kernel's sizes, and Arm)."""
    rows, n = x.shape
    if simplified:
        mean, m2 = np.zeros(rows, F32), squares
    else:
        mean, m2 = _welford(x, fused)
    denom = _denominator(m2, n, eps)
    inv = (F32(1) / denom).astype(F32)
    if simplified:
        return ((x / denom[:, None]).astype(F32) * s).astype(F32), mean, inv
    q = ((x - mean[:, None]).astype(F32) / denom[:, None]).astype(F32)
    if b is None:
        return (q * s).astype(F32), mean, inv
    return (fma32(q, s, b) if fused else ((q * s).astype(F32) + b).astype(F32)), mean, inv


def _sequential_sum32(v) -> np.ndarray:
    """float32 row sums, one element after the other."""
    if v.shape[1] == 0:
        return np.zeros(v.shape[0], F32)
    return (np.add.accumulate(v, axis=1, dtype=F32)[:, -1] + F32(0)).astype(F32)  # from +0.0, as C's loop


def square_sums(x, rounded: int) -> np.ndarray:
    """Each row of the 2-D ``x``'s squares added in order from +0.0: the first ``rounded`` rounded (a plain multiply,
    scalar or vectorized), the rest fused into the addition."""
    squares = _sequential_sum32((x[:, :rounded] * x[:, :rounded]).astype(F32))
    for j in range(rounded, x.shape[1]):
        squares = fma32(x[:, j], x[:, j], squares)
    return squares


def _x86_rows(x, s, b, eps, simplified):
    squares = square_sums(x, x.shape[1]) if simplified else None
    return _cpp_rows(x, s, b, eps, simplified, False, squares)


def _arm_rows(x, s, b, eps, simplified, vector_squares_above=_ARM_VECTOR_SQUARES_ABOVE):
    n = x.shape[1]
    squares = square_sums(x, 4 * (n // 4) if n > vector_squares_above else 0) if simplified else None
    return _cpp_rows(x, s, b, eps, simplified, True, squares)


def _generic_rows(x, s, b, eps, simplified, fused):
    """``ComputeJobGeneric``: float64 statistics and elements, scale and bias per element (module docstring)."""
    rows, n = x.shape
    v = x.astype(F64)
    mean = (np.add.accumulate(v, axis=1)[:, -1] + 0.0) / F64(n)  # the sums start from +0.0
    ms = (np.add.accumulate(v * v, axis=1)[:, -1] + 0.0) / F64(n)
    if simplified:
        var = ms
    elif fused:
        var = fma64(-mean, mean, ms)
    else:
        var = ms - mean * mean
    denom = np.sqrt(var + F64(eps))
    sd = s.astype(F64)
    if simplified:
        y = (v / denom[:, None]) * sd
    else:
        q = (v - mean[:, None]) / denom[:, None]
        bd = np.zeros((), F64) if b is None else b.astype(F64)  # + 0.0 without bias: -0.0 becomes +0.0
        y = fma64(q, sd, bd) if fused else q * sd + bd
    return y.astype(F32), mean.astype(F32), (1.0 / denom).astype(F32)
