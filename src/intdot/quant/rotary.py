"""ONNX Runtime's float32 rotary position embedding (``com.microsoft`` RotaryEmbedding, and the rotation inside
GroupQueryAttention) on the CPU, bit for bit.

Each row of ``rotary_dim`` values is split into pairs (its two halves, or with ``interleaved`` its even and odd
positions), ``a`` and ``b``, and each pair turned by the angle its position's ``cos`` and ``sin`` cache rows hold:
``a cos - b sin`` and ``b cos + a sin``.  MLAS computes each with one product rounded and one fused multiply-add,
and the two CPUs pair them differently (found by probing ONNX Runtime 1.32 at every head size to 48):

- x86 (AVX2 and FMA3, so also AVX-512 CPUs): ``fma(a, cos, -(b sin))`` and ``fma(a, sin, b cos)``; interleaved,
  the pairs past the last whole 8 after the first of them with each product rounded and then added;
- Arm: ``fma(-b, sin, a cos)`` and ``fma(b, cos, a sin)`` in whole vectors of 4 pairs, the pairs past them as x86.

Values past ``rotary_dim`` in a head are copied unchanged.  Checked against ONNX Runtime 1.32 on x86 and for
AArch64 in ``tests/quant/test_group_query_attention.py``.
"""

from __future__ import annotations

import numpy as np

from ..core.errors import OperandError
from ._args import float32_operand, tensor
from .fma import fma32

F32 = np.float32


def rotate(x, cos, sin, interleaved: bool = False, platform: str = "x86") -> np.ndarray:
    """Rows ``x`` (..., head) turned by ``cos`` and ``sin`` (..., rotary_dim / 2), broadcast against ``x``'s
    leading axes; the values of each row past ``rotary_dim`` kept as they are."""
    x = np.asarray(x, F32)
    half = cos.shape[-1]
    dim = 2 * half
    rows = x[..., :dim]
    a, b = (rows[..., 0::2], rows[..., 1::2]) if interleaved else (rows[..., :half], rows[..., half:])
    with np.errstate(over="ignore", invalid="ignore"):
        first = fma32(a, cos, (-(b * sin)).astype(F32))  # x86's pairing, and every kernel's tail but x86's below
        second = fma32(a, sin, (b * cos).astype(F32))
        if platform.startswith("arm"):  # NEON: whole vectors of 4 pairs
            full = half // 4 * 4
            first[..., :full] = fma32(-b[..., :full], sin[..., :full], (a * cos)[..., :full].astype(F32))
            second[..., :full] = fma32(b[..., :full], cos[..., :full], (a * sin)[..., :full].astype(F32))
        elif interleaved:  # AVX2, interleaved: past the whole vectors of 8 pairs, the second pair on rounded apart
            rest = half // 8 * 8 + 1
            first[..., rest:] = ((a * cos).astype(F32) - (b * sin).astype(F32))[..., rest:]
            second[..., rest:] = ((b * cos).astype(F32) + (a * sin).astype(F32))[..., rest:]
    out = x.copy()
    if interleaved:
        out[..., 0:dim:2], out[..., 1:dim:2] = first, second
    else:
        out[..., :half], out[..., half:dim] = first, second
    return out


def caches(cos_cache, sin_cache, head: int) -> tuple[np.ndarray, np.ndarray]:
    """The two caches (positions, rotary_dim / 2), checked against each other and the head size."""
    cos = float32_operand(cos_cache, "cos_cache")
    sin = float32_operand(sin_cache, "sin_cache")
    if cos.ndim != 2 or cos.shape != sin.shape or not 0 < 2 * cos.shape[1] <= head:
        raise OperandError(f"cos_cache and sin_cache have shapes {cos.shape} and {sin.shape}: expected the same "
                           f"(max positions, rotary_dim / 2) with rotary_dim at most the head size {head}")  # fmt: skip
    return cos, sin


def gather(cos, sin, positions) -> tuple[np.ndarray, np.ndarray]:
    """The cache rows at ``positions`` (any shape), each checked to lie in the caches."""
    positions = np.asarray(positions, np.int64)
    bad = (positions < 0) | (positions >= cos.shape[0])
    if bad.any():
        raise OperandError(f"position {int(positions[bad][0])} lies outside the rotary caches' {cos.shape[0]} "
                           "positions")  # fmt: skip
    return cos[positions], sin[positions]


