"""The general dot step: per-operand lane widths, any lane count, 32- and 64-bit accumulators.

Expected values come from tests/reference.py's ref_dot_step (bit by bit,
Python ints).  Every backend is checked: the scalar path (one call per case),
NumPy and numba.  Small lane domains are covered whole (every pair of 8-bit
or 4-bit lane values, replicated in every lane); 16-bit lanes meet every
8-bit value and a set of edge and random 16-bit values.
"""

from __future__ import annotations

import functools
import itertools

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from intdot.core import DotSpec, dot, dot_arrays, dot_function, lane_values, pack, trace, unpack
from intdot.core.accel import numba_available
from intdot.errors import OperandError, OperandTypeError
from tests.reference import ref_spec_step

BACKENDS = ["scalar", "numpy"] + (["numba"] if numba_available() else [])
SIGNS = list(itertools.product([False, True], repeat=2))


def reference(spec: DotSpec, a, b, acc, neg: bool, clamp: bool) -> list[int]:
    return [ref_spec_step(spec, int(x), int(y), int(z), neg=neg, clamp=clamp) for x, y, z in zip(a, b, acc)]


def run(backend: str, spec: DotSpec, a, b, acc, neg: bool, clamp: bool) -> list[int]:
    """The spec's dot step on word arrays through one backend, as a list of Python ints."""
    if backend == "scalar":
        f = dot_function(spec)
        return [f(int(x), int(y), int(z), neg, clamp) for x, y, z in zip(a, b, acc)]
    got = dot_arrays(
        spec,
        a.astype(spec.a_dtype),
        b.astype(spec.b_dtype),
        acc.astype(spec.acc_dtype),
        neg=neg,
        clamp=clamp,
        backend=backend,
    )
    assert got.dtype == spec.result_dtype
    return got.tolist()


def replicate(values: np.ndarray, width: int, lanes: int) -> np.ndarray:
    """Operands (uint64) whose every lane holds the same width-bit pattern."""
    word = np.zeros(values.shape, dtype=np.uint64)
    for k in range(lanes):
        word |= (values.astype(np.uint64) & np.uint64((1 << width) - 1)) << np.uint64(width * k)
    return word


def edge_accs(acc_bits: int) -> list[int]:
    """Unsigned bit patterns of accumulators at and next to both types' limits."""
    m = 1 << acc_bits
    half = m >> 1
    return [0, 1, m - 1, m - 2, half - 1, half - 2, half, half + 1, 12345, m - 12345]


def pair_operands(spec: DotSpec):
    """Operands a, b meeting every pair of lane values (16-bit lanes: edges and a sample), and accumulators."""

    def values(width):
        if width <= 8:
            return np.arange(1 << width)
        rng = np.random.default_rng(width)
        edges = [0, 1, 2, 0x7FFF, 0x8000, 0x8001, 0xFFFF, 0xFFFE, 0x00FF, 0xFF00]
        return np.array(edges + rng.integers(0, 1 << 16, 22).tolist())

    x, y = np.meshgrid(values(spec.a_width), values(spec.b_width), indexing="ij")
    a = replicate(x.ravel(), spec.a_width, spec.lanes)
    b = replicate(y.ravel(), spec.b_width, spec.lanes)
    acc = np.resize(np.array(edge_accs(spec.acc_bits), dtype=np.uint64), a.shape)
    return a, b, acc


# (a_width, b_width, lanes, acc_bits): 8-bit into 64, 64-bit operands, 16-bit into 64 (SVE .h -> .d),
# 16 x 8 (dp2a), 4-bit into 64, mixed 4 x 8, odd lane counts.
SHAPES = [
    (8, 8, 4, 64),
    (8, 8, 8, 64),
    (16, 16, 4, 64),
    (16, 8, 2, 32),
    (16, 8, 4, 64),
    (4, 4, 16, 64),
    (4, 4, 8, 64),
    (4, 8, 4, 32),
    (8, 4, 3, 64),
    (16, 16, 2, 64),
    (8, 8, 2, 32),
]


COMBOS = list(zip(SIGNS, [True, False, False, True], [(False, False), (True, True), (False, True), (True, False)]))


