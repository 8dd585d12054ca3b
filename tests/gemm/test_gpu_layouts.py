"""The CUDA backend on every operand layout, and the saturating chain that walks only the outputs that can
saturate; against the CPU path (itself checked against the slow reference).  Skipped where no GPU is visible."""

import numpy as np
import pytest

from intdot.gemm import gemm, installed

pytestmark = pytest.mark.skipif(
    not installed()["gpu"], reason="no CUDA GPU visible (CI has none); scripts/gpu/run.sh runs these on one"
)

OPS = {"sdot4": (True, True), "usdot": (False, True), "udot4": (False, False)}


def _values(rng, signed, shape):
    return rng.integers(-128, 128, shape) if signed else rng.integers(0, 256, shape)


def _layouts(torch, x):
    """The same values row-major, column-major and as a strided view (every other column of a wider tensor)."""
    wide = torch.zeros((x.shape[0], 2 * x.shape[1]), dtype=x.dtype, device=x.device)
    wide[:, ::2] = x
    return {"row": x.contiguous(), "col": x.t().contiguous().t(), "strided": wide[:, ::2]}


# Split-K below 65 rows; up to 512 where B is not row-major and the TMA kernel's tiles are few (one configuration
# to 256 rows, another beyond); the TMA kernel past that, and for row-major B past 64.
SHAPES = [
    (96, 320, 80),
    (33, 100, 17),
    (1, 512, 200),
    (64, 256, 130),
    (130, 4096, 260),
    (300, 1024, 520),
    (513, 256, 64),
]


@pytest.mark.parametrize("op", sorted(OPS))
@pytest.mark.parametrize(("m", "k", "n"), SHAPES)
def test_every_layout_gives_the_cpu_result(op, m, k, n):
    torch = pytest.importorskip("torch")
    rng = np.random.default_rng(m * k + n)
    sa, sb = OPS[op]
    a = _values(rng, sa, (m, k)).astype(np.int8 if sa else np.uint8)
    b = _values(rng, sb, (k, n)).astype(np.int8 if sb else np.uint8)
    want = gemm(a, b, op=op, backend="numpy")
    ta, tb = torch.from_numpy(a).cuda(), torch.from_numpy(b).cuda()
    for la, xa in _layouts(torch, ta).items():
        for lb, xb in _layouts(torch, tb).items():
            got = gemm(xa, xb, op=op).cpu().numpy()
            assert np.array_equal(got, want), (la, lb)


@pytest.mark.parametrize("dense", [0.0, 0.25, 1.0])
@pytest.mark.parametrize("op", ["sdot4", "udot4"])
def test_clamp_chain_walks_what_can_saturate(op, dense, monkeypatch):
    torch = pytest.importorskip("torch")
    from intdot.gemm import gpu_clamp

    monkeypatch.setattr(gpu_clamp, "DENSE_WALK", dense)
    rng = np.random.default_rng(7)
    sa, sb = OPS[op]
    m, k, n = 64, 512, 48
    a = _values(rng, sa, (m, k)).astype(np.int8 if sa else np.uint8)
    b = _values(rng, sb, (k, n)).astype(np.int8 if sb else np.uint8)
    # Rows that saturate and come back: large positive products in the first half of K, negative in the second.
    a[:8, : k // 2] = 127 if sa else 255
    a[:8, k // 2 :] = -128 if sa else 0
    b[:, :4] = 127 if sb else 255
    hi = 2**31 - 1 if sa or sb else 2**32 - 1
    lo = -(2**31) if sa or sb else 0
    c = rng.integers(lo, hi, (m, n), endpoint=True)
    c[:16] = hi - rng.integers(0, 2**20, (16, n))  # near the top
    c[16:24] = lo + rng.integers(0, 2**20, (8, n))  # near the bottom
    want = gemm(a, b, c, op=op, clamp=True, backend="numpy")
    tc = torch.from_numpy(c.astype(np.int64)).cuda()
    got = gemm(torch.from_numpy(a).cuda(), torch.from_numpy(b).cuda(), tc, op=op, clamp=True)
    assert np.array_equal(got.cpu().numpy().astype(np.int64), want.astype(np.int64))
    assert np.array_equal(gemm(a, b, c, op=op, clamp=True, backend="gpu"), want)
