"""The CUDA backend's Triton kernels under Triton's interpreter, on CPU tensors: every kernel, every configuration
it can be launched with, every operand layout and 8-bit dtype, edges that fill no tile, c, neg, wrapping past
2**31 and the saturating chain; against NumPy's int64 product and the CPU path (itself checked against the slow
reference).  This is what CI, which has no GPU, knows of the kernels' logic; test_gpu*.py run the same kernels
on a GPU where one is visible (and then these are skipped)."""

import numpy as np
import pytest

from intdot.gemm import gemm, installed

from . import reference_gemm as ref
from .test_gemm import _acc, _lanes, _rng
from .triton_interpret import interpreted

pytestmark = pytest.mark.skipif(
    installed()["gpu"], reason="a CUDA GPU is visible: test_gpu*.py run these kernels on it, compiled"
)

DTYPES = [(np.int8, np.int8), (np.uint8, np.int8), (np.int8, np.uint8), (np.uint8, np.uint8)]


def _values(rng, dtype, shape):
    info = np.iinfo(dtype)
    return rng.integers(int(info.min), int(info.max) + 1, shape).astype(dtype)


def _layout(torch, x, how):
    """The values of ``x`` as a row-major, column-major or strided (every other column of a wider) tensor."""
    t = torch.from_numpy(np.ascontiguousarray(x))
    if how == "col":
        return t.t().contiguous().t()
    if how == "strided":
        wide = torch.zeros((x.shape[0], 2 * x.shape[1]), dtype=t.dtype)
        wide[:, ::2] = t
        return wide[:, ::2]
    return t


def _wrapped(a, b, c=None, neg=False):
    """c ± a @ b modulo 2**32 as int32 bits: NumPy's exact int64 product, then the low 32 bits."""
    s = a.astype(np.int64) @ b.astype(np.int64)
    s = -s if neg else s
    if c is not None:
        s = s + c
    return s.astype(np.uint64).astype(np.uint32).view(np.int32)


# configuration: M
SPLIT_CASES = {"FEW": 5, "MID": 20, "WIDE": 40, "WIDE_LONG": 64, "ROW": 33, "ROW/64": 64, "MANY": 130, "MANY_DEEP": 100}


@pytest.mark.parametrize("name", sorted(SPLIT_CASES))
def test_split_k_kernel_every_configuration(name):
    """gpu_split's kernel: each measured configuration (SWAP or not), one K chunk (stores) and several (atomic
    adds into c, or into the workspace and moved out by a tile's last chunk), uint8 centred in registers with its
    correction added once, K and N that fill no tile."""
    torch = pytest.importorskip("torch")
    from intdot.gemm import gpu_split

    m, k, n = SPLIT_CASES[name], 300, 70
    with interpreted():
        for da, db in DTYPES:
            for programs in (1, 7):
                for i, (la, lb) in enumerate((("row", "col"), ("col", "row"), ("strided", "strided"))):
                    rng = _rng("split", name, da, db, programs, la, lb)
                    a, b = _values(rng, da, (m, k)), _values(rng, db, (k, n))
                    c = rng.integers(-(2**31), 2**31, (m, n)).astype(np.int32)
                    cfg = dict(getattr(gpu_split, name.split("/")[0]), programs=programs)
                    split, _ = gpu_split.plan(m, n, k, cfg)
                    assert (split > 1) == (programs > 1)
                    neg = bool(i % 2)
                    ta, tb = _layout(torch, a, la), _layout(torch, b, lb)
                    for cc in (c, None):  # c added to (a copy of) it; or no c: stored, or met in the workspace
                        got = gpu_split.mm_split(ta, tb, None if cc is None else torch.from_numpy(cc), neg, cfg)
                        assert np.array_equal(got.numpy(), _wrapped(a, b, cc, neg)), (da, db, programs, la, lb)
                    # The workspace and the tile counters are left at zero for the next call.
                    assert all(not (w.any() or n.any()) for w, n in gpu_split._POOLS.values())


