"""ONNX's Attention (opset 23 and 24) as ONNX Runtime's CPU kernel computes it in float32, bit for bit: the
attention node that exporters write for a transformer's attention from opset 23 on.

Q (B, heads, S, head) and K, V (B, kv_heads, L, head and v_head), or 3-D (B, S, heads * head) with ``q_num_heads``
and ``kv_num_heads``; query head ``h`` reads K/V head ``h * kv_heads // heads``.  A past K and V (B, kv_heads, P,
...) come first, T = P + L; ``present_key`` and ``present_value`` are the two together.

Per (batch, head): the scores ``scale * Q K^T`` by MLAS's SGEMM (:func:`.sgemm.gemm2d`; ``scale`` by default
``1 / sqrt(head)`` computed in double, then rounded), starting from the mask where there is one and no softcap (each
block of K scaled and fused in, as the kernel folds the mask into the SGEMM); with ``softcap`` the scores capped by
glibc's ``tanhf(x / softcap) * softcap`` (:mod:`.tanhf`) and the mask then added; ``nonpad_kv_seqlen`` (opset 24)
setting each batch's keys from its length on to the lowest float32; then MLAS's softmax over the T keys
(:func:`.float_kernels.softmax_rows`; a row masked whole gives zeros, found by probing) and times V by the SGEMM.

The mask: ``attn_mask`` (S, T), (heads or 1, S, T) or (B or 1, heads or 1, S, T), bool (False: the lowest float32)
or float32 (added); ``is_causal`` (where S > 1) sets key ``t > P + s`` of row ``s`` to the lowest float32 on top.
``qk_matmul_output_mode`` 0-3: the scores as computed, after softcap, after the mask, after softmax.
Checked against ONNX Runtime 1.32 on x86 and for AArch64 in ``tests/quant/test_onnx_attention.py``.
"""

from __future__ import annotations

import numpy as np

from ..core.errors import OperandError
from ._args import float32_operand, tensor
from .float_kernels import softmax_rows
from .sgemm import gemm2d
from .tanhf import tanhf

F32 = np.float32
LOWEST = np.finfo(F32).min


def attention(q, k, v, attn_mask=None, past_key=None, past_value=None, nonpad_kv_seqlen=None, *, is_causal=0,
              scale=None, softcap=0.0, q_num_heads=0, kv_num_heads=0, qk_matmul_output_mode=0, with_qk=False,
              platform="x86"):  # fmt: skip
    """``(Y, present_key, present_value, qk)`` of ONNX's Attention as ONNX Runtime computes it (module docstring);
    ``qk`` None unless ``with_qk``."""
    q, k, v = (float32_operand(t, n) for t, n in ((q, "Q"), (k, "K"), (v, "V")))
    three_d = q.ndim == 3
    q4, k4, v4 = _heads(q, k, v, q_num_heads, kv_num_heads)
    b, n, s, head = q4.shape
    nkv = k4.shape[1]
    if past_key is not None or past_value is not None:
        if past_key is None or past_value is None:
            raise OperandError("past_key and past_value: expected both or neither")
        pk, pv = float32_operand(past_key, "past_key"), float32_operand(past_value, "past_value")
        if pk.shape[:2] != (b, nkv) or pk.shape[3:] != (head,) or pv.shape != pk.shape[:3] + (v4.shape[3],):
            raise OperandError(f"past_key and past_value have shapes {pk.shape} and {pv.shape}: expected ({b}, "
                               f"{nkv}, P, {head}) and ({b}, {nkv}, P, {v4.shape[3]})")  # fmt: skip
        k4, v4 = np.concatenate([pk, k4], axis=2), np.concatenate([pv, v4], axis=2)
    past = k4.shape[2] - k.shape[-2 if not three_d else 1]
    t = k4.shape[2]
    mask = _mask(attn_mask, b, n, s, t, past, bool(is_causal) and s > 1)
    lengths = None
    if nonpad_kv_seqlen is not None:
        lengths = tensor(nonpad_kv_seqlen, "nonpad_kv_seqlen", (np.dtype(np.int64),), "int64").reshape(-1)
        if lengths.shape != (b,) or (lengths < 0).any() or (lengths > t).any():
            raise OperandError(f"nonpad_kv_seqlen={lengths.tolist()}: expected one length per batch in [0, {t}]")
    alpha = F32(1 / np.sqrt(float(head))) if scale is None else F32(scale)  # in double, then rounded
    mode = int(qk_matmul_output_mode)
    fold = mask is not None and not softcap and not (with_qk and mode in (0, 1))
    out = np.empty((b, n, s, v4.shape[3]), F32)
    qk = np.empty((b, n, s, t), F32) if with_qk else None
    with np.errstate(over="ignore", invalid="ignore"):
        for i in range(b):
            for h in range(n):
                g = h * nkv // n
                m = None if mask is None else mask[i, h]
                scores = gemm2d(q4[i, h], k4[i, g].T, m if fold else None, alpha=alpha, trans_b=True,
                                platform=platform)  # fmt: skip
                snapshots = {0: scores.copy()} if with_qk else {}
                if softcap:
                    cap = F32(softcap)
                    scores = (tanhf((scores / cap).astype(F32), fused=platform.startswith("arm")) * cap).astype(F32)
                snapshots[1] = scores.copy() if with_qk else None
                if m is not None and not fold:
                    scores = (scores + m).astype(F32)
                if lengths is not None:
                    scores[:, int(lengths[i]) :] = LOWEST
                snapshots[2] = scores
                probs = softmax_rows(scores, platform)
                probs[scores.max(axis=1) <= LOWEST] = 0  # a row masked whole: zeros (ONNX Runtime 1.32's choice)
                snapshots[3] = probs
                if with_qk:
                    qk[i, h] = snapshots[mode]
                out[i, h] = gemm2d(probs, v4[i, g], platform=platform)
    if three_d:
        out = out.transpose(0, 2, 1, 3).reshape(b, s, -1)
    return out, k4, v4, qk


