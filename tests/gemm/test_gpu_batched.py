"""CUDA tensors with batch axes and 1-D operands, read as numpy.matmul reads them, in every layout; against the
CPU path (itself checked against the slow reference in test_gemm.py) and, on small shapes, against
reference_gemm directly.  Skipped where no GPU is visible."""

import numpy as np
import pytest

from intdot.errors import IntdotError
from intdot.gemm import gemm, installed

from . import reference_gemm as ref

pytestmark = pytest.mark.skipif(
    not installed()["gpu"], reason="no CUDA GPU visible (CI has none); scripts/gpu/run.sh runs these on one"
)

OPS = {"sdot4": (True, True), "usdot": (False, True), "udot4": (False, False)}
SHAPES = [
    ((2, 3, 5, 40), (40, 6)),  # batched a, one b: folds into one (30, 40) problem
    ((5, 40), (2, 40, 6)),  # one a, batched b
    ((2, 1, 5, 40), (3, 40, 6)),  # both batched, broadcasting against each other
    ((4, 70, 130), (4, 130, 90)),  # same batch, tiles with edges
    ((40,), (2, 40, 6)),  # 1-D a: one row, dropped from the result
    ((2, 5, 40), (40,)),  # 1-D b: one column, dropped
    ((0, 5, 40), (40, 6)),  # empty batch
    ((3, 0, 40), (40, 6)),  # no rows
]


def _values(rng, signed, shape):
    return rng.integers(-128, 128, shape).astype(np.int8) if signed else rng.integers(0, 256, shape).astype(np.uint8)


def _layouts(torch, x):
    """The same values: contiguous; each matrix column-major; every other element of a wider tensor; batch axes
    in reverse memory order."""
    yield "contiguous", x
    if x.dim() < 2:
        return
    yield "col", x.transpose(-1, -2).contiguous().transpose(-1, -2)
    wide = torch.zeros(x.shape[:-1] + (2 * x.shape[-1],), dtype=x.dtype, device=x.device)
    wide[..., ::2] = x
    yield "strided", wide[..., ::2]
    if x.dim() > 2:
        perm = tuple(range(x.dim() - 3, -1, -1)) + (x.dim() - 2, x.dim() - 1)
        yield "batch-reversed", x.permute(perm).contiguous().permute(perm)


@pytest.mark.parametrize("op", sorted(OPS))
@pytest.mark.parametrize(("sa", "sb"), SHAPES)
def test_batched_tensors_in_every_layout_give_the_cpu_result(op, sa, sb):
    torch = pytest.importorskip("torch")
    rng = np.random.default_rng(len(sa) * 100 + sum(sa) + sum(sb))
    a = _values(rng, OPS[op][0], sa)
    b = _values(rng, OPS[op][1], sb)
    want = gemm(a, b, op=op, backend="numpy")
    ta, tb = torch.from_numpy(a).cuda(), torch.from_numpy(b).cuda()
    for la, xa in _layouts(torch, ta):
        for lb, xb in _layouts(torch, tb):
            got = gemm(xa, xb, op=op)
            assert tuple(got.shape) == want.shape, (la, lb)
            assert np.array_equal(got.cpu().numpy(), want), (la, lb)
    # c broadcast from one row, and a full c, with neg where the op takes it
    out_shape = want.shape
    for c in (rng.integers(-(2**31), 2**31, out_shape[-1:]), rng.integers(-(2**31), 2**31, out_shape)):
        neg = op == "sdot4"
        want_c = gemm(a, b, c, op=op, backend="numpy", neg=neg if neg else None)
        got = gemm(ta, tb, torch.from_numpy(c).cuda(), op=op, neg=neg if neg else None)
        assert np.array_equal(got.cpu().numpy(), want_c)


def test_batched_against_the_slow_reference_with_clamp():
    """Each batch element's saturating chain, c near the limits, against reference_gemm (no intdot code)."""
    torch = pytest.importorskip("torch")
    rng = np.random.default_rng(5)
    row = ref.OPS["sdot4"]
    a = rng.integers(-128, 128, (3, 9, 64)).astype(np.int8)
    b = rng.integers(-128, 128, (64, 7)).astype(np.int8)
    a[:, :2] = 127
    b[:, :3] = 127
    c = (2**31 - 1 - rng.integers(0, 2**18, (3, 9, 7))).astype(np.int64)
    c[1] = -(2**31) + rng.integers(0, 2**18, (9, 7))
    ta, tb, tc = (torch.from_numpy(x).cuda() for x in (a, b, c))
    for neg in (False, True):
        got = gemm(ta, tb, tc, op="sdot4", clamp=True, neg=neg).cpu().tolist()
        want = [ref.gemm(row, a[i].tolist(), b.tolist(), c[i].tolist(), neg=neg, clamp=True) for i in range(3)]
        assert got == want
        # the batch as separate matrices of a batched b
        bb = np.broadcast_to(b, (3, 64, 7)).copy()
        got = gemm(ta, torch.from_numpy(bb).cuda(), tc, op="sdot4", clamp=True, neg=neg).cpu().tolist()
        assert got == want


def test_batched_worst_case_wraps_past_int32():
    """Every entry -128 with K = 2**18: each sum is exactly 2**32, which the 32-bit accumulator keeps as 0."""
    torch = pytest.importorskip("torch")
    k = 1 << 18
    a = torch.full((2, 17, k), -128, dtype=torch.int8, device="cuda")
    b = torch.full((k, 16), -128, dtype=torch.int8, device="cuda")
    assert int(gemm(a, b, op="sdot4").abs().max()) == 0
    assert int(gemm(a, b.expand(2, k, 16), op="sdot4").abs().max()) == 0


def test_batched_shape_errors_name_the_shapes():
    torch = pytest.importorskip("torch")
    a = torch.zeros((2, 3, 4), dtype=torch.int8, device="cuda")
    with pytest.raises(IntdotError, match=r"batch dimensions \(2,\) and \(5,\) do not broadcast"):
        gemm(a, torch.zeros((5, 4, 6), dtype=torch.int8, device="cuda"), op="sdot4")
    with pytest.raises(IntdotError, match="K differs"):
        gemm(a, torch.zeros((2, 5, 6), dtype=torch.int8, device="cuda"), op="sdot4")
    with pytest.raises(IntdotError, match=r"c has shape \(3, 3, 6\)"):
        gemm(a, torch.zeros((4, 6), dtype=torch.int8, device="cuda"), torch.zeros((3, 3, 6)).int().cuda(), op="sdot4")
    with pytest.raises(IntdotError, match="at least 1 dimension"):
        gemm(torch.tensor(3, dtype=torch.int8, device="cuda"), a, op="sdot4")
