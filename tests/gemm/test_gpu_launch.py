"""gpu_launch.Direct's signatures: a launch is repeated directly only where it agrees with an earlier one in
everything Triton could specialise the compiled kernel on (no GPU needed: signatures are plain Python)."""

import pytest

from intdot.gemm import gpu_launch


class _Kernel:
    arg_names = ["x_ptr", "n", "flag", "BLOCK"]


def _sig(grid, *args, **kwargs):
    return gpu_launch.Direct(_Kernel())._signature(grid, args, kwargs)


def test_signatures_tell_apart_what_a_compiled_kernel_depends_on():
    torch = pytest.importorskip("torch")
    buf = torch.zeros(64, dtype=torch.int8)
    x, odd, wide = buf[:32], buf[1:33], torch.zeros(32, dtype=torch.int32)
    base = _sig((4,), x, 32, True, BLOCK=16, num_warps=4)
    assert base is not None and base == _sig((4,), buf[16:48], 32, True, BLOCK=16, num_warps=4)  # 16-byte aligned
    differ = [
        _sig((5,), x, 32, True, BLOCK=16, num_warps=4),  # grid
        _sig((4,), odd, 32, True, BLOCK=16, num_warps=4),  # alignment
        _sig((4,), wide, 32, True, BLOCK=16, num_warps=4),  # dtype
        _sig((4,), x, 33, True, BLOCK=16, num_warps=4),  # an integer's value
        _sig((4,), x, 1, True, BLOCK=16, num_warps=4),  # 1, which Triton specialises
        _sig((4,), x, 32, 1, BLOCK=16, num_warps=4),  # True and 1 are equal in Python, not to Triton
        _sig((4,), x, 32, True, BLOCK=32, num_warps=4),  # a constexpr
        _sig((4,), x, 32, True, BLOCK=16, num_warps=8),  # a launch option
        _sig((4,), x, 32, True, BLOCK=16),  # an option left to its default
    ]
    assert all(d is not None and d != base for d in differ)
    assert len(set(differ)) == len(differ)


def test_launches_that_cannot_be_repeated_go_through_triton():
    torch = pytest.importorskip("torch")
    x = torch.zeros(32, dtype=torch.int8)
    assert _sig(lambda meta: (4,), x, 32, True, BLOCK=16) is None  # a grid computed from the chosen config
    assert _sig((4,), x, 32, True) is None  # a constexpr not named: its default is Triton's to apply
    assert _sig((4,), x, [32], True, BLOCK=16) is None  # an argument of a kind the signature does not know


class _Descriptor:
    """The attributes of Triton's host TensorDescriptor that a signature reads (Triton itself is not imported
    here: the interpreter tests need to import it first, in interpreter mode)."""

    def __init__(self, base, block_shape, padding="zero", layout=None):
        self.base, self.block_shape, self.padding = base, block_shape, padding
        self.shape, self.strides = list(base.shape), list(base.stride())
        if layout is not None:  # a Gluon descriptor's shared-memory layout
            self.layout = layout


def test_descriptors_are_told_apart_by_all_but_their_address():
    torch = pytest.importorskip("torch")
    buf = torch.zeros((64, 64), dtype=torch.int8)
    d = _Descriptor(buf, [16, 32])
    same = _Descriptor(torch.zeros((64, 64), dtype=torch.int8), [16, 32])
    assert _sig((1,), d, 1, True, BLOCK=16) == _sig((1,), same, 1, True, BLOCK=16)
    for other in (
        _Descriptor(buf, [32, 32]),
        _Descriptor(buf[:32], [16, 32]),
        _Descriptor(buf.view(torch.uint8), [16, 32]),
        _Descriptor(buf, [16, 32], padding="nan"),
        _Descriptor(buf, [16, 32], layout=("swizzle", 128)),
    ):
        assert _sig((1,), other, 1, True, BLOCK=16) != _sig((1,), d, 1, True, BLOCK=16)


