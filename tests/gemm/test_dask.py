"""gemm on Dask arrays, on Dask's local distributed scheduler, exact against the in-memory result."""

import numpy as np
import pytest

from intdot.core.errors import OperandError, OperandTypeError
from intdot.gemm import gemm

from . import reference_gemm as ref

da = pytest.importorskip("dask.array")
distributed = pytest.importorskip("distributed")


@pytest.fixture(scope="module")
def client():
    with distributed.Client(processes=False, n_workers=1, threads_per_worker=2, dashboard_address=None) as c:
        yield c


def test_dask_wrap_and_clamp_match_in_memory(client):
    rng = np.random.default_rng(11)
    a = rng.choice(np.array([-128, -127, 127], np.int8), (70, 300))
    b = rng.choice(np.array([-128, -127], np.int8), (300, 45))
    c = rng.choice(np.array([-(2**31), 2**31 - 1, 0]), (70, 45))
    da_a = da.from_array(a, chunks=(32, 100))
    da_b = da.from_array(b, chunks=(100, 20))
    for clamp in (False, True):
        lazy = gemm(da_a, da_b, c, op="sdot4", clamp=clamp)
        assert isinstance(lazy, da.Array) and lazy.dtype == np.int32
        got = client.compute(lazy).result()
        assert np.array_equal(got, gemm(a, b, c, op="sdot4", clamp=clamp))
    small = ref.gemm(ref.OPS["sdot4"], a[:3].tolist(), b[:, :2].tolist(), c[:3, :2].tolist(), clamp=True)
    assert got[:3, :2].tolist() == small


def test_dask_mixed_sign_and_errors(client):
    rng = np.random.default_rng(12)
    a = rng.integers(0, 256, (40, 33), dtype=np.uint8)
    b = rng.integers(-128, 128, (33, 17), dtype=np.int8)
    lazy = gemm(da.from_array(a, chunks=(16, 11)), da.from_array(b, chunks=(11, 8)), op="usdot")
    assert np.array_equal(client.compute(lazy).result(), gemm(a, b, op="usdot"))
    with pytest.raises(OperandError, match=r"c has shape \(3, 3\)"):
        gemm(da.from_array(a), da.from_array(b), np.zeros((3, 3), np.int32), op="usdot")
    for backend in ("cuda", None):
        with pytest.raises(OperandError, match=f"backend={backend!r}"):
            gemm(da.from_array(a), da.from_array(b), op="usdot", backend=backend)  # at the call, not at compute
    with pytest.raises(OperandError, match="2-D"):
        gemm(da.zeros((2, 3, 4), dtype=np.int8), da.zeros((4, 5), dtype=np.int8), op="sdot4")
    # The operands that are not Dask arrays get gemm's own checks (dask.array.asarray reads True as 1).
    with pytest.raises(OperandTypeError, match=r"c\[0, 1\]=True has type bool"):
        gemm(da.from_array(a), da.from_array(b), [[1, True] + [0] * 15], op="usdot")
    with pytest.raises(OperandTypeError, match=r"b\[0, 1\]=True has type bool"):
        gemm(da.from_array(a), [[1, True] + [0] * 15] * 33, op="usdot")
    with pytest.raises(OperandError, match=r"b\[0, 1\]=1180591620717411303424 does not fit"):
        gemm(da.from_array(a), [[1, 2**70] + [0] * 15] * 33, op="usdot")
    u16 = np.ones((1, 4), np.uint16)
    lazy = gemm(da.from_array(u16), np.ones((4, 2), np.uint16), [[-1, 2**64 - 1]], op="svdot_u64")
    assert client.compute(lazy).result().tolist() == [[3, 3]]
    bad = gemm(da.from_array(np.full((4, 4), 300), chunks=2), da.zeros((4, 4), dtype=np.int8), op="sdot4")
    with pytest.raises(OperandError, match="300"):
        bad.compute(scheduler="sync")
