"""ONNX Runtime's ``com.microsoft`` Attention, QAttention and MultiHeadAttention on the CPU (float32 output), bit
for bit: Attention is the multi-head self-attention node its transformer optimizer writes for BERT-like models (one
weight matrix for Q, K and V).

For each batch and head, Q, K and V are the input times that head's columns of the weights through MLAS's SGEMM,
starting from the bias (:func:`.sgemm.gemm2d`; the weights packed where they are a constant, as ONNX Runtime
prepacks them).  The scores are ``Q K^T`` times ``scale`` (``1 / sqrt(head_size)`` in float32 by default), the
mask added first (the SGEMM starts from it, each block of K scaled and fused in); then MLAS's softmax of each row
(:func:`.float_kernels.softmax_rows`) and the probabilities times V through the SGEMM again, written back as (batch,
sequence, hidden).  The mask: a 1-D ``mask_index`` of end positions (B), a 2-D raw mask (B, T) or a 3-D one (B, S,
T), 0 where masked (``mask_filter_value``, -10000 by default) and 1 elsewhere; ``unidirectional`` masks the future
(where there are several rows).  A ``past`` state (a decoder's earlier steps, (2, B, N, P, head)) comes before this
step's K and V, T = P + S; ``present`` is the two together.  An ``attention_bias`` is added to the scaled scores
(after the product from the mask, one rounding).
QAttention (:func:`qattention`, what ``quantize_dynamic`` makes of an Attention) computes Q, K and V as integer
products on the chosen instruction, scaled and biased, then attends alike; MultiHeadAttention
(:func:`multihead_attention`) takes Q, K and V projected already, K and V of their own length (without masks or
caches, MLAS's flash attention: :mod:`.flash`).  Checked against
ONNX Runtime 1.32 on x86 and for AArch64 in ``tests/quant/test_attention.py``.
"""

from __future__ import annotations

import numpy as np

from ..core.errors import OperandError
from . import flash as tiled
from ._args import float32_operand, tensor
from .float_kernels import softmax_rows
from .sgemm import gemm2d

F32 = np.float32


def attention(x, weights, bias, mask_index=None, past=None, attention_bias=None, *, num_heads: int,
              unidirectional: int = 0,
              scale: float = 0.0, mask_filter_value: float = -10000.0, weights_constant: bool = True,
              platform: str = "x86", with_present: bool = False):  # fmt: skip
    """``output`` (B, S, H) of ONNX Runtime's Attention (module docstring): ``x`` float32 (B, S, D); ``weights``
    (D, 3H); ``bias`` (3H); ``mask_index`` int32 or None; the node's ``num_heads``, ``unidirectional``, ``scale``
    and ``mask_filter_value``; ``weights_constant``: the weights an initializer (ONNX Runtime packs those); ``past``
    (2, B, N, P, head) the state of earlier steps or None; ``attention_bias`` (B or 1, N or 1, S, P + S) added to
    the scores or None; ``with_present``: return ``(output, present)``."""
    x, weights, bias = (float32_operand(v, n) for v, n in ((x, "input"), (weights, "weights"), (bias, "bias")))
    b, s, hidden = _shapes(x, weights, bias, num_heads)
    head = hidden // num_heads

    def project(i, c):  # one head's Q, K or V of batch i: the SGEMM from the bias
        start = np.broadcast_to(bias[c : c + head], (s, head))
        return gemm2d(x[i], weights[:, c : c + head], start, b_constant=weights_constant, platform=platform)

    out, present = attend(project, b, s, hidden, num_heads, mask_index, unidirectional, scale, mask_filter_value,
                          platform, past, attention_bias)  # fmt: skip
    return (out, present) if with_present else out


