"""ONNX Runtime's ``com.microsoft:QGemm`` through a chosen instruction.

QGemm is ONNX Runtime's quantized Gemm, which its optimizer writes for ``DequantizeLinear -> Gemm
[-> QuantizeLinear]`` groups (:mod:`intdot.quant.qdq`).  What its CPU kernel computes (``quant_gemm.cc`` and
MLAS's output processors, checked against ONNX Runtime in ``tests/quant/test_qgemm.py``):

- the int32 bias ``C`` (broadcast as Gemm broadcasts it) plus ``(A - a_zp) @ (B - b_zp)``, modulo 2**32;
- a scale per tensor or per column of the output, ``alpha * a_scale * b_scale[n]`` in float32, in that order,
  divided by ``y_scale`` where the output is quantized;
- with ``y_zero_point``: that scale applied as QLinearMatMul's requantization (``float32(acc) * scale``, clamped,
  rounded half to even); without it, the output is float32, ``float32(acc) * scale``.

For K = 0 ONNX Runtime 1.32's kernel returns memory it never wrote (a different answer from run to run,
docs/differences.md); here the product is 0, so the output is ``C`` requantized, or the zero point.
"""

from __future__ import annotations

import numpy as np

from ..core.errors import OperandError, OperandTypeError
from ..core.values import check_choice, describe
from . import _args
from .integer import product
from .plan import plan
from .requant import METHODS, multiplier, requantize


def _matrix(x, name: str, trans) -> np.ndarray:
    x = _args.operand8(x, name)
    if x.ndim != 2:
        raise OperandError(f"{name} has shape {x.shape}; expected a matrix (2 dimensions), as Gemm takes")
    return x.T if trans else x


def _trans(v, name: str) -> bool:
    if isinstance(v, (bool, np.bool_)) or v in (0, 1):
        return bool(v)
    raise OperandError(f"{name}={describe(v)}: expected 0 or 1")


def _bias(c, m: int, n: int) -> np.ndarray:
    """C as int32, shaped to broadcast to (M, N) as ONNX Runtime's Gemm takes it: (), (1,), (N,), (1, N), (M, 1),
    (M, N)."""
    arr = _args.tensor(c, "C", (np.dtype(np.int32),), "int32 (the bias, in the product's scale)")
    s = arr.shape
    if arr.size == 1 and arr.ndim <= 2:
        return arr.reshape(1, 1)
    if s == (n,) or (arr.ndim == 2 and s[0] in (1, m) and s[1] in (1, n)):
        return arr.reshape(1, n) if arr.ndim == 1 else arr
    raise OperandError(
        f"C has shape {s}; expected one that broadcasts to the output's ({m}, {n}): (), (N,), (1, N), (M, 1) or (M, N)"
    )


def _b_param(x: np.ndarray, name: str, n: int) -> np.ndarray:
    if x.size == 1 and x.ndim <= 1:
        return x.reshape(())
    if x.shape == (n,):
        return x
    raise OperandError(
        f"{name} has shape {x.shape}; expected a scalar, 1 element or {n} values (one per column of the output)"
    )


