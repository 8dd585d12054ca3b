"""ONNX Runtime's ``com.microsoft`` EmbedLayerNormalization on the CPU (float32), bit for bit: a BERT model's
embeddings as its transformer optimizer writes them, one node.

For each token: the word embedding of its id plus the position embedding of its position (its ``position_ids``
entry where given, else its index in the sequence), plus its segment's embedding where there are segments, added in
that order in float32 (the ``embedding_sum`` output); then a layer norm over the hidden axis in two passes: the mean
(the sum in order, over ``H``), ``d = v - mean``, the squares of ``d`` summed in order, ``e = sqrt(sum / H +
epsilon)``, ``y = (d / e) * gamma + beta``.  On Arm (its build fuses multiply-adds) the last step is one fused
multiply-add, and the squares' sum rounds the first ``4 * (H // 4)`` squares (a NEON multiply) and fuses the rest.
``mask_index`` counts each row's mask entries equal to 1 (zeros without a mask).  Read from ONNX Runtime 1.32 and
checked against it on x86 and for AArch64 in ``tests/quant/test_embed_layer_norm.py``.
"""

from __future__ import annotations

import numpy as np

from ..core.errors import OperandError, OperandTypeError
from ._args import float32_operand, float_platform
from .fma import fma32
from .layer_norm import square_sums

F32 = np.float32
DEFAULT_EPSILON = 1e-12


def embed_layer_norm(input_ids, word, position, gamma, beta, segment_ids=None, segment=None, mask=None,
                     position_ids=None, epsilon: float = DEFAULT_EPSILON, platform: str = "x86") -> tuple:  # fmt: skip
    """``(output, mask_index, embedding_sum)`` of ONNX Runtime's EmbedLayerNormalization (module docstring):
    ``input_ids`` (and ``segment_ids``, ``mask``, ``position_ids``) int32 of shape (batch, sequence); the embedding
    tables float32 of shape (rows, hidden); ``gamma`` and ``beta`` of the hidden size."""
    arm = float_platform(platform).startswith("arm")
    ids = _ids(input_ids, "input_ids")
    if ids.ndim != 2:
        raise OperandError(f"input_ids.shape={ids.shape}: expected (batch, sequence)")
    b, s = ids.shape
    tables = {"word_embedding": word, "position_embedding": position}
    if (segment_ids is None) != (segment is None):
        raise OperandError("segment_ids and segment_embedding: expected both or neither")
    if segment is not None:
        tables["segment_embedding"] = segment
    tables = {k: float32_operand(v, k) for k, v in tables.items()}
    h = tables["word_embedding"].shape[-1]
    for name, t in tables.items():
        if t.ndim != 2 or t.shape[1] != h:
            raise OperandError(f"{name}.shape={t.shape}: expected (rows, {h}), the word embedding's width")
    gamma, beta = (float32_operand(v, k) for v, k in ((gamma, "gamma"), (beta, "beta")))
    for name, v in (("gamma", gamma), ("beta", beta)):
        if v.shape != (h,):
            raise OperandError(f"{name}.shape={v.shape}; expected ({h},)")
    positions = np.broadcast_to(np.arange(s), (b, s)) if position_ids is None else _rows(position_ids, "position_ids",
                                                                                          b, s)  # fmt: skip
    lookups = [(tables["word_embedding"], ids, "input_ids"), (tables["position_embedding"], positions, "position_ids")]
    if segment is not None:
        lookups.append((tables["segment_embedding"], _rows(segment_ids, "segment_ids", b, s), "segment_ids"))
    for table, index, name in lookups:
        if index.size and (index.min() < 0 or index.max() >= len(table)):
            raise OperandError(f"{name} holds {int(index.min())}..{int(index.max())}; expected 0..{len(table) - 1}")
    with np.errstate(all="ignore"):
        total = lookups[0][0][lookups[0][1]]
        for table, index, _ in lookups[1:]:
            total = (total + table[index]).astype(F32)
        y = _normalize(total.reshape(-1, h), gamma, beta, F32(epsilon), arm).reshape(b, s, h)
    mask_index = np.zeros(b, np.int32) if mask is None else (_rows(mask, "mask", b, s) == 1).sum(axis=1)
    return y, mask_index.astype(np.int32), total


def _normalize(v, gamma, beta, eps, arm):
    rows, h = v.shape
    total = np.zeros(rows, F32)
    for j in range(h):
        total = (total + v[:, j]).astype(F32)
    d = (v - (total / F32(h)).astype(F32)[:, None]).astype(F32)
    q = square_sums(d, 4 * (h // 4) if arm else h)  # Arm: a NEON multiply for the first squares, fused ones after
    e = np.sqrt(((q / F32(h)).astype(F32) + eps).astype(F32)).astype(F32)
    t = (d / e[:, None]).astype(F32)
    return fma32(t, gamma, beta) if arm else ((t * gamma).astype(F32) + beta).astype(F32)


def _ids(v, name) -> np.ndarray:
    v = np.asarray(v)
    if v.dtype != np.int32:
        raise OperandTypeError(f"{name} has dtype {v.dtype}; ONNX Runtime's kernel takes int32")
    return v


def _rows(v, name, b, s) -> np.ndarray:
    v = _ids(v, name)
    if v.shape not in ((b, s), (1, s)):
        raise OperandError(f"{name}.shape={v.shape}; expected ({b}, {s}) as input_ids (or (1, {s}))")
    return np.broadcast_to(v, (b, s))
