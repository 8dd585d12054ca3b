"""GroupQueryAttention's quantized KV cache (``k_scale``, ``v_scale``; ``kv_cache_bit_width`` 8 or 4) as ONNX
Runtime 1.32 computes it on the CPU, bit for bit.

Each new K and V row is quantized with its scale (one for the tensor, or one per channel of each K/V head):
``rint(x * (1 / scale))`` in float32, clamped to int8 (-128..127) or int4 (-8..7); int4 codes are stored two a
byte, ``code + 8`` in the low nibble for even channels.  The cache holds the codes; attention reads them through
MLAS's quantized-cache kernels, which dequantize on the fly (``float(code) * scale``, rounded) and add in float32:

- Q K^T (:func:`scores`), per query row and key: on x86 with AVX-512 16 lanes and two accumulators (chunks of 32,
  a chunk of 16 left into the first), their sum reduced by halves; with ``platform="x86-avx2"`` 8 lanes and two
  accumulators (chunks of 16), reduced as ``_mm_hadd_ps`` twice; each lane one fused multiply-add per element, the
  elements past the vectors one after the other; int8 per-tensor codes are multiplied unscaled and the sum times
  the scale at the end.  On Arm the key row is dequantized first (per-tensor too), 4 accumulators of 4 lanes over
  chunks of 16 (a chunk of 4 left into the first), ``(0 + 1) + (2 + 3)``, then ``vaddvq``.  Then times the
  attention's scale.  x86's AVX-512 kernel takes the elements past its vectors (a head of 24 or 40) one at a time,
  each product rounded and added, except int4 per-tensor, whose ``a * code * scale`` its compiler fuses (probed).
- P V (:func:`values`): for each key in order, each output ``fma(p, v, out)`` with ``v`` the dequantized value (the
  per-tensor kernels, x86's for int8 and NEON's for both widths, add unscaled codes and multiply the row by the
  scale at the end; the flash kernel calls them accumulating, where x86's scale ``p`` instead and NEON's
  dequantize).

Checked against ONNX Runtime 1.32 in ``tests/quant/test_group_query_attention.py``.
"""

from __future__ import annotations

import numpy as np

from .fma import fma32
from .nbits_int8 import halves

F32 = np.float32


def quantize(x, scale, bits: int) -> np.ndarray:
    """Codes (int8) of ``x`` (..., head) for ``scale`` (1 or head values, broadcast over the last axis)."""
    scale = np.asarray(scale, F32)
    inverse = np.where(scale != 0, F32(1) / np.where(scale != 0, scale, 1), F32(1)).astype(F32)
    low, high = (-128, 127) if bits == 8 else (-8, 7)
    with np.errstate(over="ignore", invalid="ignore"):
        return np.clip(np.rint((x * inverse).astype(F32)), low, high).astype(np.int8)


def pack(codes, bits: int) -> np.ndarray:
    """The cache as ONNX Runtime stores it: int8 codes as they are, int4 codes two a byte (uint8)."""
    if bits == 8:
        return codes.astype(np.int8)
    biased = (codes.astype(np.int16) + 8).astype(np.uint8) & 0x0F
    if biased.shape[-1] % 2:
        biased = np.concatenate([biased, np.zeros(biased.shape[:-1] + (1,), np.uint8)], -1)
    return (biased[..., 0::2] | (biased[..., 1::2] << 4)).astype(np.uint8)


def unpack(stored, bits: int, head: int) -> np.ndarray:
    """Codes (int8, ..., head) of a stored cache."""
    if bits == 8:
        return np.asarray(stored).astype(np.int8)
    stored = np.asarray(stored, np.uint8)
    codes = np.empty(stored.shape[:-1] + (2 * stored.shape[-1],), np.int16)
    codes[..., 0::2], codes[..., 1::2] = stored & 0x0F, stored >> 4
    return (codes[..., :head] - 8).astype(np.int8)


def _dequantized(codes, scale) -> np.ndarray:
    return (codes.astype(F32) * np.asarray(scale, F32)).astype(F32)


def _deferred(bits, per_channel, platform) -> bool:
    """Whether the kernel adds unscaled int8 codes and scales once (x86's int8 per-tensor kernels)."""
    return bits == 8 and not per_channel and not platform.startswith("arm")