def test_a_repeated_signature_launches_the_compiled_kernel(monkeypatch):
    """The first launch of a signature goes through Triton and keeps its compiled kernel; the next goes to that
    kernel with every argument in the kernel's order (tensors by address, constexprs after them), on the
    grid padded to three; a changed Triton setting (debug mode) or LIMIT = 0 (INTDOT_GEMM_DIRECT=0) goes through
    Triton again."""
    torch = pytest.importorskip("torch")
    triton_launches, direct_launches = [], []

    class Compiled:
        def run(self, *args):
            raise AssertionError("launched through gpu_launch.launch only")

    compiled = Compiled()

    class Kernel(_Kernel):
        def __getitem__(self, grid):
            def run(*args, **kwargs):
                triton_launches.append((grid, args, kwargs))
                return compiled

            return run

    settings = [(False, None)]
    monkeypatch.setattr(gpu_launch, "_settings", lambda: settings[0])
    monkeypatch.setattr(gpu_launch, "launch", lambda ck, grid, stream, args: direct_launches.append((ck, grid, args)))
    d = gpu_launch.Direct(Kernel())
    x, y = torch.zeros(32, dtype=torch.int8), torch.zeros(32, dtype=torch.int8)
    assert d[(4,)](x, 32, True, BLOCK=16, num_warps=4) is compiled
    assert d[(4,)](y, 32, True, BLOCK=16, num_warps=4) is compiled
    assert len(triton_launches) == 1
    assert direct_launches == [(compiled, (4, 1, 1), (y.data_ptr(), 32, True, 16))]
    settings[0] = (True, None)
    d[(4,)](y, 32, True, BLOCK=16, num_warps=4)
    assert len(triton_launches) == 2 and len(direct_launches) == 1
    # A plan asks for the compiled kernel of a signature: every argument in order, constexprs included.
    assert d.compiled_for((4,), (y, 32, True), dict(BLOCK=16, num_warps=4)) == (compiled, (y, 32, True, 16))
    assert d.compiled_for((4,), (y, 33, True), dict(BLOCK=16, num_warps=4)) is None  # never compiled
    assert d.compiled_for((4,), (y, 32), dict(BLOCK=16)) is None  # not a signature: a named argument missing
    monkeypatch.setattr(gpu_launch, "LIMIT", 0)
    fresh = gpu_launch.Direct(Kernel())
    for _ in range(2):
        fresh[(4,)](x, 32, True, BLOCK=16, num_warps=4)
    assert len(triton_launches) == 4 and len(direct_launches) == 1 and not fresh._cache


def test_unwrapped_finds_the_launcher_behind_tritons_descriptor_wrapper():
    """The TMA plan calls the launcher's C function itself: found inside the wrapper that Triton's own
    wrap_handle_tensordesc builds (the installed Triton's, not a stand-in), with its descriptor metadata; None for a
    kernel that allocates scratch per launch, a launcher without the options the plan passes, no descriptor wrapper,
    or none of its metadata."""
    nvidia = pytest.importorskip("triton.backends.nvidia.driver")

    def launcher(*args):
        return args

    meta = {"swizzle": 3, "elem_size": 1, "elem_type": 0, "block_size": [128, 128], "fp4_padded": False}
    sig = {"a": "tensordesc<i8[128, 128]>", "b": "tensordesc<i8[128, 128]>", "n": "i32"}

    class Run:
        global_scratch_size = profile_scratch_size = 0
        launch_cooperative_grid = launch_pdl = False
        launch = nvidia.wrap_handle_tensordesc(launcher, sig, [meta, meta])

    class Compiled:
        run = Run()

    launch, metas = gpu_launch.unwrapped(Compiled())
    assert launch is launcher and metas == [meta, meta]
    Run.global_scratch_size = 64
    assert gpu_launch.unwrapped(Compiled()) is None
    Run.global_scratch_size = 0
    del Run.launch_pdl  # not the launcher whose leading arguments the plan passes
    assert gpu_launch.unwrapped(Compiled()) is None
    Run.launch_pdl = False
    Run.launch = nvidia.wrap_handle_tensordesc(launcher, {"n": "i32"}, None)  # no descriptor: no wrapper
    assert gpu_launch.unwrapped(Compiled()) is None
    Run.launch = nvidia.wrap_handle_tensordesc(launcher, sig, None)  # descriptors without metadata
    assert gpu_launch.unwrapped(Compiled()) is None
    assert gpu_launch.unwrapped(None) is None