def rotary_embedding(x, position_ids, cos_cache, sin_cache, *, num_heads: int = 0, rotary_embedding_dim: int = 0,
                     interleaved: int = 0, platform: str = "x86") -> np.ndarray:  # fmt: skip
    """``com.microsoft`` RotaryEmbedding: ``x`` (B, S, hidden) or (B, N, S, head); ``position_ids`` (B, S), or one
    value, the first position (row ``s`` then at ``position_ids[0] + s``); the caches (max positions,
    rotary_dim / 2).  ``num_heads`` splits a 3-D ``x`` where the caches do not give the head size."""
    x = float32_operand(x, "input")
    pos = tensor(position_ids, "position_ids", (np.dtype(np.int64),), "int64")
    if x.ndim not in (3, 4):
        raise OperandError(f"input has shape {x.shape}: expected (B, S, hidden) or (B, N, S, head)")
    b, s = x.shape[0], x.shape[-2] if x.ndim == 4 else x.shape[1]
    cos0 = float32_operand(cos_cache, "cos_cache")
    if x.ndim == 4:
        head = x.shape[3]
    else:
        heads = num_heads or (x.shape[2] // (2 * cos0.shape[-1]) if cos0.ndim == 2 and cos0.shape[-1] else 0)
        if not heads or x.shape[2] % heads:
            raise OperandError(f"num_heads={num_heads!r}: expected a positive divisor of the hidden size "
                               f"{x.shape[2]} (needed where rotary_embedding_dim is given)")  # fmt: skip
        head = x.shape[2] // heads
    cos, sin = caches(cos_cache, sin_cache, head)
    if rotary_embedding_dim and rotary_embedding_dim != 2 * cos.shape[1]:
        raise OperandError(f"rotary_embedding_dim={rotary_embedding_dim}: expected twice the caches' "
                           f"{cos.shape[1]} columns")  # fmt: skip
    if pos.shape == (b, s):
        positions = pos
    elif pos.size == 1:
        positions = np.broadcast_to(pos.reshape(()) + np.arange(s), (b, s))
    else:
        raise OperandError(f"position_ids has shape {pos.shape}: expected ({b}, {s}) or one value")
    c, sn = gather(cos, sin, positions)  # (B, S, half)
    if x.ndim == 4:
        return rotate(x, c[:, None], sn[:, None], bool(interleaved), platform)
    rows = x.reshape(b, s, -1, head)
    return rotate(rows, c[:, :, None], sn[:, :, None], bool(interleaved), platform).reshape(x.shape)


def onnx_rotary_embedding(x, cos_cache, sin_cache, position_ids=None, *, num_heads: int = 0,
                          rotary_embedding_dim: int = 0, interleaved: int = 0,
                          platform: str = "x86") -> np.ndarray:  # fmt: skip
    """ONNX's RotaryEmbedding (opset 23) as ONNX Runtime computes it: ``x`` (B, N, S, head) or (B, S, hidden) with
    ``num_heads``; the caches (max positions, rotary_dim / 2) read at ``position_ids`` (B, S), or without them
    (B, S, rotary_dim / 2) as they are; the first ``rotary_embedding_dim`` values of each head turned (all where
    0), the rest kept."""
    x = float32_operand(x, "X")
    if x.ndim not in (3, 4):
        raise OperandError(f"X has shape {x.shape}: expected (B, N, S, head) or (B, S, hidden)")
    b, s = x.shape[0], x.shape[2] if x.ndim == 4 else x.shape[1]
    if x.ndim == 3 and (not num_heads or x.shape[2] % num_heads):
        raise OperandError(f"num_heads={num_heads!r}: expected a positive divisor of X's hidden size {x.shape[2]} "
                           "(required for a 3-D X)")  # fmt: skip
    head = x.shape[3] if x.ndim == 4 else x.shape[2] // num_heads
    cos, sin = float32_operand(cos_cache, "cos_cache"), float32_operand(sin_cache, "sin_cache")
    dim = rotary_embedding_dim or head
    if dim % 2 or dim > head:
        raise OperandError(f"rotary_embedding_dim={rotary_embedding_dim}: expected an even number up to the head "
                           f"size {head} (0: all of it)")  # fmt: skip
    if position_ids is None:
        if cos.shape != (b, s, dim // 2) or sin.shape != cos.shape:
            raise OperandError(f"cos_cache and sin_cache have shapes {cos.shape} and {sin.shape}: expected "
                               f"({b}, {s}, {dim // 2}) each without position_ids")  # fmt: skip
        c, sn = cos, sin
    else:
        pos = tensor(position_ids, "position_ids", (np.dtype(np.int64),), "int64")
        if pos.shape != (b, s):
            raise OperandError(f"position_ids has shape {pos.shape}: expected ({b}, {s})")
        if cos.ndim != 2 or cos.shape[1] != dim // 2 or sin.shape != cos.shape:
            raise OperandError(f"cos_cache and sin_cache have shapes {cos.shape} and {sin.shape}: expected "
                               f"(max positions, {dim // 2}) each with position_ids")  # fmt: skip
        c, sn = gather(cos, sin, pos)
    if x.ndim == 4:
        return rotate(x, c[:, None], sn[:, None], bool(interleaved), platform)
    rows = x.reshape(b, s, num_heads, head)
    return rotate(rows, c[:, :, None], sn[:, :, None], bool(interleaved), platform).reshape(x.shape)
