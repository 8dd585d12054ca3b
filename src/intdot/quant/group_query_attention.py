"""ONNX Runtime's ``com.microsoft`` GroupQueryAttention on the CPU (float32), bit for bit: the attention node of
the language models ONNX Runtime GenAI's model builder writes (Llama, Mistral, Phi, Qwen), a KV cache per layer.

``num_heads`` query heads share ``kv_num_heads`` key and value heads (query head ``h`` reads K/V head
``h // (num_heads / kv_num_heads)``).  Q, K and V come separately (B, S, heads * head) or packed in ``query``
(B, S, (num_heads + 2 kv_num_heads) * head); with ``do_rotary`` Q and K are first turned by the rotary caches
(:mod:`.rotary`) at positions ``0..S-1`` on the first prompt, ``past + s`` after it.  This step's K and V follow
each batch's past rows (``seqlens_k[b] + 1 - S`` of them; none on the first prompt) in ``present_key`` and
``present_value`` (B, kv_num_heads, present length, head), zero past the total: a dynamic cache (past P rows,
``total_sequence_length`` P + S) or a static one (a buffer of P rows, the total at most P).  Attention is causal,
within the last ``local_window_size`` positions where that is given.

ONNX Runtime 1.32 computes it one of two ways, and the bits differ:

- **flash** (the present outputs requested, the total above 1, no ``softcap``, ``smooth_softmax``, ``head_sink``
  or ``qk`` output): MLAS's GQA flash kernel.  One query row (decode): each score a dot product in 8 lanes over
  the head (lane ``j`` adding ``q[h] k[h]`` for ``h % 8 == j``, on Arm fused, then ``((0+1)+(2+3))+((4+5)+(6+7))``,
  the rest in order), times the scale; plus the attention bias; MLAS's max and exp-and-sum (:mod:`.float_kernels`);
  each probability times V added in order of position; times ``1 / sum``.  Several rows (prefill): MLAS's tiled
  online softmax (:mod:`.flash`), causal, within the window, the bias added to each block's scores, at the end
  times ``1 / sum``; its blocks follow the CPU's L2 cache size (``kv_block = L2 / (32 head)`` positions), so
  prefill's bits depend on it once the total passes ``kv_block``: :func:`group_query_attention` takes it
  (``l2_cache_size``), by default this machine's as ONNX Runtime reads it.
- **classic** (otherwise): per head the scores by the SGEMM with the scale as alpha, then per row within its
  causal window ``tanhf(x / softcap) * softcap`` where ``softcap`` is given (glibc's tanhf, :mod:`.tanhf`, found by
  probing), the bias added, MLAS's softmax (:func:`.float_kernels.softmax_rows`; ``smooth_softmax`` or a
  ``head_sink`` adds ``exp(sink - max)`` to the sum, the max taken over the sink too), zeros elsewhere, then times
  V by the SGEMM.

Checked against ONNX Runtime 1.32 on x86 and for AArch64 in ``tests/quant/test_group_query_attention.py``.
``position_ids`` (B, S), where given, place the rotary rows instead: after a past each row at its own, on a first
prompt every batch's rows from the first value on (as ONNX Runtime 1.32 reads them).  Not modelled (an error):
``query_seqlens``, float16; Q/K norms, which ONNX Runtime's CPU kernel refuses too.

A quantized KV cache (``k_scale``, ``v_scale``, ``k_quant_type``/``v_quant_type`` PER_TENSOR or PER_CHANNEL,
``kv_cache_bit_width`` 8 or 4) takes the same two paths with MLAS's quantized-cache kernels in place of the SGEMMs
(:mod:`.kv_cache`): the new K and V rows quantized into the present outputs, the flash path (one query row too)
through the tiled kernel.
"""

from __future__ import annotations

import numpy as np

from ..core.errors import OperandError
from ._args import float32_operand, tensor
from .flash import LOWEST, attend, blocks, checked_l2, sum_exp
from .float_kernels import softmax_rows
from .fma import fma32
from .kv_cache import pack, quantize, unpack
from .kv_cache import scores as kv_scores
from .kv_cache import values as kv_values
from .libm import expf
from .rotary import caches, gather, rotate
from .sgemm import gemm2d
from .tanhf import tanhf

F32 = np.float32


