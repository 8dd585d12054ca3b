"""Split-K int8 GEMM for few rows (decode shapes: M <= 64, N and K in the thousands; and up to 512 rows where
B is not row-major, N K <= 2**26 and the TMA kernel's tiles would not fill the GPU twice over: gpu.splits says
where; there, with N >= 4096, one K chunk a program).

With few rows the work is streaming B once: a grid of tiles over N (and M) leaves multiprocessors idle, so K is
cut into ``split`` chunks as well and each program adds its chunk's int32 partial product into the output with an
atomic add.  Addition modulo 2**32 is associative and commutative, so the order in which the chunks land does not
change a bit of the wrapped result (the saturating chain, whose order matters, never comes here).  Each chunk adds
its share of the centring correction of uint8 operands (it is linear in K); ``neg`` negates each chunk
(``-(x + y) = -x - y`` modulo 2**32).

Where the chunks meet: with ``c`` they add into a copy of it.  Without, on Hopper from 33 rows on (FILL_ROWS),
into an output that a kernel of its own fills with zeros (gpu_kernels.zeros), launched just before this one, which
it lets start at once (programmatic dependent launch): this one waits for it only before its atomic adds, so the
fill hides under the K loop.  Elsewhere the output is left uninitialised (a zero fill there is a second launch in
full, as long as the kernel itself for decode shapes): the chunks add into a workspace that is zero between calls,
and the last chunk of a tile to arrive (a per-tile counter says which) moves the sum into the output and zeroes the
workspace and the counter behind it.  One workspace serves each CUDA stream, since kernels on one stream run one
after the other.  While a stream is being captured into a CUDA graph, the output is zero-filled by torch first, so
that a replayed graph needs nothing from the calls around it.
"""

from __future__ import annotations

from . import gpu_launch

# Measured with scripts/gpu/sweep.py (skinny, skinny2) on the lent H200, 2026-12-01: BN, BK, warps, stages, the
# number of programs to aim for, and SWAP; by rows, and for b row-major (N contiguous).
FEW = {"BN": 64, "BK": 256, "num_warps": 4, "num_stages": 4, "programs": 264, "SWAP": True}  # M <= 16
MID = {"BN": 64, "BK": 256, "num_warps": 4, "num_stages": 4, "programs": 132, "SWAP": True}  # M <= 32
WIDE = {"BN": 64, "BK": 256, "num_warps": 4, "num_stages": 4, "programs": 132, "SWAP": False}  # M <= 64
WIDE_LONG = {"BN": 128, "BK": 256, "num_warps": 8, "num_stages": 4, "programs": 132, "SWAP": True}  # N K >= 2**26
# Row-major b (where gpu.py does not send it to gpu_gluon_rowb, whose ``fits`` says where): at most 32 rows
# a tile (at 64, b's re-layout for the tensor cores costs twice the time: 45 against 22 us at M = 64,
# N = K = 4096; transposing b first, 25 us).
ROW = {"BN": 128, "BK": 64, "num_warps": 4, "num_stages": 4, "programs": 264, "SWAP": False, "BM_MAX": 32}
# 64 < M <= 512, b not row-major (scripts/gpu/sweep.py mid, 2026-12-02): one K chunk a program where N >= 4096.
MANY = {"BN": 128, "BK": 256, "num_warps": 4, "num_stages": 4, "programs": 64, "SWAP": False}  # M <= 256
MANY_DEEP = {"BN": 128, "BK": 128, "num_warps": 4, "num_stages": 4, "programs": 132, "SWAP": False}  # M > 256
CONFIG = FEW


def row_major(b) -> bool:
    return b.stride(1) == 1 and b.stride(0) != 1


def config(m: int, n: int, k: int, b):
    """The measured configuration for m rows and b's layout."""
    if row_major(b):
        return ROW
    if m > 64:  # from 128 rows on, N K >= 2**26 takes the shorter K step too (M = 256, N = K = 8192: 45 against 47 us)
        return MANY_DEEP if m > 256 or (m > 128 and n * k >= 1 << 26) else MANY
    if m <= 16:
        return FEW
    if m <= 32:
        return MID
    return WIDE_LONG if n * k >= 1 << 26 else WIDE


def _kernel():
    from .gpu_kernels import split

    return gpu_launch.direct(split)


def block_m(m: int, cfg=None) -> int:
    """The M tile: the smallest of 16, 32, 64 holding m rows (tl.dot needs 16 at least), 64 for more rows (several
    tiles), and at most the configuration's BM_MAX."""
    return min(16 if m <= 16 else 32 if m <= 32 else 64, (cfg or {}).get("BM_MAX", 64))


