"""ONNX ``QuantizeLinear``, ``DequantizeLinear`` and ``DynamicQuantizeLinear``, computed as ONNX Runtime does.

Quantizing divides in float32 (``x / scale``, not a multiplication by the reciprocal; in float16 where the
``precision`` of ONNX opset 23 says so), clamps to the output range less the zero point, rounds half to even and
adds the zero point; a NaN gives the lowest code, as ONNX Runtime's x86 and Arm kernels give.  Dequantizing is
``(x - zero_point) * scale`` in float32, rounded to the output type.
"""

from __future__ import annotations

import numpy as np

from ..core.errors import OperandError, OperandTypeError
from ..core.values import describe, is_int_scalar
from . import _args

_NAMES = ("int8", "uint8", "int16", "uint16", "int4", "uint4")
_RANGES = {
    "int8": (-128, 127),
    "uint8": (0, 255),
    "int16": (-32768, 32767),
    "uint16": (0, 65535),
    "int4": (-8, 7),
    "uint4": (0, 15),
}


# ONNX's TensorProto element types, as an output_dtype attribute gives them.
_ONNX_TYPES = {2: "uint8", 3: "int8", 4: "uint16", 5: "int16", 21: "uint4", 22: "int4"}


# The float types the division (QuantizeLinear's precision) and DequantizeLinear's output may have.
_FLOAT_NAMES = {1: "float32", 10: "float16", "float32": "float32", "float16": "float16"}


def _float_type(value, name: str, what: str) -> np.dtype:
    """float32 or float16, given as a dtype, its name or ONNX's element type (TensorProto.FLOAT16 is 10)."""
    key = int(value) if is_int_scalar(value) else None
    if key is None:
        try:
            key = np.dtype(value).name
        except TypeError:
            key = None
    if key not in _FLOAT_NAMES:
        raise OperandError(
            f"{name}={describe(value)}: expected float32 or float16 (a dtype, its name, or ONNX's element type 1 "
            f"or 10) for {what}; bfloat16 is not computed here"
        )
    return np.dtype(_FLOAT_NAMES[key])


def _type_name(dtype) -> str | None:
    if is_int_scalar(dtype):
        return _ONNX_TYPES.get(int(dtype))
    try:
        name = np.dtype(dtype).name
    except TypeError:
        return None
    return name if name in _RANGES else None


def _as_dtype(name: str):
    if name in ("int4", "uint4"):
        try:
            import ml_dtypes
        except ImportError:
            from ..core.errors import IntdotError

            raise IntdotError(f"{name} tensors need ml_dtypes (pip install ml_dtypes)") from None
        return np.dtype(getattr(ml_dtypes, name))
    return np.dtype(name)


