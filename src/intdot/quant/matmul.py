"""ONNX ``MatMulInteger`` and ``QLinearMatMul`` through a chosen instruction."""

from __future__ import annotations

import numpy as np

from ..core.errors import OperandError
from ..core.values import check_choice
from . import _args
from .integer import product
from .plan import plan
from .requant import METHODS, multiplier, requantize


def _shapes(a: np.ndarray, b: np.ndarray, names=("A", "B")):
    """a, b promoted to at least 2-D as numpy.matmul does, and the axes to drop from the result."""
    if a.ndim == 0 or b.ndim == 0:
        bad = names[0] if a.ndim == 0 else names[1]
        raise OperandError(f"{bad} is a scalar; expected at least 1 dimension, as numpy.matmul does")
    drop = tuple(ax for ax, vec in ((-2, a.ndim == 1), (-1, b.ndim == 1)) if vec)
    a2 = a[None, :] if a.ndim == 1 else a
    b2 = b[:, None] if b.ndim == 1 else b
    if a2.shape[-1] != b2.shape[-2]:
        raise OperandError(
            f"{names[0]} has shape {a.shape} and {names[1]} has shape {b.shape}: the last axis of {names[0]} "
            f"(K={a2.shape[-1]}) must equal the {'only' if b.ndim == 1 else 'second-to-last'} axis of "
            f"{names[1]} (K={b2.shape[-2]})"
        )
    try:
        np.broadcast_shapes(a2.shape[:-2], b2.shape[:-2])
    except ValueError:
        raise OperandError(
            f"{names[0]} has shape {a.shape} and {names[1]} has shape {b.shape}: their batch dimensions do not "
            f"broadcast"
        ) from None
    return a2, b2, drop


def _row_param(x: np.ndarray, name: str, a2: np.ndarray, vec: bool) -> np.ndarray:
    """A per-tensor or per-row parameter of A (zero point or scale) shaped to broadcast to (..., M, 1)."""
    if x.size == 1 and x.ndim <= 1:
        return x.reshape(())
    m = a2.shape[-2]
    if x.ndim == 1 and not vec and x.shape[0] == m:
        return x.reshape(m, 1)
    if x.ndim >= 2 and x.shape[-1] == 1 and x.shape[-2] == m:
        try:
            np.broadcast_shapes(x.shape[:-2], a2.shape[:-2])
            return x
        except ValueError:
            pass
    raise OperandError(
        f"{name} has shape {x.shape}; expected a scalar (per tensor), {m} values (per row of the first "
        f"operand), or shape (..., {m}, 1)"
    )


def _col_param(x: np.ndarray, name: str, b2: np.ndarray, vec: bool) -> np.ndarray:
    """A per-tensor or per-column parameter of B shaped to broadcast to (..., 1, N)."""
    if x.size == 1 and x.ndim <= 1:
        return x.reshape(())
    n = b2.shape[-1]
    if x.ndim == 1 and not vec and x.shape[0] == n:
        return x
    if x.ndim >= 2 and x.shape[-2] == 1 and x.shape[-1] == n:
        try:
            np.broadcast_shapes(x.shape[:-2], b2.shape[:-2])
            return x
        except ValueError:
            pass
    raise OperandError(
        f"{name} has shape {x.shape}; expected a scalar (per tensor), {n} values (per column of the second "
        f"operand), or shape (..., 1, {n})"
    )


def _integer(a, b, a_zero_point, b_zero_point, op, target, names):
    a = _args.operand8(a, names[0])
    b = _args.operand8(b, names[1])
    za = _args.zero_point(a_zero_point, names[2], a.dtype)
    zb = _args.zero_point(b_zero_point, names[3], b.dtype)
    a2, b2, drop = _shapes(a, b, names[:2])
    za = _row_param(za, names[2], a2, a.ndim == 1).astype(np.int64)
    zb = _col_param(zb, names[3], b2, b.ndim == 1).astype(np.int64)
    acc = product(a2, b2, za, zb, plan(op, a.dtype, b.dtype), target)
    return acc, a2, b2, drop


def _squeeze(x: np.ndarray, drop) -> np.ndarray:
    return np.squeeze(x, axis=drop) if drop else x


