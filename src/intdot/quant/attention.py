"""ONNX Runtime's ``com.microsoft`` Attention on the CPU (float32), bit for bit: the multi-head self-attention node
its transformer optimizer writes for BERT-like models (one weight matrix for Q, K and V).

For each batch and head, Q, K and V are the input times that head's columns of the weights through MLAS's SGEMM,
starting from the bias (:func:`.sgemm.gemm2d`; the weights packed where they are a constant, as ONNX Runtime
prepacks them).  The scores are ``Q K^T`` times ``scale`` (``1 / sqrt(head_size)`` in float32 by default), the
mask added first (the SGEMM starts from it, each block of K scaled and fused in); then MLAS's softmax of each row
(:func:`.float_kernels.softmax_rows`) and the probabilities times V through the SGEMM again, written back as (batch,
sequence, hidden).  The mask: a 1-D ``mask_index`` of end positions (B), a 2-D raw mask (B, T) or a 3-D one (B, S,
T), 0 where masked (``mask_filter_value``, -10000 by default) and 1 elsewhere; ``unidirectional`` masks the future.
Checked against ONNX Runtime 1.32 in ``tests/quant/test_attention.py``.
"""

from __future__ import annotations

import numpy as np

from ..core.errors import OperandError
from ._args import float32_operand, tensor
from .float_kernels import softmax_rows
from .sgemm import gemm2d

F32 = np.float32


def attention(x, weights, bias, mask_index=None, *, num_heads: int, unidirectional: int = 0, scale: float = 0.0,
              mask_filter_value: float = -10000.0, weights_constant: bool = True,
              platform: str = "x86") -> np.ndarray:  # fmt: skip
    """``output`` (B, S, H) of ONNX Runtime's Attention (module docstring): ``x`` float32 (B, S, D); ``weights``
    (D, 3H); ``bias`` (3H); ``mask_index`` int32 or None; the node's ``num_heads``, ``unidirectional``, ``scale``
    and ``mask_filter_value``; ``weights_constant``: the weights an initializer (ONNX Runtime packs those)."""
    x, weights, bias = (float32_operand(v, n) for v, n in ((x, "input"), (weights, "weights"), (bias, "bias")))
    if x.ndim != 3 or weights.ndim != 2 or weights.shape[0] != x.shape[2] or weights.shape[1] % 3:
        raise OperandError(f"input has shape {x.shape} and weights {weights.shape}: expected (B, S, D) and (D, 3H)")
    b, s, _ = x.shape
    hidden = weights.shape[1] // 3
    if not isinstance(num_heads, (int, np.integer)) or num_heads < 1 or hidden % num_heads:
        raise OperandError(f"num_heads={num_heads!r}: expected a positive divisor of the hidden size {hidden}")
    if bias.shape != (3 * hidden,):
        raise OperandError(f"bias has shape {bias.shape}: expected ({3 * hidden},)")
    head = hidden // num_heads
    mask = _mask(mask_index, b, s, bool(unidirectional), F32(mask_filter_value))
    alpha = F32(scale) if scale else F32(1) / np.sqrt(F32(head))
    out = np.empty((b, s, hidden), F32)
    with np.errstate(over="ignore", invalid="ignore"):
        for i in range(b):
            for h in range(num_heads):
                q, k, v = (
                    gemm2d(x[i], weights[:, c : c + head], np.broadcast_to(bias[c : c + head], (s, head)),
                           b_constant=weights_constant, platform=platform)
                    for c in (j * hidden + h * head for j in range(3))
                )  # fmt: skip
                scores = gemm2d(q, k.T, None if mask is None else mask[i], alpha=alpha, trans_b=True, platform=platform)
                probs = softmax_rows(scores, platform)
                out[i, :, h * head : (h + 1) * head] = gemm2d(probs, v, platform=platform)
    return out


def _mask(mask_index, b, s, causal, filtered):
    """(B, S, S) float32 of 0 and ``filtered`` (None without a mask or causality), as ONNX Runtime prepares it."""
    if mask_index is None and not causal:
        return None
    mask = np.zeros((b, s, s), F32)
    if mask_index is not None:
        m = tensor(mask_index, "mask_index", (np.dtype(np.int32),), "int32")
        if m.shape == (b,):
            for i, end in enumerate(m):
                mask[i, :, max(int(end), 0) :] = filtered
        elif m.shape == (b, s):
            mask[:] = np.where(m[:, None, :] > 0, F32(0), filtered)
        elif m.shape == (b, s, s):
            mask[:] = np.where(m > 0, F32(0), filtered)
        else:
            raise OperandError(f"mask_index has shape {m.shape}: expected ({b},), ({b}, {s}) or ({b}, {s}, {s}) "
                               "(end positions, or a raw 0/1 mask)")  # fmt: skip
    if causal:
        mask[:, np.triu_indices(s, 1)[0], np.triu_indices(s, 1)[1]] = filtered
    return mask
