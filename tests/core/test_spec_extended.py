"""Lane selectors, saturated pair sums and 16-bit accumulators, against tests/reference.py.

These are the parts of a dot step that PTX dp2a.lo/.hi (lanes 0-1 or 2-3 of b's word) and x86's
pmaddubsw idiom (pair sums saturated to int16; pmaddubsw itself is a step into a 16-bit result) need.
Every backend is run; the reference shares no code with intdot.
"""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from intdot.core import DotSpec, dot_arrays, dot_function, trace
from intdot.core.accel import numba_available
from intdot.errors import OperandError, OperandTypeError
from tests.core.test_spec_general import reference as expected

BACKENDS = ["scalar", "numpy"] + (["numba"] if numba_available() else [])
SIGNS = list(itertools.product([False, True], repeat=2))


def run(backend, spec, a, b, acc, neg, clamp):
    if backend == "scalar":
        f = dot_function(spec)
        return [f(int(x), int(y), int(z), neg, clamp) for x, y, z in zip(a, b, acc)]
    got = dot_arrays(
        spec,
        np.asarray(a, dtype=spec.a_dtype),
        np.asarray(b, dtype=spec.b_dtype),
        np.asarray(acc, dtype=spec.acc_dtype),
        neg=neg,
        clamp=clamp,
        backend=backend,
    )
    assert got.dtype == spec.result_dtype
    return got.tolist()


def words(rng, bits, n):
    """Random words with every lane extreme mixed in (all-ones, sign bits, zeros)."""
    w = rng.integers(0, 1 << bits, n, dtype=np.uint64)
    mask = (1 << bits) - 1
    special = np.array([0, mask, 0x8080808080808080 & mask, 0x7F7F7F7F7F7F7F7F & mask], dtype=np.uint64)
    w[: len(special) * 4] = np.resize(special, len(special) * 4)
    return w


