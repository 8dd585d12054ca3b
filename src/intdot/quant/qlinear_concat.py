"""ONNX Runtime's ``com.microsoft:QLinearConcat``, bit for bit as its CPU kernel computes it.

Its optimizer writes it for ``DequantizeLinear`` x n ``-> Concat -> QuantizeLinear`` groups
(:mod:`intdot.quant.qdq_concat`).  Read from ``qlinear_concat.cc``, ``qlinear_lookup_table.cc`` and
``qlinear_util.h``, checked against ONNX Runtime in ``tests/quant/test_qlinear_concat.py``: an input whose scale
and zero point equal the output's (float32 ``==``) is copied; any other goes through a 256-entry table, each code
dequantized as ``x_scale * float32(code - x_zero_point)`` and quantized to the output by MLAS's QuantizeLinear
(:func:`intdot.quant.quantize_linear`, which computes as it does).  No arithmetic depends on the CPU.
"""

from __future__ import annotations

import numpy as np

from ..core.errors import OperandError, OperandTypeError
from ..core.values import describe
from . import _args
from .qlinear_lookup import requantize_codes

F32 = np.float32


def qlinear_concat(Y_scale, Y_zero_point, *inputs, axis) -> np.ndarray:
    """ONNX Runtime's ``com.microsoft:QLinearConcat``: quantized tensors concatenated along ``axis``, each
    requantized to the output's scale and zero point as its kernel does it (module docstring).

    Parameters
    ----------
    Y_scale : float32, per tensor
    Y_zero_point : int8 or uint8 (the output's type), per tensor
    *inputs : (X, X_scale, X_zero_point) repeated, at least once
        X of Y_zero_point's type, shapes equal but along ``axis``; X_zero_point of that type too.
    axis : int
        Negative counts from the end.

    Examples
    --------
    >>> import numpy as np
    >>> from intdot.quant.qlinear_concat import qlinear_concat
    >>> a, b = np.array([[10, 20]], np.uint8), np.array([[10, 20]], np.uint8)
    >>> qlinear_concat(np.float32(0.5), np.uint8(0), a, np.float32(0.5), np.uint8(0),
    ...                b, np.float32(0.25), np.uint8(0), axis=1).tolist()   # b halved onto y's scale, to even
    [[10, 20, 5, 10]]
    """
    sy = F32(_args.per_tensor(_args.scale(Y_scale, "Y_scale"), "Y_scale"))
    if Y_zero_point is None:
        raise OperandError("Y_zero_point=None: expected an int8 or uint8 zero point (it gives the output's type)")
    zy_arr = _args.per_tensor(_args.operand8(Y_zero_point, "Y_zero_point"), "Y_zero_point")
    dtype = zy_arr.dtype
    if len(inputs) == 0 or len(inputs) % 3:
        raise OperandError(
            f"inputs: {len(inputs)} values after Y_scale and Y_zero_point; expected (X, X_scale, X_zero_point) "
            f"triples, at least one"
        )
    if not isinstance(axis, (int, np.integer)) or isinstance(axis, bool):
        raise OperandTypeError(f"axis={describe(axis)}: expected an integer")
    parts = []
    for k in range(0, len(inputs), 3):
        i = k // 3
        x = _args.operand8(inputs[k], f"X{i}")
        if x.dtype != dtype:
            raise OperandTypeError(f"X{i} has dtype {x.dtype}; expected {dtype}, Y_zero_point's type")
        sx, zx = _args.per_tensor_params(inputs[k + 1], inputs[k + 2], f"X{i}", dtype)
        parts.append(requantize_codes(x, sx, zx, sy, zy_arr))
    ndim = parts[0].ndim
    if not -ndim <= int(axis) < max(ndim, 1):
        raise OperandError(f"axis={int(axis)} for inputs of {ndim} dimensions; expected -{ndim} to {ndim - 1}")
    try:
        return np.concatenate(parts, axis=int(axis)).astype(dtype)
    except ValueError:
        shapes = ", ".join(str(p.shape) for p in parts)
        raise OperandError(f"inputs of shapes {shapes} do not concatenate along axis {int(axis)}") from None
