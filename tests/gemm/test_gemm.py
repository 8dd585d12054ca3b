"""intdot.gemm against the slow reference (tests/gemm/reference_gemm.py) on every backend and path."""

import zlib

import numpy as np
import pytest

from intdot.gemm import gemm, installed

from . import reference_gemm as ref

CPU_BACKENDS = [b for b in ("numpy", "float32", "float64", "torch") if installed()[b]]
OPS = sorted(ref.OPS)
SHAPES = [(1, 1, 1), (1, 5, 1), (3, 7, 5), (17, 9, 13), (2, 33, 3)]


def _rng(*key):
    # Not hash(key): string hashes change with every process (PYTHONHASHSEED), so a failure would not reproduce.
    return np.random.default_rng(zlib.crc32(repr(key).encode()))


def _lanes(rng, width, signed, shape, dtype=None):
    lo, hi = (-(1 << (width - 1)), 1 << (width - 1)) if signed else (0, 1 << width)
    x = rng.integers(lo, hi, shape)
    return x.astype(
        dtype
        or {
            (8, True): np.int8,
            (8, False): np.uint8,
            (4, True): np.int8,
            (4, False): np.uint8,
            (16, True): np.int16,
            (16, False): np.uint16,
        }[width, signed]
    )


def _acc(rng, row, shape, near_limits=False):
    bits, signed = row[5], row[6]
    lo, hi = (-(1 << (bits - 1)), (1 << (bits - 1)) - 1) if signed else (0, (1 << bits) - 1)
    if near_limits:
        # Indices, not rng.choice on the values: 64-bit limits would pass through float64.
        vals = [lo, lo + 1, lo + 70000, hi, hi - 1, hi - 70000]
        return [[vals[i] for i in row] for row in rng.integers(0, len(vals), shape).tolist()]
    return rng.integers(lo, hi, shape, dtype=np.int64 if signed or bits == 32 else np.uint64).tolist()


def _check(name, row, a, b, c=None, neg=False, clamp=False, backend="auto", **kw):
    want = ref.gemm(row, a.tolist(), b.tolist(), c, neg=neg, clamp=clamp)
    cv = None if c is None else np.array(c, dtype=np.uint64 if row[5] == 64 and not row[6] else np.int64)
    got = gemm(a, b, cv, op=name, neg=neg, clamp=clamp, backend=backend, **kw)
    assert (
        got.dtype
        == {(32, True): np.int32, (32, False): np.uint32, (64, True): np.int64, (64, False): np.uint64}[row[5], row[6]]
    )
    assert got.tolist() == want


@pytest.mark.parametrize("backend", CPU_BACKENDS)
@pytest.mark.parametrize("name", OPS)
def test_every_op_and_backend_on_odd_shapes(name, backend):
    row = ref.OPS[name]
    if backend == "torch" and row[0] == 16:
        pytest.skip("torch._int_mm takes 8- and 4-bit lanes only")
    for m, k, n in SHAPES:
        rng = _rng(name, backend, m, k, n)
        a = _lanes(rng, row[0], row[1], (m, k))
        b = _lanes(rng, row[2], row[3], (k, n))
        _check(name, row, a, b, backend=backend)
        _check(name, row, a, b, _acc(rng, row, (m, n)), backend=backend)
        if row[7]:
            _check(name, row, a, b, _acc(rng, row, (m, n)), neg=True, backend=backend)


@pytest.mark.parametrize("backend", CPU_BACKENDS)
def test_worst_cases_need_the_k_split(backend):
    """Entries of -128/-127 (and 255 x 255) make sums far past 2**24: a float path without its K split is off."""
    rng = _rng("stress", backend)
    k = 4100  # not a multiple of the step, and K * 2**14 > 2**24
    a = rng.choice(np.array([-128, -127], np.int8), (2, k))
    b = rng.choice(np.array([-128, -127], np.int8), (k, 3))
    _check("sdot4", ref.OPS["sdot4"], a, b, backend=backend)
    a = np.full((1, k), 127, np.int8)
    b = np.full((k, 2), -128, np.int8)
    _check("sdot", ref.OPS["sdot"], a, b, backend=backend)
    a = np.full((2, 70001), 255, np.uint8)  # 70001 * 65025 > 2**32: wraps
    b = np.full((70001, 1), 255, np.uint8)
    _check("udot4", ref.OPS["udot4"], a, b, backend=backend)
    a = rng.choice(np.array([254, 255], np.uint8), (1, k))
    b = rng.choice(np.array([-128, -127], np.int8), (k, 2))
    _check("usdot", ref.OPS["usdot"], a, b, [[2**31 - 1, -(2**31)]], backend=backend)