def test_no_hooks_tells_an_empty_hook_chain_from_a_set_hook():
    """A launch goes straight to the launcher only while neither hook is set: None or a chain with no calls (Triton's
    HookChain, here a stand-in: Triton is not imported in this file); a chain with a call or a plain function is."""

    class Chain:
        def __init__(self, *calls):
            self.calls = list(calls)

    assert gpu_launch.no_hooks(None, None) and gpu_launch.no_hooks(Chain(), None) and gpu_launch.no_hooks(None, Chain())
    for hook in (Chain(print), print, lambda metadata: None):
        assert not gpu_launch.no_hooks(hook, None) and not gpu_launch.no_hooks(Chain(), hook)


def test_map_cache_encodes_again_only_when_the_address_changes():
    torch = pytest.importorskip("torch")
    seen = []

    def encode(t, shape, strides):
        seen.append((t.data_ptr(), shape, strides))
        return [len(seen)]

    cache = gpu_launch.MapCache(encode, (4, 8), (8, 1))
    x, y = torch.zeros((4, 8), dtype=torch.int8), torch.zeros((4, 8), dtype=torch.int8)
    assert cache(x) == cache(x) == [1]  # the same address: the map encoded once
    assert cache(y) == [2] and cache(x) == [3]  # a new address each time: encoded again, for that address
    assert seen == [(x.data_ptr(), (4, 8), (8, 1)), (y.data_ptr(), (4, 8), (8, 1)), (x.data_ptr(), (4, 8), (8, 1))]


def test_plain_launches_a_kernel_without_descriptors_through_its_launcher(monkeypatch):
    """A kernel without tensor descriptors (the row-major-B kernel's zero fill) is launched by a plan through the
    launcher's C function, which Triton's wrap_handle_tensordesc returns as it is for such a kernel (the installed
    Triton's); not where it wraps descriptors, allocates scratch, lacks the options the plan passes, or direct
    launches are off."""
    nvidia = pytest.importorskip("triton.backends.nvidia.driver")
    from types import SimpleNamespace

    monkeypatch.setattr(gpu_launch, "raw_stream", lambda torch: lambda index: ("stream", index))
    monkeypatch.setattr(gpu_launch, "device_index", lambda torch, device: 0)
    monkeypatch.setattr(gpu_launch, "_knobs", lambda: SimpleNamespace(runtime=None))
    monkeypatch.setattr(gpu_launch, "_settings", lambda: ())
    launcher = len  # a builtin, as the compiled launcher's C function is
    run = SimpleNamespace(global_scratch_size=0, profile_scratch_size=0, launch_cooperative_grid=0, launch_pdl=0)
    compiled = SimpleNamespace(run=run, function="function", packed_metadata="packed")
    run.launch = nvidia.wrap_handle_tensordesc(launcher, {"out": "*i32", "n": "i32"}, None)
    go = gpu_launch.plain(compiled, None, "cuda:0")
    assert isinstance(go, gpu_launch.Raw) and go.launcher is launcher
    run.launch = nvidia.wrap_handle_tensordesc(launcher, {"a": "tensordesc<i8[128, 128]>"}, [{}])
    assert gpu_launch.plain(compiled, None, "cuda:0") is None
    run.launch, run.global_scratch_size = launcher, 64
    assert gpu_launch.plain(compiled, None, "cuda:0") is None
    run.global_scratch_size = 0
    del run.launch_pdl
    assert gpu_launch.plain(compiled, None, "cuda:0") is None
    run.launch_pdl = 0
    monkeypatch.setattr(gpu_launch, "LIMIT", 0)
    assert gpu_launch.plain(compiled, None, "cuda:0") is None
    assert gpu_launch.plain(None, None, "cuda:0") is None


