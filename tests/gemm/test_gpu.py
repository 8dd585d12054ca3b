"""The CUDA backend against the slow reference; skipped with a reason where no GPU is visible (CI)."""

import numpy as np
import pytest

from intdot.errors import IntdotError
from intdot.gemm import gemm, gpu, installed

from . import reference_gemm as ref
from .test_gemm import SHAPES, _acc, _lanes, _rng

pytestmark = pytest.mark.skipif(
    not installed()["gpu"], reason="no CUDA GPU visible (CI has none); scripts/gpu/run.sh runs these on one"
)


def _wrapped(x):
    """int64 sums (a tensor) as the int32 values they wrap to, still int64: what the GPU's int32 results hold."""
    return (x + 2**31) % 2**32 - 2**31


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
@pytest.mark.parametrize("kernel", ["tma", "tma-triton", "plain", "persist", "split"])
def test_gpu_tensor_core_kernels_on_odd_tiles(name, kernel, monkeypatch):
    """K a multiple of 16 takes the TMA kernels (on Hopper the Gluon one, or with WS off Triton's), M <= 64 the
    split-K kernel; M and N that fill no tile exercise the edges."""
    monkeypatch.setattr(gpu, "KERNEL", kernel.split("-")[0])
    monkeypatch.setattr(gpu, "WS", kernel != "tma-triton")
    row = ref.OPS[name]
    for m, k, n in [(37, 64, 45), (300, 4096, 261), (1, 16, 1), (300, 1024, 260), (64, 4096, 520)]:
        rng = _rng("tiles", name, m, k, n)
        a = _lanes(rng, row[0], row[1], (m, k))
        b = _lanes(rng, row[2], row[3], (k, n))
        c = np.array(_acc(rng, row, (m, n)))
        want = gemm(a, b, c, op=name, backend="float64")
        assert np.array_equal(gemm(a, b, c, op=name, backend="gpu"), want)


def _captured(torch, fn):
    """fn() captured into a CUDA graph, after two calls on a side stream (its plan made and its launches warm, as
    capturing asks): (the graph, the output its replays write)."""
    side = torch.cuda.Stream()
    side.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(side):
        fn(), fn()
    torch.cuda.current_stream().wait_stream(side)
    graph = torch.cuda.CUDAGraph()
    with torch.cuda.graph(graph):
        out = fn()
    return graph, out


@pytest.mark.parametrize("n", [3000, 2998, 3001])
def test_gpu_wide_tiles_through_the_plan(n, monkeypatch):
    """The wide tiles launched again and again through the TMA kernel's remembered plan (gpu._tma_plan): their
    stores by TMA where N makes whole 16-byte rows (3000), the output's tensor map encoded for each call's new
    output; from registers elsewhere (2998: rows of 8 bytes past a multiple of 16; 3001); new data each call,
    both layouts of b, against the CPU path."""
    torch = pytest.importorskip("torch")
    from intdot.gemm import gpu_tensors

    monkeypatch.setattr(gpu, "WIDE_PER_SM", 1)
    row = ref.OPS["sdot4"]
    m, k = 1400, 272
    for lb in ("row", "col"):
        for i in range(3):
            rng = _rng("wide-plan", n, lb, i)
            a = _lanes(rng, row[0], row[1], (m, k))
            b = _lanes(rng, row[2], row[3], (k, n))
            tb = torch.from_numpy(b).cuda()
            got = gemm(torch.from_numpy(a).cuda(), tb if lb == "row" else tb.t().contiguous().t(), op="sdot4")
            assert np.array_equal(got.cpu().numpy(), gemm(a, b, op="sdot4", backend="numpy")), (lb, i)
    assert any(getattr(p, "__qualname__", "").startswith("_tma_plan.") for p in gpu_tensors._PLANS.values())