@functools.cache
def cached_reference(spec: DotSpec, neg: bool, clamp: bool) -> tuple[int, ...]:
    a, b, acc = pair_operands(spec)
    return tuple(reference(spec, a, b, acc, neg, clamp))


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("shape", SHAPES, ids=lambda s: "a{}b{}x{}->{}".format(*s))
def test_every_lane_pair(shape, backend):
    a_width, b_width, lanes, acc_bits = shape
    a, b, acc = pair_operands(DotSpec(a_width, b_width, lanes, True, True, acc_bits))
    # Every sign combination, each accumulator type, and each of wrap/clamp/neg once per shape (the
    # whole product is the slow test below): each spec compiles a kernel, which takes about a second.
    for (a_signed, b_signed), acc_signed, (neg, clamp) in COMBOS:
        spec = DotSpec(a_width, b_width, lanes, a_signed, b_signed, acc_bits, acc_signed)
        assert run(backend, spec, a, b, acc, neg, clamp) == list(cached_reference(spec, neg, clamp)), (spec, neg, clamp)


@pytest.mark.slow
@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("shape", SHAPES, ids=lambda s: "a{}b{}x{}->{}".format(*s))
def test_every_lane_pair_every_rule(shape, backend):
    a_width, b_width, lanes, acc_bits = shape
    a, b, acc = pair_operands(DotSpec(a_width, b_width, lanes, True, True, acc_bits))
    for (a_signed, b_signed), acc_signed, neg, clamp in itertools.product(SIGNS, *[[True, False]] * 3):
        spec = DotSpec(a_width, b_width, lanes, a_signed, b_signed, acc_bits, acc_signed)
        assert run(backend, spec, a, b, acc, neg, clamp) == list(cached_reference(spec, neg, clamp))


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("acc_signed", [True, False])
def test_accumulator_limits_64(backend, acc_signed):
    """Sums that land exactly on, one past, and far past each limit of a 64-bit accumulator."""
    spec = DotSpec(16, 16, 4, True, True, 64, acc_signed)
    lo, hi = spec.result_range
    big = pack([-32768] * 4, 16, bits=64)  # each product 2**30: d = 2**32
    one = pack([1, 0, 0, 0], 16, bits=64)  # d = 1 with b = one
    cases = []
    for start in (lo, lo + 1, hi, hi - 1, 0, hi - 2**32 + 1, lo + 2**32 - 1):
        for a, b in ((one, one), (big, big), (big, one), (one, big), (0, 0)):
            cases.append((a, b, start & (2**64 - 1)))
    a, b, acc = (np.array([c[i] for c in cases], dtype=np.uint64) for i in range(3))
    for neg, clamp in itertools.product([False, True], repeat=2):
        assert run(backend, spec, a, b, acc, neg, clamp) == reference(spec, a, b, acc, neg, clamp), (neg, clamp)


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("shape", SHAPES, ids=lambda s: "a{}b{}x{}->{}".format(*s))
def test_random_operands(shape, backend):
    """Independent lanes (random operands) against the reference, every sign and rule."""
    a_width, b_width, lanes, acc_bits = shape
    rng = np.random.default_rng(sum(shape))
    n = 300
    a = rng.integers(0, 2 ** (a_width * lanes), n, dtype=np.uint64)
    b = rng.integers(0, 2 ** (b_width * lanes), n, dtype=np.uint64)
    acc = np.concatenate(
        [
            rng.integers(0, 2**acc_bits, n - 10, dtype=np.uint64, endpoint=False),
            np.array(edge_accs(acc_bits), dtype=np.uint64),
        ]
    )
    for ((a_signed, b_signed), acc_signed, _), neg, clamp in itertools.product(COMBOS, *[[True, False]] * 2):
        spec = DotSpec(a_width, b_width, lanes, a_signed, b_signed, acc_bits, acc_signed)
        assert run(backend, spec, a, b, acc, neg, clamp) == reference(spec, a, b, acc, neg, clamp)


def test_backends_agree_on_large_arrays():
    """Past the compiled kernel's size threshold, with stride-0 operands."""
    rng = np.random.default_rng(3)
    for shape in SHAPES:
        spec = DotSpec(*shape[:3], True, False, shape[3], True)
        a = rng.integers(0, 2**spec.a_bits, 10_000, dtype=np.uint64).astype(spec.a_dtype)
        b = np.array(rng.integers(0, 2**spec.b_bits, dtype=np.uint64), dtype=spec.b_dtype)
        acc = rng.integers(0, 2**spec.acc_bits, 10_000, dtype=np.uint64).astype(spec.acc_dtype)
        results = [dot_arrays(spec, a, b, acc, neg=True, clamp=True, backend=be) for be in BACKENDS[1:]]
        for r in results[1:]:
            np.testing.assert_array_equal(r, results[0])
        f = dot_function(spec)
        want = [f(int(x), int(b), int(z), True, True) for x, z in zip(a[:200], acc[:200])]
        assert results[0][:200].tolist() == want


