"""1-D operands as numpy.matmul reads them, and ``c`` added by broadcasting, never expanded to (M, N)."""

import tracemalloc

import numpy as np
import pytest

from intdot.core.accel import numba_available
from intdot.core.errors import OperandError
from intdot.gemm import _fused, api, cpu, gemm, installed

from . import reference_gemm as ref
from .test_gemm import _rng

CPU_BACKENDS = [b for b in ("numpy", "float32", "float64", "torch") if installed()[b]]


@pytest.mark.parametrize("backend", CPU_BACKENDS)
def test_one_dimensional_operands_follow_numpy_matmul(backend):
    rng = _rng("1d", backend)
    k, m, n = 11, 3, 5
    a = rng.integers(0, 256, k).astype(np.uint8)
    a2 = rng.integers(0, 256, (m, k)).astype(np.uint8)
    b = rng.integers(-128, 128, (k, n)).astype(np.int8)
    b1 = rng.integers(-128, 128, k).astype(np.int8)
    row = ref.OPS["usdot"]
    # vector x matrix: (K,) @ (K, N) -> (N,)
    got = gemm(a, b, op="usdot", backend=backend)
    assert got.shape == np.matmul(a, b).shape == (n,)
    assert got.tolist() == ref.gemm(row, [a.tolist()], b.tolist())[0]
    # matrix x vector: (M, K) @ (K,) -> (M,), c broadcast to (M,)
    c = rng.integers(-(2**31), 2**31, m)
    got = gemm(a2, b1, c, op="usdot", backend=backend)
    assert got.shape == (m,)
    assert got.tolist() == [r[0] for r in ref.gemm(row, a2.tolist(), [[v] for v in b1.tolist()], c[:, None].tolist())]
    # vector x vector: a NumPy scalar of the accumulator's type, as numpy.matmul gives a scalar
    got = gemm(a, b1, np.int32(-5), op="usdot", backend=backend)
    assert isinstance(got, np.int32) and np.ndim(got) == 0
    assert int(got) == ref.gemm(row, [a.tolist()], [[v] for v in b1.tolist()], [[-5]])[0][0]
    # batched b with a 1-D a: (K,) @ (2, K, N) -> (2, N)
    bb = rng.integers(-128, 128, (2, k, n)).astype(np.int8)
    got = gemm(a, bb, op="usdot", backend=backend)
    assert got.shape == np.matmul(a, bb).shape == (2, n)
    assert got.tolist() == [ref.gemm(row, [a.tolist()], bb[i].tolist())[0] for i in range(2)]


def test_one_dimensional_errors_name_the_shapes_given():
    a = np.zeros(4, np.int8)
    with pytest.raises(OperandError, match=r"a has shape \(4,\) and b has shape \(3,\).*only axis"):
        gemm(a, np.zeros(3, np.int8), op="sdot4")
    with pytest.raises(OperandError, match=r"c has shape \(1, 3\); expected a shape that broadcasts to .*\(3,\)"):
        gemm(a, np.zeros((4, 3), np.int8), np.zeros((1, 3), int), op="sdot4")  # the result is (3,), not (1, 3)
    with pytest.raises(OperandError, match=r"shape \(\); expected at least 1 dimension"):
        gemm(a, np.int8(1), op="sdot4")


# (a dtype, b dtype, op): no centring, a centred (uint8 into int8 kernels), both centred.
KINDS = [(np.int8, np.int8, "sdot4"), (np.uint8, np.int8, "usdot"), (np.uint8, np.uint8, "udot4")]


@pytest.mark.parametrize("backend", CPU_BACKENDS)
@pytest.mark.parametrize("kind", KINDS, ids=lambda k: k[2])
@pytest.mark.parametrize("c_shape", [(), (1,), (7,), (1, 7), (5, 1), (5, 7)])
def test_every_shape_of_c_on_every_path(backend, kind, c_shape):
    ta, tb, op = kind
    row = ref.OPS[op]
    rng = _rng("c", backend, op, c_shape)
    a = rng.integers(np.iinfo(ta).min, np.iinfo(ta).max + 1, (5, 9)).astype(ta)
    b = rng.integers(np.iinfo(tb).min, np.iinfo(tb).max + 1, (9, 7)).astype(tb)
    lo, hi = (-(2**31), 2**31) if row[6] else (0, 2**32)
    c = rng.integers(lo, hi, c_shape)
    full = np.broadcast_to(c, (5, 7)).tolist()
    assert gemm(a, b, c, op=op, backend=backend).tolist() == ref.gemm(row, a.tolist(), b.tolist(), full)
    if op == "sdot4":  # AMD: neg subtracts each step's product from c
        got = gemm(a, b, c, op=op, backend=backend, neg=True).tolist()
        assert got == ref.gemm(row, a.tolist(), b.tolist(), full, neg=True)


