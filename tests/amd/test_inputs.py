"""Unusual inputs to the builtins: byte orders, views, object arrays, and options checked, not guessed."""

from __future__ import annotations

import numpy as np
import pytest

from intdot import amd
from intdot.errors import OperandError, OperandTypeError
from tests.amd.spec import NAMES, PLAIN, SUDOT, call, ref

WORDS = [0x80FF7F01, 0xFFFFFFFF, 0x7F7F7F7F, 0x01020304, 0, 0x80808080, 0x88888888, 0x77777777]
ACCS = [5, 0x7FFFFFFF, 0x80000000, 0xFFFFFFFF, 0, 12345, 1, 0x7FFFFFFE]


@pytest.mark.parametrize("name", NAMES)
@pytest.mark.parametrize("dtype", [">u4", ">i8", "<u8"])
@pytest.mark.parametrize("neg,clamp", [(False, False), (True, True)])
def test_every_builtin_on_big_endian_and_wide_words(name, dtype, neg, clamp):
    fn = getattr(amd, name)
    a = np.array(WORDS * 1000, dtype=dtype)  # 8000 words: past the compiled kernel's threshold too
    b = np.array(WORDS[::-1] * 1000, dtype=dtype)
    c = np.array(ACCS * 1000, dtype=dtype)
    flags = dict(src0_neg=True, src1_neg=False) if name in SUDOT else {}
    if name in ("sdot2", "udot2"):
        a, b = amd.packed(a), amd.packed(b)
    got = call(fn, name, a, b, c, neg=neg, clamp=clamp, **flags)
    want = [ref(name, x, y, z, neg=neg, clamp=clamp, **flags) for x, y, z in zip(WORDS, WORDS[::-1], ACCS)]
    assert got[:8].tolist() == want
    assert got.tolist() == want * 1000


@pytest.mark.parametrize("name", PLAIN)
def test_reversed_and_strided_views(name):
    fn = getattr(amd, name)
    base = np.array(WORDS * 4, dtype=np.uint32).reshape(4, 8)
    a = base[::-1, ::2]
    b = base[:, 1::2].T.T
    if name in ("sdot2", "udot2"):
        a, b = amd.packed(a), amd.packed(b)
        av, bv = a.words, b.words
    else:
        av, bv = a, b
    got = fn(a, b, 3, True)
    want = [ref(name, int(x), int(y), 3, neg=True) for x, y in zip(av.ravel(), bv.ravel())]
    assert got.ravel().tolist() == want


def test_short2_pairs_in_big_endian():
    pairs = np.array([[-3, 7], [-32768, -32768], [32767, 1]], dtype=">i2")
    got = amd.sdot2(pairs, pairs, 0, False, clamp=True)
    words = [(int(p) & 0xFFFF) | ((int(q) & 0xFFFF) << 16) for p, q in pairs]
    assert got.tolist() == [ref("sdot2", w, w, 0, clamp=True) for w in words]


def test_empty_lists():
    assert amd.sdot4([], 1, 0, False).shape == (0,)
    assert amd.sdot2([], amd.short2(1, 2), 0, False).shape == (0,)


def test_object_array_of_words():
    got = amd.udot4(np.array([0xFFFFFFFF, -1], dtype=object), 0x01010101, 0, False)
    assert got.tolist() == [ref("udot4", 0xFFFFFFFF, 0x01010101, 0)] * 2


def test_where_available_checks_by():
    assert amd.where_available("sdot4", "llvm", by="processor")[0] == "gfx906"
    with pytest.raises(OperandError, match="by='proc' is not known; expected 'family' or 'processor'"):
        amd.where_available("sdot4", by="proc")


def test_availability_checks_processors():
    with pytest.raises(OperandTypeError, match="processors=1 is not a bool"):
        amd.availability(processors=1)


def test_options_that_are_arrays_are_errors_not_truth_value_errors():
    from intdot.amd.evaluate import evaluate
    from intdot.errors import UnknownTarget

    both = np.array(["llvm", "reference"])
    with pytest.raises(UnknownTarget, match="profile="):
        amd.builtin("sdot4", profile=both)
    with pytest.raises(UnknownTarget, match="profile="):
        amd.target("gfx942", both)
    with pytest.raises(OperandError, match="by="):
        amd.where_available("sdot4", by=np.array(["family", "processor"]))
    with pytest.raises(OperandTypeError, match="clamp="):
        evaluate("sdot4(1, 2, 3, true)", profile="llvm", clamp=np.array([True, False]))


def test_row_spec_of_sudot_needs_both_flags():
    with pytest.raises(OperandTypeError, match="sudot4 reads its operands' signedness from flags"):
        amd.lookup("sudot4").spec()


@pytest.mark.parametrize("name,hint", [("gfx94", "gfx942"), ("cdna5", "CDNA4"), ("rdna35", "RDNA3.5")])
def test_target_typos_suggest_names(name, hint):
    from intdot.errors import UnknownTarget

    with pytest.raises(UnknownTarget, match=rf"target='{name}' is not known .*did you mean .*{hint}"):
        amd.target(name)


@pytest.mark.parametrize("name,hint", [("sdot5", "sdot4"), ("SDOT4", "sdot4"), ("__builtin_amdgcn_sudot16", "sudot8")])
def test_builtin_typos_suggest_names(name, hint):
    from intdot.errors import UnknownInstruction

    with pytest.raises(UnknownInstruction, match=rf"is not an AMD dot builtin \(did you mean [^)]*{hint}"):
        amd.builtin(name)


def test_explain_names_the_target_canonically():
    from intdot.amd.evaluate import evaluate, explain

    ev = evaluate("sdot4(1, 2, 3, false)", target=" cdna3")
    assert ev.target == "CDNA3" and explain(ev)[0].endswith("[reference profile, target CDNA3]")


def test_short2_object_arrays_are_words_checked_element_by_element():
    words = np.array([0x0007FFFD, 0x8000FFFF], dtype=object)
    assert amd.sdot2(words, amd.short2(2, 5), 0, False).tolist() == [
        ref("sdot2", w, 0x00050002, 0) for w in (0x0007FFFD, 0x8000FFFF)
    ]
    with pytest.raises(OperandError, match=r"src0\[0, 0\]=<an integer of 16610 bits> is out of range"):
        amd.sdot2([[10**5000, 1]], 1, 0, False)
    with pytest.raises(OperandTypeError, match=r"src1\[0, 1\]=None has type NoneType"):
        amd.udot2(1, np.array([[1, None]], dtype=object), 0, False)
    with pytest.raises(OperandError, match=r"src0\[2\]=<an integer of 16610 bits>"):
        amd.sdot2([1, 2, 10**5000], 1, 0, False)


def test_short2_of_mixed_numpy_ints():
    got = amd.sdot2([amd.short2(np.uint64(5), np.int64(-1))], amd.short2(1, 1), 0, False)
    assert got.tolist() == [ref("sdot2", 0xFFFF0005, 0x00010001, 0)]
    # The same two NumPy ints as a list are two words.
    assert amd.sdot2([np.uint64(5), np.int64(-1)], 1, 0, False).tolist() == [5, -1]


def test_short2_bool_inside_a_list_of_pairs():
    with pytest.raises(OperandTypeError, match=r"src0\[0, 0\]=True has type bool"):
        amd.sdot2([[True, 2], [3, 4], [5, 6]], 1, 0, False)
