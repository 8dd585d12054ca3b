"""The inputs of the stored H200 vectors (tests/data/nvidia_*.npz), regenerated from their seeds.

Pure NumPy, no intdot: ``scripts/gpu/nvidia_vectors.py`` feeds these inputs to the GPU and the tests feed the
same ones to intdot.  The random bits come from NumPy's PCG64 bit generator (``random_raw``), whose stream
NumPy keeps stable across versions (unlike ``Generator``'s methods).  Each variant has two parts:

* ``random``: every operand word uniform over its 32 bits;
* ``extreme``: every lane drawn from a small set of edge values (0, 1, the largest and smallest signed and
  unsigned values, their neighbours) and accumulators near the edges of int32 and uint32, so that
  wrap-around and saturation happen often.
"""

from __future__ import annotations

import numpy as np

PARTS = ("random", "extreme")
DP_WORDS = 1 << 19  # words per part for one dp4a/dp2a variant: 2 parts x 2**19 >= 10**6 values
MMA_TILES = 1 << 12  # tiles per part for one MMA variant: 2 parts x 4096 tiles x 128 outputs >= 10**6
BLOCK = 1 << 12  # outputs per hashed block
FIRST = 1 << 11  # outputs of each part stored in full

# Edge values of one lane, by lane width (the index is 3 random bits).
EDGES = {
    4: np.array([0x0, 0x1, 0x7, 0x8, 0xF, 0x9, 0xE, 0x4], dtype=np.uint32),
    8: np.array([0x00, 0x01, 0x7F, 0x80, 0xFF, 0x81, 0xFE, 0x40], dtype=np.uint32),
    16: np.array([0x0000, 0x0001, 0x7FFF, 0x8000, 0xFFFF, 0x8001, 0xFFFE, 0x00FF], dtype=np.uint32),
}


def raw32(seed: int, part: int, n: int) -> np.ndarray:
    """``n`` random uint32 words of stream (seed, part)."""
    r = np.random.PCG64([seed, part]).random_raw((n + 1) // 2).astype("<u8")
    return r.view("<u4")[:n].astype(np.uint32)


def edge_lanes(words: np.ndarray, width: int) -> np.ndarray:
    """Each ``width``-bit lane of ``words`` replaced by the edge value its low 3 bits pick."""
    out = np.zeros_like(words)
    mask = np.uint32((1 << width) - 1)
    for s in range(0, 32, width):
        lane = (words >> np.uint32(s)) & mask
        out |= EDGES[width][lane & np.uint32(7)] << np.uint32(s)
    return out


def edge_acc(words: np.ndarray) -> np.ndarray:
    """Accumulators within 2**22 of INT32_MAX, INT32_MIN, 0 (from below, as uint32 2**32 - r) or 0 (above)."""
    r = (words >> np.uint32(2)) & np.uint32(0x3FFFFF)
    sel = words & np.uint32(3)
    near = [np.uint32(0x7FFFFFFF) - r, np.uint32(0x80000000) + r, np.uint32(0) - r, r]
    return np.select([sel == k for k in range(4)], near).astype(np.uint32)


def dp_inputs(seed: int, part: str, a_width: int, b_width: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The (a, b, c) words of one part of a dp4a/dp2a variant."""
    n = DP_WORDS
    x = raw32(seed, PARTS.index(part), 3 * n)
    a, b, c = x[:n], x[n : 2 * n], x[2 * n :]
    if part == "extreme":
        a, b, c = edge_lanes(a, a_width), edge_lanes(b, b_width), edge_acc(c)
    return a, b, c


def mma_inputs(seed: int, part: str, width: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The (A, B, C) words of one part of an MMA variant: A (tiles, 16 rows, 8 words of K), B (tiles, 8 columns,
    8 words of K), C (tiles, 16, 8); K index 0 in the low bits of word 0."""
    t = MMA_TILES
    x = raw32(seed, PARTS.index(part), t * 320)
    a, b, c = x[: t * 128], x[t * 128 : t * 192], x[t * 192 :]
    if part == "extreme":
        a, b, c = edge_lanes(a, width), edge_lanes(b, width), edge_acc(c)
    return a.reshape(t, 16, 8), b.reshape(t, 8, 8), c.reshape(t, 16, 8)


# The saturation probes of the signed MMA variants: one tile per ordered pair (p, q) of K indices, every row
# of A and every column of B alike, zero except at p and q.  Direction "down": C = INT32_MAX, a positive
# product at p and a larger negative one at q; exact sum INT32_MAX - (|N| - P); a saturation between the
# two products (p's chunk added first) leaves INT32_MAX - |N|.  Direction "up" mirrors it from INT32_MIN.
# (a_p, b_p, a_q, b_q) per (a_type, b_type) and direction.
PROBE_LANES = {
    ("s8", "s8"): {"down": (127, 127, -128, 127), "up": (-127, 127, -128, -128)},
    ("s8", "u8"): {"down": (127, 255, -128, 255), "up": (-126, 255, 127, 255)},
    ("u8", "s8"): {"down": (255, 127, 255, -128), "up": (255, -126, 255, 127)},
    ("s4", "s4"): {"down": (7, 7, -8, 7), "up": (-7, 7, -8, -8)},
    ("s4", "u4"): {"down": (7, 15, -8, 15), "up": (-6, 15, 7, 15)},
    ("u4", "s4"): {"down": (15, 7, 15, -8), "up": (15, -6, 15, 7)},
}


def probe_pairs(k: int) -> np.ndarray:
    """Every ordered pair (p, q) of distinct K indices, p-major."""
    p, q = np.meshgrid(np.arange(k), np.arange(k), indexing="ij")
    keep = p != q
    return np.stack([p[keep], q[keep]], axis=1)


def probe_inputs(a_type: str, b_type: str, direction: str) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The probe tiles (A, B, C words, as :func:`mma_inputs` lays them out) of one variant and direction."""
    width = int(a_type[1:])
    k = 256 // width
    pairs = probe_pairs(k)
    ap, bp, aq, bq = PROBE_LANES[a_type, b_type][direction]
    mask = (1 << width) - 1
    n = len(pairs)
    rows = np.zeros((n, 8), dtype=np.uint32)
    cols = np.zeros((n, 8), dtype=np.uint32)
    per = 32 // width
    for (p, q), r, c in zip(pairs, rows, cols):
        for idx, av, bv in ((p, ap, bp), (q, aq, bq)):
            r[idx // per] |= np.uint32((av & mask) << (width * (idx % per)))
            c[idx // per] |= np.uint32((bv & mask) << (width * (idx % per)))
    a = np.repeat(rows[:, None, :], 16, axis=1)
    b = np.repeat(cols[:, None, :], 8, axis=1)
    start = 0x7FFFFFFF if direction == "down" else 0x80000000
    c = np.full((n, 16, 8), start, dtype=np.uint32)
    return a, b, c


def tile_elements(words: np.ndarray, width: int, signed: bool) -> np.ndarray:
    """(..., 8 words) -> (..., K) elements, K index 0 in the low bits of word 0 (little-endian bytes, low nibble
    first)."""
    by = np.ascontiguousarray(words, dtype="<u4").view(np.uint8).reshape(*words.shape[:-1], 32)
    if width == 8:
        lanes = by.astype(np.int16)
    else:
        lanes = np.stack([by & 0xF, by >> 4], axis=-1).reshape(*words.shape[:-1], 64).astype(np.int16)
    if signed:
        lanes = np.where(lanes >= 1 << (width - 1), lanes - (1 << width), lanes)
    return lanes
