"""The CUDA backend against the slow reference; skipped with a reason where no GPU is visible (CI)."""

import numpy as np
import pytest

from intdot.errors import IntdotError
from intdot.gemm import gemm, installed

from . import reference_gemm as ref
from .test_gemm import SHAPES, _acc, _lanes, _rng

pytestmark = pytest.mark.skipif(
    not installed()["gpu"], reason="no CUDA GPU visible (CI has none); scripts/gpu/run.sh runs these on one"
)


@pytest.mark.parametrize("name", sorted(ref.OPS))
def test_gpu_backend_every_op(name):
    row = ref.OPS[name]
    for m, k, n in SHAPES:
        rng = _rng("gpu", name, m, k, n)
        a = _lanes(rng, row[0], row[1], (m, k))
        b = _lanes(rng, row[2], row[3], (k, n))
        for c in (None, _acc(rng, row, (m, n))):
            want = ref.gemm(row, a.tolist(), b.tolist(), c)
            cv = None if c is None else np.array(c, dtype=np.uint64 if row[5] == 64 and not row[6] else np.int64)
            assert gemm(a, b, cv, op=name, backend="gpu").tolist() == want
        if row[7]:
            c = _acc(rng, row, (m, n), near_limits=True)
            for neg in (False, True):
                want = ref.gemm(row, a.tolist(), b.tolist(), c, neg=neg, clamp=True)
                assert gemm(a, b, np.array(c), op=name, backend="gpu", clamp=True, neg=neg).tolist() == want


def test_gpu_worst_cases_wrap_past_int32():
    """All -128 x -128 with K = 2**18 sums to exactly 2**32: the int32 tensor-core result must wrap to 0."""
    torch = pytest.importorskip("torch")
    k = 1 << 18
    a = torch.full((32, k), -128, dtype=torch.int8, device="cuda")
    b = torch.full((k, 16), -128, dtype=torch.int8, device="cuda")
    assert int(gemm(a, b, op="sdot4").abs().max()) == 0
    a = torch.full((20, 70001), 255, dtype=torch.uint8, device="cuda")
    b = torch.full((70001, 8), 255, dtype=torch.uint8, device="cuda")
    r = gemm(a, b, op="udot4").cpu().numpy()
    assert (r == np.uint32((70001 * 65025) % 2**32)).all()


def test_gpu_tensors_large_stress_against_the_cpu_float64_path():
    torch = pytest.importorskip("torch")
    rng = np.random.default_rng(7)
    a = rng.choice(np.array([-128, -127, 127], np.int8), (1024, 8192))
    b = rng.choice(np.array([-128, -127, 127], np.int8), (8192, 512))
    c = rng.integers(-(2**31), 2**31, (1024, 512)).astype(np.int32)
    want = gemm(a, b, c, op="sdot4", backend="float64")
    got = gemm(torch.from_numpy(a).cuda(), torch.from_numpy(b).cuda(), torch.from_numpy(c).cuda(), op="sdot4")
    assert np.array_equal(got.cpu().numpy(), want)
    ua = rng.choice(np.array([0, 254, 255], np.uint8), (1024, 8192))
    want = gemm(ua, b, c, op="usdot", backend="float64")
    got = gemm(torch.from_numpy(ua).cuda(), torch.from_numpy(b).cuda(), torch.from_numpy(c).cuda(), op="usdot")
    assert np.array_equal(got.cpu().numpy(), want)


@pytest.mark.parametrize("name", ["sdot4", "usdot", "udot4", "sudot"])
@pytest.mark.parametrize("kernel", ["tma", "plain", "persist", "split"])
def test_gpu_tensor_core_kernels_on_odd_tiles(name, kernel, monkeypatch):
    """K a multiple of 16 takes the TMA kernels, M <= 64 the split-K kernel; M and N that fill no tile exercise the
    edges."""
    monkeypatch.setenv("INTDOT_GEMM_KERNEL", kernel)
    row = ref.OPS[name]
    for m, k, n in [(37, 64, 45), (300, 4096, 261), (1, 16, 1), (300, 1024, 260), (64, 4096, 520)]:
        rng = _rng("tiles", name, m, k, n)
        a = _lanes(rng, row[0], row[1], (m, k))
        b = _lanes(rng, row[2], row[3], (k, n))
        c = np.array(_acc(rng, row, (m, n)))
        want = gemm(a, b, c, op=name, backend="float64")
        assert np.array_equal(gemm(a, b, c, op=name, backend="gpu"), want)