def attend(project, b, s, hidden, num_heads, mask_index, unidirectional, scale, mask_filter_value, platform,
           past=None, attention_bias=None, kv_length=None):  # fmt: skip
    """``(output, present)``: ONNX Runtime's attention of the heads ``project(batch, column)`` gives (Q at column
    ``h * head``, K at ``hidden + h * head``, V at ``2 * hidden + h * head``), after ``past`` (2, B, N, P, head)
    where given, ``attention_bias`` (B or 1, N or 1, S, P + L) added to the scaled scores where given, K and V of
    ``kv_length`` L rows (S where None); ``output`` (B, S, hidden), ``present`` (2, B, N, P + L, head).  Shared by
    Attention, QAttention and MultiHeadAttention."""
    head = hidden // num_heads
    if past is not None:
        past = float32_operand(past, "past")
        if past.ndim != 5 or past.shape[:3] != (2, b, num_heads) or past.shape[4] != head:
            raise OperandError(f"past has shape {past.shape}: expected (2, {b}, {num_heads}, P, {head})")
    p = 0 if past is None else past.shape[3]
    kv = s if kv_length is None else kv_length
    mask = _mask(mask_index, b, s, p, bool(unidirectional) and s > 1, F32(mask_filter_value), kv)
    if attention_bias is not None:  # added to the scaled scores (after the product from the mask), one rounding
        attention_bias = float32_operand(attention_bias, "attention_bias")
        shape, t = attention_bias.shape, p + kv
        if len(shape) != 4 or shape[0] not in (1, b) or shape[1] not in (1, num_heads) or shape[2:] != (s, t):
            raise OperandError(f"attention_bias has shape {shape}: expected (1 or {b}, 1 or {num_heads}, {s}, {t})")
        attention_bias = np.broadcast_to(attention_bias, (b, num_heads, s, t))
    alpha = F32(scale) if scale else F32(1) / np.sqrt(F32(head))
    out = np.empty((b, s, hidden), F32)
    present = np.empty((2, b, num_heads, p + kv, head), F32)
    with np.errstate(over="ignore", invalid="ignore"):
        for i in range(b):
            for h in range(num_heads):
                q, k, v = (project(i, j * hidden + h * head) for j in range(3))
                if past is not None:  # the past state first, then this step's (ONNX Runtime's ConcatStateChunk)
                    k, v = np.concatenate([past[0, i, h], k]), np.concatenate([past[1, i, h], v])
                present[0, i, h], present[1, i, h] = k, v
                scores = gemm2d(q, k.T, None if mask is None else mask[i], alpha=alpha, trans_b=True, platform=platform)
                if attention_bias is not None:
                    scores = (scores + attention_bias[i, h]).astype(F32)
                probs = softmax_rows(scores, platform)
                out[i, :, h * head : (h + 1) * head] = gemm2d(probs, v, platform=platform)
    return out, present


def qattention(x, weights, bias, input_scale, weight_scale, mask_index=None, input_zero_point=None,
               weight_zero_point=None, past=None, *, num_heads: int, unidirectional: int = 0, scale: float = 0.0,
               mask_filter_value: float = -10000.0, op, target=None, platform: str = "x86",
               with_present: bool = False):  # fmt: skip
    """``output`` of ONNX Runtime's ``com.microsoft`` QAttention, the node ``quantize_dynamic`` writes for an
    Attention: ``x`` the quantized input (uint8, B x S x D) with ``input_scale`` and ``input_zero_point``,
    ``weights`` int8 or uint8 (D, 3H) with ``weight_scale`` and ``weight_zero_point`` per tensor or per column.
    Each head's Q, K and V: the integer product ``(x - zp) (w - zp)`` on the instruction ``op``
    (:func:`.matmul.matmul_integer`), as float32 times ``weight_scale * input_scale`` (rounded) plus the bias (on
    Arm one fused multiply-add); then as :func:`attention` (``past``, ``with_present`` as there)."""
    from ._args import scale as checked_scale
    from .matmul import matmul_integer

    x = tensor(x, "input", (np.dtype(np.uint8),), "uint8 (QAttention's quantized input)")
    weights = tensor(weights, "weights", (np.dtype(np.int8), np.dtype(np.uint8)), "int8 or uint8")
    bias = float32_operand(bias, "bias")
    b, s, hidden = _shapes(x, weights, bias, num_heads)
    head = hidden // num_heads
    in_scale = checked_scale(input_scale, "input_scale").reshape(-1)
    w_scale = checked_scale(weight_scale, "weight_scale").reshape(-1)
    if in_scale.size != 1 or w_scale.size not in (1, 3 * hidden):
        raise OperandError(f"input_scale has {in_scale.size} values and weight_scale {w_scale.size}: expected one, "
                           f"and one or {3 * hidden} (per column)")  # fmt: skip
    dequant = np.broadcast_to((w_scale * in_scale[0]).astype(F32), (3 * hidden,))
    izp = None if input_zero_point is None else np.asarray(input_zero_point).reshape(-1)[0]
    wzp = None if weight_zero_point is None else np.asarray(weight_zero_point).reshape(-1)
    fused = platform.startswith("arm")

    def project(i, c):
        cols = slice(c, c + head)
        zp = None if wzp is None else (wzp if wzp.size == 1 else wzp[cols]).astype(weights.dtype)
        acc = matmul_integer(x[i], weights[:, cols], izp, zp if zp is None or zp.size > 1 else zp[0], op=op,
                             target=target).astype(F32)  # fmt: skip
        if fused:
            from .fma import fma32

            return fma32(acc, dequant[cols], bias[cols])
        return ((acc * dequant[cols]).astype(F32) + bias[cols]).astype(F32)

    out, present = attend(project, b, s, hidden, num_heads, mask_index, unidirectional, scale, mask_filter_value,
                          platform, past)  # fmt: skip
    return (out, present) if with_present else out


