"""ONNX Runtime's ``com.microsoft:QLinearAdd`` and ``QLinearMul``, bit for bit as its CPU kernels compute them on
x86 (``platform="x86"``, the default) and on Arm (``platform="arm"``, AArch64 with NEON).

Its optimizer writes these for ``DequantizeLinear -> Add/Mul -> QuantizeLinear`` groups
(:mod:`intdot.quant.qdq_binary`).  MLAS has a kernel of its own for each instruction set, and they do not compute
the same thing: x86's are float32 in an order of their own (which is why a fused group can differ by one code from
the float graph it replaces), Arm's QLinearAdd is mostly integer.  Read from MLAS (``qladd.cpp``,
``qladd_avx2.cpp``, ``qlmul.cpp``), and checked against ONNX Runtime 1.32 for x86 and for AArch64 in
``tests/quant/test_qlinear_binary.py``.

Which operand the kernel takes first matters on both: ONNX Runtime's broadcaster hands MLAS the operand it holds
constant along a span as the second (``y`` below, MLAS's ``InputB``), B where A is constant along the output's
innermost varying axis (A a scalar, a column (M, 1) against (M, N), ...), so A and B swap places there
(:func:`a_is_broadcast`); ``x`` is the other.

x86
---
QLinearAdd (the AVX2 kernel, which x86 CPUs with AVX2 run, AVX-512 ones included)
    With ``r_x = x_scale / c_scale`` and ``r_y = y_scale / c_scale`` in float32 and ``fma`` a float32 fused
    multiply-add::

        fixed = c_zero_point - fma(r_x, x_zero_point, r_y * y_zero_point)
        out   = fma(x, r_x, fma(y, r_y, fixed))

    (the first ``fma`` is the compiler contracting ``r_x * zx + r_y * zy``: measured, not written in the source).
QLinearMul (SSE2, every x86 CPU)
    ``float32((a - a_zp) * (b - b_zp)) * ((a_scale * b_scale) / c_scale) + c_zero_point``, the product exact in
    int32, the multiplication and the addition rounded apart.
Both
    Rounded half to even (``cvtps2dq``): a value past int32, or NaN (0/0 scales), is INT32_MIN, so the lowest code;
    then saturated to the output type.

Arm
---
MLAS's NEON QLinearAdd works in integers, so its bits part from x86's wherever the ratios' 22-bit approximations or
its rounding of ties decide a code; its QLinearMul is x86's arithmetic with one rounding fewer.

QLinearAdd, fixed point
    Both ratios become integer multipliers over one power-of-two shift, the larger's with 22 bits: with ``e`` the
    binary exponent of ``max(r_x, r_y)``, ``s = 21 - e`` and ``m = round_half_even(r * 2**s)`` for each ratio::

        acc = (x - x_zp) * m_x + (y - y_zp) * m_y          # exact: |acc| < 2**31
        out = saturate(round_half_away_from_zero(acc / 2**s) + c_zp)

    So the ratios are exact only to the larger's 22 bits, and the rounding shift (``srshl``, after adding the sign
    bit) sends ties away from zero where x86 rounds them to even; which operand is ``x`` does not matter.  MLAS
    takes this path where both ratios lie in ``[2**-14, 256)`` and the larger's multiplier stays below ``2**22``:
    a ratio within half a unit of its 22nd bit below a power of two rounds up to one and goes the float way.  It
    also asks for ``s <= 31`` (the larger ratio at least ``2**-10``), but under that every value is below half a
    code, and both ways give ``c_zp``.
QLinearAdd, float (every other ratio: below ``2**-14``, 256 or more, zero, negative, infinite, NaN)
    MLAS's portable C++ loop.  It works on the scales, not the ratios, and clamps before it rounds; its compiler
    fuses ``x``'s product into the sum (measured: rounding both products, or fusing ``y``'s, gives other bits)::

        v   = fma(x_scale, float(x - x_zp), float32(y_scale * (y - y_zp))) / c_scale
        v   = min(max(v, lo - c_zp), hi - c_zp)        # lo, hi: the output type's range
        out = int32(round_half_even(v + c_zp))

    The clamp's comparisons let NaN (0/0 scales) through, and AArch64's float -> int32 conversion makes it 0: code
    0, where x86 gives the lowest.
QLinearMul
    ``fma(ratio, float32((a - a_zp) * (b - b_zp)), c_zero_point)`` with ``ratio`` as on x86, converted by
    ``fcvtns`` (half to even, saturating to int32, NaN to 0) and narrowed with saturation.  The source multiplies
    and adds apart, as x86's does, but the compiler fuses the two NEON operations into one (measured), so a value
    that two roundings would put across a half stays on its side.  NaN (0 times an infinite ratio, from a zero
    ``c_scale``) gives code 0 here and the lowest code on x86.
"""

from __future__ import annotations

import numpy as np

from ..core.errors import OperandError, OperandTypeError
from . import _args
from .fma import fma32

F32 = np.float32


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


def arm_add_parameters(rx, ry) -> tuple[int, int, int] | None:
    """MLAS's ``MlasCalcQLinearAddParameters``: ``(shift, m_x, m_y)`` for the fixed-point kernel, or None where it
    falls back to float (module docstring)."""
    lo, hi = F32(2.0**-14), F32(256.0)
    if rx < lo or rx >= hi or ry < lo or ry >= hi:  # NaN passes these, as in C; the exponent test stops it
        return None
    greater = ry if rx < ry else rx  # std::max: the first unless the second is larger
    exponent = int((np.asarray(greater, F32).view(np.uint32) >> 23) & 0xFF) - 127
    shift = 21 - exponent
    if not 13 <= shift <= 31:
        return None
    # r * 2**shift is exact in float32 (a power of two apart), so float64's rint is lrintf's half to even.
    mx, my = (int(np.rint(np.float64(r) * 2.0**shift)) for r in (rx, ry))
    if mx < 1 << 22 and my < 1 << 22 and max(mx, my) >= 1 << 21:
        return shift, mx, my
    return None


