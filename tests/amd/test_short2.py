"""sdot2/udot2 operands: packed words, pairs, arrays of pairs, and packed() words."""

from __future__ import annotations

import numpy as np
import pytest

from intdot import amd
from intdot.errors import OperandError, OperandTypeError
from tests.amd.spec import ref


def word(e0, e1):
    return (e0 & 0xFFFF) | ((e1 & 0xFFFF) << 16)


@pytest.mark.parametrize("name", ["sdot2", "udot2"])
def test_pair_equals_packed_word(name):
    fn = getattr(amd, name)
    pairs = [(-3, 7), (2, 5), (-32768, 32767), (65535, 0), (0xFFFF, 0x8000), (0, 0), (1, -1)]
    for p in pairs:
        for q in pairs:
            want = ref(name, word(*p), word(*q), 100)
            assert fn(p, q, 100, False) == want
            assert fn(list(p), q, 100, False) == want
            assert fn(word(*p), q, 100, False) == want
            assert int(fn(p, np.array(q), 100, False)) == want


def test_a_list_of_more_than_two_is_packed_words():
    # Only a last axis of length 2 means pairs; three ints are three packed words.
    assert amd.sdot2([word(3, 7), 0, word(-1, 1)], word(1, 1), 0, False).tolist() == [10, 0, 0]


@pytest.mark.parametrize("name", ["sdot2", "udot2"])
@pytest.mark.parametrize("dtype", [np.int16, np.uint16, np.int32, np.int64])
def test_array_of_pairs(name, dtype):
    rng = np.random.default_rng(7)
    lo, hi = (0, 2**16) if dtype == np.uint16 else (-(2**15), 2**15)
    a = rng.integers(lo, hi, (3, 4, 2)).astype(dtype)
    b = rng.integers(lo, hi, (4, 2)).astype(dtype)
    fn = getattr(amd, name)
    got = fn(a, b, 7, False)
    assert got.shape == (3, 4)
    want = [[ref(name, word(*map(int, a[i, j])), word(*map(int, b[j])), 7) for j in range(4)] for i in range(3)]
    np.testing.assert_array_equal(got.astype(np.int64), want)


def test_one_pair_as_array_gives_a_0d_array():
    got = amd.sdot2(np.array([-3, 7]), (2, 5), 0, False)
    assert isinstance(got, np.ndarray) and got.shape == () and got.dtype == np.int32 and int(got) == 29


def test_packed_words_arrays():
    words = np.array([word(3, 7), word(1, 1), word(-1, -1)], dtype=np.uint32)  # last axis 3: packed words
    np.testing.assert_array_equal(amd.sdot2(words, word(1, 1), 0, False), [10, 2, -2])
    two = np.array([[word(3, 7), word(1, 1)]], dtype=np.uint32)  # last axis 2: needs packed()
    got = amd.sdot2(amd.packed(two), word(1, 1), 0, False)
    assert got.shape == (1, 2) and got.tolist() == [[10, 2]]
    assert repr(amd.packed(5)) == "packed(5)"


def test_sixteen_bit_array_must_be_pairs():
    with pytest.raises(OperandError, match="pairs along the last axis"):
        amd.sdot2(np.zeros(3, dtype=np.int16), 0, 0, False)


@pytest.mark.parametrize("bad,exc,match", [
    ((70000, 1), OperandError, r"src0\[0\]=70000 is out of range"),
    ((1, -32769), OperandError, r"src0\[1\]=-32769 is out of range"),
    ((1.0, 2), OperandTypeError, r"src0\[0\]=1.0 has type float"),
    ((True, 2), OperandTypeError, r"src0\[0\]=True"),
    (np.array([[1, 70000]]), OperandError, "holds the element 70000"),
    (np.array([[1.5, 2.0]]), OperandTypeError, "dtype float64"),
    ("12", OperandTypeError, "src0='12' has type str"),
    (1.5, OperandTypeError, "src0=1.5 has type float"),
    (True, OperandTypeError, "src0=True"),
    (2**32, OperandError, "src0=4294967296 is out of range"),
    ([[1, 2], [3]], OperandTypeError, "src0"),
    ([[1, 2], [3, 4]], OperandTypeError, "src0 is a sequence of 2 non-scalars, which is ambiguous"),
    ((np.array([1, 2, 3]), np.array([4, 5, 6])), OperandTypeError, "ambiguous; pass np.stack"),
])
def test_bad_short2_operands(bad, exc, match):
    with pytest.raises(exc, match=match):
        amd.sdot2(bad, (1, 1), 0, False)
    with pytest.raises(exc, match=match.replace("src0", "src1")):
        amd.builtin("udot2", profile="llvm")((1, 1), bad, 0, False)


def test_element_arrays_via_stack_and_lists_of_pairs():
    e0, e1 = np.array([1, 2, 3]), np.array([4, 5, 6])
    got = amd.sdot2(np.stack([e0, e1], axis=-1), (1, 1), 0, False)
    assert got.tolist() == [5, 7, 9]
    assert amd.sdot2([[1, 2], [3, 4], [5, 6]], (1, 10), 0, False).tolist() == [21, 43, 65]
    assert amd.sdot2(np.asarray([[1, 2], [3, 4]]), (1, 10), 0, False).tolist() == [21, 43]
