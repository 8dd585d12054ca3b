"""ONNX Runtime's lookup-table operators, ``com.microsoft:QLinearSigmoid``, ``QLinearLeakyRelu`` and
``QLinearWhere``, bit for bit as its x86 CPU kernels build their tables.

Its optimizer writes them for ``DequantizeLinear -> Sigmoid/LeakyRelu -> QuantizeLinear`` groups
(:mod:`intdot.quant.qdq_unary`) and ``Where`` groups (:mod:`intdot.quant.qdq_binary`).  Read from
``qlinear_activations.cc``, ``qlinear_where.cc``, ``qlinear_lookup_table.cc`` and MLAS's ``logistic.cpp`` /
``x86_64/LogisticKernelFma3.S``, checked on every code against ONNX Runtime in
``tests/quant/test_qlinear_lookup.py``: each of the 256 codes is dequantized, ``x_scale * float32(code -
x_zero_point)``, put through the float function, and quantized by MLAS's QuantizeLinear
(:func:`intdot.quant.quantize_linear`); the tensor is then looked up code by code.

LeakyRelu
    ``v if v >= 0 else alpha * v``, float32.
Where
    the identity: each of X and Y is requantized onto Z's scale and zero point through its own table (or copied,
    where its scale and zero point equal Z's), and the condition picks between them, all three broadcast.
Sigmoid
    MLAS's logistic function as ONNX Runtime's float Sigmoid computes it (:func:`intdot.quant.float_kernels.logistic`:
    Eigen's rational polynomial with fused multiply-adds; clamped to [0, 1] on Arm, only below 0 on x86).
"""

from __future__ import annotations

import numpy as np

from ..core.errors import OperandError
from ..core.values import describe
from . import _args
from .float_kernels import logistic

F32 = np.float32


def lookup_table(x_scale, x_zero_point, y_scale, y_zero_point, dtype, fn) -> np.ndarray:
    """ONNX Runtime's table: the output code of every input code (indexed by ``code - lowest``) for the float32
    function ``fn`` of arrays."""
    from .linear import quantize_linear

    info = np.iinfo(dtype)
    codes = np.arange(info.min, info.max + 1)
    with np.errstate(over="ignore", invalid="ignore"):
        deq = (F32(x_scale) * (codes - int(x_zero_point)).astype(F32)).astype(F32)
        out = np.asarray(fn(deq), F32)
    return quantize_linear(out, np.asarray(y_scale, F32), np.asarray(y_zero_point, dtype))


def _params(X, x_scale, x_zero_point, y_scale, y_zero_point):
    x = _args.operand8(X, "X")
    return (x, *_args.per_tensor_params(x_scale, x_zero_point, "X", x.dtype),
            *_args.per_tensor_params(y_scale, y_zero_point, "Y", x.dtype))  # fmt: skip


def qlinear_where(
    condition, X, X_scale, X_zero_point, Y, Y_scale, Y_zero_point, Z_scale, Z_zero_point=None
) -> np.ndarray:
    """ONNX Runtime's ``com.microsoft:QLinearWhere`` (module docstring): ``where(condition, X, Y)`` on codes.

    Parameters
    ----------
    condition : numpy.ndarray of bool
    X, Y : numpy.ndarray of one type, int8 or uint8
    X_scale, Y_scale, Z_scale : float32, per tensor
    X_zero_point, Y_zero_point, Z_zero_point : of X's type, per tensor

    Examples
    --------
    >>> import numpy as np
    >>> from intdot.quant import qlinear_where
    >>> c = np.array([True, False, True])
    >>> x, y = np.array([10, 20, 30], np.uint8), np.array([200], np.uint8)
    >>> half, quarter, zero = np.float32(0.5), np.float32(0.25), np.uint8(0)
    >>> qlinear_where(c, x, half, zero, y, quarter, np.uint8(100), half, zero).tolist()
    [10, 50, 30]
    """
    if isinstance(condition, np.bool_):
        condition = np.asarray(condition)
    cond = _args.tensor(condition, "condition", (np.dtype(bool),), "bool")
    x = _args.operand8(X, "X")
    y = _args.tensor(Y, "Y", (x.dtype,), f"{x.dtype} (X's type)")
    sz, zz = _args.per_tensor_params(Z_scale, Z_zero_point, "Z", x.dtype)
    picked = [
        requantize_codes(v, *_args.per_tensor_params(s, z, name, x.dtype), sz, zz)
        for name, v, s, z in (("X", x, X_scale, X_zero_point), ("Y", y, Y_scale, Y_zero_point))
    ]
    try:
        return np.where(cond, *picked).astype(x.dtype)
    except ValueError:
        raise OperandError(
            f"condition {cond.shape}, X {x.shape} and Y {y.shape} do not broadcast to one shape (numpy's rules)"
        ) from None