def scores(q, codes, scale, bits: int, alpha, platform: str = "x86") -> np.ndarray:
    """``alpha * Q K^T`` (M, N) of ``q`` (M, head) float32 and the key ``codes`` (N, head), as MLAS's quantized-cache
    QK kernel adds it on ``platform`` (module docstring)."""
    scale = np.asarray(scale, F32)
    per_channel = scale.size > 1
    m, head = q.shape
    q3 = q[:, None, :]
    with np.errstate(over="ignore", invalid="ignore"):
        if platform.startswith("arm"):
            k = _dequantized(codes, scale)[None]
            acc = np.zeros((4, m, codes.shape[0], 4), F32)
            done = head // 16 * 16
            for c in range(0, done, 16):
                for i in range(4):
                    acc[i] = fma32(q3[..., c + 4 * i : c + 4 * i + 4], k[..., c + 4 * i : c + 4 * i + 4], acc[i])
            while done + 4 <= head:
                acc[0] = fma32(q3[..., done : done + 4], k[..., done : done + 4], acc[0])
                done += 4
            lanes = ((acc[0] + acc[1]).astype(F32) + (acc[2] + acc[3]).astype(F32)).astype(F32)
            dot = (lanes[..., 0] + lanes[..., 1]).astype(F32) + (lanes[..., 2] + lanes[..., 3]).astype(F32)
            dot = dot.astype(F32)
            for j in range(done, head):
                dot = fma32(q3[..., j], k[..., j], dot)
            return (F32(alpha) * dot).astype(F32)
        deferred = _deferred(bits, per_channel, platform)
        k = (codes.astype(F32) if deferred else _dequantized(codes, scale))[None]
        width = 16 if platform == "x86" else 8
        acc = np.zeros((2, m, codes.shape[0], width), F32)
        done = head // (2 * width) * (2 * width)
        for c in range(0, done, 2 * width):
            for i in range(2):
                part = slice(c + width * i, c + width * (i + 1))
                acc[i] = fma32(q3[..., part], k[..., part], acc[i])
        if done + width <= head:
            part = slice(done, done + width)
            acc[0] = fma32(q3[..., part], k[..., part], acc[0])
            done += width
        lanes = (acc[0] + acc[1]).astype(F32)
        if width == 16:
            dot = halves(lanes)
        else:
            four = (lanes[..., :4] + lanes[..., 4:]).astype(F32)
            dot = (four[..., 0] + four[..., 1]).astype(F32) + (four[..., 2] + four[..., 3]).astype(F32)
            dot = dot.astype(F32)
        for j in range(done, head):  # C's ``dot += a * b (* s)``, as 1.32's build compiles each (found by probing)
            product = (q3[..., j] * codes[None, :, j].astype(F32)).astype(F32)
            s = scale.reshape(-1)[j if per_channel else 0]
            if deferred:
                dot = (dot + product).astype(F32)
            elif bits == 4 and not per_channel:  # the one tail its compiler fuses
                dot = fma32(product, s, dot)
            else:
                dot = (dot + (product * s).astype(F32)).astype(F32)
        if deferred:
            dot = (dot * scale.reshape(-1)[0]).astype(F32)
        return (F32(alpha) * dot).astype(F32)


def values(p, codes, scale, bits: int, platform: str = "x86", acc=None) -> np.ndarray:
    """``P V`` (M, head) of ``p`` (M, K) and the value ``codes`` (K, head), as MLAS's quantized-cache SV kernel adds
    it (module docstring); ``acc``: the flash kernel's running output, added to (None: from zero)."""
    scale = np.asarray(scale, F32)
    per_channel = scale.size > 1
    deferred = _deferred(bits, per_channel, platform)
    if platform.startswith("arm") and not per_channel:  # NEON's per-tensor kernel from zero (probed) scales once
        deferred = acc is None
    flat = scale.reshape(-1)[0]
    out = np.zeros((p.shape[0], codes.shape[1]), F32) if acc is None else np.array(acc, F32)
    with np.errstate(over="ignore", invalid="ignore"):
        if deferred and acc is not None:  # accumulating: the scale folded into each probability
            v, weights = codes.astype(F32), (p * flat).astype(F32)
        else:
            v, weights = (codes.astype(F32) if deferred else _dequantized(codes, scale)), p
        vector = codes.shape[1] // {"x86": 16}.get(platform, 1) * {"x86": 16}.get(platform, 1)
        raw = codes.astype(F32)
        for j in range(codes.shape[0]):
            out[:, :vector] = fma32(weights[:, j : j + 1], v[None, j, :vector], out[:, :vector])
            if vector < codes.shape[1]:  # x86's columns past the vectors: C's ``c += a * b * s``
                tail = slice(vector, None)
                if deferred:
                    out[:, tail] = fma32(weights[:, j : j + 1], v[None, j, tail], out[:, tail])
                else:
                    s = scale.reshape(-1)[tail] if per_channel else flat
                    out[:, tail] = fma32((p[:, j : j + 1] * raw[None, j, tail]).astype(F32), s, out[:, tail])
        if deferred and acc is None:
            out = (out * flat).astype(F32)
    return out