@pytest.mark.parametrize(
    ("kind", "config"), [("tma", 0)] + [("plain", i) for i in range(4)] + [("persist", i) for i in range(6)]
)
def test_tensor_core_kernels_every_configuration(kind, config, monkeypatch):
    """gpu.mm_int8 beyond the split-K rows: the TMA kernel, the pointer kernel and the persistent one with each
    configuration their autotuners may pick; every layout of A and B (transposing and centring passes), c, neg."""
    torch = pytest.importorskip("torch")
    from intdot.gemm import gpu

    monkeypatch.setattr(gpu, "KERNEL", kind)
    monkeypatch.setattr(gpu, "SPLIT_M_WIDE", gpu.SPLIT_M)  # 70 rows: the tensor-core kernels, whatever b's layout
    with interpreted(config=config) as kernels:
        assert len(kernels["mm"].tuned.configs) == 4 and len(kernels["mm_persist"].tuned.configs) == 6  # as above
        # K = 100: not a multiple of 16, which the TMA kernels need, so the pointer kernel.  260 x 300: the TMA
        # kernel's 128 x 128 tiles three by three, cut by both edges.
        shapes = [(70, k, 50) for k in ((96, 100) if kind == "plain" else (96,))]
        shapes += [(260, 96, 300)] if kind == "tma" else []
        for da, db in DTYPES:
            for m, k, n in shapes:
                for i, (la, lb) in enumerate((("row", "col"), ("col", "row"), ("row", "strided"))):
                    rng = _rng("tc", kind, config, da, db, m, k, la, lb)
                    a, b = _values(rng, da, (m, k)), _values(rng, db, (k, n))
                    c = rng.integers(-(2**31), 2**31, (m, n)).astype(np.int32) if i else None
                    neg = i == 1
                    tc = None if c is None else torch.from_numpy(c)
                    got = gpu.mm_int8(_layout(torch, a, la), _layout(torch, b, lb), tc, neg=neg)
                    assert np.array_equal(got.numpy(), _wrapped(a, b, c, neg)), (da, db, k, la, lb)


@pytest.mark.parametrize("big", [False, pytest.param(True, marks=pytest.mark.slow)])
@pytest.mark.parametrize("kind", ["split", "plain"])
def test_sums_past_two_to_the_32_wrap(kind, big, monkeypatch):
    """Sums past 2**32 keep their low 32 bits: c near the top plus 255 x 255 over K = 4096 (the epilogue's add
    wraps), and with ``--slow`` K = 2**17 with no c, 8,522,956,800 in all (the int32 accumulators and the
    centring correction wrap); one row takes split-K, 65 rows the pointer kernel's smallest tiles."""
    torch = pytest.importorskip("torch")
    from intdot.gemm import gpu

    monkeypatch.setattr(gpu, "KERNEL", kind)
    m, k = (1 if kind == "split" else 65), (1 << 17 if big else 4096)
    a = np.full((m, k), 255, np.uint8)
    b = np.full((k, 3), 255, np.uint8)
    c = None if big else np.full((m, 3), 2**31 - 5, np.int32)
    with interpreted(config=3):
        got = gpu.mm_int8(torch.from_numpy(a), torch.from_numpy(b), None if c is None else torch.from_numpy(c))
    total = 255 * 255 * k + (0 if c is None else 2**31 - 5)
    assert total >= 2**32 or not big
    low = total % 2**32
    assert np.array_equal(got.numpy(), np.full((m, 3), low - (2**32 if low >= 2**31 else 0), np.int32))
    assert np.array_equal(got.numpy(), _wrapped(a, b, c))


