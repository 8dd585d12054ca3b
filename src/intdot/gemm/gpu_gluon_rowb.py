"""The Hopper (sm_90) split-K kernel for up to 64 rows of int8 and a row-major B, written in Gluon.

int8 tensor-core operands must be K-contiguous, and a row-major B (K, N) is N-contiguous.  gpu_split's kernel
leaves B's re-layout to Triton, whose stores put a warp on two shared-memory banks: 0.54-0.88x torch's best
(B column-major) at 32-64 rows on the H200.  Here each B tile is re-laid once for all rows, conflict-free:

- the tensor-copy engine (TMA) streams A tiles (MP x BK, the rows padded to MP) and B tiles (BK x BN, as B lies)
  through a ring of NUM shared-memory stages, NUM tiles ahead;
- the warp group loads each B tile into registers (``_regs``), 4 K rows x 4 N bytes a lane, and stores it
  K-contiguous into one of two staging tiles, its columns reordered (``_rows``);
- it computes out.T (BN x MP) += B.T @ A.T with asynchronous warpgroup MMAs, one left in flight;
- K is split over SPLIT programs a column of tiles: the only chunk stores; several add atomically into a copy
  of c or a zero-filled output.  int32 addition wraps, so the order in which they land changes no bit.  The zero
  fill is a kernel of its own (gpu_kernels.zeros) that lets this one start at once (programmatic dependent
  launch): this one waits for it (``griddepcontrol.wait``) only before its first atomic add, so the fill and the
  gap between two launches hide under the K loop (1.2-1.4 us a call on the H200, scripts/gpu/h200-results.txt).
  (gpu_split's workspace, which saves the fill, came out slower here: its last chunk's round trips, measured by
  scripts/gpu/gluon_rowb.py, 0.83x against 1.02x torch's best at M = 64, N = K = 4096; equal at 16384);
- the epilogue re-lays the result (``_out``) so that a warp's atomic adds and stores cover whole 128-byte lines.

Past M, N or K the copies fill zeros, so edge tiles need no masks but the epilogue's.  Used for int8 x int8 on
Hopper GPUs with Triton 3.6 (gpu.py says where); tests/gemm/gluon_compile.py compiles it where no GPU is lent.
"""

from __future__ import annotations

from triton.experimental import gluon
from triton.experimental.gluon import language as gl
from triton.experimental.gluon.language.nvidia.hopper import (
    fence_async_shared,
    mbarrier,
    tma,
    warpgroup_mma,
    warpgroup_mma_wait,
)

from . import gpu_launch
from .gpu_gluon import descriptor
from .gpu_split import ATOMIC, STORE, fill, planned_fill  # how K chunks meet (REDUCE); gpu_split's zero fill

# Measured on the H200 (scripts/gpu/gluon_rowb.py, 2026-12-02, kernels alone against torch's on B column-major),
# N = K = 16384: three stages and two programs a multiprocessor 1.00-1.03x at 17-64 rows, one program with four
# stages 0.72-0.79x (at 4096: 1.11-1.26x against 1.01-1.12x); the layouts below need 128 x 128 tiles and one warp
# group.
BN = BK = 128
NUM = 3
# Four stages up to 32 rows where B is long (N K >= LONG; two programs still fit a multiprocessor): at
# N = K = 16384 1.02-1.04x against 1.01x torch's kernel at 17-32 rows; at 4096 they were slower, 1.16-1.20x against
# 1.23-1.26x (scripts/gpu/gluon_rowb.py, 2026-12-02, fourth session).
NUM_LONG = 4
PER_SM = 2
WARPS = 4
# The rows it takes: up to 64; below 17 only where B is long (N K >= LONG).  At N = K = 4096 gpu_split's kernel
# streams B faster for so few rows (1.3-1.6x torch's best); at 16384 this one did, 1.02-1.05x against 0.95-0.98x
# (scripts/gpu/gluon_rowb.py, three stages and two programs a multiprocessor, 2026-12-02).
ROWS = (1, 64)
FEW = 16
LONG = 1 << 26
# The zero fill is gpu_kernels.zeros, overlapped with the kernel after it; else torch.zeros, then the kernel.
OVERLAP = True


