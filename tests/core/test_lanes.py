"""Lane order and packing: lane 0 is the least-significant bits."""

from __future__ import annotations

import numpy as np
import pytest

from intdot.core import lane_values, pack, unpack
from tests.reference import lanes as ref_lanes


@pytest.mark.parametrize("width", [4, 8, 16])
@pytest.mark.parametrize("signed", [False, True])
def test_unpack_matches_reference(width, signed):
    words = np.random.default_rng(0).integers(0, 2**32, 2000, dtype=np.uint64).astype(np.uint32)
    got = unpack(words, width, signed=signed)
    assert got.shape == (2000, 32 // width)
    for w, row in zip(words, got):
        assert row.tolist() == ref_lanes(int(w), width, signed) == lane_values(int(w), width, signed)


@pytest.mark.parametrize("width", [4, 8, 16])
def test_pack_inverts_unpack(width):
    words = np.random.default_rng(1).integers(0, 2**32, (10, 3), dtype=np.uint64).astype(np.uint32)
    for signed in (False, True):
        np.testing.assert_array_equal(pack(unpack(words, width, signed=signed), width), words)


def test_pack_scalar_and_spellings():
    assert pack([1, 127, -1, -128], 8) == 0x80FF7F01
    assert pack([1, 127, 255, 128], 8) == 0x80FF7F01
    assert pack([-1, 7, 0, 0, 0, 0, 0, 8], 4) == 0x8000007F


def test_every_int4_value_through_ml_dtypes():
    ml_dtypes = pytest.importorskip("ml_dtypes", reason="ml_dtypes (the int4 extra) is not installed")
    for dtype, values in ((ml_dtypes.int4, range(-8, 8)), (ml_dtypes.uint4, range(16))):
        values = list(values)
        for start in range(len(values)):
            chunk = [values[(start + k) % len(values)] for k in range(8)]
            word = pack(np.array(chunk, dtype=dtype), 4)
            assert unpack(word, 4, signed=dtype == ml_dtypes.int4).tolist() == chunk


@pytest.mark.parametrize("bits", [32, 64])
@pytest.mark.parametrize("signed", [False, True])
def test_every_byte_in_every_position_unpacks_to_its_nibbles(bits, signed):
    words = [byte << (8 * pos) for pos in range(bits // 8) for byte in range(256)]
    got = unpack(np.array(words, dtype=np.uint64 if bits == 64 else np.uint32), 4, signed=signed, bits=bits)
    for w, row in zip(words, got):
        want = [lane for h in range(bits // 32) for lane in ref_lanes((w >> (32 * h)) & 0xFFFFFFFF, 4, signed)]
        assert row.tolist() == want