@pytest.mark.parametrize("backend", [b for b in ("float32", "torch") if installed()[b]])
@pytest.mark.parametrize("c_shape", [(256,), (256, 1)])
def test_a_broadcast_c_is_never_expanded(backend, c_shape):
    """A (N,) or (M, 1) c adds no (M, N) temporary: it used to become (M, N) uint64 words, then uint32 again."""
    m = k = n = 256
    a = np.full((m, k), 200, np.uint8)
    b = np.full((k, n), -100, np.int8)
    c = np.arange(256, dtype=np.int64).reshape(c_shape)

    def peak(*args):
        gemm(a, b, *args, op="usdot", backend=backend)  # warm: imports, caches
        tracemalloc.start()
        try:
            out = gemm(a, b, *args, op="usdot", backend=backend)
            return out, tracemalloc.get_traced_memory()[1]
        finally:
            tracemalloc.stop()

    plain, base = peak()
    with_c, extra = peak(c)
    assert (with_c.astype(np.int64) - plain).tolist() == np.broadcast_to(c, (m, n)).tolist()
    # One (M, N) uint32 array is m * n * 4 = 256 KiB; the old path made three.
    assert extra - base < m * n, f"{(extra - base) / 1024:.0f} KiB more with c of shape {c_shape}"


@pytest.mark.skipif(not numba_available(), reason="numba is not installed (the fast extra): no fused correction")
@pytest.mark.parametrize("backend", [b for b in ("float32", "torch") if installed()[b]])
@pytest.mark.parametrize("kind", KINDS, ids=lambda k: k[2])
def test_the_fused_correction_pass_adds_row_and_column_terms_exactly(monkeypatch, backend, kind):
    """The compiled one-pass correction (row terms from c or b's centring, column terms from a's centring)
    gives the reference's words, every word wrapping modulo 2**32."""
    monkeypatch.setattr(_fused, "_done", [_fused.SWITCH_AFTER])  # past the rent-or-buy point: compile it now
    ta, tb, op = kind
    row = ref.OPS[op]
    rng = _rng("fused", backend, op)
    a = rng.integers(np.iinfo(ta).min, np.iinfo(ta).max + 1, (37, 29)).astype(ta)
    b = rng.integers(np.iinfo(tb).min, np.iinfo(tb).max + 1, (29, 23)).astype(tb)
    lo, hi = (-(2**31), 2**31) if row[6] else (0, 2**32)
    for c in (rng.integers(lo, hi, (37, 1)), None):
        calls = []
        kernel = _fused._load()
        monkeypatch.setattr(_fused, "_kernel", [lambda *x, k=kernel, calls=calls: calls.append(1) or k(*x)])
        got = gemm(a, b, c, op=op, backend=backend)
        full = None if c is None else np.broadcast_to(c, (37, 23)).tolist()
        assert got.tolist() == ref.gemm(row, a.tolist(), b.tolist(), full)
        # two terms (a row and a column one) take the fused pass; one alone is one NumPy pass already
        assert bool(calls) == ((c is not None and ta == np.uint8) or (ta == tb == np.uint8))


def test_auto_leaves_pytorch_to_cpus_with_int8_dot_hardware(monkeypatch):
    a = np.zeros((4096, 4096), np.int8)
    b = np.zeros((4096, 4096), np.int8)
    monkeypatch.setitem(api._INSTALLED, "torch", True)
    monkeypatch.setitem(api._INSTALLED, "gpu", False)
    monkeypatch.setattr(cpu, "_FAST", [False])  # as on an AVX2 core without VNNI: _int_mm is 100x slower than BLAS
    assert api._pick("auto", a, b, 1 << 40) == "float32"
    assert api._pick("torch", a, b, 1 << 40) == "torch"  # asked for by name, it is still used
    monkeypatch.setattr(cpu, "_FAST", [True])
    assert api._pick("auto", a, b, 1 << 40) == "torch"
