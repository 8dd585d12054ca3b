"""ONNX Runtime's ``com.microsoft:QLinearSoftmax``, bit for bit as its 1.32 CPU kernel computes it.

Its optimizer writes the node for ``DequantizeLinear -> Softmax -> QuantizeLinear`` groups
(:mod:`intdot.quant.qdq_unary`), with the Softmax's ``axis`` and an ``opset`` attribute (the Softmax's version,
which decides what ``axis`` means).  ONNX Runtime's sources disagree among their versions on the details below, so
each was settled by measuring 1.32 (``tests/quant/test_qlinear_softmax.py`` holds the cases that tell the
candidates apart; its expected bits come from ONNX Runtime at test time):

- ``D`` is the softmax's length: the extent of ``axis`` (opset 13 and later), or the product of the dimensions
  from ``axis`` on (before 13: the tensor is read as rows of that length).
- One table of 256 float32 values a node: ``shift = max(0, logf(FLT_MAX / D) - 5) / x_scale`` (the quotient in
  float32, its logarithm the C library's ``logf``, the rest in double), and entry ``i`` is ``exp((i - 255 + shift)
  * x_scale)`` in double, rounded to float32.  The shift keeps a row's sum below float32's largest value.
- Each row: its largest code ``m``; code ``x`` reads entry ``x - m + 255``; the row's entries are summed in float32
  from its first.
- Each output: ``entry * floor(1 / y_scale) / sum`` in double (``1 / y_scale`` and its floor in float32), rounded
  half to even, then ``y_zero_point`` added and the result saturated to the type; a NaN gives 0.
- ``x_scale`` must be positive (ONNX Runtime fails otherwise); ``x_zero_point`` is not read, since a softmax does
  not depend on a shift of its input.

The C library's ``logf`` is not correctly rounded everywhere (glibc 2.36 differs from the correctly rounded value
for D = 60,594 and 96,962 among the first 100,000 lengths): intdot calls the C library's own, where ``ctypes``
finds it, so the shift is ONNX Runtime's on the same machine.
"""

from __future__ import annotations

import functools
import math

import numpy as np

from ..core.errors import OperandError
from ..core.values import check_int, describe
from . import _args

F32 = np.float32
_FLT_MAX = F32(np.finfo(F32).max)


@functools.lru_cache(maxsize=1)
def _c_logf():
    """The C library's ``logf`` through ctypes, or None where it cannot be loaded."""
    try:
        import ctypes
        import ctypes.util

        lib = ctypes.CDLL(ctypes.util.find_library("m") or ctypes.util.find_library("c"))
        fn = lib.logf
    except (OSError, AttributeError, TypeError):
        return None
    fn.restype, fn.argtypes = ctypes.c_float, [ctypes.c_float]
    return fn


def logf(v) -> F32:
    """``logf`` of a float32, as the C library computes it (else correctly rounded from double)."""
    fn = _c_logf()
    return F32(fn(float(v))) if fn is not None else F32(math.log(float(v)))


def exp_table(x_scale, length: int) -> np.ndarray:
    """ONNX Runtime's 256 float32 entries for a softmax of ``length`` elements (module docstring)."""
    xs = float(F32(x_scale))
    shift = max(0.0, float(logf(_FLT_MAX / F32(length))) - 5) / xs
    out = np.empty(256, F32)
    for i in range(256):  # math.exp is the C library's exp; the exponent is at most about 83
        out[i] = F32(math.exp((float(i) - 255 + shift) * xs))
    return out


def qlinear_softmax(X, X_scale, X_zero_point, Y_scale, Y_zero_point=None, *, axis=None, opset=13) -> np.ndarray:
    """ONNX Runtime's ``com.microsoft:QLinearSoftmax`` (module docstring).

    Parameters
    ----------
    X : numpy.ndarray of int8 or uint8, at least 1-D
    X_scale, Y_scale : float32, per tensor (``X_scale`` positive)
    X_zero_point, Y_zero_point : of X's type, per tensor, optional (0); X's is checked, never read
    axis : int, optional
        The softmax's axis; by default 1 before opset 13 and -1 from it, as ONNX's Softmax.
    opset : int
        The version of the Softmax the node came from (ONNX Runtime's ``opset`` attribute): before 13 the tensor
        is read as rows of the dimensions from ``axis`` on.

    Examples
    --------
    >>> import numpy as np
    >>> from intdot.quant import qlinear_softmax
    >>> x = np.array([[0, 10, 200, 255], [255, 255, 0, 1]], np.uint8)
    >>> qlinear_softmax(x, np.float32(0.02), np.uint8(0), np.float32(1 / 256), np.uint8(0)).tolist()
    [[1, 1, 63, 190], [127, 127, 1, 1]]
    """
    x = _args.operand8(X, "X")
    sx, _ = _args.per_tensor_params(X_scale, X_zero_point, "X", x.dtype)
    sy, zy = _args.per_tensor_params(Y_scale, Y_zero_point, "Y", x.dtype)
    if x.ndim == 0:
        raise OperandError("X is a scalar; expected a tensor of at least one dimension (a softmax reads an axis)")
    opset = check_int(opset, "opset", 1, 10**4, "the Softmax's version, an integer such as 13")
    if axis is None:
        axis = 1 if opset < 13 else -1  # ONNX's defaults before and after opset 13
    ax = _args.axis_of(axis, x.ndim, "X")
    if not sx > 0:
        raise OperandError(f"X_scale={describe(sx)}: expected a positive scale (ONNX Runtime fails on this one)")
    if x.size == 0:
        return np.empty(x.shape, x.dtype)
    if opset < 13:
        rows = x.reshape(-1, math.prod(x.shape[ax:]))
    else:
        rows = np.moveaxis(x, ax, -1).reshape(-1, x.shape[ax])
    codes = rows.astype(np.int32)
    v = exp_table(sx, codes.shape[1])[codes - codes.max(axis=1, keepdims=True) + 255]
    total = np.cumsum(v, axis=1, dtype=F32)[:, -1:]  # float32, in order (cumsum does not pair)
    with np.errstate(all="ignore"):
        y = np.floor(F32(1) / sy).astype(F32)
        f = np.rint(v.astype(np.float64) * np.float64(y) / total.astype(np.float64))
        info = np.iinfo(x.dtype)
        out = np.where(np.isnan(f), 0, np.clip(f + zy, info.min, info.max)).astype(x.dtype)
    if opset < 13:
        return out.reshape(x.shape)
    moved = list(np.moveaxis(x, ax, -1).shape)
    return np.moveaxis(out.reshape(moved), -1, ax)


__all__ = ["exp_table", "logf", "qlinear_softmax"]
