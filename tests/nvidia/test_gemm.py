"""gemm on the NVIDIA records, through the catalog, against the slow reference (tests/gemm/reference_gemm.py)."""

from __future__ import annotations

import numpy as np
import pytest

from intdot.gemm import gemm

from ..gemm import reference_gemm as ref

# From the PTX ISA: (a_width, a_signed, b_width, b_signed, lanes per instruction, acc_bits, acc_signed, -).
# dp4a's result is .u32 only when both sources are; mma accumulates the whole K of one instruction (32 8-bit
# elements) into .s32, and .satfinite saturates that sum once (measured on the H200: tests/nvidia/test_h200_*).
ROWS = {
    "__dp4a": (8, True, 8, True, 4, 32, True, False),
    "dp4a.u32.s32": (8, False, 8, True, 4, 32, True, False),
    "dp4a.s32.u32": (8, True, 8, False, 4, 32, True, False),
    "dp4a.u32.u32": (8, False, 8, False, 4, 32, False, False),
    "mma.s8.s8": (8, True, 8, True, 32, 32, True, False),
    "mma.u8.s8": (8, False, 8, True, 32, 32, True, False),
    "mma.s8.s8.satfinite": (8, True, 8, True, 32, 32, True, False),
    "mma.s8.u8.satfinite": (8, True, 8, False, 32, 32, True, False),
}
SATURATES = {"mma.s8.s8.satfinite", "mma.s8.u8.satfinite"}


def _case(op, rng, m, k, n, stress=False):
    aw, asg, bw, bsg = ROWS[op][:4]
    lo_a, hi_a = (-128, 127) if asg else (0, 255)
    lo_b, hi_b = (-128, 127) if bsg else (0, 255)
    if stress:  # every product at its extreme: sums near K * 2**14, saturation after a few steps
        a = np.full((m, k), lo_a if asg else hi_a)
        b = np.full((k, n), lo_b if bsg else hi_b)
    else:
        a = rng.integers(lo_a, hi_a + 1, (m, k))
        b = rng.integers(lo_b, hi_b + 1, (k, n))
    c = rng.integers(-(2**31), 2**31, (m, n)) if not stress else np.full((m, n), 2**31 - 3 * 2**14, np.int64)
    dtype_a = np.int8 if asg else np.uint8
    dtype_b = np.int8 if bsg else np.uint8
    return a.astype(dtype_a), b.astype(dtype_b), c


def _expect(op, a, b, c):
    row = ROWS[op]
    clamp = op in SATURATES
    acc_signed = row[6]
    cc = [[int(x) if acc_signed else int(x) & 0xFFFFFFFF for x in r] for r in c.tolist()]
    return np.array(ref.gemm(row, a.tolist(), b.tolist(), cc, clamp=clamp))


def _run(op, a, b, c, backend):
    return gemm(a, b, c.astype(np.int32) if ROWS[op][6] else c.astype(np.int64) & 0xFFFFFFFF, op=op, backend=backend)


WRAPS = [op for op in ROWS if op not in SATURATES]


@pytest.mark.parametrize("backend", ["numpy", "float32"])
@pytest.mark.parametrize("op", WRAPS)
@pytest.mark.parametrize(("m", "k", "n"), [(3, 64, 5), (2, 37, 3), (1, 1, 1)])
def test_gemm_wrapping_records_match_reference(op, m, k, n, backend):
    rng = np.random.default_rng(12)
    for stress in (False, True):
        a, b, c = _case(op, rng, m, k, n, stress)
        np.testing.assert_array_equal(_run(op, a, b, c, backend), _expect(op, a, b, c))


# gemm/ops.py takes the K step from the record's spec (8 lanes: the core's widest 64-bit word), not from the
# record's k_step (the 32 bytes of one mma instruction), so it saturates every 8 lanes where the hardware
# saturates once per 32.  Random data never saturates in between; the stress case does.
@pytest.mark.parametrize("op", sorted(SATURATES))
def test_gemm_satfinite_random(op):
    rng = np.random.default_rng(5)
    a, b, c = _case(op, rng, 4, 96, 3)
    np.testing.assert_array_equal(_run(op, a, b, c, "numpy"), _expect(op, a, b, c))


@pytest.mark.parametrize("op", sorted(SATURATES))
def test_gemm_satfinite_saturates_once_per_instruction(op):
    # K = 64 (two instructions); in each, lanes 0-7 add large positive products and lanes 8-15 take slightly
    # more away: the exact sum of one instruction stays below INT32_MAX, a partial sum does not.
    signed_b = ROWS[op][3]
    a = np.zeros((1, 64), np.int8)
    for start in (0, 32):
        a[0, start : start + 8] = -128 if signed_b else 127
        a[0, start + 8 : start + 16] = 127 if signed_b else -126
    b = np.full((64, 1), -128 if signed_b else 255, np.int8 if signed_b else np.uint8)
    c = np.array([[2**31 - 1 - 20000]])
    expect = _expect(op, a, b, c)
    assert 2**31 - 1 - 20000 < expect[0, 0] < 2**31 - 1  # the exact sum, unsaturated
    np.testing.assert_array_equal(_run(op, a, b, c, "numpy"), expect)


def test_gemm_rejects_clamp_against_the_record():
    a = np.ones((1, 32), np.int8)
    with pytest.raises(ValueError, match="wraps"):
        gemm(a, a.T, op="mma.s8.s8", clamp=True)
    with pytest.raises(ValueError, match="saturates"):
        gemm(a, a.T, op="mma.s8.s8.satfinite", clamp=False)