def plan(m: int, n: int, k: int, cfg=None) -> tuple[int, int]:
    """(split, chunk): how many K chunks and how long each (a multiple of BK) for about ``programs`` programs."""
    cfg = cfg or CONFIG
    bm, bn, bk = block_m(m, cfg), cfg["BN"], cfg["BK"]
    tiles = -(-n // bn) * -(-m // bm)
    steps = -(-k // bk)
    split = max(1, min(steps, cfg["programs"] // max(tiles, 1)))
    per = -(-steps // split)
    split = -(-steps // per)  # no empty chunk
    return split, per * bk


# How the K chunks meet in the kernel (its REDUCE): see the module's docstring.
STORE, ADD, ATOMIC, LAST, FILLED = 0, 1, 2, 3, 4
# Without c, several chunks meet in an output filled by gpu_kernels.zeros just before (FILLED) from this many rows
# on, where the device has programmatic dependent launch (sm_90); else in the workspace (LAST).  scripts/gpu/fill.py
# on the H200 (2026-12-02), do_bench medians at N = K = 4096: 64 rows 14.0-14.3 us filled against 15.0-15.7 in the
# workspace (torch 14.8); 17 and 32 rows 13.0-13.7 against 12.3-13.7, the fill's launch costing more than the last
# chunk's hand-over there; at 16384 alike (74.5-77.2 us both ways).
FILL_ROWS = 33
FILL = 8192  # int32s a program of the zero fill
_PDL: dict = {}  # device index -> whether it launches programmatic dependents

# (device index, stream) -> (workspace, counters): int32, zero between calls (each call leaves them so).
_POOLS: dict = {}
_POOL_LIMIT = 64


def _pool(device, stream, words: int, tiles: int):
    """The stream's workspace and tile counters, at least ``words`` and ``tiles`` long."""
    import torch

    key = (device, stream)
    ws, cnt = _POOLS.get(key, (None, None))
    if ws is None or ws.numel() < words or cnt.numel() < tiles:
        if len(_POOLS) >= _POOL_LIMIT:  # drop the oldest: freed memory is reused on its own stream only, in order
            _POOLS.pop(next(iter(_POOLS)))
        old = 0 if ws is None else ws.numel()
        ws = torch.zeros(max(words, old), dtype=torch.int32, device=device)
        cnt = torch.zeros(max(tiles, 0 if cnt is None else cnt.numel(), 1), dtype=torch.int32, device=device)
        _POOLS[key] = ws, cnt
    return ws, cnt


def _where(device):
    """(stream, capturing): the device's current raw stream, and whether it is being captured into a graph."""
    import torch

    if device.type != "cuda":  # Triton's interpreter, on CPU tensors: one stream
        return 0, False
    stream = gpu_launch.raw_stream(torch)(gpu_launch.device_index(torch, device))
    return stream, torch.cuda.is_current_stream_capturing()


def _launch_args(a, b, out, neg: bool, cfg, reduce: int, ws=None, cnt=None):
    """(grid, the kernel's arguments in order, options) for a (M, K) @ b (K, N) into out."""
    import torch

    m, k = a.shape
    n = b.shape[1]
    grid, chunk = _grid(m, n, k, cfg), plan(m, n, k, cfg)[1]
    a_u8, b_u8 = a.dtype == torch.uint8, b.dtype == torch.uint8
    args = (a, b, out, out if ws is None else ws, out if cnt is None else cnt, m, n, k)
    args += (a.stride(0), a.stride(1), b.stride(0), b.stride(1), chunk)
    args += (128 if a_u8 else 0, 128 if b_u8 else 0, -1 if neg else 1)
    args += (reduce, a_u8, b_u8, block_m(m, cfg), cfg["BN"], cfg["BK"], bool(cfg.get("SWAP", False)))
    return grid, args, dict(num_warps=cfg["num_warps"], num_stages=cfg["num_stages"])


def _grid(m: int, n: int, k: int, cfg) -> tuple[int, int, int]:
    """(N tiles, K chunks, M tiles)."""
    return -(-n // cfg["BN"]), plan(m, n, k, cfg)[0], -(-m // block_m(m, cfg))


def pdl(device) -> bool:
    """Whether ``device`` (a CUDA device) launches programmatic dependents: Hopper (sm_90) and later, with a
    Triton that spells them (3.3 on)."""
    import torch

    index = gpu_launch.device_index(torch, device)
    known = _PDL.get(index)
    if known is None:
        from .gpu_kernels import gdc_wait

        known = _PDL[index] = gdc_wait is not None and torch.cuda.get_device_capability(index)[0] >= 9
    return known


def fill_grid(size: int) -> tuple[int, int, int]:
    """The zero fill's grid over ``size`` int32s."""
    return -(-size // FILL), 1, 1


def fill(out):
    """Launch gpu_kernels.zeros over out (contiguous int32), for a kernel launched next with launch_pdl; the
    launch's return value."""
    from .gpu_kernels import zeros

    size = out.numel()
    return gpu_launch.direct(zeros)[fill_grid(size)](out, size, BLOCK=FILL, num_warps=4)


def planned_fill(filled, torch, device, size: int):
    """The zero fill launched again by a plan: a function (stream, the output's address) over ``size`` int32s, from
    the launch result of ``fill``; None where it cannot be launched directly (gpu_launch.plain).  Its launch hooks
    and settings are those of the kernel the plan launches after it (that kernel's Raw.stale covers both)."""
    zero = gpu_launch.plain(gpu_launch.compiled(filled), torch, device)
    if zero is None:
        return None
    grid = fill_grid(size)

    def launch(stream, address):
        zero(grid, stream, address, size, FILL)

    return launch


def _reduce(m: int, n: int, grid, c, device):
    """(REDUCE, workspace, counters, output, the zero fill's launch result or None) for one call: see the
    module's docstring."""
    import torch

    if c is not None:
        return (ADD if grid[1] == 1 else ATOMIC), None, None, c.clone(), None
    out = torch.empty((m, n), dtype=torch.int32, device=device)
    if grid[1] == 1:
        return STORE, None, None, out, None
    stream, capturing = _where(device)
    if capturing:
        return ATOMIC, None, None, out.zero_(), None
    if m >= FILL_ROWS and device.type == "cuda" and pdl(device):
        return FILLED, None, None, out, fill(out)
    ws, cnt = _pool(device, stream, m * n, grid[0] * grid[2])
    return LAST, ws, cnt, out, None


def _launch(a, b, c, neg: bool, cfg):
    """(output, the kernel's launch result, REDUCE, the zero fill's launch result or None) of one call."""
    m, n = a.shape[0], b.shape[1]
    reduce, ws, cnt, out, filled = _reduce(m, n, _grid(m, n, a.shape[1], cfg), c, a.device)
    grid, args, opts = _launch_args(a, b, out, neg, cfg, reduce, ws, cnt)
    return out, _kernel()[grid](*args, **opts, launch_pdl=reduce == FILLED), reduce, filled


def mm_split(a, b, c, neg: bool, cfg=None):
    """``c ± a @ b`` (modulo 2**32) as a new int32 (M, N) tensor; ``c`` int32 (M, N) contiguous, or None.

    ``a`` (M, K) and ``b`` (K, N) are int8 or uint8 CUDA tensors of any strides: no pass over either.
    """
    return _launch(a, b, c, neg, cfg or config(a.shape[0], b.shape[1], a.shape[1], b))[0]


def fast(a, b, neg: bool, cfg=None):
    """A function (x, y) -> ±(x @ y) as a new int32 tensor, for operands with a's and b's dtypes, shapes, strides
    and 16-byte alignment only: the kernel compiled once, then launched directly (gpu_launch); and this call's
    result.  (None, result) where the kernel cannot be launched directly."""
    import torch

    m, n, k = a.shape[0], b.shape[1], a.shape[1]
    cfg = cfg or config(m, n, k, b)
    out, ck, reduce, filled = _launch(a, b, None, neg, cfg)  # the first call: compiles (or finds) and launches
    ck = gpu_launch.compiled(ck)
    if ck is None or reduce == ATOMIC or not gpu_launch.LIMIT:  # the interpreter; a graph being captured; off
        return None, out
    # Each kernel launched through its launcher's C function (gpu_launch.plain), past Triton's Python wrapper.
    go = gpu_launch.plain(ck, torch, a.device)
    zero = planned_fill(filled, torch, a.device, m * n) if reduce == FILLED else None
    if go is None or reduce == FILLED and zero is None:
        return None, out
    dev = a.device
    grid, args, _ = _launch_args(a, b, out, neg, cfg, reduce)
    rest = args[5:]
    g0, g2 = grid[0], grid[2]
    is_capturing = torch.cuda.is_current_stream_capturing
    # The last stream's workspace (as raw pointers): any workspace left at zero will do, also one the pool has
    # since replaced.  Pointers go to the launcher as ints, which it takes as they are (a tensor costs it a
    # driver query each); the plan's key fixed the device, so they are device pointers.
    # One tuple, replaced whole: threads calling on different streams never mix one stream's pointers with another's.
    held = [(None, 0, 0, None)]  # (stream, the two pointers, the tensors behind them, kept alive here)
    empty, i32 = torch.empty, torch.int32

    def call(x, y):
        # A CUDA graph being captured: the launch that needs nothing from the calls around it; a launch hook, a
        # changed Triton setting or direct launches off: Triton's own launch, which honours them.
        if is_capturing() or go.stale():
            return mm_split(x, y, None, neg, cfg)
        s = go.stream()
        o = empty(m, n, dtype=i32, device=dev)  # sizes as arguments: parsed faster than a shape tuple
        last = held[0]
        if reduce in (STORE, FILLED):
            w = c = 0
            if zero is not None:
                zero(s, o.data_ptr())
        elif last[0] == s:
            w, c = last[1], last[2]
        else:
            ws, cnt = _pool(dev, s, m * n, g0 * g2)
            w, c = ws.data_ptr(), cnt.data_ptr()
            held[0] = s, w, c, (ws, cnt)
        go(grid, s, x.data_ptr(), y.data_ptr(), o.data_ptr(), w, c, *rest)
        return o

    return call, out
