"""Requantization: int32 accumulators to 8- or 16-bit codes, ``saturate(round(acc * scale) + zero_point)``.

Three named methods, because runtimes differ in how they compute ``acc * scale``:

``"float32"`` (the default)
    As ONNX Runtime's kernels (MLAS) do: the bias is added in int32 (wrapping), the sum converted to float32 and
    multiplied by the float32 scale, clamped to the output range less the zero point, rounded half to even,
    and the zero point added.  The operators compute the scale as ``a_scale * b_scale / y_scale`` in float32,
    in that order, as ONNX Runtime does.  The two platforms differ only where the product is NaN (``0 * inf``:
    a zero ``y_scale``): x86's kernel clamps with MAXPS/MINPS before ``cvtps2dq``, which send NaN to the lowest
    code; Arm's converts with ``fcvtns`` first (half to even, saturating to int32, NaN to 0) and then narrows with
    saturation, so NaN gives the zero point.
``"float64"``
    As ``onnx.reference`` does: the same float32 scale, but the product in float64.  The two differ by one
    code where the float32 product rounds across a half, or ``|acc| > 2**24`` loses bits in float32.
``"fixed_point"``
    TFLite's and gemmlowp's integer-only requantization: the real scale (computed in float64) becomes a Q31
    multiplier and a power-of-two shift (:func:`quantize_multiplier`), applied with gemmlowp's saturating
    rounding doubling high multiply (its nudge rounds ties up: 2.5 -> 3, -1.5 -> -1) and rounding right shift
    (ties away from zero), then the zero point is added and the result clamped.
"""

from __future__ import annotations

import numpy as np

from ..core.errors import OperandError, OperandTypeError
from ..core.values import check_choice, describe
from ._args import platform_of

METHODS = ("float32", "float64", "fixed_point")
OUTPUTS = {np.dtype(t) for t in (np.int8, np.uint8, np.int16, np.uint16)}


def quantize_multiplier(real) -> tuple[np.ndarray, np.ndarray]:
    """``(multiplier, shift)`` with ``real == multiplier * 2**(shift - 31)``, multiplier a Q31 int32 in
    [2**30, 2**31), as TFLite's ``QuantizeMultiplier`` computes it (the fraction rounded half away from zero).

    Scales below 2**-31 become a zero multiplier (TFLite flushes them to zero); a scale of 2**30 or more needs a
    left shift past 30, which TFLite's ``MultiplyByQuantizedMultiplier`` cannot apply in int32, and is an error.

    >>> from intdot.quant import quantize_multiplier
    >>> m, s = quantize_multiplier(0.0072474273418460)
    >>> int(m), int(s)
    (1992157658, -7)
    """
    return multiplier(real, "real")


# The shifts MultiplyByQuantizedMultiplier applies: left by up to 30 in int32 (``x * (1 << shift)``), right by up
# to 31 (gemmlowp's RoundingDivideByPOT).
MAX_SHIFT, MIN_SHIFT = 30, -31


def _which(name: str, r: np.ndarray, bad: np.ndarray) -> str:
    """``name=value`` for a scalar, ``name holds value`` (the first bad one) for an array."""
    if r.ndim == 0:
        return f"{name}={float(r)!r}"
    return f"{name} holds {float(r[bad].ravel()[0])!r}"


