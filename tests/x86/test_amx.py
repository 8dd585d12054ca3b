"""AMX-INT8 tiles against the SDM reference (tests/x86/reference_x86.py): every shape edge, random and extreme
bytes, batches; the palette-1 limits as errors naming the argument and the limit."""

from __future__ import annotations

import numpy as np
import pytest

from intdot import x86
from intdot.core.errors import OperandError, OperandTypeError
from tests.oracles import x86 as oracle
from tests.x86 import reference_x86 as ref

MNEMONICS = ("tdpbssd", "tdpbsud", "tdpbusd", "tdpbuud")


@pytest.mark.parametrize("mnemonic", MNEMONICS)
@pytest.mark.parametrize("shape", [(1, 1, 4), (16, 16, 64), (5, 3, 8), (2, 16, 60), (16, 2, 4)])
def test_against_sdm_reference(mnemonic, shape):
    m, n, k = shape
    c, a, b = oracle.tiles(oracle.seed_of(f"ref.{mnemonic}.{shape}"), 4, m, n, k)
    got = getattr(x86, mnemonic)(c, a, b)
    assert got.dtype == (np.uint32 if mnemonic == "tdpbuud" else np.int32) and got.shape == (4, m, n)
    for i in range(4):
        assert got[i].tolist() == ref.tile(mnemonic, c[i].tolist(), a[i].tolist(), b[i].tolist())


def test_extremes_wrap():
    # 16 K/4 groups of 4 x (255 x 255) into 0x7FFFFFFF wraps past INT_MAX (no saturating AMX form).
    c = np.full((1, 1), 2**31 - 1, np.int64)
    got = x86.tdpbuud(c, np.full((1, 64), 255, np.uint8), np.full((16, 4), 255, np.uint8))
    assert got.tolist() == [[(2**31 - 1 + 64 * 255 * 255) % 2**32]]
    got = x86.tdpbssd([[0]], np.full((1, 64), -128, np.int8), np.full((16, 4), -128, np.int8))
    assert got.tolist() == [[64 * 16384]]


def test_batch_broadcasts():
    c, a, b = oracle.tiles(5, 6, 4, 4, 16)
    one = x86.tdpbusd(c[0], a[0], b[0])
    assert np.array_equal(x86.tdpbusd(c[:1], a[0], b[0])[0], one)
    assert x86.tdpbusd(np.zeros((4, 4), np.int32), a, b).shape == (6, 4, 4)


@pytest.mark.parametrize(
    ("c", "a", "b", "text"),
    [
        (np.zeros((17, 1)), np.zeros((17, 4)), np.zeros((1, 4)), "c has rows (M) 17; expected 1 to 16"),
        (np.zeros((1, 17)), np.zeros((1, 4)), np.zeros((1, 68)), "c has columns (N) 17; expected 1 to 16 dwords"),
        (np.zeros((2, 1)), np.zeros((3, 4)), np.zeros((1, 4)), "a has rows 3; expected M = 2"),
        (np.zeros((1, 1)), np.zeros((1, 68)), np.zeros((17, 4)), "a has columns (K bytes) 68"),
        (np.zeros((1, 1)), np.zeros((1, 6)), np.zeros((1, 4)), "a multiple of 4 from 4 to 64"),
        (np.zeros((1, 1)), np.zeros((1, 8)), np.zeros((1, 4)), "b has rows 1; expected K/4 = 2"),
        (np.zeros((1, 2)), np.zeros((1, 4)), np.zeros((1, 4)), "b has columns (bytes) 4; expected 4N = 8"),
        (np.zeros(4), np.zeros((1, 4)), np.zeros((1, 4)), "c has shape (4,); expected a tile"),
        (np.zeros((1, 1)), np.full((1, 4), 256), np.zeros((1, 4)), "out of range"),
        (np.zeros((2, 1, 1)), np.zeros((3, 1, 4)), np.zeros((1, 4)), "batch axes"),
    ],
)
def test_limits_are_errors(c, a, b, text):
    c, a, b = (x.astype(np.int64) for x in (c, a, b))
    with pytest.raises(OperandError) as info:
        x86.tdpbusd(c, a, b)
    assert text in str(info.value) and "tdpbusd" in str(info.value)


def test_float_tiles_are_type_errors():
    with pytest.raises(OperandTypeError):
        x86.tdpbusd(np.zeros((1, 1)), np.zeros((1, 4), np.int8), np.zeros((1, 4), np.int8))