@pytest.mark.parametrize("dense", [0.0, 0.25, 1.0])
@pytest.mark.parametrize("op", ["sdot4", "udot4"])
def test_clamp_chain_walks_what_can_saturate(op, dense, monkeypatch):
    """The saturating chain: bounds per row and column, the outputs that may saturate listed and walked step by
    step (or every output walked, above DENSE_WALK), the rest from the tensor-core kernel; rows that saturate and
    come back, accumulators near both limits."""
    torch = pytest.importorskip("torch")
    from intdot.gemm import gpu_clamp
    from intdot.gemm.gpu_tensors import gemm_tensors
    from intdot.gemm.ops import resolve

    monkeypatch.setattr(gpu_clamp, "DENSE_WALK", dense)
    o = resolve(op, None, None, a_bits=8)
    signed = op == "sdot4"
    dt = np.int8 if signed else np.uint8
    rng = _rng("interpret-clamp", op, dense)
    m, k, n = 70, 128, 24
    a, b = _values(rng, dt, (m, k)), _values(rng, dt, (k, n))
    a[:8, : k // 2] = 127 if signed else 255
    a[:8, k // 2 :] = -128 if signed else 0
    b[:, :4] = 127 if signed else 255
    lo, hi = o.acc_range
    c = rng.integers(lo, hi, (m, n), endpoint=True)
    c[:16] = hi - rng.integers(0, 2**20, (16, n))
    c[16:24] = lo + rng.integers(0, 2**20, (8, n))
    want = gemm(a, b, c, op=op, clamp=True, backend="numpy")
    # And accumulators in the middle of the range: no output can saturate, which one bound for all says.
    c_mid = np.full((m, n), (lo + hi) // 2) + rng.integers(-(2**20), 2**20, (m, n))
    want_mid = gemm(a, b, c_mid, op=op, clamp=True, backend="numpy")
    # neg (each step subtracted): chains heading down, against the slow reference.
    want_neg = ref.gemm(ref.OPS[op], a.tolist(), b.tolist(), c.tolist(), neg=True, clamp=True)
    with interpreted():
        got = gemm_tensors(torch.from_numpy(a), torch.from_numpy(b), torch.from_numpy(c), o, True, False)
        got_mid = gemm_tensors(torch.from_numpy(a), torch.from_numpy(b), torch.from_numpy(c_mid), o, True, False)
        got_neg = gemm_tensors(torch.from_numpy(a), torch.from_numpy(b), torch.from_numpy(c), o, True, True)
    assert np.array_equal(got.numpy().astype(np.int64), want.astype(np.int64))
    assert np.array_equal(got_mid.numpy().astype(np.int64), want_mid.astype(np.int64))
    assert got_neg.numpy().astype(np.int64).tolist() == want_neg


def test_clamp_chain_bounds_by_the_dtypes_before_reading_the_data(monkeypatch):
    """The dtypes bound every chain first: without c, int8 lanes and K below 2**17 can reach no limit, so neither
    operand is read again (no statistics pass); with c far from the limits, only c's extremes are read; with c
    near a limit and small lanes, the dtypes' bound fails and the data's bound decides.  Each against the CPU
    path's step-by-step chain."""
    torch = pytest.importorskip("torch")
    from intdot.gemm import gpu_clamp
    from intdot.gemm.gpu_tensors import gemm_tensors
    from intdot.gemm.ops import resolve

    stats = []
    real = gpu_clamp._abs_stats
    monkeypatch.setattr(gpu_clamp, "_abs_stats", lambda *args: (stats.append(1), real(*args)))
    o = resolve("sdot4", None, None, a_bits=8)
    lo, hi = o.acc_range
    rng = _rng("interpret-clamp-dtype")
    m, k, n = 9, 128, 7
    a, b = _values(rng, np.int8, (m, k)), _values(rng, np.int8, (k, n))
    small_a, small_b = rng.integers(-3, 4, (m, k)).astype(np.int8), rng.integers(-3, 4, (k, n)).astype(np.int8)
    reach = k * 128 * 128  # the dtypes' bound on any chain's excursion
    far = rng.integers(lo + reach, hi - reach, (m, n), endpoint=True)
    near = hi - rng.integers(0, 2**12, (m, n))  # within the dtypes' reach of hi, beyond the small lanes'
    cases = [(a, b, None, False), (a, b, far, False), (small_a, small_b, near, True)]
    with interpreted():
        for x, y, c, read in cases:
            del stats[:]
            want = gemm(x, y, c, op="sdot4", clamp=True, backend="numpy")
            tc = None if c is None else torch.from_numpy(c)
            got = gemm_tensors(torch.from_numpy(x), torch.from_numpy(y), tc, o, True, False)
            assert np.array_equal(got.numpy().astype(np.int64), want.astype(np.int64)), c is None
            assert bool(stats) == read, (c is None, stats)


def test_batches_vectors_and_accumulators_through_gemm_tensors():
    """gemm_tensors' own work on the interpreted kernels: a batch folded into rows, a batch walked problem by
    problem, 1-D operands, a broadcast c, and the unsigned result of udot4."""
    torch = pytest.importorskip("torch")
    from intdot.gemm.gpu_tensors import gemm_tensors
    from intdot.gemm.ops import resolve

    rng = _rng("interpret-batched")
    cases = [
        ("sdot4", (2, 40, 64), (64, 30), None),  # folds into one (80, 64) problem
        ("usdot", (2, 3, 64), (2, 64, 20), (20,)),  # one problem per batch element
        ("udot4", (64,), (64, 24), (24,)),  # a 1-D a: one row, and that axis leaves the result
        ("sdot4", (5, 64), (64,), None),
    ]
    with interpreted():
        for op, sa, sb, sc in cases:
            o = resolve(op, None, None, a_bits=8)
            lo_a, lo_b = o.lane_range("a")[0], o.lane_range("b")[0]
            a = _values(rng, np.uint8 if lo_a == 0 else np.int8, sa)
            b = _values(rng, np.uint8 if lo_b == 0 else np.int8, sb)
            c = None if sc is None else rng.integers(0, 2**32, sc).astype(np.int64)
            want = gemm(a, b, c, op=op, backend="numpy")
            tc = None if c is None else torch.from_numpy(c)
            got = gemm_tensors(torch.from_numpy(a), torch.from_numpy(b), tc, o, False, False)
            assert np.array_equal(got.numpy(), want), (op, sa, sb)


def test_accumulators_in_any_layout(monkeypatch):
    """c as a NumPy row to broadcast (whose checked words are a broadcast view), as a transposed tensor, and in
    the unsigned spelling: the kernels read c and the clamp chain's start at row-major offsets, so each must
    reach them in row-major order (a Fortran-ordered start once gave wrong sums here and only here)."""
    torch = pytest.importorskip("torch")
    from intdot.gemm import gpu
    from intdot.gemm.gpu_tensors import gemm_tensors
    from intdot.gemm.ops import resolve

    rng = _rng("interpret-acc-layout")
    o = resolve("sdot4", None, None, a_bits=8)
    for m, kernel in ((33, "tma"), (70, "plain")):  # split-K, and the pointer kernel (K = 70: no TMA)
        monkeypatch.setattr(gpu, "KERNEL", kernel)
        a, b = _values(rng, np.int8, (m, 70)), _values(rng, np.int8, (70, 17))
        row = rng.integers(-(2**31), 2**31, (17,))
        full = rng.integers(-(2**31), 2**31, (17, m)).T  # a transposed (Fortran-ordered) array
        with interpreted():
            for c in (row, row % 2**32, torch.from_numpy(full), torch.from_numpy(full).to(torch.int32)):
                cn = c.numpy() if isinstance(c, torch.Tensor) else c
                for clamp in (False, True):
                    want = gemm(a, b, cn, op="sdot4", clamp=clamp, backend="numpy")
                    got = gemm_tensors(torch.from_numpy(a), torch.from_numpy(b), c, o, clamp, False)
                    assert np.array_equal(got.numpy(), want), (m, kernel, type(c), clamp)


def test_split_k_takes_the_shapes_gpu_splits_names():
    """Which kernel computes a product (gpu.splits): split-K up to 64 rows whatever b's layout; up to 512 rows where
    b is not row-major, N K <= 2**26 and the TMA kernel would have at most 128 tiles of 128 x 128
    (scripts/gpu/sweep.py mid_direct); the TMA kernel otherwise."""
    torch = pytest.importorskip("torch")
    from intdot.gemm import gpu

    def b(k, n, layout):  # shapes and strides only: no memory
        if layout == "row":
            return torch.empty((k, n), dtype=torch.int8, device="meta")
        if layout == "col":
            return torch.empty((n, k), dtype=torch.int8, device="meta").t()
        return torch.empty((k, 2 * n), dtype=torch.int8, device="meta")[:, ::2]

    for layout in ("row", "col", "strided"):
        wide = layout != "row"
        assert gpu.splits(1, b(4096, 4096, layout)) and gpu.splits(64, b(16384, 16384, layout))
        assert gpu.splits(65, b(4096, 4096, layout)) == wide
        assert gpu.splits(512, b(4096, 4096, layout)) == wide  # 4 x 32 tiles
        assert gpu.splits(256, b(8192, 8192, layout)) == wide  # 2 x 64
        assert not gpu.splits(257, b(8192, 8192, layout))  # 3 x 64
        assert gpu.splits(512, b(16384, 4000, layout)) == wide  # 4 x 32 (N not a multiple of the tile)
        assert not gpu.splits(512, b(16384, 4097, layout))  # 4 x 33
        assert not gpu.splits(128, b(16384, 8192, layout))  # 1 x 64 tiles, but N K = 2**27
        assert not gpu.splits(128, b(8192, 8200, layout))
        assert not gpu.splits(513, b(4096, 4096, layout))


def test_split_k_plan_launches_with_each_streams_workspace(monkeypatch):
    """The remembered split-K launch (gpu_split.fast) as it runs on a GPU, with the launcher's C function replaced
    by a recorder: the leading arguments Triton passes it, then raw pointers of x, y, a new output and the current
    stream's workspace and counters; another stream gets its own pool; a launch hook set, or a graph being
    captured, sends the call through Triton's own launch (mm_split), which honours them."""
    torch = pytest.importorskip("torch")
    from intdot.gemm import gpu_launch, gpu_split

    with interpreted():
        from triton import knobs

        launches = []

        class Launcher:  # a C function: no __code__, so gpu_launch.plain takes it as the launch itself
            def __call__(self, g0, g1, g2, stream, function, coop, pdl, scratch, profile, packed, *args):
                launches.append(((g0, g1, g2), stream, (function, coop, pdl, scratch, profile, packed), args))

        class Run:
            launch = Launcher()
            global_scratch_size = profile_scratch_size = 0
            launch_cooperative_grid = launch_pdl = False

        class Compiled:
            function, packed_metadata, run = "function", "packed", Run()

        stream = [7]
        capturing = [False]
        monkeypatch.setattr(gpu_split, "_launch", lambda a, b, c, neg, cfg: (None, Compiled(), gpu_split.LAST, None))
        monkeypatch.setattr(gpu_launch, "raw_stream", lambda torch: lambda index: stream[0])
        monkeypatch.setattr(torch.cuda, "current_device", lambda: 0)
        monkeypatch.setattr(torch.cuda, "is_current_stream_capturing", lambda: capturing[0])
        monkeypatch.setattr(gpu_split, "_POOLS", {})
        monkeypatch.setattr(gpu_split, "mm_split", lambda a, b, c, neg, cfg: "through Triton's launch")
        x = torch.zeros((40, 300), dtype=torch.int8)
        w = torch.zeros((300, 70), dtype=torch.int8)
        cfg = dict(gpu_split.WIDE, programs=7)
        grid = gpu_split._grid(40, 70, 300, cfg)
        assert grid[1] > 1  # several chunks meet in the workspace
        call, _ = gpu_split.fast(x, w, False, cfg)
        outs = [call(x, w), call(x, w)]
        stream[0] = 9
        outs.append(call(x, w))
        pools = gpu_split._POOLS
        assert set(pools) == {(x.device, 7), (x.device, 9)}
        for (g, s, head, args), o in zip(launches, outs):
            ws, cnt = pools[(x.device, s)]
            assert g == grid and head == ("function", False, False, None, None, "packed")
            assert args[:3] == (None, None, None)  # no launch metadata, no hooks
            assert args[3:8] == (x.data_ptr(), w.data_ptr(), o.data_ptr(), ws.data_ptr(), cnt.data_ptr())
            assert ws.numel() >= 40 * 70 and cnt.numel() >= grid[0] * grid[2]
        assert [s for _, s, *_ in launches] == [7, 7, 9]

        def hook(metadata):
            pass

        knobs.runtime.launch_enter_hook.add(hook)
        try:
            assert call(x, w) == "through Triton's launch"
        finally:
            knobs.runtime.launch_enter_hook.remove(hook)
        capturing[0] = True
        assert call(x, w) == "through Triton's launch"
        capturing[0] = False
        call(x, w)
        assert len(launches) == 4


def test_repeated_launches_go_straight_to_the_compiled_kernel(monkeypatch):
    """A launch whose signature repeats goes to the compiled kernel directly (gpu_launch.Direct), with the
    arguments in the order the launcher takes them; here the compiled kernel is one that runs the interpreted
    kernel on those arguments, named by the kernel's signature.  Each signature twice, with new data: the TMA
    kernel and its passes (every dtype pair, A or B transposed, c, neg), split-K adding into c, and the clamp
    chain's bounds, list walk and tile walk; against NumPy and the CPU path."""
    torch = pytest.importorskip("torch")
    from intdot.gemm import gpu, gpu_clamp, gpu_launch
    from intdot.gemm.gpu_tensors import gemm_tensors
    from intdot.gemm.ops import resolve

    ran = {}

    class Compiled:
        function, packed_metadata = "function", "packed"

        def __init__(self, fn):
            self.fn = fn

        def run(self, g0, g1, g2, stream, function, packed, meta, enter, leave, *args):
            names = self.fn.arg_names
            assert (stream, meta, enter, leave) == (0, None, None, None) and len(args) == len(names)
            name = self.fn.fn.__name__
            ran[name] = ran.get(name, 0) + 1
            self.fn[(g0, g1, g2)](**dict(zip(names, args)))

    monkeypatch.setattr(gpu_launch, "_DIRECT", {})  # kernels wrapped afresh, and forgotten after this test
    monkeypatch.setattr(gpu_launch.Direct, "_compiled", lambda self, handle: Compiled(self.fn))
    monkeypatch.setattr(gpu_launch, "pointer", lambda t: t)  # the interpreter takes tensors, not addresses
    monkeypatch.setattr(gpu, "SPLIT_M_WIDE", gpu.SPLIT_M)  # 70 rows: the TMA kernel, whatever b's layout
    rng = _rng("direct")
    with interpreted():
        for da, db in DTYPES:
            for la, lb in (("row", "col"), ("col", "row")):
                for with_c, neg in ((False, False), (True, True)):
                    for m, k, n in ((70, 96, 50), (20, 96, 50)):  # the TMA kernel, split-K
                        for _ in range(2):
                            a, b = _values(rng, da, (m, k)), _values(rng, db, (k, n))
                            c = rng.integers(-(2**31), 2**31, (m, n)).astype(np.int32) if with_c else None
                            tc = None if c is None else torch.from_numpy(c)
                            got = gpu.mm_int8(_layout(torch, a, la), _layout(torch, b, lb), tc, neg=neg)
                            assert np.array_equal(got.numpy(), _wrapped(a, b, c, neg)), (da, db, la, lb, m)
        o = resolve("sdot4", None, None, a_bits=8)
        lo, hi = o.acc_range
        for dense in (0.0, 1.0):  # the outputs that may saturate listed and walked, or every output walked
            monkeypatch.setattr(gpu_clamp, "DENSE_WALK", dense)
            for _ in range(2):
                a, b = _values(rng, np.int8, (70, 64)), _values(rng, np.int8, (64, 24))
                a[:8] = 127
                # The same outputs listed each time (rows 0-15, near the top; no other can reach a limit), so
                # that the list walk's launch repeats its signature.
                c = rng.integers(-(2**20), 2**20, (70, 24))
                c[:16] = hi - rng.integers(0, 100, (16, 24))
                want = gemm(a, b, c, op="sdot4", clamp=True, backend="numpy")
                got = gemm_tensors(torch.from_numpy(a), torch.from_numpy(b), torch.from_numpy(c), o, True, False)
                assert np.array_equal(got.numpy().astype(np.int64), want.astype(np.int64)), dense
    kernels = {"mm_tma", "transpose", "rows", "split", "abs_stats", "may_saturate", "chain_points", "chain"}
    assert kernels <= set(ran), ran


def test_saturating_pairs_on_tensors_as_on_the_cpu():
    """x86's vpmaddubsw idiom on device tensors: pair sums saturate to 16 bits first (255 x 127 twice is 64770,
    not 32767), as the CPU path computes them; with c in both spellings, a batch, and a 1-D b."""
    torch = pytest.importorskip("torch")
    from intdot.gemm.gpu_tensors import gemm_tensors
    from intdot.gemm.ops import resolve

    op = "x86.vpmaddubsw_vpmaddwd_vpaddd"
    o = resolve(op, None, None, a_bits=8)
    rng = _rng("pairs-on-tensors")
    a = _values(rng, np.uint8, (2, 5, 64))
    b = _values(rng, np.int8, (64, 7))
    a[:, :2] = 255
    b[:, :3] = 127
    c = rng.integers(-(2**31), 2**31, (5, 7))
    with interpreted():
        for cc in (None, c, c.astype(np.int64) % 2**32):
            want = gemm(a, b, cc, op=op, backend="numpy")
            got = gemm_tensors(
                torch.from_numpy(a), torch.from_numpy(b), None if cc is None else torch.from_numpy(cc), o, False, False
            )
            assert np.array_equal(got.numpy(), want)
        got = gemm_tensors(torch.from_numpy(a[0]), torch.from_numpy(b[:, 0].copy()), None, o, False, False)
        assert np.array_equal(got.numpy(), gemm(a[0], b[:, 0], op=op, backend="numpy"))
    assert int(gemm(a[0, :1, :2], b[:2, :1], op=op, backend="numpy")[0, 0]) == 32767  # the saturation is there


@pytest.mark.parametrize("op", ["udot4", "udot8"])
def test_clamp_chain_of_unsigned_lanes_clamps_the_sum_once(op, monkeypatch):
    """Unsigned lanes only move an accumulator one way, so the per-step chain is the sum clamped once: with and
    without neg, accumulators near both limits and in the middle, against the CPU path; no output is walked."""
    torch = pytest.importorskip("torch")
    from intdot.gemm import gpu_clamp
    from intdot.gemm.gpu_tensors import gemm_tensors
    from intdot.gemm.ops import resolve

    def no_walk(*args, **kwargs):
        raise AssertionError("walked")

    monkeypatch.setattr(gpu_clamp, "chain_tensors", no_walk)
    o = resolve(op, None, None, a_bits=8)
    top = 255 if op == "udot4" else 15
    rng = _rng("interpret-unsigned-clamp", op)
    m, k, n = 40, 192, 24
    a, b = rng.integers(0, top + 1, (m, k)).astype(np.uint8), rng.integers(0, top + 1, (k, n)).astype(np.uint8)
    lo, hi = o.acc_range
    c = rng.integers(lo, hi, (m, n), endpoint=True)
    c[:10] = hi - rng.integers(0, 2**16, (10, n))
    c[10:20] = lo + rng.integers(0, 2**16, (10, n))
    # Every accumulator near the limit its chain heads for, none near the other: only that limit may be checked.
    near_hi, near_lo = hi - rng.integers(0, 2**16, (m, n)), lo + rng.integers(0, 2**16, (m, n))
    cases = [(neg, cc) for neg in (False, True) for cc in (c, None)] + [(False, near_hi), (True, near_lo)]
    with interpreted():
        for neg, cc in cases:
            want = gemm(a, b, cc, op=op, clamp=True, neg=neg, backend="numpy")
            tc = None if cc is None else torch.from_numpy(cc)
            got = gemm_tensors(torch.from_numpy(a), torch.from_numpy(b), tc, o, True, neg)
            assert np.array_equal(got.numpy().astype(np.int64), want.astype(np.int64)), (neg, cc is None)
            if cc is near_hi or cc is near_lo:
                assert (want == (lo if neg else hi)).any()  # the limit is reached
    assert (gemm(a, b, c, op=op, clamp=True, backend="numpy") == hi).any()
    assert (gemm(a, b, c, op=op, clamp=True, neg=True, backend="numpy") == lo).any()  # both limits


@pytest.mark.parametrize("name", sorted(ref.OPS))
def test_every_op_through_the_tensor_path_against_the_slow_reference(name):
    """gemm on tensors (the CUDA path, here on the CPU with the kernels interpreted) for every instruction of the
    slow reference: each lane width and signedness, 32- and 64-bit accumulators, c, and the saturating chain with
    neg where the instruction takes them; against the reference's step-by-step pseudocode."""
    torch = pytest.importorskip("torch")
    from intdot.gemm.gpu_tensors import gemm_tensors
    from intdot.gemm.ops import resolve

    row = ref.OPS[name]
    o = resolve(name, None, None, a_bits=row[0])
    with interpreted():
        for m, k, n in [(3, 7, 5), (17, 36, 13)]:
            rng = _rng("tensor-path", name, m, k, n)
            a = _lanes(rng, row[0], row[1], (m, k))
            b = _lanes(rng, row[2], row[3], (k, n))
            ta, tb = torch.from_numpy(a), torch.from_numpy(b)
            for c in (None, _acc(rng, row, (m, n))):
                want = ref.gemm(row, a.tolist(), b.tolist(), c)
                cv = None if c is None else np.array(c, dtype=np.uint64 if row[5] == 64 and not row[6] else np.int64)
                got = gemm_tensors(ta, tb, cv, o, False, False)
                assert got.numpy().astype(np.uint64 if row[5] == 64 and not row[6] else np.int64).tolist() == want
            if row[7]:
                c = _acc(rng, row, (m, n), near_limits=True)
                for neg in (False, True):
                    want = ref.gemm(row, a.tolist(), b.tolist(), c, neg=neg, clamp=True)
                    got = gemm_tensors(ta, tb, np.array(c), o, True, neg)
                    assert got.numpy().astype(np.int64).tolist() == want, neg