def _heads(q, k, v, q_num_heads, kv_num_heads):
    """Q, K and V as (B, heads, rows, head), checked."""
    if q.ndim == 3:
        if not q_num_heads or not kv_num_heads or q.shape[2] % q_num_heads:
            raise OperandError(f"q_num_heads={q_num_heads!r} and kv_num_heads={kv_num_heads!r}: expected both, "
                               f"q_num_heads dividing Q's {q.shape[2]} (3-D Q, K and V)")  # fmt: skip
        if k.ndim != 3 or v.ndim != 3 or k.shape[2] % kv_num_heads or v.shape[2] % kv_num_heads:
            raise OperandError(f"K and V have shapes {k.shape} and {v.shape}: expected (B, L, kv_num_heads * head)")
        split = [t.reshape(t.shape[0], t.shape[1], heads, -1).transpose(0, 2, 1, 3)
                 for t, heads in ((q, q_num_heads), (k, kv_num_heads), (v, kv_num_heads))]  # fmt: skip
    elif q.ndim == 4 and k.ndim == 4 and v.ndim == 4:
        split = [q, k, v]
    else:
        raise OperandError(f"Q, K and V have shapes {q.shape}, {k.shape} and {v.shape}: expected all 3-D or all 4-D")
    q4, k4, v4 = split
    b, n, _, head = q4.shape
    if k4.shape[0] != b or v4.shape[:3] != k4.shape[:3] or k4.shape[3] != head or n % k4.shape[1]:
        raise OperandError(f"Q, K and V have shapes {q.shape}, {k.shape} and {v.shape}: expected one batch, K's "
                           "head size Q's, V's rows K's, and Q's heads a multiple of K's")  # fmt: skip
    return q4, k4, v4


def _mask(attn_mask, b, n, s, t, past, causal):
    """(B, heads, S, T) float32 to add (None without a mask or causality)."""
    if attn_mask is None and not causal:
        return None
    mask = np.zeros((b, n, s, t), F32)
    if attn_mask is not None:
        m = np.asarray(attn_mask)
        if m.dtype not in (np.bool_, np.float32):
            raise OperandError(f"attn_mask has dtype {m.dtype}: expected bool or float32 (the input's type)")
        shape = m.shape
        full = (1,) * (4 - m.ndim) + shape if m.ndim <= 4 else shape
        if m.ndim < 2 or m.ndim > 4 or full[2:] != (s, t) or full[0] not in (1, b) or full[1] not in (1, n):
            raise OperandError(f"attn_mask has shape {shape}: expected (S, T), (heads or 1, S, T) or (B or 1, heads "
                               f"or 1, S, T) with S = {s}, T = {t}")  # fmt: skip
        values = np.where(m, F32(0), LOWEST) if m.dtype == np.bool_ else m.astype(F32)
        mask[:] = values.reshape(full)
    if causal:
        later = np.arange(t)[None, :] > past + np.arange(s)[:, None]
        mask[:, :, later] = LOWEST
    return mask