def test_raw_launch_passes_what_the_launcher_takes(monkeypatch):
    """A plan's launch (gpu_launch.Raw): the grid, the stream, the compiled function and the leading options Triton
    3.6 passes, then the kernel's arguments; stale (back through the general path) while a launch hook is set,
    while direct launches are off, or once a Triton setting has changed since the plan was made."""
    from types import SimpleNamespace

    calls = []
    runtime = SimpleNamespace(launch_enter_hook=None, launch_exit_hook=None, debug=False)
    knobs = SimpleNamespace(runtime=runtime, compilation=SimpleNamespace(instrumentation_mode=""))
    monkeypatch.setattr(gpu_launch, "_knobs", lambda: knobs)
    monkeypatch.setattr(gpu_launch, "raw_stream", lambda torch: lambda index: ("stream", index))
    monkeypatch.setattr(gpu_launch, "device_index", lambda torch, device: 3)
    run = SimpleNamespace(launch_cooperative_grid="coop", launch_pdl="pdl")
    compiled = SimpleNamespace(run=run, function="function", packed_metadata="packed")
    go = gpu_launch.Raw(compiled, lambda *args: calls.append(args), None, "cuda:3")
    assert not go.stale()
    go((4, 2, 1), go.stream(), "map", 7)
    want = (4, 2, 1, ("stream", 3), "function", "coop", "pdl", None, None, "packed", None, None, None, "map", 7)
    assert calls == [want]
    runtime.launch_exit_hook = print
    assert go.stale()
    runtime.launch_exit_hook, runtime.debug = None, True
    assert go.stale()
    runtime.debug = False
    assert not go.stale()
    monkeypatch.setattr(gpu_launch, "LIMIT", 0)
    assert go.stale()


def test_tensor_maps_plan_only_where_every_map_encodes(monkeypatch):
    """A plan's launch and map caches (gpu_launch.tensor_maps): each operand's map encoded over the plan's shape and
    strides with its own metadata, tried on this call's operands; no plan where an encoding fails (Triton spells it
    otherwise), where the launcher is not found, or where direct launches are off."""
    from types import SimpleNamespace

    torch = pytest.importorskip("torch")
    monkeypatch.setattr(gpu_launch, "_knobs", lambda: SimpleNamespace(runtime=None, compilation=None))
    monkeypatch.setattr(gpu_launch, "_settings", lambda: ())
    monkeypatch.setattr(gpu_launch, "raw_stream", lambda torch: None)
    monkeypatch.setattr(gpu_launch, "device_index", lambda torch, device: 0)
    compiled = SimpleNamespace(
        run=SimpleNamespace(launch_cooperative_grid=0, launch_pdl=0), function=0, packed_metadata=0
    )
    monkeypatch.setattr(gpu_launch, "unwrapped", lambda ck: (print, ["meta a", "meta b"]))
    fail = []

    def tensor_map(meta):
        def encode(t, shape, strides):
            if meta in fail:
                raise ValueError(meta)
            return [meta, t.data_ptr(), shape, strides]

        return encode

    monkeypatch.setattr(gpu_launch, "tensor_map", tensor_map)
    x, y = torch.zeros((4, 8), dtype=torch.int8), torch.zeros((8, 2), dtype=torch.int8)
    go, maps = gpu_launch.tensor_maps(compiled, torch, "cuda:0", (x, (4, 8), (8, 1)), (y, (2, 8), (1, 2)))
    assert isinstance(go, gpu_launch.Raw) and go.launcher is print
    assert maps[0](x) == ["meta a", x.data_ptr(), (4, 8), (8, 1)]
    assert maps[1](y) == ["meta b", y.data_ptr(), (2, 8), (1, 2)]
    fail.append("meta b")
    assert gpu_launch.tensor_maps(compiled, torch, "cuda:0", (x, (4, 8), (8, 1)), (y, (2, 8), (1, 2))) is None
    fail.clear()
    monkeypatch.setattr(gpu_launch, "LIMIT", 0)
    assert gpu_launch.tensor_maps(compiled, torch, "cuda:0", (x, (4, 8), (8, 1)), (y, (2, 8), (1, 2))) is None
    monkeypatch.setattr(gpu_launch, "LIMIT", 1)
    monkeypatch.setattr(gpu_launch, "unwrapped", lambda ck: None)
    assert gpu_launch.tensor_maps(compiled, torch, "cuda:0", (x, (4, 8), (8, 1)), (y, (2, 8), (1, 2))) is None
