"""gemm on the x86 instructions through the catalog (no special case), against tests/gemm/reference_gemm.py:
VNNI wraps, the ...s forms saturate at every step, the AVX2 idiom saturates its int16 pair sums, AMX wraps."""

from __future__ import annotations

import numpy as np
import pytest

from intdot import catalog
from intdot.core.errors import OperandError
from intdot.gemm import gemm, resolve
from tests.gemm import reference_gemm as ref


def _row(op: str) -> tuple:
    s = catalog.find(op).spec
    return (s.a_width, s.a_signed, s.b_width, s.b_signed, s.lanes, s.acc_bits, s.acc_signed, False, s.pair_sat)


def _inputs(op: str, seed: int, m=5, k=37, n=4, stress=False):
    s = catalog.find(op).spec
    rng = np.random.default_rng(seed)

    def lanes(width, signed, shape):
        lo, hi = (-(1 << (width - 1)), (1 << (width - 1)) - 1) if signed else (0, (1 << width) - 1)
        if stress:  # every entry at an extreme: sums approach K x 2**14 and pairs saturate
            return rng.choice([lo, hi], size=shape).astype(np.int64)
        return rng.integers(lo, hi + 1, size=shape)

    a, b = lanes(s.a_width, s.a_signed, (m, k)), lanes(s.b_width, s.b_signed, (k, n))
    lo, hi = (-(2**31), 2**31 - 1) if s.acc_signed else (0, 2**32 - 1)
    c = rng.choice([lo, hi, lo + 5, hi - 5, 0], size=(m, n))
    return a, b, c


OPS = ["vpdpbusd", "vpdpbusds", "vpmaddubsw", "tdpbusd", "vpdpwssds", "vpdpbuuds", "_mm256_dpbssds_epi32", "tdpbuud"]


@pytest.mark.parametrize("stress", [False, True])
@pytest.mark.parametrize("op", OPS)
def test_gemm_matches_reference(op, stress):
    a, b, c = _inputs(op, len(op) + stress, stress=stress)
    rec = catalog.find(op)
    want = ref.gemm(_row(op), a.tolist(), b.tolist(), c.tolist(), clamp=bool(rec.clamp))
    got = gemm(a, b, c, op=op)
    assert got.tolist() == want
    assert got.dtype == (np.uint32 if not rec.spec.acc_signed else np.int32)


def test_the_idiom_differs_from_vnni_where_pairs_saturate():
    a = np.full((1, 64), 255, np.uint8)
    b = np.full((64, 1), 127, np.int8)
    assert gemm(a, b, op="vpdpbusd").tolist() == [[64 * 255 * 127]]
    assert gemm(a, b, op="vpmaddubsw").tolist() == [[32 * 32767]]  # each pair: 2 x 32385 -> 32767
    assert resolve("vpmaddubsw").pair_sat == 16 and resolve("pmaddubsw+pmaddwd+paddd").name.endswith("paddd")


def test_fixed_rules_are_kept():
    a, b = np.full((1, 8), 255, np.uint8), np.full((8, 1), 127, np.int8)
    top = np.array([[2**31 - 1]])
    assert gemm(a, b, top, op="vpdpbusds").tolist() == [[2**31 - 1]]
    assert gemm(a, b, top, op="vpdpbusd").tolist() == [[(2**31 - 1 + 8 * 255 * 127) % 2**32 - 2**32]]
    with pytest.raises(OperandError, match="clamp=True"):
        gemm(a, b, op="vpdpbusd", clamp=True)
    with pytest.raises(OperandError, match="saturates at every step"):
        gemm(a, b, op="vpdpbusds", clamp=False)