def matmul_integer(A, B, a_zero_point=None, b_zero_point=None, *, op, target=None) -> np.ndarray:
    """ONNX ``MatMulInteger``: ``(A - a_zero_point) @ (B - b_zero_point)`` as int32, the sum modulo 2**32.

    Parameters
    ----------
    A, B : numpy.ndarray of int8 or uint8
        Shapes as :func:`numpy.matmul` takes them (batch axes broadcast, 1-D operands allowed).
    a_zero_point : optional
        A's zero point, of A's dtype: a scalar (per tensor), M values (per row of A) or shape (..., M, 1).
    b_zero_point : optional
        B's zero point, of B's dtype: a scalar, N values (per column of B) or shape (..., 1, N).
    op : str or intdot.catalog.Instruction
        The instruction that computes the product (any catalog spelling: ``"usdot"``, ``"sdot4"``,
        ``"vdotq_s32"``, ...).  Operands its lanes lack are shifted into them and their zero points moved
        (:mod:`intdot.quant.plan`); the result is the same bits.
    target : str, optional
        Checked for the instruction's availability (``"neoverse-v2"``, ``"gfx942"``...).

    Examples
    --------
    >>> import numpy as np
    >>> from intdot.quant import matmul_integer
    >>> A = np.array([[11, 7, 3], [10, 6, 2], [9, 5, 1], [8, 4, 0]], np.uint8)
    >>> B = np.array([[1, 4], [2, 5], [3, 6]], np.uint8)
    >>> matmul_integer(A, B, np.uint8(12), np.uint8(0), op="sdot4").tolist()    # ONNX's own test case
    [[-38, -83], [-44, -98], [-50, -113], [-56, -128]]
    >>> matmul_integer(A, B, np.uint8(12), op="udot", target="neoverse-n1").tolist()[0]
    [-38, -83]
    """
    names = ("A", "B", "a_zero_point", "b_zero_point")
    acc, _, _, drop = _integer(A, B, a_zero_point, b_zero_point, op, target, names)
    return _squeeze(acc, drop)


def qlinear_matmul(
    a,
    a_scale,
    a_zero_point,
    b,
    b_scale,
    b_zero_point,
    y_scale,
    y_zero_point,
    *,
    op,
    target=None,
    requant: str = "float32",
    platform: str = "x86",
) -> np.ndarray:
    """ONNX ``QLinearMatMul``: ``saturate(round((a - a_zp) @ (b - b_zp) * a_scale * b_scale / y_scale) + y_zp)``.

    ``a_scale``/``a_zero_point`` and ``y_scale``/``y_zero_point`` are per tensor or per row of ``a``;
    ``b_scale``/``b_zero_point`` per tensor or per column of ``b``.  The output has ``y_zero_point``'s dtype.
    ``requant`` names how the scale is applied (:mod:`intdot.quant.requant`): ``"float32"`` as ONNX Runtime,
    ``"float64"`` as ``onnx.reference``, ``"fixed_point"`` as TFLite/gemmlowp.  ``platform`` (``"x86"`` or
    ``"arm"``) names whose ONNX Runtime kernel ``"float32"`` follows: they differ only where the scaled sum is
    NaN (``0 * inf``, from a zero ``y_scale``), the lowest code on x86 and ``y_zero_point`` on Arm
    (:func:`intdot.quant.requantize`).

    Examples
    --------
    >>> import numpy as np
    >>> from intdot.quant import qlinear_matmul
    >>> a = np.array([[208, 236, 0, 238], [3, 214, 255, 29]], np.uint8)
    >>> b = np.array([[152, 51, 244], [60, 26, 255], [0, 127, 246], [127, 254, 247]], np.uint8)
    >>> s = lambda v: np.array([v], np.float32)
    >>> qlinear_matmul(a, s(0.0066), np.array([113], np.uint8), b, s(0.00705), np.array([114], np.uint8),
    ...                s(0.0107), np.array([118], np.uint8), op="usdot").tolist()     # ONNX's own test case
    [[168, 115, 255], [1, 66, 151]]
    """
    check_choice(requant, "requant", METHODS)
    platform = _args.platform_of(platform)
    names = ("a", "b", "a_zero_point", "b_zero_point")
    acc, a2, b2, drop = _integer(a, b, a_zero_point, b_zero_point, op, target, names)
    yz = _args.tensor(y_zero_point, "y_zero_point", _args.EIGHT_BIT, "int8 or uint8 (the output's type)")
    sa = _row_param(_args.scale(a_scale, "a_scale"), "a_scale", a2, np.ndim(a) == 1)
    sb = _col_param(_args.scale(b_scale, "b_scale"), "b_scale", b2, np.ndim(b) == 1)
    sy = _row_param(_args.scale(y_scale, "y_scale"), "y_scale", a2, np.ndim(a) == 1)
    yz = _row_param(yz, "y_zero_point", a2, np.ndim(a) == 1)
    if requant == "fixed_point":
        with np.errstate(divide="ignore", invalid="ignore"):  # a zero y_scale: refused by multiplier()
            real = sa.astype(np.float64) * sb.astype(np.float64) / sy.astype(np.float64)
        scale = multiplier(real, "a_scale * b_scale / y_scale")
    else:
        with np.errstate(divide="ignore", over="ignore", invalid="ignore"):  # IEEE, as ONNX Runtime: zero y_scale
            scale = sa * sb / sy  # float32, in ONNX Runtime's order
    return _squeeze(requantize(acc, scale, yz, method=requant, platform=platform), drop)
