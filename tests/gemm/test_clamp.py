"""Saturating chains: every step clamps, so the result can differ from clamp(c + a @ b)."""

import numpy as np
import pytest

from intdot.gemm import clamp as clamp_mod
from intdot.gemm import gemm

from . import reference_gemm as ref
from .test_gemm import _acc, _lanes, _rng

CLAMP_OPS = [n for n, r in ref.OPS.items() if r[7]]


@pytest.mark.parametrize("compiled", [False, True])
@pytest.mark.parametrize("name", CLAMP_OPS)
def test_adversarial_accumulators(name, compiled, monkeypatch):
    if compiled and not clamp_mod.have_numba():
        pytest.skip("numba (the 'fast' extra) is not installed")
    monkeypatch.setattr(clamp_mod, "have_numba", lambda: compiled)
    row = ref.OPS[name]
    for m, k, n in [(1, 1, 1), (3, 7, 5), (9, 67, 6)]:
        rng = _rng("clamp", name, compiled, m, k, n)
        a = _lanes(rng, row[0], row[1], (m, k))
        b = _lanes(rng, row[2], row[3], (k, n))
        for neg in (False, True):
            c = _acc(rng, row, (m, n), near_limits=True)
            want = ref.gemm(row, a.tolist(), b.tolist(), c, neg=neg, clamp=True)
            assert gemm(a, b, np.array(c), op=name, clamp=True, neg=neg).tolist() == want


def test_clamp_differs_from_clamping_the_sum_once():
    a = np.array([[127, 127, 127, 127, -128, -128, -128, -128]], np.int8)
    b = np.full((8, 1), 127, np.int8)
    c = np.array([[2**31 - 1000]])
    got = gemm(a, b, c, op="sdot4", clamp=True)
    want = ref.gemm(ref.OPS["sdot4"], a.tolist(), b.tolist(), c.tolist(), clamp=True)
    assert got.tolist() == want == [[2**31 - 1 - 4 * 128 * 127]]
    once = min(max(int(c[0, 0]) + int((a.astype(np.int64) @ b.astype(np.int64))[0, 0]), -(2**31)), 2**31 - 1)
    assert once != got[0, 0]


def test_safe_rows_take_the_fast_path_and_mixed_rows_agree():
    rng = _rng("mixed")
    a = _lanes(rng, 8, True, (8, 40))
    b = _lanes(rng, 8, True, (40, 5))
    c = rng.integers(-1000, 1000, (8, 5))
    c[3, 2] = 2**31 - 10  # only row 3 needs the sequential chain
    start = c.astype(np.int64)
    safe = clamp_mod.safe_rows(start, a, b, -(2**31), 2**31 - 1)
    assert safe.sum() == 7 and not safe[3]
    want = ref.gemm(ref.OPS["sdot4"], a.tolist(), b.tolist(), c.tolist(), clamp=True)
    assert gemm(a, b, c, op="sdot4", clamp=True).tolist() == want


def test_worst_case_saturates_at_both_ends():
    a = np.full((2, 4096), -128, np.int8)
    b = np.concatenate([np.full((4096, 1), -128, np.int8), np.full((4096, 1), 127, np.int8)], axis=1)
    got = gemm(a, b, op="sdot4", clamp=True, neg=True)
    assert got.tolist() == [[-(2**26), 4096 * 128 * 127]] * 2
    got = gemm(a, b, np.array([[-(2**31) + 10, 2**31 - 10]]), op="sdot4", clamp=True, neg=True)
    assert got.tolist() == [[-(2**31), 2**31 - 1]] * 2
    got = gemm(a, b, np.array([[2**31 - 1, -(2**31)]]), op="sdot4", clamp=True)
    assert got.tolist() == [[2**31 - 1, -(2**31)]] * 2