@gluon.constexpr_function
def _acc_layout(mp):
    return gl.NVMMADistributedLayout(version=[3, 0], warps_per_cta=[4, 1], instr_shape=[16, mp, 32])


@gluon.constexpr_function
def _regs():
    """B's tile (K, N) in registers: a lane holds 4 K rows x 4 N bytes; a warp's lanes lie 4, 8, 16 N bytes and
    4, 8 K rows apart.  Both tiles swizzle 16-byte chunks by their row's low three bits: the loads reach 16 banks
    (the two K offsets share bit 2 of the row), and the stores (``_rows``) 32."""
    return gl.DistributedLinearLayout(
        reg_bases=[[0, 1], [0, 2], [1, 0], [2, 0], [16, 0], [32, 0], [64, 0]],
        lane_bases=[[0, 4], [0, 8], [0, 16], [4, 0], [8, 0]],
        warp_bases=[[0, 32], [0, 64]],
        block_bases=[],
        shape=[BK, BN],
    )


@gluon.constexpr_function
def _out(mp):
    """The result (staging rows, MP) as the epilogue writes it: a warp's 32 lanes on 32 adjacent columns of B
    (staging rows 32 apart, then 1, 2, 4: ``_rows`` read backwards), so that each atomic add or store of a warp
    covers 128 contiguous bytes of one output row.  In the MMA's own layout a warp's 32 lanes met 32 sectors."""
    m_bits = mp.bit_length() - 1
    return gl.DistributedLinearLayout(
        reg_bases=[[8, 0], [16, 0]] + [[0, 1 << i] for i in range(m_bits - 2)],
        lane_bases=[[32, 0], [64, 0], [1, 0], [2, 0], [4, 0]],
        warp_bases=[[0, 1 << (m_bits - 2)], [0, 1 << (m_bits - 1)]],
        block_bases=[],
        shape=[BN, mp],
    )