def group_query_attention(query, key=None, value=None, past_key=None, past_value=None, seqlens_k=None,
                          total_sequence_length=None, cos_cache=None, sin_cache=None, attention_bias=None,
                          head_sink=None, position_ids=None, *, num_heads: int, kv_num_heads: int, scale: float = 0.0,
                          softcap: float = 0.0, local_window_size: int = -1, do_rotary: int = 0,
                          rotary_interleaved: int = 0, smooth_softmax: int = 0, qk_output: int = 0,
                          with_present: bool = True, platform: str = "x86", l2_cache_size: int | None = None,
                          k_scale=None, v_scale=None, k_quant_type: str = "NONE", v_quant_type: str = "NONE",
                          kv_cache_bit_width: int = 0):  # fmt: skip
    """``(output, present_key, present_value, qk)`` of ONNX Runtime's GroupQueryAttention (module docstring; ``qk``
    None unless ``qk_output`` is 1, the scores before softmax, or 2, after); ``with_present``: whether the node's
    present outputs are requested (which decides the path); ``l2_cache_size``: the L2 cache size, in bytes, of the
    CPU whose ONNX Runtime is modelled (None: this machine's); ``k_scale``, ``v_scale`` with the quantization
    attributes: a quantized KV cache (:mod:`.kv_cache`), ``past_key``/``past_value`` and the present outputs then
    its stored codes (int8, or uint8 two int4 codes a byte)."""
    q_in = float32_operand(query, "query")
    p = _Problem(q_in, key, value, num_heads, kv_num_heads)
    step = 16 if do_rotary else 8
    if p.head % step:
        raise OperandError(f"head size {p.head}: ONNX Runtime's kernel takes multiples of {step}"
                           + (" with do_rotary=1" if do_rotary else ""))  # fmt: skip
    quant = _quantization(k_scale, v_scale, k_quant_type, v_quant_type, kv_cache_bit_width, p, with_present)
    if quant is not None and past_key is not None:
        bits = quant[2]
        past_key, past_value = (unpack(_stored(t, n, bits), bits, p.head).astype(F32)
                                for t, n in ((past_key, "past_key"), (past_value, "past_value")))  # fmt: skip
    past = _past(past_key, past_value, p)
    totals, total, first, plen = _lengths(seqlens_k, total_sequence_length, p, past)
    if not first and p.s > 1 and p.b > 1:
        raise OperandError(f"a batch of {p.b} with {p.s} new rows after a past: ONNX Runtime's kernel takes one "
                           "batch there")  # fmt: skip
    if past is not None and not with_present and (totals > p.s).any():
        raise OperandError("past_key and past_value without the present outputs: ONNX Runtime 1.32 then leaves "
                           "the past out (its kernel copies the past only into a present output, and reads past "
                           "this step's K and V); not modelled, request present_key and present_value")  # fmt: skip
    q, k, v = p.split(q_in)  # (B, heads, S, head) each
    if do_rotary:
        if cos_cache is None or sin_cache is None:
            raise OperandError("do_rotary=1: expected cos_cache and sin_cache")
        cos, sin = caches(cos_cache, sin_cache, p.head)
        if cos.shape[1] % 8:
            raise OperandError(f"cos_cache has {cos.shape[1]} columns: ONNX Runtime's GroupQueryAttention takes a "
                               "multiple of 8 (rotary_dim / 2)")  # fmt: skip
        if cos.shape[0] < total:
            raise OperandError(f"cos_cache has {cos.shape[0]} rows: ONNX Runtime's GroupQueryAttention takes at least "
                               f"total_sequence_length = {total}")  # fmt: skip
        positions = np.broadcast_to(np.arange(p.s), (p.b, p.s)) if first else (totals - p.s)[:, None] + np.arange(p.s)
        if position_ids is not None:  # on a first prompt its first value is the base of every batch's rows
            pid = tensor(position_ids, "position_ids", (np.dtype(np.int64),), "int64")
            if pid.shape != (p.b, p.s):
                raise OperandError(f"position_ids has shape {pid.shape}: expected ({p.b}, {p.s})")
            positions = np.broadcast_to(pid.flat[0] + np.arange(p.s), (p.b, p.s)) if first else pid
        c, sn = gather(cos, sin, positions)
        q, k = (rotate(t, c[:, None], sn[:, None], bool(rotary_interleaved), platform) for t in (q, k))
    bias = _bias(attention_bias, p, total)
    sink = None if head_sink is None else float32_operand(head_sink, "head_sink").reshape(-1)
    if sink is not None and sink.shape != (p.n,):
        raise OperandError(f"head_sink has {sink.size} values: expected one per query head, {p.n}")
    if quant is not None:  # this step's K and V as codes, each K/V head with its scales
        k, v = (quantize(t, s[None, :, None, :], quant[2]).astype(F32) for t, s in ((k, quant[0]), (v, quant[1])))
    present_k = np.zeros((p.b, p.nkv, plen, p.head), F32)
    present_v = np.zeros_like(present_k)
    for i in range(p.b):
        kept = 0 if first or past is None else int(totals[i]) - p.s
        if past is not None:
            present_k[i, :, :kept], present_v[i, :, :kept] = past[0][i, :, :kept], past[1][i, :, :kept]
        present_k[i, :, kept : kept + p.s], present_v[i, :, kept : kept + p.s] = k[i], v[i]
    alpha = F32(scale) if scale else F32(1) / np.sqrt(F32(p.head))
    flash = with_present and total > 1 and not softcap and not smooth_softmax and sink is None and not qk_output
    l2 = checked_l2(l2_cache_size)
    out = np.empty((p.b, p.s, p.n * p.head), F32)
    qk = np.zeros((p.b, p.n, p.s, total), F32) if qk_output else None
    group = p.n // p.nkv
    with np.errstate(over="ignore", invalid="ignore", divide="ignore"):
        for i in range(p.b):
            t = int(totals[i])
            causal_past = 0 if first else t - p.s
            for h in range(p.n):
                kc, vc = present_k[i, h // group, :t], present_v[i, h // group, :t]
                hb = None if bias is None else bias[i, h, :, :t]
                kernels = None if quant is None else _kernels(kc, vc, quant, h // group, alpha, platform)
                if flash:
                    o = _flash(q[i, h], kc, vc, causal_past, alpha, local_window_size, hb, platform, l2, kernels)
                else:
                    head_sink_h = None if sink is None else sink[h]
                    o, scores = _classic(q[i, h], kc, vc, causal_past, alpha, local_window_size, hb, softcap,
                                         smooth_softmax, head_sink_h, qk_output, platform, kernels)  # fmt: skip
                    if qk is not None:
                        qk[i, h, :, :t] = scores
                out[i, :, h * p.head : (h + 1) * p.head] = o
    if quant is not None:
        present_k, present_v = (pack(c.astype(np.int8), quant[2]) for c in (present_k, present_v))
    return out, present_k, present_v, qk


def _quantization(k_scale, v_scale, k_type, v_type, bits, p, with_present):
    """(K scales, V scales (each (kv heads, 1 or head)), bits) of a quantized cache, or None."""
    if k_scale is None and v_scale is None and k_type == v_type == "NONE":
        return None
    if k_scale is None or v_scale is None or k_type != v_type or k_type not in ("PER_TENSOR", "PER_CHANNEL"):
        raise OperandError(f"k_quant_type={k_type!r}, v_quant_type={v_type!r} with k_scale and v_scale: expected both "
                           "scales and one type, PER_TENSOR or PER_CHANNEL")  # fmt: skip
    if bits not in (4, 8):
        raise OperandError(f"kv_cache_bit_width={bits!r}: expected 4 or 8 with a quantized cache")
    if not with_present:
        raise OperandError("a quantized KV cache without the present outputs: ONNX Runtime requires them")
    per_channel = k_type == "PER_CHANNEL"
    scales = []
    for s, name in ((k_scale, "k_scale"), (v_scale, "v_scale")):
        s = float32_operand(s, name).reshape(-1)
        if s.size != (p.nkv * p.head if per_channel else 1):
            raise OperandError(f"{name} has {s.size} values: expected " + (f"{p.nkv * p.head}, one per channel of "
                               "each K/V head" if per_channel else "one"))  # fmt: skip
        scales.append(s.reshape(p.nkv, p.head) if per_channel else np.broadcast_to(s.reshape(1, 1), (p.nkv, 1)))
    return scales[0], scales[1], int(bits)


def _stored(t, name, bits):
    return tensor(t, name, (np.dtype(np.int8 if bits == 8 else np.uint8),), "int8" if bits == 8 else "uint8")


def _kernels(kc, vc, quant, g, alpha, platform):
    """(scores, accumulate) of the K/V head ``g``'s cache codes ``kc``, ``vc`` through :mod:`.kv_cache`."""
    ks, vs, bits = quant[0][g], quant[1][g], quant[2]
    codes_k, codes_v = kc.astype(np.int8), vc.astype(np.int8)

    def product(rows, k0, n):
        return kv_scores(rows, codes_k[k0 : k0 + n], ks, bits, alpha, platform)

    def accumulate(probs, k0, n, acc):
        return kv_values(probs, codes_v[k0 : k0 + n], vs, bits, platform, acc)

    return product, accumulate


class _Problem:
    """The node's shapes: batch ``b``, length ``s``, heads ``n`` and ``nkv``, ``head`` size; ``packed``."""

    def __init__(self, q, key, value, n, nkv):
        for name, heads in (("num_heads", n), ("kv_num_heads", nkv)):
            if not isinstance(heads, (int, np.integer)) or heads < 1:
                raise OperandError(f"{name}={heads!r}: expected a positive integer")
        if n % nkv:
            raise OperandError(f"num_heads={n} and kv_num_heads={nkv}: expected num_heads a multiple of kv_num_heads")
        if q.ndim != 3:
            raise OperandError(f"query has shape {q.shape}: expected (B, S, hidden)")
        self.b, self.s, d = q.shape
        self.n, self.nkv, self.packed = int(n), int(nkv), key is None and value is None
        width = self.n + 2 * self.nkv if self.packed else self.n
        if d % width:
            raise OperandError(f"query has shape {q.shape}: its last axis must be {width} heads"
                               + (" (Q, K and V packed)" if self.packed else ""))  # fmt: skip
        self.head = d // width
        if not self.packed:
            if key is None or value is None:
                raise OperandError("key and value: expected both, or neither (Q, K and V packed in query)")
            want = (self.b, self.s, self.nkv * self.head)
            self.key, self.value = float32_operand(key, "key"), float32_operand(value, "value")
            if self.key.shape != want or self.value.shape != want:
                raise OperandError(f"key and value have shapes {self.key.shape} and {self.value.shape}: expected "
                                   f"{want} each")  # fmt: skip

    def split(self, q):
        """Q, K and V as (B, heads, S, head)."""

        def heads(x, count):
            return x.reshape(self.b, self.s, count, self.head).transpose(0, 2, 1, 3)

        if self.packed:
            cut = (self.n * self.head, (self.n + self.nkv) * self.head)
            parts = np.split(q, cut, axis=2)
            return heads(parts[0], self.n), heads(parts[1], self.nkv), heads(parts[2], self.nkv)
        return heads(q, self.n), heads(self.key, self.nkv), heads(self.value, self.nkv)


def _past(past_key, past_value, p):
    if past_key is None and past_value is None:
        return None
    if past_key is None or past_value is None:
        raise OperandError("past_key and past_value: expected both or neither")
    pk, pv = float32_operand(past_key, "past_key"), float32_operand(past_value, "past_value")
    if pk.ndim != 4 or pk.shape != pv.shape or pk.shape[:2] != (p.b, p.nkv) or pk.shape[3] != p.head:
        raise OperandError(f"past_key and past_value have shapes {pk.shape} and {pv.shape}: expected "
                           f"({p.b}, {p.nkv}, P, {p.head}) each")  # fmt: skip
    return pk, pv


def _lengths(seqlens_k, total_sequence_length, p, past):
    """(each batch's total, the node's total, first prompt?, present length)."""
    seqlens = tensor(seqlens_k, "seqlens_k", (np.dtype(np.int32),), "int32").reshape(-1)
    total = int(tensor(total_sequence_length, "total_sequence_length", (np.dtype(np.int32),), "int32").reshape(-1)[0])
    if seqlens.shape != (p.b,):
        raise OperandError(f"seqlens_k has {seqlens.size} values: expected one per batch, {p.b}")
    buffer = 0 if past is None else past[0].shape[2]
    if past is not None and total != buffer + p.s and total > buffer:
        raise OperandError(f"total_sequence_length={total} with a past of {buffer} rows and {p.s} new: expected "
                           f"{buffer + p.s} (a dynamic cache) or at most {buffer} (a static one)")  # fmt: skip
    first = total == p.s
    totals = seqlens.astype(np.int64) + 1
    low = 1 if first else p.s
    bad = (totals < low) | (totals > total)
    if bad.any():
        raise OperandError(f"seqlens_k={seqlens.tolist()}: expected each plus 1 in [{low}, {total}] "
                           "(the batch's total length)")  # fmt: skip
    if first and past is not None and total != buffer + p.s:
        raise OperandError("a first prompt with a static cache: not modelled; expected a past of length "
                           f"total_sequence_length - S = {total - p.s}")  # fmt: skip
    return totals, total, first, max(buffer, total)


def _bias(attention_bias, p, total):
    if attention_bias is None:
        return None
    bias = float32_operand(attention_bias, "attention_bias")
    shape = bias.shape
    if len(shape) != 4 or shape[0] not in (1, p.b) or shape[1] not in (1, p.n) or shape[2:] != (p.s, total):
        raise OperandError(f"attention_bias has shape {shape}: expected (1 or {p.b}, 1 or {p.n}, {p.s}, {total})")
    return np.broadcast_to(bias, (p.b, p.n, p.s, total))


def _decode_scores(q, k, alpha, fused):
    """The one-row scores: 8 lanes over the head, their pairwise sum, the rest in order, times alpha."""
    full = q.size // 8 * 8
    acc = np.zeros((k.shape[0], 8), F32)
    for h in range(0, full, 8):
        prod = q[h : h + 8][None, :]
        acc = fma32(prod, k[:, h : h + 8], acc) if fused else (acc + (prod * k[:, h : h + 8]).astype(F32)).astype(F32)
    pairs = [(acc[:, j] + acc[:, j + 1]).astype(F32) for j in range(0, 8, 2)]
    s = (((pairs[0] + pairs[1]).astype(F32)) + ((pairs[2] + pairs[3]).astype(F32))).astype(F32)
    for h in range(full, q.size):
        s = fma32(q[h], k[:, h], s) if fused else (s + (q[h] * k[:, h]).astype(F32)).astype(F32)
    return (s * alpha).astype(F32)


def _flash(q, k, v, past, alpha, window, bias, platform, l2, kernels=None):
    """One (batch, head) of MLAS's GQA flash kernel (module docstring): (S, head); ``kernels``: a quantized
    cache's (whose flash kernel takes one query row as it takes several)."""
    s, head = q.shape
    t = k.shape[0]
    fused = platform.startswith("arm")
    if s == 1 and kernels is None:
        scores = _decode_scores(q[0], k, alpha, fused)
        if bias is not None:
            scores = (scores + bias[0]).astype(F32)
        if window >= 0 and t > window:
            scores[: t - window] = LOWEST
        e, total = sum_exp((scores + -scores.max()).astype(F32), platform)
        acc = np.zeros(head, F32)
        for j in range(t):
            acc = fma32(e[j], v[j], acc) if fused else (acc + (e[j] * v[j]).astype(F32)).astype(F32)
        return (acc * (F32(1) / total)).astype(F32)[None, :]
    q_block, kv_block = blocks(l2, 2 * head, t, s)
    return attend(q, k, v, alpha, q_block, kv_block, platform, past=past, window=window, bias=bias, kernels=kernels)


def _classic(q, k, v, past, alpha, window, bias, softcap, smooth, sink, qk_output, platform, kernels=None):
    """One (batch, head) of ONNX Runtime's GQA without the flash kernel: (output (S, head), the qk rows);
    ``kernels``: a quantized cache's."""
    s, t = q.shape[0], k.shape[0]
    if kernels is None:
        scores = gemm2d(q, k.T, alpha=alpha, trans_b=True, platform=platform)
    else:
        scores = kernels[0](q, 0, t)
    probs = np.zeros_like(scores)
    before = np.zeros_like(scores)
    for r in range(s):
        end = min(past + r + 1, t)
        start = end - window if 0 <= window < end else 0
        row = scores[r, start:end]
        if softcap:
            cap = F32(softcap)
            row = (tanhf((row / cap).astype(F32), fused=platform.startswith("arm")) * cap).astype(F32)
        if bias is not None:
            row = (row + bias[r, start:end]).astype(F32)
        before[r, start:end] = row
        if smooth or sink is not None:
            probs[r, start:end] = _smooth(row, F32(0) if sink is None else sink, platform)
        else:
            probs[r, start:end] = softmax_rows(row[None, :], platform)[0]
    out = gemm2d(probs, v, platform=platform) if kernels is None else kernels[1](probs, 0, t, None)
    return out, (before if qk_output == 1 else probs)


def _smooth(row, sink, platform):
    """MLAS's softmax with a sink: the max over the row and the sink, ``exp(sink - max)`` added to the sum."""
    top = max(row.max(), sink)
    e, total = sum_exp((row + -top).astype(F32), platform)
    total = (total + expf(np.array([sink - top], F32))[0]).astype(F32)
    return (e * (F32(1) / total)).astype(F32)
