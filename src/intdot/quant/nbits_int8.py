"""MatMulNBits with ``accuracy_level=4`` as ONNX Runtime 1.32 computes it on x86 (MLAS's CompInt8 kernels for
AVX-512 and for AVX2), bit for bit: A quantized to int8 per block of K, integer dot products with the weights' 4-bit
codes, then float32 scales in the kernels' lanes.

Each row of A is quantized per block: ``amax`` the block's largest magnitude, its scale ``amax / 127`` and
``q = rint(a * (127 / amax))`` (each rounded to float32; 0 where ``amax`` is 0), and the block's sum ``scale *
sum(q)``.  The weights enter as their unsigned codes (0..15, or 0..255 for 8 bits: ``vpdpbusd``'s unsigned
operand) and the zero point comes back as a second product: each block's sum of A times ``-zero_point *
scale_b``.  So each output is

- the kernel's part: 16 float32 lanes, each taking, step after step, the int32 sum of its products (a fixed set of
  elements of one block, :data:`_STEPS`) times ``scale_a * scale_b`` of that block by a fused multiply-add.  Blocks
  of 128 and 256 go in pieces of 128 and blocks of 64 in pairs (an odd one out alone), in all 16 lanes to the end;
  the lanes are reduced, for rows taken in pairs (all but the last of an odd count) by halves (``l_i + l_(i+8)``,
  then 4, 2, 1), for a row alone four outputs at a time as MLAS's FoldAccumulators adds them (each quarter in
  order, then ``(q0 + q2) + (q1 + q3)``), the last ``N % 4`` outputs by halves.  Blocks of 32 go four at a time
  and blocks of 16 eight at a time; the 16 lanes are then added into 8 (``l_i + l_(i+8)``), the blocks left go one
  at a time into those 8, and every row folds its fours (each half in order, then the two halves), the last ``N %
  4`` outputs by halves.  The bias is added where there is one;
- plus the zero points' part: the blocks' ``sum(A block) * (-zero_point * scale_b)`` by fused multiply-adds from 0,
  in block order (MLAS's SGEMM kernel), added to it.

On a CPU without AVX-512 (``platform="x86-avx2"``, checked on QEMU's Haswell CPU) MLAS's AVX2 kernels take 8
lanes, in the layout ``vpmaddubsw``, ``vphaddw`` and ``vpmaddwd`` leave (:data:`_AVX2_STEPS`: blocks of 64 and
more in pieces of 64, 32 in pairs, 16 in fours, the blocks left apart), and every row folds its fours.  One row
with blocks of 32 or more goes through kernels of its own: the zero points subtracted from the codes (signed
products, ``vpsignb``) and no second product; for blocks of 32 with zero points one block at a time.

8-bit weights (codes 0..255, zero point 128 by default) go through MLAS's 8-bit kernels, whose lanes are the 4-bit
ones but for blocks of 64 (AVX-512: rows in pairs fold their fours too) and of 64 and more on AVX2 (two vectors'
sums added, :data:`_AVX2_STEPS_8`), with no one-row kernel of their own.

The integer sums are exact, so only which elements share a lane decides the bits (``vpdpbusd`` on a CPU with
AVX-512 VNNI; without VNNI MLAS's AVX-512 kernels pair the same elements by ``vpmaddubsw`` and ``vpmaddwd``, read
from its source and not checked here).  Checked against ONNX Runtime 1.32 on AVX-512 VNNI, every block size and
row count, in ``tests/quant/test_matmul_nbits.py``.
"""

from __future__ import annotations

import numpy as np

from ..core.errors import OperandError
from .fma import fma32

F32 = np.float32