def multihead_attention(query, key, value, bias=None, key_padding_mask=None, attention_bias=None, past_key=None,
                        past_value=None, *, num_heads: int, unidirectional: int = 0, scale: float = 0.0,
                        mask_filter_value: float = -10000.0, with_present: bool = False,
                        platform: str = "x86", l2_cache_size: int | None = None):  # fmt: skip
    """``output`` (and with ``with_present`` ``(output, present_key, present_value)``) of ONNX Runtime's
    ``com.microsoft`` MultiHeadAttention: Q, K and V given (B, S, D),
    (B, L, D), (B, L, D), each plus its part of ``bias`` where given (one rounding; K and V given as a cross-attention
    cache, (B, N, L, head) each, take none), then attended as there
    (``key_padding_mask`` as ``mask_index``; ``past_key``, ``past_value`` (B, N, P, head) before this step's).  Without
    a mask, attention bias, causality, past or present outputs (and K and V not a cache) ONNX Runtime takes MLAS's
    flash attention instead (:mod:`.flash`), whose blocks it sizes from the CPU's L2 cache: ``l2_cache_size`` in
    bytes, by default this machine's as ONNX Runtime reads it."""
    q, k, v = (float32_operand(t, n) for t, n in ((query, "query"), (key, "key"), (value, "value")))
    shapes = q.shape, k.shape, v.shape
    cached = k.ndim == v.ndim == 4 and k.shape == v.shape  # a cross-attention cache: no bias of its own
    if cached:  # (B, N, L, head) to (B, L, N * head)
        k, v = (np.ascontiguousarray(t.transpose(0, 2, 1, 3)).reshape(t.shape[0], t.shape[2], -1) for t in (k, v))
    if q.ndim != 3 or k.ndim != 3 or v.shape != k.shape or q.shape[0] != k.shape[0] or q.shape[2] != k.shape[2]:
        raise OperandError(f"query, key and value have shapes {', '.join(map(str, shapes))}: expected (B, S, D), "
                           "and (B, L, D) or (B, N, L, D / N) for both key and value (ONNX Runtime's CPU kernel "
                           "takes no packed Q, K and V)")  # fmt: skip
    b, s, hidden = q.shape
    if not isinstance(num_heads, (int, np.integer)) or num_heads < 1 or hidden % num_heads:
        raise OperandError(f"num_heads={num_heads!r}: expected a positive divisor of the hidden size {hidden}")
    if cached and shapes[1][1] != num_heads:
        raise OperandError(
            f"key and value have shape {shapes[1]}: expected ({b}, {num_heads}, L, {hidden // num_heads})"
        )
    if cached and (past_key is not None or past_value is not None):
        raise OperandError("past_key and past_value with a cross-attention cache (key and value (B, N, L, head)): "
                           "not modelled; expected no past state there")  # fmt: skip
    flash = (not unidirectional and key_padding_mask is None and attention_bias is None and past_key is None
             and past_value is None and not with_present and not cached)  # fmt: skip
    l2 = tiled.checked_l2(l2_cache_size)
    head = hidden // num_heads
    if bias is not None:
        bias = float32_operand(bias, "bias")
        if bias.shape != (3 * hidden,):
            raise OperandError(f"bias has shape {bias.shape}: expected ({3 * hidden},)")
        q, k, v = ((t + bias[j * hidden : (j + 1) * hidden]).astype(F32) if not j or not cached else t
                   for j, t in enumerate((q, k, v)))  # fmt: skip
    parts = (q, k, v)
    if flash:
        return _flash_heads(q, k, v, num_heads, scale, l2, platform)

    def project(i, c):
        j, col = divmod(c, hidden)
        return parts[j][i][:, col : col + head]

    past = None
    if past_key is not None or past_value is not None:
        if past_key is None or past_value is None:
            raise OperandError("past_key and past_value: expected both or neither")
        pk, pv = float32_operand(past_key, "past_key"), float32_operand(past_value, "past_value")
        if pk.shape != pv.shape:
            raise OperandError(f"past_key and past_value have shapes {pk.shape} and {pv.shape}: expected the same")
        past = np.stack([pk, pv])
    out, present = attend(project, b, s, hidden, num_heads, key_padding_mask, unidirectional, scale,
                          mask_filter_value, platform, past, attention_bias, kv_length=k.shape[1])  # fmt: skip
    return (out, present[0], present[1]) if with_present else out