@pytest.mark.parametrize("backend", [b for b in CPU_BACKENDS if b != "torch"])
def test_16_bit_lanes_into_64_bits_wrap(backend):
    rng = _rng("s64", backend)
    a = rng.choice(np.array([-32768, 32767], np.int16), (2, 9))
    b = rng.choice(np.array([-32768, -32767], np.int16), (9, 3))
    _check("svdot_s64", ref.OPS["svdot_s64"], a, b, _acc(rng, ref.OPS["svdot_s64"], (2, 3), True), backend=backend)
    a = np.full((1, 8), 65535, np.uint16)
    _check("svdot_u64", ref.OPS["svdot_u64"], a, a.T.copy(), [[2**64 - 1]], backend=backend)
    _check(
        "sdot2",
        ref.OPS["sdot2"],
        a.astype(np.int32).astype(np.int16),
        a.T.astype(np.int16),
        [[2**31 - 1]],
        backend=backend,
    )


@pytest.mark.parametrize("name", ["sudot4", "sudot8"])
@pytest.mark.parametrize("signs", [(True, True), (True, False), (False, True), (False, False)])
def test_sudot_flags(name, signs):
    row = ref.sudot_row(name, *signs)
    rng = _rng(name, signs)
    a = _lanes(rng, row[0], signs[0], (5, 11))
    b = _lanes(rng, row[2], signs[1], (11, 4))
    _check(name, row, a, b, _acc(rng, row, (5, 4)), a_signed=signs[0], b_signed=signs[1])
    _check(
        "__builtin_amdgcn_" + name,
        row,
        a,
        b,
        _acc(rng, row, (5, 4), True),
        clamp=True,
        a_signed=signs[0],
        b_signed=signs[1],
    )


def test_int4_from_ml_dtypes():
    ml_dtypes = pytest.importorskip("ml_dtypes")
    rng = _rng("int4")
    a = _lanes(rng, 4, True, (6, 19))
    b = _lanes(rng, 4, True, (19, 5))
    want = ref.gemm(ref.OPS["sdot8"], a.tolist(), b.tolist())
    assert gemm(a.astype(ml_dtypes.int4), b.astype(ml_dtypes.int4), op="sdot8").tolist() == want
    ua = _lanes(rng, 4, False, (6, 19))
    want = ref.gemm(ref.OPS["udot8"], ua.tolist(), ua.T.tolist())
    assert gemm(ua.astype(ml_dtypes.uint4), ua.T.astype(ml_dtypes.uint4), op="udot8").tolist() == want


def test_batched_broadcast_like_matmul():
    rng = _rng("batch")
    a = _lanes(rng, 8, False, (2, 1, 3, 6))
    b = _lanes(rng, 8, True, (4, 6, 5))
    c = rng.integers(-1000, 1000, (3, 5))
    got = gemm(a, b, c, op="usdot")
    assert got.shape == np.matmul(a, b).shape == (2, 4, 3, 5)
    for i in range(2):
        for j in range(4):
            assert got[i, j].tolist() == ref.gemm(ref.OPS["usdot"], a[i, 0].tolist(), b[j].tolist(), c.tolist())


def test_amd_builtin_chained_along_k_agrees():
    """A second, independent check: intdot's own scalar builtin chained along K, step by step."""
    from intdot import amd

    rng = _rng("chain")
    a = _lanes(rng, 8, True, (3, 12))
    b = _lanes(rng, 8, True, (12, 2))
    c = np.array([[2**31 - 5, -(2**31)], [0, 7], [-3, 2**31 - 1]])
    got = gemm(a, b, c, op="sdot4", clamp=True)
    for i in range(3):
        for j in range(2):
            acc = int(c[i, j])
            for t in range(0, 12, 4):
                w0 = int(a[i, t : t + 4].view(np.uint8).astype(np.uint32) @ (256 ** np.arange(4, dtype=np.uint32)))
                w1 = int(b[t : t + 4, j].view(np.uint8).astype(np.uint32) @ (256 ** np.arange(4, dtype=np.uint32)))
                acc = amd.sdot4(w0, w1, acc, False, clamp=True)
            assert got[i, j] == acc
