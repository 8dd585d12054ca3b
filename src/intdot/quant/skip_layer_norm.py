"""ONNX Runtime's float32 ``SkipLayerNormalization`` and ``SkipSimplifiedLayerNormalization`` (``com.microsoft``)
on the CPU, bit for bit.

A BERT-style block's residual ``Add`` and the ``LayerNormalization`` after it are one node in ONNX Runtime: its
SkipLayerNormFusion writes it (:func:`intdot.quant.layer_norm_fusion.fuse_skip_layer_norm`), and its transformer
optimizer writes both kinds into the models it saves.  Each row of ``input`` (its last axis, ``n`` elements) is
first summed, ``(input + skip) + bias`` in float32 (the fourth output, ``input_skip_bias_sum``), then normalized.

Read from ONNX Runtime 1.32 itself (``tests/quant/test_skip_layer_norm.py``): unlike ``LayerNormalization``, the
normalization never reaches MLAS's x86 kernel, at any row length.  Its statistics and ``y`` are the C++ loops of
:mod:`intdot.quant.layer_norm` (Welford's method in float32; the simplified kernel's squares one by one), on x86
without and on Arm with fused multiply-adds.  On Arm the simplified kernel without ``bias`` rounds its first ``4 *
(n // 4)`` squares (a NEON multiply) from ``n = 7`` on; with ``bias`` every square is fused.

Shapes, as ONNX Runtime checks them: ``input`` 2-D or 3-D; ``skip`` 2-D or 3-D with ``input``'s last two
dimensions, and ``input``'s shape where ``input`` is 2-D (a 3-D ``input`` reads ``skip``'s rows cyclically, so a
``[S, n]`` or ``[1, S, n]`` skip serves every batch); ``gamma``, ``beta`` and ``bias`` 1-D of ``n``.  The CPU kernel
writes no ``mean`` or ``inv_std_var`` output.
"""

from __future__ import annotations

import numpy as np

from ..core.errors import OperandError
from ..core.values import describe
from ._args import float32_operand, float_platform
from .layer_norm import cpp_rows

F32 = np.float32
# The default of the operators' epsilon attribute (contrib_defs: kDefaultSkipLayerNormEpsilon).
DEFAULT_EPSILON = 1e-12
# Arm, simplified, no bias: the squares the compiler vectorized start above this row length.
_ARM_VECTOR_SQUARES_ABOVE = 6


def skip_layer_norm(x, skip, gamma, beta=None, bias=None, epsilon: float = DEFAULT_EPSILON, platform: str = "x86",
                    *, simplified: bool = False) -> tuple:  # fmt: skip
    """``(output, input_skip_bias_sum)`` of ONNX Runtime's ``SkipLayerNormalization`` (``simplified``:
    ``SkipSimplifiedLayerNormalization``, which has no ``beta``) of ``x`` over its last axis, as its CPU kernel
    computes it on ``platform`` (module docstring); ``beta`` and ``bias`` None where the node has none.

    >>> x = np.array([[1.0, 2.0, 4.0]], np.float32)
    >>> y, total = skip_layer_norm(x, x, np.ones(3, np.float32))
    >>> [round(float(v), 4) for v in y[0]], total.tolist()
    ([-1.069, -0.2673, 1.3363], [[2.0, 4.0, 8.0]])
    """
    family = float_platform(platform)
    x, skip = float32_operand(x, "input"), float32_operand(skip, "skip")
    if x.ndim not in (2, 3):
        raise OperandError(f"input.shape={x.shape}: expected 2 or 3 dimensions")
    if skip.ndim not in (2, 3) or skip.shape[-2:] != x.shape[-2:] or (x.ndim == 2 and skip.shape != x.shape):
        allowed = f"{x.shape}" if x.ndim == 2 else f"[..., {x.shape[1]}, {x.shape[2]}] (2 or 3 dimensions)"
        raise OperandError(f"skip.shape={skip.shape} for input.shape={x.shape}: expected {allowed}")
    n = x.shape[-1]
    if simplified and beta is not None:
        raise OperandError("beta: SkipSimplifiedLayerNormalization has none")
    gamma, beta, bias = (None if v is None else _vector(v, name, n)
                         for v, name in ((gamma, "gamma"), (beta, "beta"), (bias, "bias")))  # fmt: skip
    if gamma is None:
        raise OperandError("gamma is None: the operator needs it")
    if not isinstance(epsilon, (int, float, np.floating, np.integer)) or not epsilon >= 0:
        raise OperandError(f"epsilon={describe(epsilon)}; expected a number >= 0, as ONNX Runtime requires")
    rows = x.size // n if n else 0
    if rows == 0:
        return x.copy(), x.copy()
    skip_rows = skip.reshape(-1, n)
    with np.errstate(all="ignore"):  # infinities and NaNs go through as the kernel takes them
        total = (x.reshape(rows, n) + skip_rows[np.arange(rows) % len(skip_rows)]).astype(F32)
        if bias is not None:
            total = (total + bias).astype(F32)
        squares_above = n if bias is not None else _ARM_VECTOR_SQUARES_ABOVE
        y = cpp_rows(total, gamma, beta, F32(epsilon), simplified, family, squares_above)[0]
    return y.reshape(x.shape), total.reshape(x.shape)


def _vector(v, name, n) -> np.ndarray:
    v = float32_operand(v, name)
    if v.shape != (n,):
        raise OperandError(f"{name}.shape={v.shape}; expected ({n},), the input's last dimension")
    return v