def multiplier(real, name: str) -> tuple[np.ndarray, np.ndarray]:
    """:func:`quantize_multiplier` with errors naming ``name`` (an operator's scales, or their quotient)."""
    try:
        raw = np.asarray(real)
    except (TypeError, ValueError):  # a ragged list
        raw = None
    if raw is None or raw.dtype.kind not in "fiu":
        raise OperandTypeError(f"{name}={describe(real)}: expected real scales (floats)")
    r = raw.astype(np.float64)
    ok = np.isfinite(r) & (r >= 0)
    if not ok.all():
        raise OperandError(
            f"{_which(name, r, ~ok)}: expected finite, non-negative scales (TFLite's fixed-point multiplier)"
        )
    frac, exp = np.frexp(r)
    # std::round: half away from zero (the fraction is non-negative here).
    q = np.floor(frac * float(1 << 31) + 0.5).astype(np.int64)
    exp = exp.astype(np.int64)
    full = q == 1 << 31
    q = np.where(full, q // 2, q)
    exp = np.where(full, exp + 1, exp)
    tiny = exp < -31  # below what a shift can reach: TFLite makes the multiplier 0
    q = np.where(tiny | (r == 0), 0, q)
    exp = np.where(tiny | (r == 0), 0, exp)
    if np.any(exp > MAX_SHIFT):
        raise OperandError(
            f"{_which(name, r, exp > MAX_SHIFT)} needs a left shift of {int(exp.max())}; the fixed-point multiplier "
            f"takes shifts up to {MAX_SHIFT} (TFLite shifts int32 accumulators left): expected scales below 2**30"
        )
    return q.astype(np.int32), exp.astype(np.int32)


def _srdhm(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """gemmlowp's SaturatingRoundingDoublingHighMul on int32 values held in int64."""
    ab = a * b
    nudge = np.where(ab >= 0, 1 << 30, 1 - (1 << 30))
    t = ab + nudge
    # C's division by 2**31 truncates toward zero.
    high = np.where(t >= 0, t >> 31, -((-t) >> 31))
    return np.where((a == -(1 << 31)) & (b == -(1 << 31)), (1 << 31) - 1, high)


def _rounding_shift(x: np.ndarray, e: np.ndarray) -> np.ndarray:
    """gemmlowp's RoundingDivideByPOT: ``x / 2**e`` rounded to nearest, ties away from zero."""
    mask = (np.int64(1) << e) - 1
    remainder = x & mask
    threshold = (mask >> 1) + (x < 0)
    return (x >> e) + (remainder > threshold)


def _ints(v, name: str, lo: int, hi: int, what: str) -> np.ndarray:
    """``v`` as int64, every value in [lo, hi]: NumPy would otherwise wrap an out-of-range shift silently."""
    arr = np.asarray(v)
    if arr.dtype.kind not in "iu":
        raise OperandTypeError(f"{name} has dtype {arr.dtype}; expected {what}")
    if arr.size and (int(arr.min()) < lo or int(arr.max()) > hi):
        bad = int(arr.min()) if int(arr.min()) < lo else int(arr.max())
        raise OperandError(f"{name} holds {bad}; expected {what}")
    return arr.astype(np.int64)


def fixed_point_multiply(acc, multiplier, shift) -> np.ndarray:
    """TFLite's ``MultiplyByQuantizedMultiplier``: ``acc * multiplier * 2**(shift - 31)``, rounded, in int64.

    A positive shift first shifts ``acc`` left in int32 (as TFLite does; it wraps there if it overflows).
    ``multiplier`` is an int32 and ``shift`` in [-31, 30], as :func:`quantize_multiplier` gives them.
    """
    x = _ints(acc, "acc", -(1 << 31), (1 << 31) - 1, "int32 accumulators")
    m = _ints(multiplier, "multiplier", -(1 << 31), (1 << 31) - 1, "int32 Q31 multipliers")
    s = _ints(shift, "shift", MIN_SHIFT, MAX_SHIFT, f"shifts in [{MIN_SHIFT}, {MAX_SHIFT}]")
    left = np.maximum(s, 0)
    x = ((x << left) + (1 << 31)) % (1 << 32) - (1 << 31)  # int32 arithmetic
    return _rounding_shift(_srdhm(x, m), np.maximum(-s, 0))


def requantize(acc, scale, zero_point, *, bias=None, method: str = "float32", platform: str = "x86") -> np.ndarray:
    """``saturate(round((acc + bias) * scale) + zero_point)`` in the zero point's integer type.

    Parameters
    ----------
    acc : array_like of int
        int32 accumulators (any integer dtype whose values fit int32).
    scale : array_like of float, or (multiplier, shift)
        Broadcasts against ``acc``.  float32 for ``"float32"``/``"float64"``, taken as IEEE arithmetic takes it,
        as ONNX Runtime does (an infinite scale saturates; a NaN product, the ``0 * inf`` of an operator's zero
        ``y_scale``, is the lowest code on x86 and the zero point on Arm); for ``"fixed_point"`` a real scale
        (converted by :func:`quantize_multiplier`, which refuses what it cannot represent) or a
        ``(multiplier, shift)`` pair of int arrays.
    zero_point : numpy array or scalar of int8, uint8, int16 or uint16
        The output's zero point; its dtype is the output's.
    bias : array_like of int, optional
        int32, added to ``acc`` before scaling, wrapping as int32 addition does.
    method : {"float32", "float64", "fixed_point"}
        See the module's description.
    platform : {"x86", "arm"}
        Whose ONNX Runtime kernel the float methods compute: they differ only for a NaN product (the lowest code
        on x86, the zero point on Arm).  ``"fixed_point"`` never sees one.

    Examples
    --------
    >>> import numpy as np
    >>> from intdot.quant import requantize
    >>> acc = np.array([1, 3, 5, -3, 1000], np.int32)
    >>> requantize(acc, np.float32(0.5), np.uint8(10))          # ties to even: 0.5 -> 0, 1.5 -> 2, 2.5 -> 2
    array([ 10,  12,  12,   8, 255], dtype=uint8)
    >>> requantize(acc, 0.5, np.uint8(10), method="fixed_point")  # TFLite: 0.5 -> 1, 2.5 -> 3, -1.5 -> -1
    array([ 11,  12,  13,   9, 255], dtype=uint8)
    """
    check_choice(method, "method", METHODS)
    platform = platform_of(platform)
    zp = np.asarray(zero_point)
    if zp.dtype not in OUTPUTS:
        raise OperandTypeError(
            f"zero_point has dtype {zp.dtype}; expected int8, uint8, int16 or uint16 (its type is the output's)"
        )
    a = np.asarray(acc)
    if a.dtype.kind not in "iu":
        raise OperandTypeError(f"acc has dtype {a.dtype}; expected int32 accumulators")
    if a.size and (int(a.min()) < -(1 << 31) or int(a.max()) >= 1 << 31):
        raise OperandError("acc holds values outside the int32 range; expected int32 accumulators")
    a = a.astype(np.int32)
    if bias is not None:
        b = np.asarray(bias)
        if b.dtype.kind not in "iu":
            raise OperandTypeError(f"bias has dtype {b.dtype}; expected int32")
        a = (a.astype(np.int64) + b).astype(np.uint32).view(np.int32)  # int32 addition wraps
    info = np.iinfo(zp.dtype)
    z = zp.astype(np.int64)
    if method == "fixed_point":
        if isinstance(scale, tuple):
            if len(scale) != 2:
                raise OperandError(
                    f"scale is a tuple of {len(scale)}; expected a real scale or a (multiplier, shift) pair"
                )
            m, s = scale
        else:
            m, s = multiplier(scale, "scale")
        q = fixed_point_multiply(a, m, s) + z
        return np.clip(q, info.min, info.max).astype(zp.dtype)
    sc = np.asarray(scale)
    if sc.dtype.kind != "f":
        raise OperandTypeError(f"scale has dtype {sc.dtype}; expected float32")
    # A scale an operator computed from a zero y_scale is inf (or NaN for 0/0), as in ONNX Runtime: IEEE
    # arithmetic saturates it below; the scales a user gives are checked finite where they come in.
    with np.errstate(over="ignore", invalid="ignore"):
        if method == "float32":
            f = a.astype(np.float32) * sc.astype(np.float32)
        else:
            f = a.astype(np.float64) * sc.astype(np.float32)
    # Clamped before rounding, as MLAS on x86 does (the bounds are integers, so the order does not change the
    # result); fmax/fmin send NaN (a zero y_scale) to the lowest code, as x86's MAXPS does.  On Arm, fcvtns
    # rounds first, saturating to int32 (the same codes once clamped) and making NaN 0: the zero point.
    if platform == "arm":
        f = np.where(np.isnan(f), f.dtype.type(0), f)
    lo = (info.min - z).astype(f.dtype)
    hi = (info.max - z).astype(f.dtype)
    f = np.fmin(np.fmax(f, lo), hi)
    return (np.rint(f).astype(np.int64) + z).astype(zp.dtype)