operands = st.integers(-(2**63), 2**64 - 1)
general_specs = st.builds(
    lambda aw, bw, n, sa, sb, bits, sc: DotSpec(aw, bw, min(n, 64 // max(aw, bw)), sa, sb, bits, sc),
    st.sampled_from([4, 8, 16]),
    st.sampled_from([4, 8, 16]),
    st.integers(1, 16),
    st.booleans(),
    st.booleans(),
    st.sampled_from([32, 64]),
    st.booleans(),
)


@settings(max_examples=300, deadline=None)
@given(data=st.data(), spec=general_specs, neg=st.booleans(), clamp=st.booleans())
def test_scalar_and_trace_match_reference(data, spec, neg, clamp):
    a = data.draw(st.integers(-(2 ** (spec.a_bits - 1)), 2**spec.a_bits - 1))
    b = data.draw(st.integers(-(2 ** (spec.b_bits - 1)), 2**spec.b_bits - 1))
    acc = data.draw(st.integers(-(2 ** (spec.acc_bits - 1)), 2**spec.acc_bits - 1))
    want = reference(spec, [a], [b], [acc], neg, clamp)[0]
    got = dot_function(spec)(a, b, acc, neg, clamp)
    assert type(got) is int and got == want
    assert trace(spec, a, b, acc, neg=neg, clamp=clamp).result == want


def test_operand_ranges_follow_the_spec():
    f = dot_function(DotSpec(16, 8, 2, True, True), ("a", "b", "c"))
    assert f(-1, -(2**15), 0) == f(0xFFFF_FFFF, 0x8000, 0)
    with pytest.raises(OperandError, match=r"b=65536 is out of range; expected an integer in \[-2\*\*15, 2\*\*16\)"):
        f(0, 2**16, 0)
    with pytest.raises(OperandError, match=r"b holds 65536, out of range"):
        f(0, np.array([2**16]), 0)
    g = dot_function(DotSpec(16, 16, 4, True, True, 64))
    assert g(-1, -1, 2**64 - 1) == g(2**64 - 1, 2**64 - 1, -1) == 3
    with pytest.raises(OperandError, match=r"acc=18446744073709551616 is out of range"):
        g(0, 0, 2**64)
    assert g(np.array([-1], np.int64), np.array([2**64 - 1], np.uint64), np.int8(-1)).tolist() == [3]
    assert g(np.array([-1], np.int64), -1, -1).dtype == np.int64


@pytest.mark.parametrize(
    "kwargs, match",
    [
        (dict(a_width=5), "a_width=5 is not allowed; expected a lane width in bits, one of"),
        (dict(b_width=32), "b_width=32 is not allowed"),
        (dict(lanes=0), "lanes=0 is not allowed with 16-bit lanes; expected 1 to 4"),
        (dict(lanes=5), "lanes=5 is not allowed with 16-bit lanes; expected 1 to 4"),
        (dict(acc_bits=8), "acc_bits=8 is not allowed; expected an accumulator width in bits, one of"),
    ],
)
def test_spec_validation(kwargs, match):
    fields = dict(a_width=16, b_width=8, lanes=2, a_signed=True, b_signed=True)
    with pytest.raises(OperandError, match=match):
        DotSpec(**{**fields, **kwargs})


def test_spec_types():
    with pytest.raises(OperandTypeError, match="a_signed=1 is not a bool"):
        DotSpec(8, 8, 4, 1, True)
    with pytest.raises(OperandTypeError, match="lanes='4' has type str"):
        DotSpec(8, 8, "4", True, True)
    assert DotSpec(np.int64(8), 8, 4, True, True) == DotSpec.packed32(8, True, True)
    assert hash(DotSpec(np.int64(8), 8, 4, True, True)) == hash(DotSpec.packed32(8, True, True))
    with pytest.raises(OperandError, match="width=3 is not allowed"):
        DotSpec.packed32(3, True, True)


def test_spec_properties():
    s = DotSpec(16, 8, 4, False, True, 64, False)
    assert (s.a_bits, s.b_bits, s.result_range) == (64, 32, (0, 2**64 - 1))
    assert (s.a_dtype, s.b_dtype, s.acc_dtype, s.result_dtype) == (np.uint64, np.uint32, np.uint64, np.uint64)


def test_public_dot_general_keywords():
    assert dot(0x0001_FFFF, 0x0302, 0, a_width=16, b_width=8) == 1
    assert dot(-1, -1, 2**63 - 1, width=16, lanes=4, acc_bits=64, clamp=True) == 2**63 - 1
    assert dot(-1, -1, 2**63 - 1, width=16, lanes=4, acc_bits=64) == -(2**63) + 3
    assert dot(-1, -1, 0, width=8, lanes=8, acc_bits=64, a_signed=False, b_signed=False) == 8 * 255 * 255
    with pytest.raises(OperandError, match="either width"):
        dot(0, 0, 0, width=8, a_width=8)
    with pytest.raises(OperandError, match="give both"):
        dot(0, 0, 0, a_width=8)
    with pytest.raises(OperandError, match=r"width=3 is not a lane width; expected one of \(4, 8, 16\)"):
        dot(0, 0, 0, width=3)
    with pytest.raises(OperandError, match="lanes=9 is not allowed with 8-bit lanes; expected 1 to 8"):
        dot(0, 0, 0, lanes=9)
    with pytest.raises(OperandError, match="acc_bits=8 is not allowed"):
        dot(0, 0, 0, acc_bits=8)


def test_lane_helpers_any_word_size():
    assert lane_values(0x8000_0000_0000_0001, 16, True, bits=64) == [1, 0, 0, -32768]
    assert lane_values(-1, 8, False, bits=16) == [255, 255]
    assert unpack(np.array([2**64 - 2], np.uint64), 16, bits=64).tolist() == [[-2, -1, -1, -1]]
    assert unpack(0x0F0F, 4, signed=False, bits=16).tolist() == [15, 0, 15, 0]
    assert pack([1, 2, 3, -1], 16, bits=64) == 0xFFFF_0003_0002_0001
    assert pack(np.array([[1, -1]]), 8, bits=16).tolist() == [0xFF01]
    words = np.array([0x0123_4567_89AB_CDEF, 2**64 - 1], np.uint64)
    np.testing.assert_array_equal(pack(unpack(words, 4, bits=64), 4, bits=64), words)
    with pytest.raises(OperandError, match="bits=12 is not a word size for 8-bit lanes"):
        unpack(0, 8, bits=12)
    with pytest.raises(OperandError, match="the last axis must hold 4 lanes of 16 bits"):
        pack([1, 2], 16, bits=64)


shapes = st.sampled_from([(), (0,), (1,), (5,), (2, 3), (4097,)])


@settings(max_examples=60, deadline=None)
@given(data=st.data(), spec=general_specs, neg=st.booleans(), clamp=st.booleans(), shape=shapes)
def test_array_matches_scalar_general(data, spec, neg, clamp, shape):
    """Any spec, operands in any integer dtype that holds them (or Python ints), broadcasting."""
    rng = np.random.default_rng(data.draw(st.integers(0, 2**32 - 1)))
    arrays = []
    for bits in (spec.a_bits, spec.b_bits, spec.acc_bits):
        choices = [
            d
            for d in (np.int8, np.uint16, np.int32, np.uint32, np.int64, np.uint64, np.dtype(">i8"))
            if np.iinfo(d).bits <= bits or np.iinfo(d).bits == 64
        ]
        dtype = data.draw(st.sampled_from(choices))
        info = np.iinfo(dtype)
        lo, hi = max(info.min, -(2 ** (bits - 1))), min(info.max, 2**bits - 1)
        sub = shape[data.draw(st.integers(0, len(shape))) :]
        if info.min < 0:
            x = rng.integers(lo, hi, size=sub, dtype=np.int64, endpoint=True)
        else:
            x = rng.integers(lo, hi, size=sub, dtype=np.uint64, endpoint=True)
        arrays.append(x.astype(dtype))
    f = dot_function(spec)
    got = f(*arrays, neg, clamp)
    assert got.dtype == spec.result_dtype
    assert got.shape == np.broadcast_shapes(*(x.shape for x in arrays))
    a, b, c = np.broadcast_arrays(*arrays)
    want = [f(int(p), int(q), int(r), neg, clamp) for p, q, r in zip(a.ravel(), b.ravel(), c.ravel())]
    assert got.ravel().tolist() == want


def test_wide_words_in_every_spelling():
    g = dot_function(DotSpec(16, 16, 4, False, False, 64, False), ("a", "b", "c"))
    big = [2**64 - 1, 2**63, -(2**63), -1, 0]
    got = g(np.array(big, dtype=object), np.array([1] * 5, dtype=object), 0)
    assert got.dtype == np.uint64 and got.tolist() == [g(x, 1, 0) for x in big]
    assert g(np.array(big[:2], np.uint64), 1, 0).tolist() == [65535, 0]
    with pytest.raises(OperandError, match=r"a\[1\]=18446744073709551616 is out of range"):
        g(np.array([0, 2**64], dtype=object), 1, 0)
    with pytest.raises(OperandTypeError, match="a has dtype float64"):
        g(np.zeros(2), 1, 0)
