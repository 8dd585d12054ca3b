"""Split-K int8 GEMM for few rows (decode shapes: M <= 64, N and K in the thousands).

With M this small the work is streaming B once: a grid of N / BN tiles leaves most multiprocessors idle, so K is
cut into ``split`` chunks as well and each program adds its chunk's int32 partial product into the output with an
atomic add.  Addition modulo 2**32 is associative and commutative, so the order in which the chunks land does not
change a bit of the wrapped result (the saturating chain, whose order matters, never comes here).  The output
starts as ``c`` (or zeros); the centring correction of uint8 operands is added once, by the chunk that starts at
K = 0; ``neg`` negates each chunk (``-(x + y) = -x - y`` modulo 2**32).
"""

from __future__ import annotations

# Measured with scripts/gpu/sweep.py (skinny, skinny2) on the lent H200, 2026-12-01: BN, BK, warps, stages, the
# number of programs to aim for, and SWAP; by rows, and for b row-major (N contiguous).
FEW = {"BN": 64, "BK": 256, "num_warps": 4, "num_stages": 4, "programs": 264, "SWAP": True}  # M <= 16
MID = {"BN": 64, "BK": 256, "num_warps": 4, "num_stages": 4, "programs": 132, "SWAP": True}  # M <= 32
WIDE = {"BN": 64, "BK": 256, "num_warps": 4, "num_stages": 4, "programs": 132, "SWAP": False}  # M <= 64
WIDE_LONG = {"BN": 128, "BK": 256, "num_warps": 8, "num_stages": 4, "programs": 132, "SWAP": True}  # N K >= 2**26
ROW = {"BN": 128, "BK": 64, "num_warps": 4, "num_stages": 4, "programs": 264, "SWAP": False}
CONFIG = FEW


def config(m: int, n: int, k: int, b):
    """The measured configuration for m rows and b's layout."""
    if b.stride(1) == 1 and b.stride(0) != 1:
        return ROW
    if m <= 16:
        return FEW
    if m <= 32:
        return MID
    return WIDE_LONG if n * k >= 1 << 26 else WIDE


def _kernel():
    from .gpu_kernels import split

    return split


def block_m(m: int) -> int:
    """The M tile: the smallest of 16, 32, 64 holding m rows (tl.dot needs 16 at least)."""
    return 16 if m <= 16 else 32 if m <= 32 else 64


def plan(m: int, n: int, k: int, cfg=None) -> tuple[int, int]:
    """(split, chunk): how many K chunks and how long each (a multiple of BK) for about ``programs`` programs."""
    cfg = cfg or CONFIG
    bm, bn, bk = block_m(m), cfg["BN"], cfg["BK"]
    tiles = -(-n // bn) * -(-m // bm)
    steps = -(-k // bk)
    split = max(1, min(steps, cfg["programs"] // max(tiles, 1)))
    per = -(-steps // split)
    split = -(-steps // per)  # no empty chunk
    return split, per * bk


def _launch_args(a, b, out, neg: bool, cfg):
    """(grid, the kernel's arguments in order, options) for a (M, K) @ b (K, N) into out."""
    import torch

    m, k = a.shape
    n = b.shape[1]
    split, chunk = plan(m, n, k, cfg)
    bm = block_m(m)
    a_u8, b_u8 = a.dtype == torch.uint8, b.dtype == torch.uint8
    grid = (-(-n // cfg["BN"]), split, -(-m // bm))
    args = (a, b, out, m, n, k, a.stride(0), a.stride(1), b.stride(0), b.stride(1), chunk)
    args += (128 if a_u8 else 0, 128 if b_u8 else 0, -1 if neg else 1)
    args += (split > 1, a_u8, b_u8, bm, cfg["BN"], cfg["BK"], bool(cfg.get("SWAP", False)))
    return grid, args, dict(num_warps=cfg["num_warps"], num_stages=cfg["num_stages"])


def mm_split(a, b, out, neg: bool, cfg=None):
    """Add ``±(a @ b)`` (modulo 2**32) into ``out`` (int32 (M, N), contiguous, holding c or zeros), in place.

    ``a`` (M, K) and ``b`` (K, N) are int8 or uint8 CUDA tensors of any strides: no pass over either.
    """
    grid, args, opts = _launch_args(a, b, out, neg, cfg or config(a.shape[0], b.shape[1], a.shape[1], b))
    _kernel()[grid](*args, **opts)
    return out


def fast(a, b, neg: bool):
    """A function (x, y) -> ±(x @ y) as a new int32 tensor, for operands with a's and b's dtypes, shapes, strides
    and 16-byte alignment only: the kernel compiled once, then launched without Triton's per-call argument
    binding (about 30 us of host time a call, more than the whole kernel at N = K = 4096)."""
    import torch
    from triton import knobs
    from triton.runtime import driver

    m, n = a.shape[0], b.shape[1]
    out = torch.zeros((m, n), dtype=torch.int32, device=a.device)
    grid, args, opts = _launch_args(a, b, out, neg, config(m, n, a.shape[1], b))
    ck = _kernel()[grid](*args, **opts)  # the first call: compiles (or finds) and launches
    if ck is None or not hasattr(ck, "run"):
        return None, out
    if hasattr(ck, "result"):
        ck = ck.result()
    rest = args[3:]
    dev = a.device
    index = dev.index if dev.index is not None else torch.cuda.current_device()
    g0, g1, g2 = grid

    def call(x, y):
        o = torch.zeros((m, n), dtype=torch.int32, device=dev)
        stream = driver.active.get_current_stream(index)
        full = (x, y, o) + rest
        enter = knobs.runtime.launch_enter_hook
        meta = ck.launch_metadata(grid, stream, *full) if enter is not None else None
        ck.run(g0, g1, g2, stream, ck.function, ck.packed_metadata, meta, enter, knobs.runtime.launch_exit_hook, *full)
        return o

    return call, out