def _arm_add(x, sx, zx, y, sy, zy, sc, zc, shape, dtype) -> np.ndarray:
    with np.errstate(over="ignore", divide="ignore", invalid="ignore"):
        rx, ry = F32(sx / sc), F32(sy / sc)
    xd = np.broadcast_to(x, shape).astype(np.int64) - int(zx)
    yd = np.broadcast_to(y, shape).astype(np.int64) - int(zy)
    info = np.iinfo(dtype)
    fixed = arm_add_parameters(rx, ry)
    if fixed is not None:
        shift, mx, my = fixed
        acc = xd * mx + yd * my  # |acc| < 2 * 255 * 2**22 < 2**31: no int32 wrap
        q = (acc - (acc < 0) + (1 << (shift - 1))) >> shift  # vsra by the sign bit, then srshl
        return np.clip(q + int(zc), info.min, info.max).astype(dtype)
    with np.errstate(over="ignore", divide="ignore", invalid="ignore"):
        y_term = (sy * yd.astype(F32)).astype(F32)
        v = (fma32(sx, xd.astype(F32), y_term) / sc).astype(F32)
        lo, hi = F32(info.min - zc), F32(info.max - zc)
        v = np.where(v < lo, lo, v)  # std::max(v, lo) and std::min(v, hi): NaN compares false and stays
        v = np.where(hi < v, hi, v)
        return _args.to_codes((v + zc).astype(F32), dtype, "arm")


def qlinear_add(
    A, A_scale, A_zero_point, B, B_scale, B_zero_point, C_scale, C_zero_point=None, *, platform: str = "x86"
) -> np.ndarray:
    """ONNX Runtime's ``com.microsoft:QLinearAdd``: ``A + B`` of two quantized tensors, requantized to C's scale
    and zero point, as its kernel on ``platform`` computes it (module docstring).

    Parameters
    ----------
    A, B : numpy.ndarray of int8 or uint8, one type, shapes that broadcast (NumPy's rules)
    A_scale, B_scale, C_scale : float32, per tensor
    A_zero_point, B_zero_point, C_zero_point : of A's type, per tensor, optional (0)
    platform : {"x86", "arm"}
        Whose ONNX Runtime kernel to compute: x86's AVX2 one (float32 with fused multiply-adds) or Arm's NEON one
        (fixed point for most scale ratios).

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

    Ties: x86 rounds 128.5 and 127.5 to even, Arm's fixed point away from zero.

    >>> a, b, s, z = np.array([129, 127], np.uint8), np.array([128], np.uint8), np.float32(0.5), np.uint8(128)
    >>> qlinear_add(a, s, z, b, s, z, np.float32(1.0), z).tolist(), qlinear_add(
    ...     a, s, z, b, s, z, np.float32(1.0), z, platform="arm").tolist()
    ([128, 128], [129, 127])
    """
    platform = _args.platform_of(platform)
    a, b, shape = _operands(A, B)
    sa, za = _params(A_scale, A_zero_point, "A", a.dtype)
    sb, zb = _params(B_scale, B_zero_point, "B", a.dtype)
    sc, zc = _params(C_scale, C_zero_point, "C", a.dtype)
    (x, sx, zx), (y, sy, zy) = (a, sa, za), (b, sb, zb)
    if a_is_broadcast(a.shape, b.shape):
        (x, sx, zx), (y, sy, zy) = (y, sy, zy), (x, sx, zx)
    if platform == "arm":
        return _arm_add(x, sx, zx, y, sy, zy, sc, zc, shape, a.dtype)
    with np.errstate(over="ignore", divide="ignore", invalid="ignore"):  # IEEE, as the kernel (a zero C_scale)
        rx, ry = F32(sx / sc), F32(sy / sc)
        fixed = F32(zc - fma32(rx, zx, F32(ry * zy)))
    xs = np.broadcast_to(x, shape).astype(F32)
    ys = np.broadcast_to(y, shape).astype(F32)
    return _args.to_codes(fma32(xs, rx, fma32(ys, ry, fixed)), a.dtype)


def qlinear_mul(
    A, A_scale, A_zero_point, B, B_scale, B_zero_point, C_scale, C_zero_point=None, *, platform: str = "x86"
) -> np.ndarray:
    """ONNX Runtime's ``com.microsoft:QLinearMul``: ``A * B`` of two quantized tensors, requantized to C's scale
    and zero point, as its kernel on ``platform`` computes it (module docstring); parameters as
    :func:`qlinear_add`.

    Examples
    --------
    >>> import numpy as np
    >>> from intdot.quant import qlinear_mul
    >>> a = np.array([-6, 3, 127], np.int8)
    >>> qlinear_mul(a, np.float32(0.5), np.int8(0), np.array([4], np.int8), np.float32(0.5), np.int8(0),
    ...             np.float32(0.25), np.int8(-1)).tolist()              # a * 4 * (0.25 / 0.25) - 1
    [-25, 11, 127]
    """
    platform = _args.platform_of(platform)
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
        if platform == "arm":  # GCC fuses NEON's vmulq_f32 and vaddq_f32
            return _args.to_codes(fma32(ratio, p.astype(F32), zc), a.dtype, "arm")
        v = (p.astype(F32) * ratio).astype(F32) + zc
    return _args.to_codes(v, a.dtype)