def test_gpu_tensors_take_accumulators_as_the_cpu_path_does():
    torch = pytest.importorskip("torch")
    rng = _rng("tensor-acc")
    a = rng.integers(-128, 128, (33, 70)).astype(np.int8)
    b = rng.integers(-128, 128, (70, 17)).astype(np.int8)
    ta, tb = torch.from_numpy(a).cuda(), torch.from_numpy(b).cuda()
    row = rng.integers(-(2**31), 2**31, (17,))
    for clamp in (False, True):
        want = ref.gemm(ref.OPS["sdot4"], a.tolist(), b.tolist(), [row.tolist()] * 33, clamp=clamp)
        # c as one row to broadcast: NumPy, a CUDA tensor, and unsigned spellings of the same bits.
        for c in (row, torch.from_numpy(row).cuda(), row % 2**32):
            assert gemm(ta, tb, c, op="sdot4", clamp=clamp).cpu().tolist() == want
    assert gemm(ta, tb, 7, op="sdot4").cpu().tolist() == (gemm(a, b, op="sdot4") + 7).tolist()
    for bad, words in ((torch.full((33, 17), 2**40).cuda(), "c contains 1099511627776"), (np.zeros((3, 3)), "dtype")):
        with pytest.raises(IntdotError, match=words):
            gemm(ta, tb, bad, op="sdot4")
    with pytest.raises(ValueError, match=r"c has shape \(3,\)"):
        gemm(ta, tb, torch.zeros(3, dtype=torch.int32).cuda(), op="sdot4")
    for other in (b, torch.from_numpy(b)):
        with pytest.raises(TypeError, match="b is a"):
            gemm(ta, other, op="sdot4")


@pytest.mark.parametrize("m, k, n", [(3, 0, 5), (0, 4, 5), (3, 4, 0)])
def test_gpu_empty_dimensions(m, k, n):
    torch = pytest.importorskip("torch")
    a, b = np.ones((m, k), np.int8), np.ones((k, n), np.int8)
    c = np.full((m, n), 2**31 - 1, np.int64)
    want = gemm(a, b, c, op="sdot4")
    assert gemm(a, b, c, op="sdot4", backend="gpu").tolist() == want.tolist()
    ta, tb = torch.from_numpy(a).cuda(), torch.from_numpy(b).cuda()
    for clamp in (False, True):
        assert gemm(ta, tb, c, op="sdot4", clamp=clamp).cpu().tolist() == want.tolist()


@pytest.mark.parametrize("op", ["sdot4", "usdot", "udot4"])
def test_gpu_repeated_calls_through_the_remembered_plan(op):
    """The second and later calls of one signature launch the remembered kernel directly: new data each time,
    every layout of b, rows that take the split-K kernel and rows that do not, against the CPU path."""
    torch = pytest.importorskip("torch")
    from intdot.gemm import gpu_tensors

    row = ref.OPS[op]
    for m, k, n in [(1, 256, 96), (16, 200, 40), (64, 512, 72), (65, 256, 64)]:
        for layout in ("row", "col"):
            for i in range(3):
                rng = _rng("plan", op, m, k, n, layout, i)
                a = _lanes(rng, row[0], row[1], (m, k))
                b = _lanes(rng, row[2], row[3], (k, n))
                tb = torch.from_numpy(b).cuda()
                tb = tb if layout == "row" else tb.t().contiguous().t()
                got = gemm(torch.from_numpy(a).cuda(), tb, op=op)
                want = gemm(a, b, op=op, backend="numpy")
                assert np.array_equal(got.cpu().numpy(), want), (m, layout, i)
    assert gpu_tensors._PLANS
