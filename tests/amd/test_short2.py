"""sdot2/udot2 operands: packed words are always words; pairs only from short2() or int16/uint16 pairs."""

from __future__ import annotations

import numpy as np
import pytest

from intdot import amd
from intdot.errors import OperandError, OperandTypeError
from tests.amd.spec import ref


def word(e0, e1):
    return (e0 & 0xFFFF) | ((e1 & 0xFFFF) << 16)


PAIRS = [(-3, 7), (2, 5), (-32768, 32767), (65535, 0), (0xFFFF, 0x8000), (0, 0), (1, -1)]


@pytest.mark.parametrize("name", ["sdot2", "udot2"])
def test_short2_helper_equals_packed_word(name):
    fn = getattr(amd, name)
    for p in PAIRS:
        assert amd.short2(*p) == amd.ushort2(*p) == word(*p)
        for q in PAIRS:
            want = ref(name, word(*p), word(*q), 100)
            assert fn(amd.short2(*p), amd.short2(*q), 100, False) == want
            pair = np.array([v & 0xFFFF for v in q], np.uint16)
            assert int(fn(amd.short2(*p), pair, 100)) == want
            assert int(fn(amd.short2(*p), pair.view(np.int16), 100)) == want


@pytest.mark.parametrize("name", ["sdot2", "udot2"])
@pytest.mark.parametrize("n", [1, 2, 3, 4])
def test_batches_of_words_mean_words_whatever_their_length(name, n):
    """Issue 8 item 7: two words used to be read as one pair (a 0-d result); now n words give n results."""
    fn = getattr(amd, name)
    words = [word(5, 0), word(7, 0), word(3, 7), word(-1, 1)][:n]
    ones = [word(1, 1)] * n
    want = [ref(name, w, o, 0) for w, o in zip(words, ones)]
    for a, b in (
        (np.array(words, np.uint32), np.array(ones, np.uint32)),
        (words, ones),
        (tuple(words), ones),
        (np.array(words, np.int64), np.array(ones, np.int32)),
    ):
        got = fn(a, b, 0, False)
        assert got.shape == (n,) and got.tolist() == want
    assert fn(np.array([5, 7], np.uint32), np.array([1, 1], np.uint32), 0, False).tolist() == [5, 7]
    # The same words as every other builtin reads them: a (2,) array of words is two operands.
    assert amd.sdot4(np.array([5, 7], np.uint32), 1, 0).shape == amd.sdot2(np.array([5, 7], np.uint32), 1, 0).shape


@pytest.mark.parametrize("name", ["sdot2", "udot2"])
@pytest.mark.parametrize("dtype", [np.int16, np.uint16, np.dtype(">i2")])
def test_sixteen_bit_arrays_of_pairs(name, dtype):
    rng = np.random.default_rng(7)
    lo, hi = (0, 2**16) if np.dtype(dtype).kind == "u" else (-(2**15), 2**15)
    a = rng.integers(lo, hi, (3, 4, 2)).astype(dtype)
    b = rng.integers(lo, hi, (4, 2)).astype(dtype)
    fn = getattr(amd, name)
    got = fn(a, b, 7, False)
    assert got.shape == (3, 4)
    want = [[ref(name, word(*map(int, a[i, j])), word(*map(int, b[j])), 7) for j in range(4)] for i in range(3)]
    np.testing.assert_array_equal(got.astype(np.int64), want)
    one = fn(np.array([-3, 7], np.int16), amd.short2(2, 5), 0, False)
    assert isinstance(one, np.ndarray) and one.shape == () and int(one) == ref(name, word(-3, 7), word(2, 5), 0)


def test_short2_of_element_arrays_broadcasts():
    e0, e1 = np.array([1, 2, 3]), np.array([4, 5, 6])
    words = amd.short2(e0, e1)
    assert words.dtype == np.uint32 and words.tolist() == [word(1, 4), word(2, 5), word(3, 6)]
    assert amd.sdot2(words, amd.short2(1, 1), 0).tolist() == [5, 7, 9]
    assert amd.short2([[-1], [2]], [0, 1]).tolist() == [[word(-1, 0), word(-1, 1)], [word(2, 0), word(2, 1)]]
    assert amd.short2(np.int16(-1), np.uint16(65535)) == 0xFFFFFFFF
    assert amd.short2([2**63 - 1 - (2**63 - 1) + 3], [1]).tolist() == [word(3, 1)]


def test_packed_marker_still_accepted():
    two = np.array([[word(3, 7), word(1, 1)]], dtype=np.uint32)
    got = amd.sdot2(amd.packed(two), word(1, 1), 0, False)
    assert got.shape == (1, 2) and got.tolist() == [[10, 2]]
    assert got.tolist() == amd.sdot2(two, word(1, 1), 0, False).tolist()
    assert repr(amd.packed(5)) == "packed(5)"


def test_sixteen_bit_array_must_be_pairs():
    with pytest.raises(OperandError, match="pairs along the last axis.*amd.short2"):
        amd.sdot2(np.zeros(3, dtype=np.int16), 0, 0, False)
    with pytest.raises(OperandError, match="pairs along the last axis"):
        amd.udot2(0, np.array(5, np.uint16), 0, False)


@pytest.mark.parametrize(
    "bad,exc,match",
    [
        ((70000, 1), OperandError, r"e0=70000 is out of range; expected a 16-bit element in \[-32768, 65535\]"),
        ((1, -32769), OperandError, r"e1=-32769 is out of range"),
        ((1.0, 2), OperandTypeError, r"e0=1.0 has type float"),
        ((True, 2), OperandTypeError, r"e0=True"),
        (([1, 70000], 0), OperandError, "e0 holds 70000, out of range"),
        ((0, np.array([1.5])), OperandTypeError, "e1 has dtype float64"),
        ((np.zeros(2), np.zeros(3)), OperandTypeError, "e0 has dtype float64"),
        ((np.zeros(2, int), np.zeros(3, int)), OperandError, "do not broadcast"),
        (([[1, 2], [3]], 0), OperandTypeError, "e0="),
    ],
)
def test_bad_short2_elements(bad, exc, match):
    with pytest.raises(exc, match=match):
        amd.short2(*bad)


@pytest.mark.parametrize(
    "bad,exc,match",
    [
        ("12", OperandTypeError, "src0='12' has type str"),
        (1.5, OperandTypeError, "src0=1.5 has type float"),
        (True, OperandTypeError, "src0=True"),
        (2**32, OperandError, "src0=4294967296 is out of range"),
        ([1, 2**32], OperandError, r"src0 holds 4294967296, out of range"),
        (np.array([[1.5, 2.0]]), OperandTypeError, "src0 has dtype float64"),
        ([[1, 2], [3]], OperandTypeError, "src0"),
    ],
)
def test_bad_short2_operands(bad, exc, match):
    with pytest.raises(exc, match=match):
        amd.sdot2(bad, amd.short2(1, 1), 0, False)
    with pytest.raises(exc, match=match.replace("src0", "src1")):
        amd.builtin("udot2", profile="llvm")(amd.short2(1, 1), bad, 0, False)