def _flash_heads(q, k, v, num_heads, scale, l2, platform) -> np.ndarray:
    """MultiHeadAttention's flash path: each head of Q (B, S, hidden) against K and V (B, L, hidden) by MLAS's
    tiled online softmax, unmasked, each row divided by its sum at the end."""
    b, s, hidden = q.shape
    head = hidden // num_heads
    alpha = F32(scale) if scale else F32(1) / np.sqrt(F32(head))
    q_block, kv_block = tiled.blocks(l2, 2 * head, k.shape[1], s)
    out = np.empty((b, s, hidden), F32)
    with np.errstate(over="ignore", invalid="ignore", divide="ignore"):
        for i in range(b):
            for h in range(num_heads):
                cols = slice(h * head, (h + 1) * head)
                out[i, :, cols] = tiled.attend(q[i][:, cols], k[i][:, cols], v[i][:, cols], alpha, q_block, kv_block,
                                         platform, divide=True)  # fmt: skip
    return out


def _shapes(x, weights, bias, num_heads) -> tuple[int, int, int]:
    """(B, S, hidden) of an attention node's input (B, S, D), weights (D, 3 * hidden) and bias (3 * hidden), checked
    with ``num_heads``."""
    if x.ndim != 3 or weights.ndim != 2 or weights.shape[0] != x.shape[2] or weights.shape[1] % 3:
        raise OperandError(f"input has shape {x.shape} and weights {weights.shape}: expected (B, S, D) and (D, 3H)")
    hidden = weights.shape[1] // 3
    if not isinstance(num_heads, (int, np.integer)) or num_heads < 1 or hidden % num_heads:
        raise OperandError(f"num_heads={num_heads!r}: expected a positive divisor of the hidden size {hidden}")
    if bias.shape != (3 * hidden,):
        raise OperandError(f"bias has shape {bias.shape}: expected ({3 * hidden},)")
    return x.shape[0], x.shape[1], hidden


def _mask(mask_index, b, s, p, causal, filtered, kv=None):
    """(B, S, P + L) float32 of 0 and ``filtered`` (None without a mask or causality), as ONNX Runtime prepares it:
    ``p`` past positions first, then ``kv`` (L, S by default) of this step."""
    if mask_index is None and not causal:
        return None
    t = p + (s if kv is None else kv)
    mask = np.zeros((b, s, t), F32)
    if mask_index is not None:
        m = tensor(mask_index, "mask_index", (np.dtype(np.int32),), "int32")
        if m.shape == (b,):
            for i, end in enumerate(m):
                mask[i, :, max(int(end), 0) :] = filtered
        elif m.shape == (b, t):
            mask[:] = np.where(m[:, None, :] > 0, F32(0), filtered)
        elif m.shape == (b, s, t):
            mask[:] = np.where(m > 0, F32(0), filtered)
        else:
            raise OperandError(f"mask_index has shape {m.shape}: expected ({b},), ({b}, {t}) or ({b}, {s}, {t}) "
                               "(end positions, or a raw 0/1 mask over the past and this step)")  # fmt: skip
    if causal:  # row r sees the past and this step up to itself
        later = np.arange(t)[None, :] > p + np.arange(s)[:, None]
        mask[:, later] = filtered
    return mask