def is_real(v) -> bool:
    return isinstance(v, (int, float, np.integer, np.floating)) and not isinstance(v, (bool, np.bool_))


def apply_table(x, table) -> np.ndarray:
    """Each code of ``x`` looked up in a :func:`lookup_table` of its type."""
    return table[x.astype(np.int32) - np.iinfo(x.dtype).min]


def requantize_codes(x, x_scale, x_zero_point, y_scale, y_zero_point) -> np.ndarray:
    """``x``'s codes on the scale and zero point ``y_*``, as ONNX Runtime's QLinearConcat and QLinearWhere move
    an input onto the output's: copied where both equal (float32 ``==``), else through the identity's table."""
    if x_scale == y_scale and int(x_zero_point) == int(y_zero_point):
        return x
    return apply_table(x, lookup_table(x_scale, x_zero_point, y_scale, y_zero_point, x.dtype, lambda v: v))


def qlinear_sigmoid(X, X_scale, X_zero_point, Y_scale, Y_zero_point=None, *, platform="x86") -> np.ndarray:
    """ONNX Runtime's ``com.microsoft:QLinearSigmoid`` (module docstring) on ``platform`` ("x86", "arm" or
    "arm-sme").

    Parameters
    ----------
    X : numpy.ndarray of int8 or uint8
    X_scale, Y_scale : float32, per tensor
    X_zero_point, Y_zero_point : of X's type, per tensor, optional (0)

    Examples
    --------
    >>> import numpy as np
    >>> from intdot.quant import qlinear_sigmoid
    >>> x = np.array([0, 64, 128, 192, 255], np.uint8)
    >>> qlinear_sigmoid(x, np.float32(0.05), np.uint8(128), np.float32(1 / 256), np.uint8(0)).tolist()
    [0, 10, 128, 246, 255]
    """
    family = _args.platform_of(platform)
    x, sx, zx, sy, zy = _params(X, X_scale, X_zero_point, Y_scale, Y_zero_point)
    return apply_table(x, lookup_table(sx, zx, sy, zy, x.dtype, lambda v: logistic(v, family)))


def qlinear_leaky_relu(X, X_scale, X_zero_point, Y_scale, Y_zero_point=None, *, alpha=0.01) -> np.ndarray:
    """ONNX Runtime's ``com.microsoft:QLinearLeakyRelu`` (module docstring); ``alpha`` is rounded to float32, as
    ONNX stores it.

    Examples
    --------
    >>> import numpy as np
    >>> from intdot.quant import qlinear_leaky_relu
    >>> x = np.array([-100, -10, 0, 10], np.int8)
    >>> qlinear_leaky_relu(x, np.float32(0.1), np.int8(0), np.float32(0.1), np.int8(0), alpha=0.25).tolist()
    [-25, -2, 0, 10]
    """
    x, sx, zx, sy, zy = _params(X, X_scale, X_zero_point, Y_scale, Y_zero_point)
    if not is_real(alpha) or not np.isfinite(float(alpha)):
        raise OperandError(f"alpha={describe(alpha)}: expected a finite number (LeakyRelu's slope below 0)")
    a = F32(alpha)

    def leaky(v):
        return np.where(v >= 0, v, (a * v).astype(F32))

    return apply_table(x, lookup_table(sx, zx, sy, zy, x.dtype, leaky))