def accs(rng, bits, n):
    m = 1 << bits
    edges = [0, 1, m - 1, m // 2, m // 2 - 1, m // 2 + 1]
    out = rng.integers(0, m, n, dtype=np.uint64)
    out[: len(edges)] = edges
    return out


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("part", [0, 2], ids=["lo", "hi"])
@pytest.mark.parametrize("signs", SIGNS, ids=lambda s: "".join("su"[not x] for x in s))
def test_dp2a_shape_selects_lanes_of_b(part, signs, backend):
    # dp2a: two 16-bit lanes of a times bytes part..part+1 of b's 32-bit word, into 32 bits.
    spec = DotSpec(16, 8, 2, *signs, acc_bits=32, acc_signed=True, b_first=part, b_word=32)
    rng = np.random.default_rng(part + 4 * signs[0] + 2 * signs[1])
    n = 3000
    a, b, acc = words(rng, 32, n), words(rng, 32, n)[::-1].copy(), accs(rng, 32, n)
    for neg, clamp in [(False, False), (False, True)]:
        assert run(backend, spec, a, b, acc, neg, clamp) == expected(spec, a, b, acc, neg, clamp)


@pytest.mark.parametrize("backend", BACKENDS)
def test_selector_on_a_too(backend):
    spec = DotSpec(8, 8, 2, True, False, a_first=1, a_word=32, b_first=2, b_word=64, acc_bits=64, acc_signed=True)
    rng = np.random.default_rng(5)
    a, b, acc = words(rng, 32, 2000), words(rng, 64, 2000), accs(rng, 64, 2000)
    assert run(backend, spec, a, b, acc, False, False) == expected(spec, a, b, acc, False, False)


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("signs", SIGNS, ids=lambda s: "".join("su"[not x] for x in s))
def test_pair_saturation_every_lane_pair(signs, backend):
    # Every pair of byte values in lanes 0 and 2, a second random pair in lanes 1 and 3: each pair sum
    # meets every product and many of them saturate.
    spec = DotSpec(8, 8, 4, *signs, acc_bits=32, acc_signed=True, pair_sat=16)
    x, y = (v.ravel().astype(np.uint64) for v in np.meshgrid(np.arange(256), np.arange(256), indexing="ij"))
    rng = np.random.default_rng(7)
    x2, y2 = rng.integers(0, 256, x.size, dtype=np.uint64), rng.integers(0, 256, x.size, dtype=np.uint64)
    a = x | (x2 << np.uint64(8)) | (x << np.uint64(16)) | (x2 << np.uint64(24))
    b = y | (y2 << np.uint64(8)) | (y << np.uint64(16)) | (y2 << np.uint64(24))
    acc = accs(rng, 32, a.size)
    if backend == "scalar":
        a, b, acc = a[::16], b[::16], acc[::16]
    for neg, clamp in [(False, False), (True, True)]:
        assert run(backend, spec, a, b, acc, neg, clamp) == expected(spec, a, b, acc, neg, clamp)


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("acc_signed", [True, False])
def test_16_bit_accumulator(acc_signed, backend):
    # pmaddubsw is a step of two u8 x s8 products into a 16-bit result that saturates.
    spec = DotSpec(8, 8, 2, False, True, acc_bits=16, acc_signed=acc_signed)
    x, y = (v.ravel().astype(np.uint64) for v in np.meshgrid(np.arange(256), np.arange(256), indexing="ij"))
    a, b = x | (y << np.uint64(8)), y | (x << np.uint64(8))
    rng = np.random.default_rng(3)
    acc = accs(rng, 16, a.size)
    if backend == "scalar":
        a, b, acc = a[::8], b[::8], acc[::8]
    for neg, clamp in [(False, False), (False, True), (True, True)]:
        assert run(backend, spec, a, b, acc, neg, clamp) == expected(spec, a, b, acc, neg, clamp)


def test_trace_shows_saturated_pairs():
    spec = DotSpec(8, 8, 4, False, True, pair_sat=16)
    t = trace(spec, 0xFFFFFFFF, 0x80808080, 0)
    assert t.products == (-32640,) * 4
    assert t.pair_sums == (-32768, -32768)
    assert t.result == -65536


def test_trace_reads_selected_lanes():
    t = trace(DotSpec(16, 8, 2, True, True, b_first=2, b_word=32), 0x0002_0001, 0x0403_0201, 0)
    assert t.b_lanes == (3, 4) and t.result == 3 + 8


def test_selector_checks_the_whole_word():
    f = dot_function(DotSpec(16, 8, 2, True, True, b_first=2, b_word=32))
    assert f(1, 0xFF00_0000, 0) == 0  # lane 3 of b times lane 1 of a (0)
    with pytest.raises(OperandError, match=r"b=4294967296 is out of range"):
        f(1, 1 << 32, 0)
    got = f(np.array([0x0001_0000]), np.array([0x7F00_0000], dtype=np.uint32), 0)
    assert got.tolist() == [127]


@pytest.mark.parametrize(
    "kwargs, message",
    [
        (dict(b_first=-1), "b_first=-1"),
        (dict(b_first=3, b_word=32), "b_first=3, b_word=32"),
        (dict(a_word=72), "a_word=72"),
        (dict(pair_sat=8), "pair_sat=8"),
        (dict(pair_sat=True), "pair_sat=True"),
        (dict(acc_bits=8), "acc_bits=8"),
    ],
)
def test_bad_fields_say_what_was_allowed(kwargs, message):
    with pytest.raises(OperandError, match=message):
        DotSpec(8, 8, 2, True, True, **kwargs)


def test_pair_sat_needs_pairs():
    with pytest.raises(OperandError, match="even number of lanes"):
        DotSpec(8, 8, 3, True, True, pair_sat=16)
    with pytest.raises(OperandTypeError, match="b_first"):
        DotSpec(8, 8, 2, True, True, b_first="2")
