"""Every lane-value pair of the 8-bit and 4-bit builtins, through the public
functions' array path, against the slow reference.

Each pair of lane values sits in every lane position once: word j holds pair
(j + k) mod N in lane k, so lane order and per-lane signedness are both checked.
"""

from __future__ import annotations

import functools
import itertools

import numpy as np
import pytest

from intdot import amd
from tests.amd.spec import SPEC, call, params, ref
from tests.reference import ref_dot

FLAGS = list(itertools.product([False, True], repeat=2))
CASES_8 = [("udot4", None), ("sdot4", None)] + [("sudot4", f) for f in FLAGS]
CASES_4 = [("udot8", None), ("sdot8", None)] + [("sudot8", f) for f in FLAGS]
EDGE_ACC = [0, 1, -1, -(2**31), 2**31 - 1, 2**31, 2**32 - 1, 12345, -99999]


def rotated_words(lane_a: np.ndarray, lane_b: np.ndarray, width: int):
    """Words a, b where lane k of word j holds pair (j + k) mod N."""
    n = lane_a.size
    a = np.zeros(n, dtype=np.uint64)
    b = np.zeros(n, dtype=np.uint64)
    for k in range(32 // width):
        idx = (np.arange(n) + k) % n
        a |= (lane_a[idx].astype(np.uint64) & ((1 << width) - 1)) << np.uint64(width * k)
        b |= (lane_b[idx].astype(np.uint64) & ((1 << width) - 1)) << np.uint64(width * k)
    return a.astype(np.uint32), b.astype(np.uint32)


def kwargs_for(name, flags):
    return {} if flags is None else {"src0_neg": flags[0], "src1_neg": flags[1]}


@functools.cache
def byte_products(a_signed: bool, b_signed: bool) -> np.ndarray:
    """P[x * 256 + y] = the reference's product of byte patterns x and y (single-lane words)."""
    return np.array(
        [
            ref_dot(x, y, 0, width=8, a_signed=a_signed, b_signed=b_signed, result_signed=True)
            for x in range(256)
            for y in range(256)
        ],
        dtype=np.int64,
    )


@pytest.mark.parametrize("name,flags", CASES_8, ids=lambda v: str(v))
def test_every_byte_pair(name, flags, backend):
    p = params(name, *(flags or (None, None)))
    products = byte_products(p["a_signed"], p["b_signed"])
    x, y = np.divmod(np.arange(1 << 16), 256)
    a, b = rotated_words(x, y, 8)
    dot = sum(np.roll(products, -k) for k in range(4))  # word j: products of pairs j .. j+3
    fn = getattr(amd, name)
    for neg in (False, True):
        got = call(fn, name, a, b, np.uint32(0), neg=neg, **kwargs_for(name, flags))
        exact = -dot if neg else dot
        want = exact if p["result_signed"] else exact % 2**32
        assert got.dtype == (np.int32 if p["result_signed"] else np.uint32)
        np.testing.assert_array_equal(got.astype(np.int64), want)


@pytest.mark.parametrize("name,flags", CASES_4, ids=lambda v: str(v))
def test_every_nibble_pair(name, flags, backend):
    x, y = np.divmod(np.arange(256), 16)
    a, b = rotated_words(x, y, 4)
    acc = np.resize(np.array(EDGE_ACC, dtype=np.int64), a.size)
    fn = getattr(amd, name)
    kw = kwargs_for(name, flags)
    for neg, clamp in itertools.product([False, True], repeat=2):
        for accs in (np.zeros_like(acc), acc):
            got = call(fn, name, a, b, accs, neg=neg, clamp=clamp, **kw)
            want = [ref(name, int(p), int(q), int(c), neg=neg, clamp=clamp, **kw) for p, q, c in zip(a, b, accs)]
            np.testing.assert_array_equal(got.astype(np.int64), want)


@pytest.mark.parametrize("name", list(SPEC))
def test_random_words_with_accumulators(name, backend):
    """Random full words, random/edge accumulators, neg and clamp: whole words through the reference."""
    rng = np.random.default_rng(sum(map(ord, name)))
    n = 600
    a = rng.integers(0, 2**32, n, dtype=np.uint64).astype(np.uint32)
    b = rng.integers(0, 2**32, n, dtype=np.uint64).astype(np.uint32)
    b[:50] = a[:50]  # squares reach the extremes
    acc = rng.integers(-(2**31), 2**32, n, dtype=np.int64)
    acc[::3] = np.resize(np.array(EDGE_ACC), acc[::3].size)
    fn = getattr(amd, name)
    flag_sets = FLAGS if name in ("sudot4", "sudot8") else [None]
    for flags in flag_sets:
        kw = kwargs_for(name, flags)
        for neg, clamp in itertools.product([False, True], repeat=2):
            got = call(fn, name, a, b, acc, neg=neg, clamp=clamp, **kw)
            want = [ref(name, int(p), int(q), int(c), neg=neg, clamp=clamp, **kw) for p, q, c in zip(a, b, acc)]
            np.testing.assert_array_equal(got.astype(np.int64), want)
