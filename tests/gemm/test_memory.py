"""Memory stays bounded: no M x N x K temporary on any CPU path (an 8192^3 problem must fit)."""

import tracemalloc

import numpy as np
import pytest

from intdot.gemm import gemm, installed


@pytest.mark.parametrize("backend", [b for b in ("float32", "float64", "torch", "numpy") if installed()[b]])
def test_peak_memory_is_far_below_m_n_k(backend):
    m, k, n = 256, 16384, 256  # M*N*K = 2**30: one byte per element of a temporary would be 1 GiB
    a = np.full((m, k), -128, np.int8)
    b = np.full((k, n), -127, np.int8)
    tracemalloc.start()
    try:
        out = gemm(a, b, op="sdot4", backend=backend)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert out[0, 0] == k * 128 * 127
    # Inputs converted to int64 (numpy path) are the largest legitimate temporaries: 2 * 8 * 4 MiB.
    assert peak < 96 << 20, f"peak {peak / 2**20:.0f} MiB"


def test_clamp_chain_memory_is_per_row():
    a = np.full((64, 16384), 127, np.int8)
    b = np.full((16384, 64), 127, np.int8)
    c = np.full((64, 64), 2**31 - 1)
    gemm(a[:1, :8], b[:8, :1], c[:1, :1], op="sdot4", clamp=True)  # compile first: numba's compiler allocates
    tracemalloc.start()
    try:
        out = gemm(a, b, c, op="sdot4", clamp=True)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert (out == 2**31 - 1).all()
    assert peak < 24 << 20, f"peak {peak / 2**20:.0f} MiB"


@pytest.mark.slow
def test_8192_cubed_runs_exactly():
    """The full 8192^3 problem with stress values, through the auto path (seconds with torch, a minute without)."""
    rng = np.random.default_rng(5)
    a = rng.choice(np.array([-128, -127], np.int8), (8192, 8192))
    b = rng.choice(np.array([-128, -127], np.int8), (8192, 8192))
    out = gemm(a, b, op="sdot4")
    rows = rng.integers(0, 8192, 4)
    cols = rng.integers(0, 8192, 4)
    for i, j in zip(rows, cols):
        assert out[i, j] == int(a[i].astype(np.int64) @ b[:, j].astype(np.int64))
