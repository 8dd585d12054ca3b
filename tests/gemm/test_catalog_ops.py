"""gemm on every instruction of the catalog, and the spellings that name several of them."""

import numpy as np
import pytest

from intdot import catalog
from intdot.gemm import gemm, resolve

from . import reference_gemm as ref
from .test_gemm import _acc, _lanes, _rng


def _row(spec, clamp_neg, step=None):
    return (
        spec.a_width,
        spec.a_signed,
        spec.b_width,
        spec.b_signed,
        step or spec.lanes,
        spec.acc_bits,
        spec.acc_signed,
        clamp_neg,
        spec.pair_sat,
    )


def _distinct():
    """One record per distinct dot step (the catalog's facts are checked against QEMU/llvm-mc elsewhere;
    here gemm's chaining of each kind of step is checked against the reference)."""
    seen = {}
    for r in catalog.records():
        key = (_row(r.spec, r.clamp is None), r.sign_args, r.clamp)
        seen.setdefault(key, r)
    return sorted(seen.values(), key=lambda r: r.name)


@pytest.mark.parametrize("rec", _distinct(), ids=lambda r: r.name)
def test_every_kind_of_catalog_step(rec):
    flags = {"a_signed": False, "b_signed": True} if rec.sign_args else {}
    spec = rec.spec_for(**flags) if rec.sign_args else rec.spec
    # One instruction's K lanes: the record's step (an mma instruction takes 32 lanes of K, in 4 core words).
    row = _row(spec, rec.clamp is None, rec.k_step[0] * 8 // spec.a_width)
    rng = _rng("catalog", rec.name)
    a = _lanes(rng, spec.a_width, spec.a_signed, (4, 2 * spec.lanes + 1))
    b = _lanes(rng, spec.b_width, spec.b_signed, (2 * spec.lanes + 1, 3))
    c = _acc(rng, row, (4, 3), near_limits=True)
    cv = np.array(c, dtype=np.uint64 if spec.acc_bits == 64 and not spec.acc_signed else np.int64)
    # The instruction's own rule: an instruction that always saturates (vpdpbusds) saturates at every step.
    want = ref.gemm(row, a.tolist(), b.tolist(), c, clamp=bool(rec.clamp))
    assert gemm(a, b, cv, op=rec.name, **flags).tolist() == want
    if rec.clamp is None:
        got = gemm(a, b, cv, op=rec.name, clamp=True, neg=True, **flags).tolist()
        assert got == ref.gemm(row, a.tolist(), b.tolist(), c, neg=True, clamp=True)


def test_a_shared_spelling_is_chosen_by_the_operands_width():
    assert resolve("sdot", a_bits=8).acc_bits == 32
    a = np.full((1, 4), -32768, np.int16)
    with pytest.raises(catalog.AmbiguousInstruction, match="sdot_sve_vec_d"):
        gemm(a, a.T, op="sdot")  # 16-bit lanes: into 64 bits (4 lanes) or into 32 (SVE2.1, 2 lanes)
    assert gemm(a, a.T, op="sdot z0.d, z1.h, z2.h").tolist() == [[4 * 2**30]]
    assert gemm(a, a.T, op="arm.sdot_sve_vec_hs").tolist() == [[(4 * 2**30 + 2**31) % 2**32 - 2**31]]


@pytest.mark.parametrize("op", ["svsudot_s32", "svsudot_n_s32", "svsudot_za32_s8_vg1x2", "svsudot_za32_s8_vg1x4"])
def test_acle_sudot_spellings_that_are_usdot_take_signed_a(op):
    # ACLE writes these as USDOT with the sources exchanged; in its own order a is int8 and b is uint8.
    rng = _rng()
    a = rng.integers(-128, 128, (3, 9)).astype(np.int8)
    b = rng.integers(0, 256, (9, 4)).astype(np.uint8)
    want = ref.gemm(ref.OPS["sudot"], a.tolist(), b.tolist())
    assert gemm(a, b, op=op).tolist() == want
    with pytest.raises(ValueError, match="signed 8-bit lane"):
        gemm(b.T, a.T, op=op)


def test_a_catalog_record_is_an_op():
    # What enumerating the catalog gives: each record computes as its name does.
    a, b = np.full((2, 9), -128, np.int8), np.full((9, 3), 127, np.int8)
    for rec in catalog.records():
        if rec.spec.a_width == 8 and rec.spec.b_width == 8 and rec.spec.a_signed and rec.spec.b_signed:
            flags = {"a_signed": True, "b_signed": True} if rec.sign_args else {}
            want = [[-146304] * 3] * 2
            assert gemm(a, b, op=rec, **flags).tolist() == gemm(a, b, op=rec.name, **flags).tolist() == want


@pytest.mark.parametrize("clamp", [False, True])
def test_pair_saturating_steps(clamp):
    # The AVX2 idiom's step (u8 x s8, pair sums saturated to int16, then a 32-bit add), given as a GemmOp
    # so that this test does not depend on the x86 tables: stress inputs saturate most pairs.
    from intdot.gemm.ops import GemmOp

    op = GemmOp("pairs", "test", 8, 8, False, True, 32, True, 4, None, None, "", 16)
    row = (8, False, 8, True, 4, 32, True, True, 16)
    rng = _rng("pairs", str(clamp))
    a = rng.choice(np.array([0, 1, 200, 255], np.uint8), (5, 23))
    b = rng.choice(np.array([-128, -1, 0, 127], np.int8), (23, 4))
    c = _acc(rng, row, (5, 4), near_limits=True)
    got = gemm(a, b, np.array(c, np.int64), op=op, clamp=clamp).tolist()
    assert got == ref.gemm(row, a.tolist(), b.tolist(), c, clamp=clamp)
    exact = gemm(a, b, op="usdot").astype(np.int64)
    assert (gemm(a, b, op=op).astype(np.int64) != exact).any()  # the inputs did saturate pairs
