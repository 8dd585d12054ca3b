"""ONNX Runtime's ``com.microsoft:QLinearAdd`` and ``QLinearMul``, bit for bit as its x86 CPU kernels compute them.

Its optimizer writes these for ``DequantizeLinear -> Add/Mul -> QuantizeLinear`` groups
(:mod:`intdot.quant.qdq_binary`).  The arithmetic is float32, in an order of its own, which is why a fused group
can differ by one code from the float graph it replaces.  Read from MLAS (``qladd.cpp``, ``qladd_avx2.cpp``,
``qlmul.cpp``), and checked against ONNX Runtime in ``tests/quant/test_qlinear_binary.py``:

QLinearAdd (the AVX2 kernel, which x86 CPUs with AVX2 run, AVX-512 ones included)
    MLAS takes one operand as a vector ``x`` and the other as ``y`` (ONNX Runtime passes the broadcast operand as
    ``y``); with ``r_x = x_scale / c_scale`` and ``r_y = y_scale / c_scale`` in float32 and ``fma`` a float32
    fused multiply-add::

        fixed = c_zero_point - fma(r_x, x_zero_point, r_y * y_zero_point)
        out   = fma(x, r_x, fma(y, r_y, fixed))

    (the first ``fma`` is the compiler contracting ``r_x * zx + r_y * zy``: measured, not written in the source).
    Which operand is ``x`` matters: ONNX Runtime's broadcaster makes B the ``x`` where A is constant along the
    output's innermost varying axis (A a scalar, a column (M, 1) against (M, N), ...), and A otherwise.
QLinearMul (SSE2, every x86 CPU)
    ``float32((a - a_zp) * (b - b_zp)) * ((a_scale * b_scale) / c_scale) + c_zero_point``, the product exact in
    int32, the multiplication and the addition rounded apart.
Both
    Rounded half to even (``cvtps2dq``): a value past int32, or NaN (0/0 scales), is INT32_MIN, so the lowest code;
    then saturated to the output type.

On Arm (NEON) MLAS computes QLinearAdd in fixed point where the scale ratios allow it, and QLinearMul with a
float multiply-add, so its bits may differ from these (docs/differences.md).
"""

from __future__ import annotations

import numpy as np

from ..core.errors import OperandError, OperandTypeError
from . import _args
from .fma import fma32

F32 = np.float32
_INT32_MIN = -(2**31)


def _operands(A, B):
    a, b = _args.operand8(A, "A"), _args.operand8(B, "B")
    if a.dtype != b.dtype:
        raise OperandTypeError(f"A has dtype {a.dtype} and B has dtype {b.dtype}; expected one type (int8 or uint8)")
    try:
        shape = np.broadcast_shapes(a.shape, b.shape)
    except ValueError:
        raise OperandError(f"A has shape {a.shape} and B has shape {b.shape}; expected shapes that broadcast") from None
    return a, b, shape


def _params(scale, zero_point, name: str, dtype) -> tuple[np.float32, np.float32]:
    s, z = _args.per_tensor_params(scale, zero_point, name, dtype)
    return s, F32(z)


def a_is_broadcast(a_shape, b_shape) -> bool:
    """Whether ONNX Runtime's broadcaster holds A constant along each span it hands the kernel (its
    ``IsInput0Scalar``): a rank-0 A; A's innermost axis where B has rank 0; else A's axis at the innermost place
    (of those both have) where the output is longer than 1, or at the outermost of those if there is none."""
    if len(a_shape) == 0:
        return True
    if len(b_shape) == 0:
        return a_shape[-1] <= 1
    common = min(len(a_shape), len(b_shape))
    for i in range(1, common + 1):
        da, db = a_shape[-i], b_shape[-i]
        if (0 if min(da, db) == 0 else max(da, db)) > 1 or i == common:
            return da <= 1
    return False  # not reached: the loop returns at i == common


def to_codes(v: np.ndarray, dtype) -> np.ndarray:
    """cvtps2dq (half to even; NaN and values past int32 give INT32_MIN), then saturating packs to ``dtype``."""
    with np.errstate(invalid="ignore"):
        ok = np.isfinite(v) & (v >= -(2.0**31)) & (v < 2.0**31)
        q = np.where(ok, np.rint(np.where(ok, v, 0)), _INT32_MIN)
    info = np.iinfo(dtype)
    return np.clip(q, info.min, info.max).astype(dtype)