def _param(v: np.ndarray, name: str, x_shape, axis: int, block_size: int) -> np.ndarray:
    """A scale or zero point laid out to broadcast against ``x``: per tensor, per ``axis``, or per block."""
    if v.size == 1 and v.ndim <= 1:
        return v.reshape(())  # per tensor: ONNX ignores axis then
    n = len(x_shape)
    axis = _args.axis_of(axis, n, "x")
    if not block_size:
        if v.ndim != 1 or v.shape[0] != x_shape[axis]:
            raise OperandError(
                f"{name} has shape {v.shape}; expected a scalar (per tensor) or {x_shape[axis]} values along axis "
                f"{axis} of x{x_shape} (per axis), or block_size > 0 for blocked quantization"
            )
        shape = [1] * n
        shape[axis] = x_shape[axis]
        return v.reshape(shape)
    want = list(x_shape)
    want[axis] = -(-x_shape[axis] // block_size)
    if list(v.shape) != want:
        raise OperandError(
            f"{name} has shape {v.shape}; with block_size={block_size} along axis {axis} of x{x_shape} expected "
            f"shape {tuple(want)}"
        )
    return np.repeat(v, block_size, axis=axis).take(range(x_shape[axis]), axis=axis)


def _block(block_size) -> int:
    if not is_int_scalar(block_size) or block_size < 0:
        raise OperandError(f"block_size={describe(block_size)}: expected a non-negative integer (0: not blocked)")
    return int(block_size)


def quantize_linear(
    x,
    y_scale,
    y_zero_point=None,
    *,
    axis: int = 1,
    saturate: bool = True,
    block_size: int = 0,
    output_dtype=None,
    precision=None,
) -> np.ndarray:
    """ONNX ``QuantizeLinear``: ``saturate(round(x / y_scale) + y_zero_point)``, rounding half to even.

    Parameters
    ----------
    x : numpy.ndarray of float32 or float16
    y_scale : float32/float16 array or Python float
        Per tensor (a scalar), per axis (1-D along ``axis``) or per block (``block_size`` > 0: x's shape with
        ``ceil(D / block_size)`` along ``axis``).
    y_zero_point : optional
        Laid out as ``y_scale``; its dtype is the output's (int8, uint8, int16, uint16, ml_dtypes int4/uint4).
    axis, block_size : int
        As ONNX defines them.
    saturate : bool
        ONNX applies it to float8 outputs only; integer outputs always saturate.
    output_dtype : dtype, name or ONNX element type (``TensorProto.INT16``), optional
        The output type when no zero point gives it (default uint8, as ONNX).
    precision : float32 or float16 (dtype, name or ONNX element type), optional
        The type ``x / y_scale`` is computed in, both operands rounded to it first: ONNX opset 23's attribute,
        whose default there is y_scale's type (``intdot.quant.run`` passes it so).  None divides in float32, as
        ONNX Runtime does at opsets before 23.

    Examples
    --------
    >>> import numpy as np
    >>> from intdot.quant import quantize_linear
    >>> x = np.array([0, 2, 3, 1000, -254, -1000], np.float32)
    >>> quantize_linear(x, np.float32(2), np.uint8(128))                     # ONNX's own test case
    array([128, 129, 130, 255,   1,   0], dtype=uint8)
    >>> quantize_linear(np.array([0.5, 1.5, 2.5, np.nan], np.float32), 1.0, np.int8(0))
    array([   0,    2,    2, -128], dtype=int8)
    """
    x = _args.tensor(x, "x", _args.FLOATS, "float32 or float16")
    _args.flag(saturate, "saturate")
    ax = axis
    bs = _block(block_size)
    if y_zero_point is not None:
        zp = np.asarray(y_zero_point) if isinstance(y_zero_point, (np.ndarray, np.generic)) else None
        name = _type_name(zp.dtype) if zp is not None else None
        if name is None:
            raise OperandTypeError(
                f"y_zero_point={describe(y_zero_point)}: expected a NumPy array of int8, uint8, int16, uint16 or "
                f"ml_dtypes int4/uint4 (its dtype is the output's)"
            )
        if output_dtype is not None and _type_name(output_dtype) != name:
            raise OperandError(f"output_dtype={describe(output_dtype)} differs from y_zero_point's dtype {name}")
        z = _param(zp.astype(np.int64), "y_zero_point", x.shape, ax, bs)
    else:
        name = "uint8" if output_dtype is None else _type_name(output_dtype)
        if name is None:
            raise OperandError(f"output_dtype={describe(output_dtype)}: expected one of {', '.join(_NAMES)}")
        z = np.zeros((), np.int64)
    s = _param(_args.scale(y_scale, "y_scale"), "y_scale", x.shape, ax, bs)
    lo, hi = _RANGES[name]
    p = np.dtype(np.float32) if precision is None else _float_type(precision, "precision", "the division")
    with np.errstate(divide="ignore", over="ignore", invalid="ignore"):  # a zero scale: +-inf saturates, 0/0 is NaN
        # float16 operands and quotient (x past 65504 becomes inf there, and saturates), as ONNX Runtime at opset 23.
        q = (x.astype(p) / s.astype(p)).astype(np.float32)
    q = np.fmin(np.fmax(q, (lo - z).astype(np.float32)), (hi - z).astype(np.float32))
    out = np.rint(q).astype(np.int64) + z
    return out.astype(np.int8 if name == "int4" else np.uint8 if name == "uint4" else name).astype(_as_dtype(name))


def dequantize_linear(
    x, x_scale, x_zero_point=None, *, axis: int = 1, block_size: int = 0, output_dtype=None
) -> np.ndarray:
    """ONNX ``DequantizeLinear``: ``(x - x_zero_point) * x_scale`` in float32, rounded to ``output_dtype``.

    ``x`` is int8, uint8, int16, uint16, int32 or ml_dtypes int4/uint4; scale and zero point as in
    :func:`quantize_linear`.  For int32, which ONNX gives no zero point, ``x - x_zero_point`` wraps in int32, as
    in ONNX Runtime.  ``output_dtype`` (ONNX opset 23: float32 or float16, as a dtype, its name or ONNX's element
    type) defaults to the scale's type; the product is computed in float32 either way, as ONNX Runtime does.

    >>> import numpy as np
    >>> from intdot.quant import dequantize_linear
    >>> dequantize_linear(np.array([0, 3, 128, 255], np.uint8), np.float32(2), np.uint8(128))
    array([-256., -250.,    0.,  254.], dtype=float32)
    """
    arr = _args.native(np.asarray(x)) if isinstance(x, (np.ndarray, np.generic)) else None
    if arr is None or (_type_name(arr.dtype) is None and arr.dtype != np.int32):
        raise OperandTypeError(
            f"x={describe(x)}: expected a NumPy array of int8, uint8, int16, uint16, int32 or ml_dtypes int4/uint4"
        )
    s32 = _args.scale(x_scale, "x_scale")
    if output_dtype is not None:
        out_dtype = _float_type(output_dtype, "output_dtype", "the output")
    else:
        out_dtype = x_scale.dtype if isinstance(x_scale, (np.ndarray, np.generic)) else np.dtype(np.float32)
    ax = axis
    bs = _block(block_size)
    xi = arr.astype(np.int64)
    if x_zero_point is not None:
        zp = _args.tensor(x_zero_point, "x_zero_point", (arr.dtype,), f"{arr.dtype} (x's type)")
        xi = xi - _param(zp.astype(np.int64), "x_zero_point", arr.shape, ax, bs)
        if arr.dtype == np.int32:
            xi = xi.astype(np.int32).astype(np.int64)  # wraps modulo 2**32, as ONNX Runtime's int32 subtraction
    s = _param(s32, "x_scale", arr.shape, ax, bs)
    with np.errstate(over="ignore"):  # float16 scales give float16 results, which may overflow to inf as in ORT
        return (xi.astype(np.float32) * s).astype(out_dtype)


def dynamic_quantize_linear(x) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """ONNX ``DynamicQuantizeLinear``: ``(y, y_scale, y_zero_point)``, uint8 codes of float32 ``x``.

    The range is ``[min(0, min x), max(0, max x)]``; ``y_scale = (max - min) / 255`` (1 when the range is
    empty, as ONNX Runtime and onnx.reference take it), the zero point the rounded ``-min / y_scale``, all in
    float32.  A NaN or an infinity in ``x`` leaves the range undefined (ONNX Runtime's answer then depends on
    where in ``x`` the NaN is): an OperandError.

    >>> import numpy as np
    >>> from intdot.quant import dynamic_quantize_linear
    >>> y, s, z = dynamic_quantize_linear(np.array([0, 2, -3, -2.5, 1.34, 0.5], np.float32))
    >>> y.tolist(), float(s), int(z)                                          # ONNX's own test case
    ([153, 255, 0, 26, 221, 179], 0.019607843831181526, 153)
    """
    x = _args.tensor(x, "x", (np.dtype(np.float32),), "float32")
    bad = ~np.isfinite(x)
    if bad.any():
        at = tuple(int(i) for i in np.argwhere(bad)[0])
        raise OperandError(
            f"x holds {x[at].item()!r} at index {at[0] if len(at) == 1 else at}: DynamicQuantizeLinear's range (and "
            f"so its scale) is undefined; expected finite values"
        )
    lo = np.float32(min(0.0, float(x.min()))) if x.size else np.float32(0)
    hi = np.float32(max(0.0, float(x.max()))) if x.size else np.float32(0)
    scale = np.float32(1.0) if hi == lo else np.float32(hi - lo) / np.float32(255)
    initial = np.float32(0) - lo / scale
    zp = np.uint8(np.rint(np.fmin(np.fmax(initial, np.float32(0)), np.float32(255))))
    y = quantize_linear(x, scale, zp)
    return y, np.array(scale, np.float32), np.array(zp, np.uint8)