@pytest.mark.parametrize("multicast", [False, True])
@pytest.mark.parametrize("op", ["sdot4", "usdot", "udot4"])
def test_gpu_wide_tiles_on_odd_edges(op, multicast, monkeypatch):
    """The Hopper kernel's wide 128x256 tiles (gpu_gluon.WIDE, chosen for large products; here for a moderate one)
    on M, N and K that fill no tile, with c, neg and centred unsigned operands, against float64 on the GPU; its
    tiles stored by TMA (N = 3000); one program a tile row, and in clusters of two sharing B's tiles, with an odd
    number of tile rows (the last cluster's second program past M)."""
    torch = pytest.importorskip("torch")
    monkeypatch.setattr(gpu, "WIDE_PER_SM", 1)
    monkeypatch.setattr(gpu, "MULTICAST", multicast)
    m, k, n = 1400, 272, 3000
    setup = gpu._tma_setup(m, n, torch.device("cuda"))
    if gpu._ws(torch.device("cuda")):
        c = 2 if multicast else 1
        assert setup[3][1] == [256 // c, 128] and setup[4]["CLUSTER"] == c and -(-m // 128) % 2, setup
    row = ref.OPS[op]
    rng = _rng("wide", op)
    a = torch.from_numpy(_lanes(rng, row[0], row[1], (m, k))).cuda()
    b = torch.from_numpy(_lanes(rng, row[2], row[3], (k, n))).cuda()
    c = torch.from_numpy(rng.integers(-(2**31), 2**31, (m, n)).astype(np.int32)).cuda()
    exact = (a.double() @ b.double()).to(torch.int64)  # |sum| < 2**53
    for neg in (False, True) if op != "usdot" else (False,):  # Arm's USDOT has no negating form
        want = c.to(torch.int64) + (-exact if neg else exact)
        want = _wrapped(want)
        got = gemm(a, b, c, op=op, neg=neg)  # udot4's uint32: its bits as int32
        assert torch.equal(got.view(torch.int32).to(torch.int64), want), neg


# (M, K, N, rows of the tile): 11 x 13 wide tiles (11 in the last round: each cut in four) and 7 x 20 192-row ones
# (8: four parts), stored by TMA and (N odd) from registers.
TAIL_CASES = [(1400, 1008, 3200, 128), (1344, 1008, 5000, 192), (1344, 1008, 4999, 192), (1400, 1008, 3199, 128)]


@pytest.mark.parametrize(("m", "k", "n", "rows"), TAIL_CASES)
@pytest.mark.parametrize("op", ["sdot4", "usdot", "udot4"])
def test_gpu_last_round_cut_along_k(m, k, n, rows, op, monkeypatch):
    """The Hopper kernel's last round of tiles cut along K into parts that meet in the output (gpu_gluon.mm_ws's
    TAIL: the first part stores, the others add once a flag says it has), on 128- and 192-row tiles, with c, neg
    and centred unsigned operands, called again and again (the flags back at 0 after each call), through mm_int8
    and the remembered plan; against float64 on the GPU."""
    torch = pytest.importorskip("torch")
    monkeypatch.setattr(gpu, "WIDE_PER_SM", 1)
    cuda = torch.device("cuda")
    if gpu._ws(cuda):
        setup = gpu._tma_setup(m, n, cuda, k)
        assert setup[4]["EPI_ROWS"] * setup[4]["PARTS"] == rows and setup[4]["split"] == 4, setup
    row = ref.OPS[op]
    rng = _rng("tail", op, m, n)
    for i in range(3):
        a = torch.from_numpy(_lanes(rng, row[0], row[1], (m, k))).cuda()
        b = torch.from_numpy(_lanes(rng, row[2], row[3], (k, n))).cuda()
        b = b if i % 2 else b.t().contiguous().t()
        c = torch.from_numpy(rng.integers(-(2**31), 2**31, (m, n)).astype(np.int32)).cuda()
        exact = (a.double() @ b.double()).to(torch.int64)  # |sum| < 2**53
        for neg in (False, True) if op != "usdot" else (False,):  # Arm's USDOT has no negating form
            for cc in (None, c):
                want = (0 if cc is None else cc.to(torch.int64)) + (-exact if neg else exact)
                want = _wrapped(want)
                got = gemm(a, b, cc, op=op, neg=neg)  # udot4's uint32: its bits as int32
                assert torch.equal(got.view(torch.int32).to(torch.int64), want), (i, neg, cc is None)
    if gpu._ws(cuda):
        assert not any(f.any() for f in gpu._FLAGS.values())


def test_gpu_rounds_walk_k_both_ways(monkeypatch):
    """THIRDS' loader walks K backwards on every other tile of its program (gpu_gluon.mm_ws's SNAKE): 16 x 20
    192-row tiles on 132 programs, two whole rounds (forwards, then backwards) and a last one cut along K; K's
    last, short step (1000 = 7 x 128 + 104, zeros past K) comes first where K runs backwards; against float64."""
    torch = pytest.importorskip("torch")
    monkeypatch.setattr(gpu, "WIDE_PER_SM", 1)
    m, k, n = 3072, 1000, 5120
    cuda = torch.device("cuda")
    if gpu._ws(cuda):
        cfg = gpu._tma_setup(m, n, cuda, k)[4]
        assert cfg["PARTS"] == 3 and cfg["SNAKE"] and cfg["TAIL"], cfg
    rng = _rng("snake", m, k, n)
    a = torch.from_numpy(_lanes(rng, 8, True, (m, k))).cuda()
    b = torch.from_numpy(_lanes(rng, 8, True, (k, n))).cuda().t().contiguous().t()
    c = torch.from_numpy(rng.integers(-(2**31), 2**31, (m, n)).astype(np.int32)).cuda()
    want = _wrapped((a.double() @ b.double()).to(torch.int64) + c.to(torch.int64))  # |sum| < 2**53
    for _ in range(2):
        assert torch.equal(gemm(a, b, c, op="sdot4").to(torch.int64), want)


# (M, K, N); below 17 rows the kernel takes only a long B (N K >= gpu_gluon_rowb.LONG); a long B up to 32 rows
# takes four stages (gpu_gluon_rowb.stages); past 64 rows, blocks of 64 rows (the last one short).
ROWB_CASES = [(17, 144, 272), (32, 4096, 384), (33, 16, 16), (48, 4144, 1040), (64, 2048, 4096)]
ROWB_CASES += [(1, 8192, 8192), (5, 16400, 4096), (16, 4096, 16400), (24, 8192, 8192)]
ROWB_CASES += [(65, 4112, 272), (100, 2064, 4096), (128, 8192, 1040), (256, 1040, 2064)]


@pytest.mark.parametrize(("m", "k", "n"), ROWB_CASES)
def test_gpu_row_major_b_few_rows(m, k, n):
    """Row-major B up to 256 rows of int8: on Hopper the Gluon kernel (gpu_gluon_rowb), its K in one chunk or
    split into chunks meeting in a zero-filled output, its tiles past N's and K's end, with c and neg, and
    repeated (its remembered plan, new data each time, the split-K kernel with B column-major between calls, a
    CUDA graph captured and replayed); against float64 on the GPU."""
    torch = pytest.importorskip("torch")
    row = ref.OPS["sdot4"]
    cuda = torch.device("cuda")
    rng = _rng("rowb", m, k, n)

    def operands():
        a = torch.from_numpy(_lanes(rng, row[0], row[1], (m, k))).cuda()
        b = torch.from_numpy(_lanes(rng, row[2], row[3], (k, n))).cuda()
        return a, b, (a.double() @ b.double()).to(torch.int64)  # |sum| < 2**53

    a, b, exact = operands()
    assert b.stride() == (n, 1)
    if gpu._ws(cuda):
        assert gpu._rowb(a, b)
    c = torch.from_numpy(rng.integers(-(2**31), 2**31, (m, n)).astype(np.int32)).cuda()
    for neg in (False, True):
        got = gemm(a, b, c, op="sdot4", neg=neg)
        assert torch.equal(got.to(torch.int64), _wrapped(c.to(torch.int64) + (-exact if neg else exact))), neg
    for _ in range(3):  # the first call plans; the later ones launch through the plan
        a, b, exact = operands()
        # Memory the output is likely to reuse (torch's caching allocator) left non-zero: a K chunk that added into
        # it before the zero fill landed (the fill and the kernel overlap: programmatic dependent launch) shows.
        junk = torch.full((m, n), 0x5A5A5A5A, dtype=torch.int32, device=cuda)
        del junk
        assert torch.equal(gemm(a, b, op="sdot4").to(torch.int64), _wrapped(exact))
        # gpu_split's kernel (B column-major): the same product from the other kernel.
        assert torch.equal(gemm(a, b.t().contiguous().t(), op="sdot4").to(torch.int64), _wrapped(exact))
    static_a, static_b = a.clone(), b.clone()
    graph, out = _captured(torch, lambda: gemm(static_a, static_b, op="sdot4"))
    a, b, exact = operands()
    static_a.copy_(a), static_b.copy_(b)
    graph.replay()
    assert torch.equal(out.to(torch.int64), _wrapped(exact))


@pytest.mark.parametrize(("m", "k", "n"), [(32, 4096, 256), (300, 512, 200)])
def test_gpu_clamp_that_cannot_saturate_takes_the_plan(m, k, n):
    """int8 lanes, no c, K below 2**17: no chain can reach a limit, so the saturating call is the wrapping one,
    launched through the same remembered plan (split-K and TMA kernels); new data each call, against the CPU
    path's step-by-step chain."""
    torch = pytest.importorskip("torch")
    from intdot.gemm import gpu_tensors

    row = ref.OPS["sdot4"]
    for i in range(3):
        rng = _rng("clamp-plan", m, k, n, i)
        a, b = _lanes(rng, row[0], row[1], (m, k)), _lanes(rng, row[2], row[3], (k, n))
        got = gemm(torch.from_numpy(a).cuda(), torch.from_numpy(b).cuda(), op="sdot4", clamp=True)
        assert np.array_equal(got.cpu().numpy(), gemm(a, b, op="sdot4", clamp=True, backend="numpy")), i
    planned = [p for key, p in gpu_tensors._PLANS.items() if key[1] and key[5] == (m, k)]
    assert planned and all(getattr(p, "__qualname__", "").endswith(".call") for p in planned), planned


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
    """The second and later calls of one signature launch the compiled kernels directly: new data each time,
    layouts of a and b, rows that take the split-K kernel (its remembered plan), the TMA kernel (int8 x int8: its
    remembered plan, the transposing passes of a column-major a and a row-major b included; else
    gpu_launch.Direct, with its layout passes) (each launch encodes the tensor maps of its call's operands) and the
    autotuned pointer kernel (K = 200 is no multiple of 16: Triton's launch), against the CPU path; the TMA
    kernel's direct launch captured into a CUDA graph and replayed with new data."""
    torch = pytest.importorskip("torch")
    from intdot.gemm import gpu_kernels, gpu_launch, gpu_tensors

    row = ref.OPS[op]
    for m, k, n in [(1, 256, 96), (16, 200, 40), (64, 512, 72), (65, 256, 64), (600, 256, 136), (130, 200, 64)]:
        for la, lb in (("row", "row"), ("row", "col"), ("col", "row"), ("col", "col")):
            for i in range(3):
                rng = _rng("plan", op, m, k, n, la, lb, i)
                a = _lanes(rng, row[0], row[1], (m, k))
                b = _lanes(rng, row[2], row[3], (k, n))
                ta, tb = torch.from_numpy(a).cuda(), torch.from_numpy(b).cuda()
                ta = ta if la == "row" else ta.t().contiguous().t()
                tb = tb if lb == "row" else tb.t().contiguous().t()
                got = gemm(ta, tb, op=op)
                want = gemm(a, b, op=op, backend="numpy")
                assert np.array_equal(got.cpu().numpy(), want), (m, la, lb, i)
    assert gpu_tensors._PLANS
    if op == "sdot4":  # int8 x int8 past the split-K rows: the TMA kernel's own plan (gpu._tma_plan)
        assert any(getattr(p, "__qualname__", "").startswith("_tma_plan.") for p in gpu_tensors._PLANS.values())
    # The TMA kernel in force (the Gluon one on Hopper) and the passes were launched again directly
    # (gpu_launch.Direct), on real compiled kernels.
    tma = gpu._tma_setup(600, 136, torch.device("cuda"))[0].fn
    for kernel in (tma, gpu_kernels.transpose, gpu_kernels.split):
        assert gpu_launch._DIRECT[kernel]._cache, kernel
    rng = _rng("plan-graph", op)
    x = torch.from_numpy(_lanes(rng, row[0], row[1], (600, 256))).cuda()
    w = torch.from_numpy(_lanes(rng, row[2], row[3], (256, 136))).cuda()
    assert not gpu.splits(600, w)
    static = x.clone()
    graph, got = _captured(torch, lambda: gemm(static, w, op=op))
    for seed in (1, 2):
        xs = torch.from_numpy(_lanes(_rng("plan-graph", op, seed), row[0], row[1], (600, 256))).cuda()
        static.copy_(xs)
        graph.replay()
        want = gemm(xs.cpu().numpy(), w.cpu().numpy(), op=op, backend="numpy")
        assert np.array_equal(got.cpu().numpy(), want)


@pytest.mark.parametrize(
    "m, k, n, plan, kernels",
    [
        (600, 256, 136, "_tma_plan.", None),  # the TMA kernel: mm_ws on Hopper, mm_tma elsewhere
        (32, 4096, 4096, "fast.", ("split",)),  # split-K, chunks meeting in the workspace
        (64, 4096, 4096, "fast.", ("split",)),  # split-K, in an output zero-filled first on Hopper
    ],
)
def test_gpu_plans_step_aside_for_launch_hooks(m, k, n, plan, kernels):
    """A launch hook set after a plan was made (a profiler's) sees the plan's next launches: the plan goes through
    Triton's own launch while a hook is set, and straight to the launcher again after; every result exact."""
    torch = pytest.importorskip("torch")
    from triton import knobs

    from intdot.gemm import gpu_tensors

    g = torch.Generator(device="cuda").manual_seed(12)
    x = torch.randint(-128, 128, (m, k), dtype=torch.int8, device="cuda", generator=g)
    w = torch.randint(-128, 128, (n, k), dtype=torch.int8, device="cuda", generator=g).t()  # column-major
    want = torch._int_mm(x, w)
    assert all(torch.equal(gemm(x, w, op="sdot4"), want) for _ in range(2))
    assert any(getattr(p, "__qualname__", "").startswith(plan) for p in gpu_tensors._PLANS.values())
    seen = []

    def hook(metadata):
        seen.append(metadata.get()["name"])

    knobs.runtime.launch_enter_hook.add(hook)
    try:
        got = gemm(x, w, op="sdot4")
    finally:
        knobs.runtime.launch_enter_hook.remove(hook)
    torch.cuda.synchronize()
    kernels = kernels or (gpu._tma_setup(m, n, x.device)[0].fn.__name__,)
    assert torch.equal(got, want) and all(any(kn in name for name in seen) for kn in kernels), seen
    count = len(seen)
    assert torch.equal(gemm(x, w, op="sdot4"), want) and len(seen) == count


@pytest.mark.parametrize("overlap", [True, False])
def test_gpu_split_k_workspace_between_calls_streams_and_graphs(overlap, monkeypatch):
    """Split-K without c meets in an output zero-filled by a kernel it overlaps (FILL_ROWS, on Hopper), or in a
    per-stream workspace that each call leaves at zero: hundreds of calls back to back without a sync (the first
    into memory left non-zero), two streams at once, a CUDA graph captured and replayed with new data, and the
    shape whose one K chunk stores; each result against torch._int_mm, and the workspaces zero at the end."""
    torch = pytest.importorskip("torch")
    from intdot.gemm import gpu_split, gpu_tensors

    monkeypatch.setattr(gpu_split, "FILL_ROWS", 0 if overlap else 1 << 62)
    monkeypatch.setattr(gpu_split, "_POOLS", {})
    monkeypatch.setattr(gpu_tensors, "_PLANS", {})  # plans made under the other choice

    def case(m, k, n, seed):
        g = torch.Generator(device="cuda").manual_seed(seed)
        x = torch.randint(-128, 128, (m, k), dtype=torch.int8, device="cuda", generator=g)
        w = torch.randint(-128, 128, (n, k), dtype=torch.int8, device="cuda", generator=g).t()  # column-major
        return x, w, torch._int_mm(x, w)

    x, w, want = case(32, 4096, 4096, 1)
    assert gpu_split._grid(32, 4096, 4096, gpu_split.config(32, 4096, 4096, w))[1] > 1  # several chunks meet
    junk = torch.full((32, 4096), 0x5A5A5A5A, dtype=torch.int32, device="cuda")
    del junk  # its memory, likely the next output's (torch's caching allocator), left non-zero
    outs = [gemm(x, w, op="sdot4") for _ in range(400)]
    assert all(torch.equal(o, want) for o in outs)
    x2, w2, want2 = case(32, 4096, 4096, 2)
    s1, s2 = torch.cuda.Stream(), torch.cuda.Stream()
    s1.wait_stream(torch.cuda.current_stream())
    s2.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(s1):
        r1 = [gemm(x, w, op="sdot4") for _ in range(100)]
    with torch.cuda.stream(s2):
        r2 = [gemm(x2, w2, op="sdot4") for _ in range(100)]
    torch.cuda.synchronize()
    assert all(torch.equal(o, want) for o in r1) and all(torch.equal(o, want2) for o in r2)
    static = x.clone()
    graph, got = _captured(torch, lambda: gemm(static, w, op="sdot4"))
    for seed in (3, 4, 5):
        xs = case(32, 4096, 4096, seed)[0]
        static.copy_(xs)
        graph.replay()
        assert torch.equal(got, torch._int_mm(xs, w))
        assert torch.equal(gemm(xs, w, op="sdot4"), torch._int_mm(xs, w))  # eager calls between replays
    x4, w4, want4 = case(64, 4096, 16384, 6)
    assert gpu_split._grid(64, 16384, 4096, gpu_split.config(64, 16384, 4096, w4))[1] == 1  # one chunk: stored
    assert torch.equal(gemm(x4, w4, op="sdot4"), want4)
    torch.cuda.synchronize()
    assert all(not (ws.any() or cnt.any()) for ws, cnt in gpu_split._POOLS.values())
    assert bool(gpu_split._POOLS) != (overlap and gpu_split.pdl(x.device))  # the workspace or the fill


def test_gpu_operands_on_a_device_that_is_not_current():
    """Operands on the second GPU while the first is current: the kernels run where the operands are (Triton
    launches on the current device), split-K and tensor-core shapes, twice each (the remembered plan)."""
    torch = pytest.importorskip("torch")
    if torch.cuda.device_count() < 2:
        pytest.skip("one CUDA GPU visible: operands on a device that is not current need two")
    dev = torch.device("cuda", 1)
    assert torch.cuda.current_device() != 1
    for m in (16, 200):
        rng = _rng("device1", m)
        a = rng.integers(-128, 128, (m, 256)).astype(np.int8)
        b = rng.integers(-128, 128, (256, 96)).astype(np.int8)
        want = gemm(a, b, op="sdot4", backend="numpy")
        for _ in range(2):
            got = gemm(torch.from_numpy(a).to(dev), torch.from_numpy(b).to(dev), op="sdot4")
            assert got.device == dev and np.array_equal(got.cpu().numpy(), want)