def qgemm(
    A,
    a_scale,
    a_zero_point,
    B,
    b_scale,
    b_zero_point,
    C=None,
    y_scale=None,
    y_zero_point=None,
    *,
    alpha: float = 1.0,
    transA: int = 0,
    transB: int = 0,
    op,
    target=None,
    requant: str = "float32",
    platform: str = "x86",
) -> np.ndarray:
    """ONNX Runtime's ``com.microsoft:QGemm``: ``alpha * (A - a_zp) @ (B - b_zp) + C`` in the product's scale,
    requantized to ``y_zero_point``'s type, or float32 without ``y_zero_point``.

    Parameters
    ----------
    A, B : numpy.ndarray of int8 or uint8, 2-D
        ``transA``/``transB`` (0 or 1) transpose them first, as Gemm does.
    a_scale, a_zero_point : per tensor
    b_scale, b_zero_point : per tensor, or N values (one per column of the output), of the same shape
    C : int32, optional
        The bias, added to the int32 product (wrapping); shape (), (N,), (1, N), (M, 1) or (M, N).
    y_scale, y_zero_point : per tensor, optional
        The output's; without ``y_zero_point`` the output is float32 (``y_scale``, if given, still divides the
        scale, as ONNX Runtime's kernel does).
    alpha : float
        Multiplies the scale, in float32.
    op, target, requant, platform
        As :func:`intdot.quant.qlinear_matmul` (``platform`` matters only for a quantized output).

    Examples
    --------
    >>> import numpy as np
    >>> from intdot.quant import qgemm
    >>> A = np.array([[130, 120, 128]], np.uint8)
    >>> B = np.array([[1, -2], [3, 4], [-5, 6]], np.int8)
    >>> s = np.float32
    >>> qgemm(A, s(0.5), np.uint8(128), B, s(0.25), np.int8(0), np.array([8, -8], np.int32), s(1.0), np.uint8(100),
    ...       op="usdot").tolist()                       # ((2 - 24 + 8) * 0.125, (-4 - 32 - 8) * 0.125) + 100
    [[98, 94]]
    >>> qgemm(A, s(0.5), np.uint8(128), B, s(0.25), np.int8(0), op="sdot4").tolist()    # float output
    [[-2.75, -4.5]]
    """
    check_choice(requant, "requant", METHODS)
    platform = _args.platform_of(platform)
    a = _matrix(A, "A", _trans(transA, "transA"))
    b = _matrix(B, "B", _trans(transB, "transB"))
    m, k = a.shape
    if b.shape[0] != k:
        raise OperandError(
            f"A has shape {np.shape(A)} and B has shape {np.shape(B)} (transA={int(transA)}, transB={int(transB)}): "
            f"A's K={k} differs from B's K={b.shape[0]}"
        )
    n = b.shape[1]
    za = _args.per_tensor(_args.zero_point(a_zero_point, "a_zero_point", a.dtype), "a_zero_point")
    sa = _args.per_tensor(_args.scale(a_scale, "a_scale"), "a_scale")
    zb = _b_param(_args.zero_point(b_zero_point, "b_zero_point", b.dtype), "b_zero_point", n)
    sb = _b_param(_args.scale(b_scale, "b_scale"), "b_scale", n)
    c = None if C is None else _bias(C, m, n)
    if isinstance(alpha, (bool, np.bool_)) or not isinstance(alpha, (int, float, np.floating, np.integer)):
        raise OperandTypeError(f"alpha={describe(alpha)}: expected a float")
    al = np.float32(alpha)
    sy = None if y_scale is None else _args.per_tensor(_args.scale(y_scale, "y_scale"), "y_scale")
    yz = None
    if y_zero_point is not None:
        if sy is None:
            raise OperandError("y_zero_point is given without y_scale; expected both (a quantized output) or neither")
        yz = _args.per_tensor(
            _args.tensor(y_zero_point, "y_zero_point", _args.EIGHT_BIT, "int8 or uint8 (the output's type)"),
            "y_zero_point",
        )
    with np.errstate(over="ignore", divide="ignore", invalid="ignore"):  # IEEE, as ONNX Runtime (a zero y_scale)
        scale = al * sa * sb
        if sy is not None:
            scale = scale / sy
    acc = product(a, b, za.astype(np.int64), zb.astype(np.int64), plan(op, a.dtype, b.dtype), target)
    if yz is None:
        if c is not None:
            acc = (acc.astype(np.int64) + c).astype(np.uint32).view(np.int32)
        with np.errstate(over="ignore", invalid="ignore"):
            return acc.astype(np.float32) * scale
    if requant == "fixed_point":
        real = np.float64(al) * sa.astype(np.float64) * sb.astype(np.float64) / sy.astype(np.float64)
        scale = multiplier(real, "alpha * a_scale * b_scale / y_scale")
    return requantize(acc, scale, yz, bias=c, method=requant, platform=platform)