@gluon.jit
def _rows(bt, BN: gl.constexpr, BK: gl.constexpr):
    # Staging row r holds B's column (r % (BN / 4)) * 4 + r // (BN / 4): a lane's 4 adjacent columns land BN / 4
    # rows apart, and the lanes' columns 4, 8, 16 apart in rows 1, 2, 4 apart, 8 swizzle phases (the epilogue
    # maps the rows back).  In the order Triton kept B's columns, a warp's stores met on two banks.
    return gl.reshape(gl.permute(gl.reshape(bt, [BN // 4, 4, BK]), [1, 0, 2]), [BN, BK])


@gluon.jit
def _issue(a_desc, b_desc, a_bufs, b_bufs, ready, step, k0, pn, NUM: gl.constexpr):
    BK: gl.constexpr = a_desc.block_type.shape[1]
    BN: gl.constexpr = b_desc.block_type.shape[1]
    s = step % NUM
    mbarrier.expect(ready.index(s), a_desc.block_type.nbytes + b_desc.block_type.nbytes)
    tma.async_copy_global_to_shared(a_desc, [0, k0 + step * BK], ready.index(s), a_bufs.index(s))
    tma.async_copy_global_to_shared(b_desc, [k0 + step * BK, pn * BN], ready.index(s), b_bufs.index(s))


@gluon.jit
def mm_rowb(
    a_desc,
    b_desc,
    out_ptr,
    M,
    N,
    K,
    chunk,
    NUM: gl.constexpr,
    NEG: gl.constexpr,
    REDUCE: gl.constexpr,
    AFTER_FILL: gl.constexpr,
):
    """±(a (M, K) @ b (K, N)) over K from program_id(1) * chunk (a multiple of BK), for the columns of tile
    program_id(0), b row-major, stored into out (M, N) int32 (REDUCE STORE) or added to it atomically (ATOMIC).
    AFTER_FILL: launched right after gpu_kernels.zeros filled out, as its dependent (launch_pdl)."""
    MP: gl.constexpr = a_desc.block_type.shape[0]
    BK: gl.constexpr = a_desc.block_type.shape[1]
    BN: gl.constexpr = b_desc.block_type.shape[1]
    gl.static_assert(NUM >= 2, "a stage is refilled only once the MMA after the one that read it has retired")
    pn = gl.program_id(0)
    k0 = gl.program_id(1) * chunk
    steps = gl.cdiv(gl.minimum(K - k0, chunk), BK)
    a_bufs = gl.allocate_shared_memory(gl.int8, [NUM, MP, BK], a_desc.layout)
    b_bufs = gl.allocate_shared_memory(gl.int8, [NUM, BK, BN], b_desc.layout)
    t_layout: gl.constexpr = gl.NVMMASharedLayout.get_default_for([BN, BK], gl.int8)
    t_bufs = gl.allocate_shared_memory(gl.int8, [2, BN, BK], t_layout)
    ready = gl.allocate_shared_memory(gl.int64, [NUM, 1], mbarrier.MBarrierLayout())
    for i in gl.static_range(NUM):
        mbarrier.init(ready.index(i), count=1)
    for p in gl.static_range(NUM):
        if p < steps:
            _issue(a_desc, b_desc, a_bufs, b_bufs, ready, p, k0, pn, NUM)
    acc = gl.zeros((BN, MP), dtype=gl.int32, layout=_acc_layout(MP))
    for ks in range(steps):
        st = ks % NUM
        mbarrier.wait(ready.index(st), (ks // NUM) & 1)
        b = b_bufs.index(st).load(_regs())
        t = t_bufs.index(ks % 2)
        # The MMA that last read this staging tile (step ks - 2) has retired: at most one is left in flight.
        t.store(_rows(gl.permute(b, [1, 0]), BN, BK))
        fence_async_shared()
        gl.thread_barrier()
        acc = warpgroup_mma(t, a_bufs.index(st).permute((1, 0)), acc, is_async=True)
        acc = warpgroup_mma_wait(1, deps=(acc,))
        # Step ks - 1's MMA has retired and its B tile was read before the barrier: its stage takes a new step.
        if ks >= 1:
            if ks - 1 + NUM < steps:
                _issue(a_desc, b_desc, a_bufs, b_bufs, ready, ks - 1 + NUM, k0, pn, NUM)
    acc = warpgroup_mma_wait(0, deps=(acc,))
    for i in gl.static_range(NUM):
        mbarrier.invalidate(ready.index(i))
    if NEG:
        acc = 0 - acc
    if AFTER_FILL:  # the fill's grid has finished and its zeros are visible: out may be added to
        gl.inline_asm_elementwise("griddepcontrol.wait; // $0", "=r", [], gl.int32, is_pure=False, pack=1)
    layout: gl.constexpr = _out(MP)
    acc = gl.convert_layout(acc, layout)
    r = gl.arange(0, BN, layout=gl.SliceLayout(1, layout))
    n = pn * BN + (r % (BN // 4)) * 4 + r // (BN // 4)
    m = gl.arange(0, MP, layout=gl.SliceLayout(0, layout))
    offs = m[None, :] * N + n[:, None]
    mask = (m[None, :] < M) & (n[:, None] < N)
    if REDUCE == 0:  # STORE
        gl.store(out_ptr + offs, acc, mask=mask)
    else:
        gl.atomic_add(out_ptr + offs, acc, mask=mask, sem="relaxed")


def stages(m: int, n: int, k: int) -> int:
    """The ring's stages (NUM) for m rows of A and a (K, N) B."""
    return NUM_LONG if padded_rows(m) <= 32 and n * k >= LONG else NUM


def padded_rows(m: int) -> int:
    """A's tile rows: a power of two (Triton's shapes), at least 8 (the MMA's narrowest N)."""
    return max(8, 1 << (m - 1).bit_length())


def fits(a, b) -> bool:
    """Whether the kernel takes a (M, K) @ b (K, N): int8, ROWS rows (FEW or fewer only where N K >= LONG), both
    row-major and contiguous, with the 16-byte alignment the tensor-copy engine needs of addresses and row
    strides."""
    import torch

    (m, k), n = a.shape, b.shape[1]
    return (
        a.dtype == b.dtype == torch.int8
        and ROWS[0] <= m <= ROWS[1]
        and (m > FEW or n * k >= LONG)
        and a.stride() == (k, 1)
        and b.stride() == (n, 1)
        and k % 16 == 0
        and n % 16 == 0
        and a.data_ptr() % 16 == 0
        and b.data_ptr() % 16 == 0
    )


def grid(m: int, n: int, k: int, sms: int) -> tuple[tuple[int, int], int]:
    """((column tiles, K chunks), the chunk's length): PER_SM programs a multiprocessor, no empty chunk."""
    tiles, steps = -(-n // BN), -(-k // BK)
    split = max(1, min(steps, PER_SM * sms // tiles))
    per = -(-steps // split)
    return (tiles, -(-steps // per)), per * BK


def _blocks(m: int) -> tuple[list[int], list[int]]:
    return [padded_rows(m), BK], [BK, BN]


def _output(a, m: int, n: int, c, reduce: int):
    """(The output a call starts from, the launch result of its zero fill or None): a copy of c; else, the only K
    chunk stores into an empty output, several add atomically into one that gpu_kernels.zeros fills (the kernel
    launched after it depends on it programmatically)."""
    import torch

    if c is not None:
        return c.clone(), None
    if reduce == ATOMIC and not OVERLAP:
        return torch.zeros((m, n), dtype=torch.int32, device=a.device), None
    out = torch.empty((m, n), dtype=torch.int32, device=a.device)
    return out, (fill(out) if reduce == ATOMIC else None)


def _launch(a, b, c, neg: bool, sms: int):
    """(output, the kernel's launch result, REDUCE, the zero fill's launch result or None) of one call."""
    (m, k), n = a.shape, b.shape[1]
    g, chunk = grid(m, n, k, sms)
    reduce = ATOMIC if c is not None or g[1] > 1 else STORE
    out, zero = _output(a, m, n, c, reduce)
    filled = zero is not None
    block_a, block_b = _blocks(m)
    kernel = gpu_launch.direct(mm_rowb)
    args = (descriptor(a, block_a), descriptor(b, block_b), out, m, n, k, chunk)
    flags = dict(NUM=stages(m, n, k), NEG=bool(neg), REDUCE=reduce, AFTER_FILL=filled)
    flags.update(num_warps=WARPS, launch_pdl=filled)
    return out, kernel[g](*args, **flags), reduce, zero


def mm(a, b, c, neg: bool, sms: int):
    """``c ± a @ b`` (modulo 2**32) as a new int32 (M, N) tensor; ``c`` int32 (M, N) contiguous, or None; a and b
    as ``fits`` says; ``sms`` the device's multiprocessors."""
    return _launch(a, b, c, neg, sms)[0]


def fast(a, b, neg: bool, sms: int):
    """A function (x, y) -> ±(x @ y) as a new int32 tensor for operands with a's and b's dtypes, shapes, strides
    and alignment: the compiled kernel launched with the tensor maps encoded here (gpu_launch.unwrapped); and this
    call's result.  (None, result) where the kernel cannot be launched so.  Under a changed Triton setting, a
    launch hook or direct launches turned off, a call goes through ``mm``."""
    import torch

    (m, k), n = a.shape, b.shape[1]
    out, ck, reduce, filled = _launch(a, b, None, neg, sms)
    planned = gpu_launch.two_maps(gpu_launch.compiled(ck), torch, a.device, (a, (m, k), (k, 1)), (b, (k, n), (n, 1)))
    # The zero fill's launch, where this call filled its output (_output).
    zero = planned_fill(filled, torch, a.device, m * n) if filled is not None else None
    if planned is None or filled is not None and zero is None:
        return None, out
    go, maps = planned
    g, chunk = grid(m, n, k, sms)
    g, rest, dev = (*g, 1), (m, n, k, chunk, stages(m, n, k), bool(neg), reduce, zero is not None), a.device
    start = torch.zeros if reduce == ATOMIC and zero is None else torch.empty

    def call(x, y):
        if go.stale():
            return mm(x, y, None, neg, sms)
        o = start(m, n, dtype=torch.int32, device=dev)  # sizes as arguments: parsed faster than a tuple
        stream = go.stream()
        if zero is not None:
            zero(stream, o.data_ptr())
        go(g, stream, *maps[0](x), *maps[1](y), o.data_ptr(), *rest)
        return o

    return call, out
