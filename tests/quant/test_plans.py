"""Every instruction that fits computes the same bits: directly (mixed-sign lanes), or with an operand shifted
into its lanes and the shift folded into the zero point (signed-only and unsigned-only lanes)."""

import zlib

import numpy as np
import pytest

from intdot import catalog
from intdot.core.errors import OperandError
from intdot.quant import conv_integer, fitting, matmul_integer, plan

from . import reference_quant as ref

KINDS = [(np.uint8, np.int8), (np.uint8, np.uint8), (np.int8, np.int8), (np.int8, np.uint8)]


def _rng(*key):
    return np.random.default_rng(zlib.crc32(repr(key).encode()))


def _values(rng, dtype, shape, extreme=0.5):
    info = np.iinfo(dtype)
    edge = rng.choice(np.array([info.min, info.max], np.int64), shape)
    return np.where(rng.random(shape) < extreme, edge, rng.integers(info.min, info.max + 1, shape)).astype(dtype)


def test_every_instruction_of_8_bit_or_wider_lanes_fits_and_4_bit_ones_do_not():
    names = {p.record.name for p in fitting(np.uint8, np.int8)}
    for r in catalog.records():
        wide = r.spec.a_width >= 8 and r.spec.b_width >= 8
        assert (r.name in names) == (wide and r.clamp is not True), r.name
    assert {"amd.sdot4", "amd.sudot4", "arm.usdot_neon_vec_128", "arm.sdot_sve_vec_d"} <= names


@pytest.mark.parametrize("kind", KINDS, ids=lambda k: f"{k[0].__name__}x{k[1].__name__}")
def test_every_fitting_instruction_gives_the_same_bits(kind):
    ta, tb = kind
    rng = _rng("plans", ta, tb)
    a = _values(rng, ta, (6, 37))
    b = _values(rng, tb, (37, 5))
    # Zero points at the opposite extreme make the largest corrections.
    za = np.iinfo(ta).max if rng.random() < 0.5 else np.iinfo(ta).min
    zb = np.iinfo(tb).min
    want = ref.matmul_integer(a, b, za, zb)
    plans = fitting(ta, tb)
    assert len(plans) >= 50
    for p in plans:
        got = matmul_integer(a, b, ta(za), tb(zb), op=p.record)
        assert got.dtype == np.int32 and (got == want).all(), (p.record.name, p.describe())


def test_handling_follows_the_lanes():
    assert plan("usdot", np.uint8, np.int8).handling == "direct"
    assert plan("sudot4", np.uint8, np.int8).flags == {"a_signed": False, "b_signed": True}
    p = plan("sdot4", np.uint8, np.int8)
    assert p.handling == "compensated" and (p.shift_first, p.shift_second) == (128, 0)
    p = plan("udot4", np.int8, np.int8)
    assert (p.shift_first, p.shift_second) == (-128, -128)
    p = plan("sudot", np.uint8, np.int8)  # Arm SUDOT: int8 first, uint8 second: the product is transposed
    assert p.swap and p.handling == "direct"
    assert plan("sdot", np.uint8, np.int8).record.spec.a_width == 8  # the 8-bit form of a shared spelling


def test_an_instruction_whose_lanes_cannot_hold_the_operands_is_an_error():
    a = np.zeros((2, 8), np.uint8)
    with pytest.raises(OperandError, match=r"op='sdot8' \(amd.sdot8, 8 x s4 . 8 x s4 -> s32\) cannot compute uint8"):
        matmul_integer(a, a.T.astype(np.int8), op="sdot8")


@pytest.mark.parametrize("kind", KINDS, ids=lambda k: f"{k[0].__name__}x{k[1].__name__}")
def test_wrapping_past_int32_through_every_distinct_step(kind):
    """K = 65,536 with extreme values: the int32 sum passes 2**31 and wraps, through every kind of step."""
    ta, tb = kind
    k = 65536
    a = np.full((2, k), np.iinfo(ta).max, ta)
    a[1, ::2] = np.iinfo(ta).min
    b = np.full((k, 3), np.iinfo(tb).min, tb)
    za, zb = np.iinfo(ta).min, np.iinfo(tb).max
    want = ref.matmul_integer(a, b, za, zb)
    assert abs(int((a.astype(np.int64) - za).sum(axis=1).max()) * 255) > 2**31  # the sums do pass int32
    for p in fitting(ta, tb, distinct=True):
        assert (matmul_integer(a, b, ta(za), tb(zb), op=p.record) == want).all(), p.record.name


def test_batched_per_row_and_per_column_zero_points_and_1d_operands():
    rng = _rng("batched")
    a = _values(rng, np.uint8, (3, 4, 9))
    b = _values(rng, np.int8, (9, 5))
    za = _values(rng, np.uint8, (3, 4, 1))
    zb = _values(rng, np.int8, (5,))
    for op in ("usdot", "sdot4", "sudot", "udot"):
        got = matmul_integer(a, b, za, zb, op=op)
        assert (got == ref.matmul_integer(a, b, za, zb)).all(), op
        got = matmul_integer(a[0], b, za[0, :, 0], zb, op=op)  # per row as M values
        assert (got == ref.matmul_integer(a[0], b, za[0], zb)).all(), op
        assert (matmul_integer(a[0, 0], b, op=op) == ref.matmul_integer(a[0, :1], b)[0]).all()
        assert matmul_integer(a[0, 0], b[:, 0], op=op).shape == ()


@pytest.mark.parametrize("kind", KINDS, ids=lambda k: f"{k[0].__name__}x{k[1].__name__}")
def test_convolution_through_every_distinct_step(kind):
    tx, tw = kind
    rng = _rng("conv", tx, tw)
    x = _values(rng, tx, (2, 4, 7, 6))
    w = _values(rng, tw, (6, 2, 3, 2))
    zx, zw = tx(np.iinfo(tx).max), _values(rng, tw, (6,))
    attrs = dict(pads=[1, 0, 2, 1], strides=[2, 1], dilations=[1, 2], group=2)
    want = ref.conv_integer(x, w, zx, zw, **attrs)
    for p in fitting(tx, tw, distinct=True):
        got = conv_integer(x, w, zx, zw, op=p.record, **attrs)
        assert (got == want).all(), p.record.name