def qlinear_add(A, A_scale, A_zero_point, B, B_scale, B_zero_point, C_scale, C_zero_point=None) -> np.ndarray:
    """ONNX Runtime's ``com.microsoft:QLinearAdd``: ``A + B`` of two quantized tensors, requantized to C's scale
    and zero point, as its AVX2 kernel computes it (module docstring).

    Parameters
    ----------
    A, B : numpy.ndarray of int8 or uint8, one type, shapes that broadcast (NumPy's rules)
    A_scale, B_scale, C_scale : float32, per tensor
    A_zero_point, B_zero_point, C_zero_point : of A's type, per tensor, optional (0)

    Returns
    -------
    numpy.ndarray of A's type, the broadcast shape.

    Examples
    --------
    >>> import numpy as np
    >>> from intdot.quant import qlinear_add
    >>> a = np.array([[130, 120], [128, 255]], np.uint8)
    >>> qlinear_add(a, np.float32(0.5), np.uint8(128), np.array([10], np.uint8), np.float32(0.25), np.uint8(0),
    ...             np.float32(1.0), np.uint8(128)).tolist()             # 0.5 * (a - 128) + 2.5, plus 128
    [[132, 126], [130, 194]]
    """
    a, b, shape = _operands(A, B)
    sa, za = _params(A_scale, A_zero_point, "A", a.dtype)
    sb, zb = _params(B_scale, B_zero_point, "B", a.dtype)
    sc, zc = _params(C_scale, C_zero_point, "C", a.dtype)
    (x, sx, zx), (y, sy, zy) = (a, sa, za), (b, sb, zb)
    if a_is_broadcast(a.shape, b.shape):
        (x, sx, zx), (y, sy, zy) = (y, sy, zy), (x, sx, zx)
    with np.errstate(over="ignore", divide="ignore", invalid="ignore"):  # IEEE, as the kernel (a zero C_scale)
        rx, ry = F32(sx / sc), F32(sy / sc)
        fixed = F32(zc - fma32(rx, zx, F32(ry * zy)))
    xs = np.broadcast_to(x, shape).astype(F32)
    ys = np.broadcast_to(y, shape).astype(F32)
    return to_codes(fma32(xs, rx, fma32(ys, ry, fixed)), a.dtype)


def qlinear_mul(A, A_scale, A_zero_point, B, B_scale, B_zero_point, C_scale, C_zero_point=None) -> np.ndarray:
    """ONNX Runtime's ``com.microsoft:QLinearMul``: ``A * B`` of two quantized tensors, requantized to C's scale
    and zero point, as its x86 kernel computes it (module docstring); parameters as :func:`qlinear_add`.

    Examples
    --------
    >>> import numpy as np
    >>> from intdot.quant import qlinear_mul
    >>> a = np.array([-6, 3, 127], np.int8)
    >>> qlinear_mul(a, np.float32(0.5), np.int8(0), np.array([4], np.int8), np.float32(0.5), np.int8(0),
    ...             np.float32(0.25), np.int8(-1)).tolist()              # a * 4 * (0.25 / 0.25) - 1
    [-25, 11, 127]
    """
    a, b, shape = _operands(A, B)
    sa, za = _params(A_scale, A_zero_point, "A", a.dtype)
    sb, zb = _params(B_scale, B_zero_point, "B", a.dtype)
    sc, zc = _params(C_scale, C_zero_point, "C", a.dtype)
    with np.errstate(over="ignore", divide="ignore", invalid="ignore"):
        ratio = F32(F32(sa * sb) / sc)
        # (a - za) * (b - zb) is at most 255 * 255 in magnitude: exact in int32 and in float32.
        p = (np.broadcast_to(a, shape).astype(np.int32) - np.int32(za)) * (
            np.broadcast_to(b, shape).astype(np.int32) - np.int32(zb)
        )
        v = (p.astype(F32) * ratio).astype(F32) + zc
    return to_codes(v, a.dtype)
