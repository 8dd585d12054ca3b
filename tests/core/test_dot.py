"""The core dot product against the slow reference (tests/reference.py).

Small domains are tested whole: every pair of 8-bit lane values and every
pair of 4-bit lane values, for every signedness, on both array backends.
"""

from __future__ import annotations

import functools
import itertools

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from intdot.core import DotSpec, dot, dot_arrays, dot_function
from intdot.core.accel import numba_available
from tests.reference import ref_dot

SIGNS = list(itertools.product([False, True], repeat=2))
BACKENDS = ["numpy"] + (["numba"] if numba_available() else [])
INT32_MIN, INT32_MAX, U32_MAX = -(2**31), 2**31 - 1, 2**32 - 1
EDGE_ACC = [0, 1, -1, INT32_MIN, INT32_MAX, INT32_MIN + 1, INT32_MAX - 1, 2**31, U32_MAX, 12345]


def replicate(values: np.ndarray, width: int) -> np.ndarray:
    """Words whose every lane holds the same width-bit pattern."""
    word = np.zeros(values.shape, dtype=np.uint64)
    for k in range(32 // width):
        word |= (values.astype(np.uint64) & ((1 << width) - 1)) << (width * k)
    return word.astype(np.uint32)


def all_pairs(width):
    """Words a, b covering every pair of lane values (replicated in every lane), and accumulators."""
    n = 1 << width
    x, y = np.meshgrid(np.arange(n), np.arange(n), indexing="ij")
    a, b = replicate(x.ravel(), width), replicate(y.ravel(), width)
    # Accumulators cycle through the edge values so wrapping is exercised too.
    acc = np.resize(np.array(EDGE_ACC, dtype=np.int64).astype(np.uint32), a.shape)
    return a, b, acc


@functools.cache
def all_pairs_reference(width, a_signed, b_signed, result_signed, neg):
    a, b, acc = all_pairs(width)
    return [
        ref_dot(
            int(p),
            int(q),
            int(c),
            width=width,
            a_signed=a_signed,
            b_signed=b_signed,
            result_signed=result_signed,
            neg=neg,
        )
        for p, q, c in zip(a, b, acc)
    ]


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("a_signed,b_signed", SIGNS)
@pytest.mark.parametrize("width", [4, 8])
def test_every_lane_pair(width, a_signed, b_signed, backend):
    a, b, acc = all_pairs(width)
    for result_signed, neg in [(True, False), (False, True)]:
        spec = DotSpec.packed32(width, a_signed, b_signed, result_signed)
        got = dot_arrays(spec, a, b, acc, neg=neg, clamp=False, backend=backend)
        want = all_pairs_reference(width, a_signed, b_signed, result_signed, neg)
        np.testing.assert_array_equal(got, np.array(want, dtype=spec.result_dtype))


@pytest.mark.parametrize("backend", BACKENDS)
def test_distinct_lanes_each_position(backend):
    """Lane k of a meets lane k of b only: a value in one lane times zeros elsewhere."""
    rng = np.random.default_rng(1)
    for width in (4, 8, 16):
        n_lanes = 32 // width
        for k in range(n_lanes):
            va = rng.integers(0, 1 << width, 500, dtype=np.uint64)
            vb = rng.integers(0, 1 << width, 500, dtype=np.uint64)
            a = (va << np.uint64(width * k)).astype(np.uint32)
            b = (vb << np.uint64(width * k)).astype(np.uint32)
            spec = DotSpec.packed32(width, True, False, True)
            got = dot_arrays(spec, a, b, np.zeros_like(a), neg=False, clamp=False, backend=backend)
            want = [
                ref_dot(int(p), int(q), 0, width=width, a_signed=True, b_signed=False, result_signed=True)
                for p, q in zip(a, b)
            ]
            np.testing.assert_array_equal(got, want)


EXTREME_WORDS = [
    0,
    1,
    0x7F7F7F7F,
    0x80808080,
    0xFFFFFFFF,
    0x7FFF8000,
    0x80007FFF,
    0x88888888,
    0x77777777,
    0x01020304,
    0xF0F0F0F0,
]


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("width", [4, 8, 16])
def test_edges_wrap_and_clamp(width, backend):
    cases = list(itertools.product(EXTREME_WORDS, EXTREME_WORDS[:6], EDGE_ACC))
    a, b, c = (np.array([t[i] for t in cases], dtype=np.int64) for i in range(3))
    for a_signed, b_signed in SIGNS:
        for result_signed, neg, clamp in itertools.product([False, True], repeat=3):
            spec = DotSpec.packed32(width, a_signed, b_signed, result_signed)
            got = dot_arrays(
                spec,
                a.astype(np.uint32),
                b.astype(np.uint32),
                c.astype(np.uint32),
                neg=neg,
                clamp=clamp,
                backend=backend,
            )
            want = [
                ref_dot(
                    p,
                    q,
                    r,
                    width=width,
                    a_signed=a_signed,
                    b_signed=b_signed,
                    result_signed=result_signed,
                    neg=neg,
                    clamp=clamp,
                )
                for p, q, r in cases
            ]
            np.testing.assert_array_equal(got, np.array(want, dtype=spec.result_dtype))
            # The scalar path, one call per case, must agree too.
            f = dot_function(spec)
            assert [f(p, q, r, neg, clamp) for p, q, r in cases] == want


words = st.integers(-(2**31), 2**32 - 1)
specs = st.builds(DotSpec.packed32, st.sampled_from([4, 8, 16]), st.booleans(), st.booleans(), st.booleans())


@settings(max_examples=300, deadline=None)
@given(a=words, b=words, acc=words, spec=specs, neg=st.booleans(), clamp=st.booleans())
def test_scalar_matches_reference(a, b, acc, spec, neg, clamp):
    want = ref_dot(
        a,
        b,
        acc,
        width=spec.a_width,
        a_signed=spec.a_signed,
        b_signed=spec.b_signed,
        result_signed=spec.acc_signed,
        neg=neg,
        clamp=clamp,
    )
    got = dot_function(spec)(a, b, acc, neg, clamp)
    assert type(got) is int and got == want


shapes = st.sampled_from([(), (0,), (1,), (7,), (3, 5), (2, 0, 3), (4097,)])
dtypes = st.sampled_from(
    [np.int32, np.uint32, np.int64, np.uint64, np.int8, np.uint16, np.dtype(">u4"), np.dtype(">i8"), np.dtype(">i2")]
)  # non-native byte order too


@settings(max_examples=60, deadline=None)
@given(data=st.data(), spec=specs, neg=st.booleans(), clamp=st.booleans(), shape=shapes)
def test_array_matches_scalar(data, spec, neg, clamp, shape):
    rng = np.random.default_rng(data.draw(st.integers(0, 2**32 - 1)))
    arrays = []
    for _ in range(3):
        dtype = data.draw(dtypes)
        info = np.iinfo(dtype)
        lo, hi = max(info.min, -(2**31)), min(info.max, 2**32 - 1)
        # Broadcasting: each operand may drop leading axes or be 0-d.
        sub = shape[data.draw(st.integers(0, len(shape))) :]
        arrays.append(rng.integers(lo, hi, size=sub, dtype=np.int64, endpoint=True).astype(dtype))
    f = dot_function(spec)
    got = f(*arrays, neg, clamp)
    assert got.dtype == spec.result_dtype
    assert got.shape == np.broadcast_shapes(*(x.shape for x in arrays))
    a, b, c = np.broadcast_arrays(*arrays)
    want = [f(int(p), int(q), int(r), neg, clamp) for p, q, r in zip(a.ravel(), b.ravel(), c.ravel())]
    np.testing.assert_array_equal(got.ravel(), np.array(want, dtype=spec.result_dtype))


def test_lists_are_arrays():
    assert dot([0x01010101, 2], 0x01010101, 0).tolist() == [4, 2]


def test_dot_defaults_and_examples():
    assert dot(0x01020304, 0x05060708, 10) == 80
    assert dot(0xFFFFFFFF, 0xFFFFFFFF, 0, a_signed=True, b_signed=False) == -1020
    # Unsigned x unsigned gives an unsigned result by default.
    assert dot(0xFFFFFFFF, 0xFFFFFFFF, 0xFFFFFFFF, a_signed=False, b_signed=False) == 260099