def products(rows, codes, zero_points, scales, bias, block_size: int, platform: str = "x86",
             given_zero_points: bool = True, bits: int = 4) -> np.ndarray:  # fmt: skip
    """(M, N) float32: ``rows`` (M, K) float32 times the weights whose ``codes`` (N, blocks, block_size),
    ``zero_points`` (N, blocks) and ``scales`` (N, blocks) float32 are given, plus ``bias`` (N) or None, on
    ``platform`` "x86" (AVX-512) or "x86-avx2"; ``given_zero_points``: whether the node has them (or the default
    stands in; AVX2's one-row kernel for blocks of 32 differs); ``bits``: 4 or 8 (module docstring)."""
    bad = ~np.isfinite(rows)
    if bad.any():
        at = tuple(int(i) for i in np.argwhere(bad)[0])
        raise OperandError(f"A holds {rows[at]!r} at {at}: accuracy_level=4 quantizes A to int8, and ONNX "
                           "Runtime's answer for a NaN or infinity then depends on its registers; expected finite "
                           "values")  # fmt: skip
    m, n = rows.shape[0], codes.shape[0]
    q, a_scales, a_sums = _quantize_rows(rows, codes.shape[1], block_size)
    combined = (a_scales[:, None, :] * scales[None, :, :]).astype(F32)  # (M, N, blocks)
    codes = codes.astype(np.int16)  # room for AVX2's one-row codes less their zero points
    four = 4 * (n // 4)
    if platform == "x86":
        wide, left = _STEPS[block_size]
        # 16 lanes; for blocks of 32 and 16 added into 8 (h_add_512) before the blocks the wide steps leave
        h_add = left is not None and left.width == 8
        lanes = _accumulate(np.zeros((m, n, 16), F32), q, codes, combined, wide, left, h_add)
        out = halves(lanes)
        # 16 lanes: rows in pairs reduce by halves (but for 8-bit weights in blocks of 64, whose kernel folds)
        alone = 2 * (m // 2) if lanes.shape[-1] == 16 and not (bits == 8 and block_size == 64) else 0
        out[alone:, :four] = fold4(lanes[alone:, :four])
    else:
        one_row = m == 1 and block_size >= 32 and bits == 4  # AVX2's 4-bit one-row kernels: zero points in codes
        wide, left = (_AVX2_STEPS if bits == 4 or block_size < 64 else _AVX2_STEPS_8)[block_size]
        if one_row:
            codes = codes - zero_points[:, :, None]
            if block_size == 32 and given_zero_points:  # one block at a time
                wide, left = [_AVX2_STEPS[32][1]], None
        lanes = _accumulate(np.zeros((m, n, 8), F32), q, codes, combined, wide, left, False)
        out = halves(lanes)
        out[:, :four] = fold4(lanes[:, :four])
    if bias is not None:
        out = (out + bias).astype(F32)
    if platform != "x86" and one_row:
        return out
    b_sums = (-zero_points.astype(F32) * scales).astype(F32)  # (N, blocks)
    acc = np.zeros((m, n), F32)
    for j in range(codes.shape[1]):
        acc = fma32(a_sums[:, j : j + 1], b_sums[None, :, j], acc)
    return (acc + out).astype(F32)


def _accumulate(lanes, q, codes, combined, wide, left, h_add) -> np.ndarray:
    """The kernel's lanes after every block: the ``wide`` steps over as many whole groups of blocks as there are,
    then (its 16 lanes added into 8 where ``h_add``) the ``left`` step for each block left."""
    blocks, j = codes.shape[1], 0
    while blocks - j >= wide[0].blocks:
        for step in wide:
            lanes = fma32(_lane_sums(q, codes, j, step), combined[:, :, j + step.block_of], lanes)
        j += wide[0].blocks
    if h_add:
        lanes = (lanes[..., :8] + lanes[..., 8:]).astype(F32)
    for b in range(j, blocks):
        lanes = fma32(_lane_sums(q, codes, b, left), combined[:, :, b, None], lanes)
    return lanes


class _Step:
    """One kernel step: ``blocks`` blocks at once; lane ``i`` sums the products of block ``block_of[i]`` (counted
    from the step's first) at the elements ``elements[i]``."""

    def __init__(self, lanes):
        self.block_of = np.array([b for b, _ in lanes])
        self.elements = [np.asarray(e) for _, e in lanes]
        self.blocks, self.width = int(self.block_of.max()) + 1, len(lanes)
        # every lane's elements in one (lanes, most) array, short lanes padded with -1: a zero column appended
        most = max(e.size for e in self.elements)
        self.index = np.full((self.width, most), -1)
        for i, e in enumerate(self.elements):
            self.index[i, : e.size] = e


def _group(g, size=4):
    return list(range(size * g, size * g + size))


def _step_128(piece):
    """Blocks of 128 or more, a piece of 128 (``piece`` its offset): lane i sums groups i and i + 16 of 4."""
    return _Step([(0, [piece + e for e in _group(i) + _group(i + 16)]) for i in range(16)])


# Per block size: the wide steps (16 lanes; one per piece of 128 for blocks of 128 and 256) and the one for each
# block they leave (16 lanes for blocks of 64; 8, after the 16 are added into 8, for 32 and 16), read from MLAS's
# AVX-512 VNNI kernels (unpacklo/unpackhi of pairs of vpdpbusd results: which elements share a lane) and checked
# against ONNX Runtime.
_STEPS = {
    256: ([_step_128(0), _step_128(128)], None),
    128: ([_step_128(0)], None),
    64: (  # two blocks: lane 4L + r holds block r % 2, groups 4L + r // 2 and 4L + r // 2 + 2
        [
            _Step(
                [
                    (r % 2, _group(4 * (i // 4) + r // 2) + _group(4 * (i // 4) + r // 2 + 2))
                    for i, r in ((i, i % 4) for i in range(16))
                ]
            )
        ],  # fmt: skip
        _Step([(0, _group(i)) for i in range(16)]),  # an odd one out: lane i sums group i
    ),
    32: (  # four blocks, laid out 0 0 2 2 0 0 2 2 1 1 3 3 1 1 3 3
        [
            _Step(
                [
                    (
                        (0, 0, 2, 2, 0, 0, 2, 2, 1, 1, 3, 3, 1, 1, 3, 3)[i],
                        _group((4 * (i // 4) + i % 2) % 8) + _group((4 * (i // 4) + i % 2) % 8 + 2),
                    )
                    for i in range(16)
                ]
            )
        ],  # fmt: skip
        _Step([(0, _group(i)) for i in range(8)]),
    ),
    16: (  # eight blocks, laid out 0 0 4 4 1 1 5 5 2 2 6 6 3 3 7 7; the rest by pairs of elements
        [_Step([(i // 4 + 4 * (i % 4 >= 2), _group(i % 2) + _group(i % 2 + 2)) for i in range(16)])],
        _Step([(0, _group(i, 2)) for i in range(8)]),
    ),
}


def _hadd_64(piece):
    """AVX2's 64 elements at ``piece`` (two vectors, ``vpmaddubsw`` then ``vphaddw`` and ``vpmaddwd``): lane
    ``4L + r`` sums 8 elements, from the second 32 where ``r >= 2``, at ``16L + 8 * (r % 2)``."""
    return _Step([(0, [piece + 32 * (r >= 2) + 16 * (i // 4) + 8 * (r % 2) + e for e in range(8)])
                  for i, r in ((i, i % 4) for i in range(8))])  # fmt: skip


# MLAS's AVX2 kernels (8 lanes; blocks of 64 and more in pieces of 64; 32 in pairs, 16 in fours, in the same
# vphaddw layout; the blocks left: groups of 4 elements for 32, pairs for 16), checked on QEMU's Haswell CPU.
_AVX2_STEPS = {
    **{size: ([_hadd_64(p) for p in range(0, size, 64)], None) for size in (64, 128, 256)},
    32: (
        [
            _Step(
                [
                    (int(r >= 2), [16 * (i // 4) + 8 * (r % 2) + e for e in range(8)])
                    for i, r in ((i, i % 4) for i in range(8))
                ]
            )
        ],  # fmt: skip
        _Step([(0, _group(i)) for i in range(8)]),
    ),
    16: (
        [_Step([(i // 4 + 2 * (i % 4 >= 2), [8 * (i % 2) + e for e in range(8)]) for i in range(8)])],
        _Step([(0, _group(i, 2)) for i in range(8)]),
    ),
}


def _two_halves(piece):
    """AVX2's 8-bit weights, 64 at ``piece`` (two vectors' ``vpmaddubsw`` and ``vpmaddwd`` added): lane ``l`` sums
    groups ``l`` and ``l + 8`` of 4 elements."""
    return _Step([(0, [piece + e for e in _group(lane) + _group(lane + 8)]) for lane in range(8)])


# MLAS's AVX2 8-bit kernels for blocks of 64 and more (in pieces of 64; blocks of 32 and 16 as for 4 bits).
_AVX2_STEPS_8 = {size: ([_two_halves(p) for p in range(0, size, 64)], None) for size in (64, 128, 256)}


def _lane_sums(q, codes, j, step) -> np.ndarray:
    """(M, N, lanes) float32: each lane's sum of products in ``step`` from block ``j`` (A's int8 codes ``q``, the
    weights' codes), gathered for all lanes at once; exact, in any order (a lane adds at most 8 products of 127 by
    255, far below 2**24)."""
    blocks = j + step.block_of  # each lane's block
    lane = np.arange(step.width)[:, None]
    a = np.concatenate([q[:, blocks], np.zeros(q.shape[:1] + (step.width, 1), q.dtype)], axis=2)
    w = np.concatenate([codes[:, blocks], np.zeros(codes.shape[:1] + (step.width, 1), codes.dtype)], axis=2)
    a = a[:, lane, step.index].astype(F32)  # (M, lanes, most), the padding reading the zero column
    w = w[:, lane, step.index].astype(F32)
    return np.einsum("mle,nle->mnl", a, w)


def _quantize_rows(rows, blocks, block_size):
    """Each row's blocks as MLAS quantizes them: int8 codes (M, blocks, block_size), scales and scaled sums (M,
    blocks)."""
    m, k = rows.shape
    padded = np.zeros((m, blocks * block_size), F32)
    padded[:, :k] = rows
    x = padded.reshape(m, blocks, block_size)
    amax = np.abs(x).max(axis=2)
    scale = (amax / F32(127)).astype(F32)
    with np.errstate(divide="ignore"):
        inverse = np.where(amax != 0, F32(127) / np.where(amax != 0, amax, 1), 0).astype(F32)
    q = np.rint((x * inverse[:, :, None]).astype(F32)).astype(np.int32)
    return q, scale, (scale * q.sum(axis=2).astype(F32)).astype(F32)


def halves(lanes) -> np.ndarray:
    """``_mm512_reduce_add_ps`` over the last axis (16 lanes): lanes added to the lanes 8, then 4, 2, 1 on."""
    while lanes.shape[-1] > 1:
        half = lanes.shape[-1] // 2
        lanes = (lanes[..., :half] + lanes[..., half:]).astype(F32)
    return lanes[..., 0]


def fold4(lanes) -> np.ndarray:
    """MLAS's FoldAccumulators over the last axis (16 or 8 lanes): each 128-bit quarter's 4 lanes added in order,
    then (q0 + q2) + (q1 + q3), or q0 + q1."""
    quarters = []
    for i in range(0, lanes.shape[-1], 4):
        s = lanes[..., i]
        for j in range(i + 1, i + 4):
            s = (s + lanes[..., j]).astype(F32)
        quarters.append(s)
    if len(quarters) == 2:
        return (quarters[0] + quarters[1]).astype(F32)
    return ((quarters[0] + quarters[2]).astype(F32) + (quarters[1] + quarters[3]).astype(F32)).astype(F32)
