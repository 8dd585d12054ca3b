"""The cases the issue lists, and accumulator/clamp edges against the reference."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from intdot import amd
from tests.amd.spec import NAMES, SUDOT, call, ref

INT32_MIN, INT32_MAX, U32_MAX = -(2**31), 2**31 - 1, 2**32 - 1


# Facts from the issue text (reference profile).
ISSUE_CASES = [
    (lambda: amd.sdot4(0x01020304, 0x05060708, 10, False), 80),
    (lambda: amd.sdot4(0x80808080, 0x80808080, 0x7FFFFFFF, False), -2147418113),
    (lambda: amd.sdot4(0x80808080, 0x80808080, 0x7FFFFFFF, False, clamp=True), 2147483647),
    (lambda: amd.udot4(0xFFFFFFFF, 0xFFFFFFFF, 0xFFFFFFFF, False), 260099),
    (lambda: amd.udot4(0xFFFFFFFF, 0xFFFFFFFF, 0xFFFFFFFF, False, clamp=True), 4294967295),
    (lambda: amd.sdot8(0x88888888, 0x77777777, 0, False), -448),
    (lambda: amd.sudot4(True, 0xFFFFFFFF, False, 0xFFFFFFFF, 0, False), -1020),
    (lambda: amd.sudot8(False, 0xFFFFFFFF, True, 0x88888888, 0x7FFFFFFF, False, clamp=True), 2147482687),
]


@pytest.mark.parametrize("i", range(len(ISSUE_CASES)))
def test_issue_cases(i):
    fn, want = ISSUE_CASES[i]
    got = fn()
    assert type(got) is int and got == want


def test_issue_cases_full_spelling_and_arrays():
    assert amd.__builtin_amdgcn_sdot4(0x01020304, 0x05060708, 10, False) == 80
    assert amd.builtin("__builtin_amdgcn_sdot4")(0x01020304, 0x05060708, 10, False) == 80
    got = amd.sdot4(
        np.array([0x01020304, 0x80808080], dtype=np.uint32),
        np.array([0x05060708, 0x80808080]),
        np.array([10, 0x7FFFFFFF]),
        False,
    )
    assert got.dtype == np.int32 and got.tolist() == [80, -2147418113]


EDGE_ACC = [0, 1, -1, INT32_MIN, INT32_MAX, INT32_MIN + 1, INT32_MAX - 1, 2**31, U32_MAX, U32_MAX - 1]
EDGE_WORDS = [
    0,
    0xFFFFFFFF,
    0x80808080,
    0x7F7F7F7F,
    0x88888888,
    0x77777777,
    0x80008000,
    0x7FFF7FFF,
    0xFFFF0000,
    0x00010001,
    0x01020304,
]


def _flagsets(name):
    return list(itertools.product([False, True], repeat=2)) if name in SUDOT else [(None, None)]


@pytest.mark.parametrize("name", NAMES)
def test_accumulator_and_clamp_edges(name):
    fn = getattr(amd, name)
    for s0, s1 in _flagsets(name):
        kw = {} if s0 is None else {"src0_neg": s0, "src1_neg": s1}
        for a, b, c, neg, clamp in itertools.product(
            EDGE_WORDS[:6], EDGE_WORDS, EDGE_ACC, [False, True], [False, True]
        ):
            want = ref(name, a, b, c, neg=neg, clamp=clamp, **kw)
            got = call(fn, name, a, b, c, neg=neg, clamp=clamp, **kw)
            assert got == want, (name, hex(a), hex(b), c, neg, clamp, kw)
            assert type(got) is int


@pytest.mark.parametrize("name", ["udot4", "udot8", "udot2"])
def test_unsigned_negative_results(name):
    """neg on an unsigned builtin: wraps to a large unsigned value, or clamps to 0."""
    fn = getattr(amd, name)
    assert fn(0x01010101, 0x01010101, 0, True) == ref(name, 0x01010101, 0x01010101, 0, neg=True)
    assert fn(0x01010101, 0x01010101, 0, True) > INT32_MAX  # the unsigned spelling
    assert fn(0x01010101, 0x01010101, 0, True, clamp=True) == 0
    assert fn(0, 0, U32_MAX, True, clamp=True) == U32_MAX
    assert fn(0xFFFFFFFF, 0xFFFFFFFF, 0, True, clamp=True) == 0


def test_result_spelling():
    # int results come back signed, unsigned int results unsigned.
    assert amd.sdot4(0, 0, 0xFFFFFFFF, False) == -1
    assert amd.sudot4(False, 0, False, 0, 0xFFFFFFFF, False) == -1
    assert amd.udot4(0, 0, -1, False) == U32_MAX
    assert amd.udot2(0, 0, -1, False) == U32_MAX


def test_sdot2_clamp_exact_sum_not_wrapped_products():
    """(-32768)^2 * 2 = 2**31: intdot clamps the exact sum (see docs/differences.md)."""
    pair = amd.short2(-32768, -32768)
    assert amd.sdot2(pair, pair, 0, False, clamp=True) == INT32_MAX
    assert amd.sdot2(pair, pair, 0, False) == INT32_MIN  # no clamp: wraps mod 2**32
    assert amd.sdot2(pair, pair, 0, True, clamp=True) == INT32_MIN
    assert amd.sdot2(pair, pair, -1, False, clamp=True) == INT32_MAX
    top = amd.short2(65535, 65535)
    assert amd.udot2(top, top, 0, False, clamp=True) == U32_MAX
    assert amd.udot2(top, top, 0, False) == ref("udot2", 0xFFFFFFFF, 0xFFFFFFFF, 0)


def test_llvm_profile_last_argument_is_clamp():
    sdot4 = amd.builtin("sdot4", profile="llvm")
    assert sdot4(0x80808080, 0x80808080, 0x7FFFFFFF, True) == 2147483647
    assert sdot4(0x80808080, 0x80808080, 0x7FFFFFFF, False) == -2147418113
    assert sdot4(0x80808080, 0x80808080, 0x7FFFFFFF) == -2147418113
    sudot8 = amd.builtin("__builtin_amdgcn_sudot8", profile="llvm")
    assert sudot8(False, 0xFFFFFFFF, True, 0x88888888, 0x7FFFFFFF, True) == 2147482687
    with pytest.raises(TypeError):
        sdot4(1, 2, 3, False, neg=True)  # there is no neg in clang's signature
    assert amd.builtin("udot2", profile="llvm")(amd.short2(65535, 65535), amd.short2(65535, 65535), 0, True) == U32_MAX


def test_neg_and_clamp_keywords():
    assert amd.sdot4(0x01020304, 0x05060708, 10, neg=True) == 10 - 70
    with pytest.raises(TypeError):
        amd.sdot4(1, 2, 3, False, True)  # clamp is keyword-only
